package mcp.langchain4j;

import dev.langchain4j.model.chat.request.json.JsonAnyOfSchema;
import dev.langchain4j.model.chat.request.json.JsonArraySchema;
import dev.langchain4j.model.chat.request.json.JsonBooleanSchema;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.model.chat.request.json.JsonIntegerSchema;
import dev.langchain4j.model.chat.request.json.JsonNullSchema;
import dev.langchain4j.model.chat.request.json.JsonNumberSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonRawSchema;
import dev.langchain4j.model.chat.request.json.JsonReferenceSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import mcp.api.McpJson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An MCP tool's JSON Schema as LangChain4j's {@link JsonSchemaElement} model, with nothing the model is told lost.
 *
 * <p>The rules, node by node:
 * <ul>
 *   <li>A node that uses only what a LangChain4j type holds becomes that type: {@code string}, {@code integer},
 *       {@code number}, {@code boolean}, {@code null} with a {@code description}; an object with {@code properties},
 *       {@code required}, a boolean {@code additionalProperties} and {@code $defs}; an array with one {@code items}
 *       schema; an {@code enum} of strings ({@code type} {@code string} or none); {@code anyOf}; a {@code $ref} to
 *       {@code #/$defs/NAME}; a {@code type} list of plain types ({@code ["string", "null"]}), as the {@code anyOf} of
 *       those types, which means the same.</li>
 *   <li>Any other node (a constraint such as {@code minimum}, {@code pattern}, {@code format} or {@code maxItems}, a
 *       {@code default}, {@code examples}, {@code oneOf}, {@code allOf}, {@code const}, an enum of numbers, a tuple, a
 *       schema as {@code additionalProperties}, a {@code $ref} elsewhere) becomes a {@link JsonRawSchema} holding the
 *       node as the server wrote it, nested schemas included. LangChain4j's model providers send a raw schema as it
 *       is, so the model sees every constraint; only code that inspects the typed model sees less.</li>
 *   <li>Annotations that say nothing about the values are dropped everywhere: {@code $schema}, {@code $id},
 *       {@code $comment} and {@code title} (the property's name is its key, and SDKs such as Python's derive the
 *       title from it).</li>
 *   <li>Draft-07 {@code definitions} at the root are {@code $defs} (LangChain4j writes that name), and every
 *       {@code $ref} to {@code #/definitions/NAME} is rewritten to {@code #/$defs/NAME}, raw nodes included.</li>
 *   <li>The root is always an object (a {@link dev.langchain4j.agent.tool.ToolSpecification} takes a
 *       {@link JsonObjectSchema}): a root keyword an object schema cannot hold ({@code oneOf}, {@code allOf},
 *       {@code if}, {@code patternProperties}, a schema as {@code additionalProperties}, {@code minProperties}, ...)
 *       is not sent to the model; {@link #unexpressedRootKeywords} names them. The server still validates the
 *       arguments it gets, and a call it refuses comes back to the model as an error.</li>
 * </ul>
 */
public final class JsonSchemas {

    /** Annotations that tell a model nothing about the values, dropped wherever they are. */
    private static final Set<String> DROPPED = Set.of("$schema", "$id", "$comment", "title");
    private static final Set<String> PLAIN = Set.of("type", "description");
    private static final Set<String> OBJECT = Set.of("type", "description", "properties", "required",
            "additionalProperties", "$defs");
    private static final Set<String> ARRAY = Set.of("type", "description", "items");
    private static final Set<String> ENUM = Set.of("type", "description", "enum");
    private static final Set<String> ANY_OF = Set.of("description", "anyOf");
    private static final Set<String> SIMPLE_TYPES = Set.of("string", "integer", "number", "boolean", "null");
    private static final String DEFS = "#/$defs/";
    private static final String DEFINITIONS = "#/definitions/";

    private JsonSchemas() {
    }

    /**
     * Converts a tool's input schema.
     *
     * @param inputSchema the tool's {@code inputSchema}; a missing or non-object one gives an object with no
     *     properties
     * @return the parameters of the tool's specification
     */
    public static JsonObjectSchema toParameters(JsonNode inputSchema) {
        ObjectNode root = normalizedRoot(inputSchema);
        JsonObjectSchema.Builder builder = JsonObjectSchema.builder();
        String description = text(root, "description");
        if (description != null) {
            builder.description(description);
        }
        fillObject(builder, root);
        return builder.build();
    }

    /**
     * The root keywords of a tool's input schema that {@link #toParameters} does not send to the model: those a
     * LangChain4j object schema cannot hold, and the object keywords in a form it cannot hold (a schema as
     * {@code additionalProperties}).
     *
     * @param inputSchema the tool's {@code inputSchema}
     * @return the keywords, in the schema's order; empty when the conversion kept everything but annotations
     */
    public static List<String> unexpressedRootKeywords(JsonNode inputSchema) {
        ObjectNode root = normalizedRoot(inputSchema);
        List<String> lost = new ArrayList<>();
        for (Map.Entry<String, JsonNode> keyword : root.properties()) {
            JsonNode value = keyword.getValue();
            boolean kept = switch (keyword.getKey()) {
                case "type" -> value.isString() && value.asString().equals("object");
                case "description" -> value.isString();
                case "properties", "$defs" -> value.isObject();
                case "required" -> value.isArray();
                case "additionalProperties" -> value.isBoolean();
                default -> false;
            };
            if (!kept) {
                lost.add(keyword.getKey());
            }
        }
        return lost;
    }

    /**
     * Converts one schema node by the rules above.
     *
     * @param schema a JSON Schema node; {@code true} or an empty object (anything) gives a raw {@code {}}
     * @return its LangChain4j form
     */
    public static JsonSchemaElement toElement(JsonNode schema) {
        Objects.requireNonNull(schema, "schema");
        return element(withoutAnnotations(schema.deepCopy()));
    }

    private static ObjectNode normalizedRoot(JsonNode inputSchema) {
        if (inputSchema == null || !inputSchema.isObject()) {
            return McpJson.object();
        }
        ObjectNode root = (ObjectNode) withoutAnnotations(renameDefinitions((ObjectNode) inputSchema.deepCopy()));
        // An MCP input schema is an object schema whether or not it says so.
        if (!root.has("type")) {
            root.put("type", "object");
        }
        return root;
    }

    private static void fillObject(JsonObjectSchema.Builder builder, ObjectNode node) {
        JsonNode properties = node.get("properties");
        if (properties != null && properties.isObject()) {
            Map<String, JsonSchemaElement> converted = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> property : properties.properties()) {
                converted.put(property.getKey(), element(property.getValue()));
            }
            builder.addProperties(converted);
        }
        JsonNode required = node.get("required");
        if (required != null && required.isArray()) {
            List<String> names = new ArrayList<>();
            required.forEach(name -> names.add(name.asString()));
            builder.required(names);
        }
        JsonNode additional = node.get("additionalProperties");
        if (additional != null && additional.isBoolean()) {
            builder.additionalProperties(additional.booleanValue());
        }
        JsonNode defs = node.get("$defs");
        if (defs != null && defs.isObject()) {
            Map<String, JsonSchemaElement> definitions = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> def : defs.properties()) {
                definitions.put(def.getKey(), element(def.getValue()));
            }
            builder.definitions(definitions);
        }
    }

    private static JsonSchemaElement element(JsonNode node) {
        if (!node.isObject() || node.isEmpty()) {
            // true, {}: anything; false: nothing. No LangChain4j type says either.
            boolean nothing = node.isBoolean() && !node.booleanValue();
            return raw(nothing ? McpJson.object().set("not", McpJson.object()) : McpJson.object());
        }
        ObjectNode object = (ObjectNode) node;
        String description = text(object, "description");
        if (object.has("$ref")) {
            String ref = text(object, "$ref");
            if (ref != null && ref.startsWith(DEFS) && object.size() == 1) {
                return JsonReferenceSchema.builder().reference(ref.substring(DEFS.length())).build();
            }
            return raw(object);
        }
        if (object.has("enum")) {
            return only(object, ENUM) && stringEnum(object) && isTypeOrAbsent(object, "string")
                    ? JsonEnumSchema.builder().description(description).enumValues(strings(object.get("enum"))).build()
                    : raw(object);
        }
        if (object.has("anyOf")) {
            JsonNode anyOf = object.get("anyOf");
            if (!only(object, ANY_OF) || !anyOf.isArray() || anyOf.isEmpty()) {
                return raw(object);
            }
            List<JsonSchemaElement> alternatives = new ArrayList<>();
            anyOf.forEach(alternative -> alternatives.add(element(alternative)));
            return JsonAnyOfSchema.builder().description(description).anyOf(alternatives).build();
        }
        JsonNode type = object.get("type");
        if (type != null && type.isArray()) {
            return typeList(object, (ArrayNode) type, description);
        }
        if (type == null || !type.isString()) {
            return raw(object);
        }
        switch (type.asString()) {
            case "object":
                if (!only(object, OBJECT) || (object.has("additionalProperties")
                        && !object.get("additionalProperties").isBoolean())) {
                    return raw(object);
                }
                JsonObjectSchema.Builder builder = JsonObjectSchema.builder().description(description);
                fillObject(builder, object);
                return builder.build();
            case "array":
                if (!only(object, ARRAY) || (object.has("items") && !object.get("items").isObject())) {
                    return raw(object);
                }
                JsonArraySchema.Builder array = JsonArraySchema.builder().description(description);
                if (object.has("items")) {
                    array.items(element(object.get("items")));
                }
                return array.build();
            default:
                return only(object, PLAIN) ? plain(type.asString(), description) : raw(object);
        }
    }

    /** {@code "type": ["string", "null"]} means the same as the anyOf of those types. */
    private static JsonSchemaElement typeList(ObjectNode object, ArrayNode types, String description) {
        if (!only(object, PLAIN) || types.isEmpty()) {
            return raw(object);
        }
        List<JsonSchemaElement> alternatives = new ArrayList<>();
        for (JsonNode type : types) {
            if (!type.isString() || !SIMPLE_TYPES.contains(type.asString())) {
                return raw(object);
            }
            alternatives.add(plain(type.asString(), null));
        }
        if (alternatives.size() == 1) {
            return plain(types.get(0).asString(), description);
        }
        return JsonAnyOfSchema.builder().description(description).anyOf(alternatives).build();
    }

    private static JsonSchemaElement plain(String type, String description) {
        switch (type) {
            case "string":
                return JsonStringSchema.builder().description(description).build();
            case "integer":
                return JsonIntegerSchema.builder().description(description).build();
            case "number":
                return JsonNumberSchema.builder().description(description).build();
            case "boolean":
                return JsonBooleanSchema.builder().description(description).build();
            case "null":
                // LangChain4j's null schema carries no description; one on a null node is kept raw.
                return description == null ? new JsonNullSchema()
                        : raw(McpJson.object().put("type", "null").put("description", description));
            default:
                return raw(McpJson.object().put("type", type).put("description", description));
        }
    }

    private static JsonRawSchema raw(JsonNode node) {
        return JsonRawSchema.from(McpJson.mapper().writeValueAsString(node));
    }

    private static boolean only(ObjectNode object, Set<String> allowed) {
        for (String name : object.propertyNames()) {
            if (!allowed.contains(name)) {
                return false;
            }
        }
        // A description that is not a string cannot be carried as one.
        return !object.has("description") || object.get("description").isString();
    }

    private static boolean isTypeOrAbsent(ObjectNode object, String type) {
        return !object.has("type") || (object.get("type").isString() && object.get("type").asString().equals(type));
    }

    private static boolean stringEnum(ObjectNode object) {
        JsonNode values = object.get("enum");
        if (!values.isArray() || values.isEmpty()) {
            return false;
        }
        for (JsonNode value : values) {
            if (!value.isString()) {
                return false;
            }
        }
        return true;
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(value -> values.add(value.asString()));
        return values;
    }

    private static String text(ObjectNode object, String name) {
        JsonNode value = object.get(name);
        return value != null && value.isString() ? value.asString() : null;
    }

    /**
     * Removes the annotations that say nothing about the values, in every subschema. Property names are keys, not
     * keywords: a property called {@code title} stays.
     */
    private static JsonNode withoutAnnotations(JsonNode node) {
        if (node.isArray()) {
            node.forEach(JsonSchemas::withoutAnnotations);
        } else if (node.isObject()) {
            ObjectNode object = (ObjectNode) node;
            for (String name : List.copyOf(object.propertyNames())) {
                JsonNode value = object.get(name);
                if (DROPPED.contains(name) && !(name.equals("title") && !value.isString())) {
                    object.remove(name);
                } else if (name.equals("properties") || name.equals("$defs") || name.equals("definitions")
                        || name.equals("patternProperties") || name.equals("dependentSchemas")) {
                    if (value.isObject()) {
                        value.forEach(JsonSchemas::withoutAnnotations);
                    }
                } else if (name.equals("enum") || name.equals("const") || name.equals("default")
                        || name.equals("examples") || name.equals("required")) {
                    // Values, not schemas: a "title" inside a default is data.
                    continue;
                } else {
                    withoutAnnotations(value);
                }
            }
        }
        return node;
    }

    /** Draft-07 {@code definitions} at the root become {@code $defs}, and the references to them follow. */
    private static ObjectNode renameDefinitions(ObjectNode root) {
        if (root.has("definitions") && !root.has("$defs")) {
            root.set("$defs", root.remove("definitions"));
            rewriteReferences(root);
        }
        return root;
    }

    private static void rewriteReferences(JsonNode node) {
        if (node.isArray()) {
            node.forEach(JsonSchemas::rewriteReferences);
        } else if (node.isObject()) {
            ObjectNode object = (ObjectNode) node;
            JsonNode ref = object.get("$ref");
            if (ref != null && ref.isString() && ref.asString().startsWith(DEFINITIONS)) {
                object.put("$ref", DEFS + ref.asString().substring(DEFINITIONS.length()));
            }
            object.forEach(JsonSchemas::rewriteReferences);
        }
    }
}
