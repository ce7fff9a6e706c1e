package mcp.api;

import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One content item of a tool result. Items of a kind this version does not know are kept as
 * {@link Unknown} rather than dropped.
 */
public sealed interface Content {

    /** @return the MCP JSON form of this item */
    ObjectNode toJson();

    /**
     * Reads a content item from its MCP JSON form.
     *
     * @param json one element of a result's {@code content} array
     * @return the item; {@link Unknown} for an unknown or malformed kind
     */
    static Content fromJson(JsonNode json) {
        String type = json.path("type").asString("");
        switch (type) {
            case "text":
                if (json.path("text").isString()) {
                    return new Text(json.get("text").asString());
                }
                break;
            case "image":
            case "audio":
                if (json.path("data").isString() && json.path("mimeType").isString()) {
                    String data = json.get("data").asString();
                    String mime = json.get("mimeType").asString();
                    return type.equals("image") ? new Image(data, mime) : new Audio(data, mime);
                }
                break;
            case "resource":
                if (json.path("resource").path("uri").isString()) {
                    return new EmbeddedResource(ResourceContents.fromJson(json.get("resource")));
                }
                break;
            case "resource_link":
                if (json.path("uri").isString()) {
                    return new ResourceLink(json.get("uri").asString(), optText(json, "name"),
                            optText(json, "description"), optText(json, "mimeType"));
                }
                break;
            default:
                break;
        }
        return new Unknown(type, json);
    }

    private static Optional<String> optText(JsonNode json, String field) {
        JsonNode value = json.get(field);
        return value != null && value.isString() ? Optional.of(value.asString()) : Optional.empty();
    }

    /** @param text the text */
    record Text(String text) implements Content {
        /** Validates. */
        public Text {
            Objects.requireNonNull(text, "text");
        }

        @Override
        public ObjectNode toJson() {
            return McpJson.object().put("type", "text").put("text", text);
        }
    }

    /**
     * @param data base64-encoded bytes
     * @param mimeType e.g. {@code image/png}
     */
    record Image(String data, String mimeType) implements Content {
        /** Validates. */
        public Image {
            Objects.requireNonNull(data, "data");
            Objects.requireNonNull(mimeType, "mimeType");
        }

        @Override
        public ObjectNode toJson() {
            return McpJson.object().put("type", "image").put("data", data).put("mimeType", mimeType);
        }
    }

    /**
     * @param data base64-encoded bytes
     * @param mimeType e.g. {@code audio/wav}
     */
    record Audio(String data, String mimeType) implements Content {
        /** Validates. */
        public Audio {
            Objects.requireNonNull(data, "data");
            Objects.requireNonNull(mimeType, "mimeType");
        }

        @Override
        public ObjectNode toJson() {
            return McpJson.object().put("type", "audio").put("data", data).put("mimeType", mimeType);
        }
    }

    /** @param resource the resource's contents, inline */
    record EmbeddedResource(ResourceContents resource) implements Content {
        /** Validates. */
        public EmbeddedResource {
            Objects.requireNonNull(resource, "resource");
        }

        @Override
        public ObjectNode toJson() {
            ObjectNode json = McpJson.object().put("type", "resource");
            json.set("resource", resource.toJson());
            return json;
        }
    }

    /**
     * A link to a resource the client may read later.
     *
     * @param uri the resource's URI
     * @param name its name, when given
     * @param description its description, when given
     * @param mimeType its MIME type, when given
     */
    record ResourceLink(String uri, Optional<String> name, Optional<String> description, Optional<String> mimeType)
            implements Content {
        /** Validates. */
        public ResourceLink {
            Objects.requireNonNull(uri, "uri");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(description, "description");
            Objects.requireNonNull(mimeType, "mimeType");
        }

        @Override
        public ObjectNode toJson() {
            ObjectNode json = McpJson.object().put("type", "resource_link").put("uri", uri);
            name.ifPresent(n -> json.put("name", n));
            description.ifPresent(d -> json.put("description", d));
            mimeType.ifPresent(m -> json.put("mimeType", m));
            return json;
        }
    }

    /**
     * An item of a kind this version does not know, kept as sent.
     *
     * @param type its {@code type} member ({@code ""} when absent)
     * @param raw the item as sent
     */
    record Unknown(String type, JsonNode raw) implements Content {
        /** Validates. */
        public Unknown {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(raw, "raw");
        }

        @Override
        public ObjectNode toJson() {
            return raw.isObject() ? ((ObjectNode) raw).deepCopy() : McpJson.object().put("type", type);
        }
    }
}
