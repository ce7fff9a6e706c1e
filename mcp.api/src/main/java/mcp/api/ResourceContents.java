package mcp.api;

import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The contents of a resource, text or binary.
 *
 * @param uri the resource's URI
 * @param mimeType its MIME type, when given
 * @param text its text, for a text resource
 * @param blob its base64-encoded bytes, for a binary resource
 */
public record ResourceContents(String uri, Optional<String> mimeType, Optional<String> text, Optional<String> blob) {

    /** Validates. */
    public ResourceContents {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(mimeType, "mimeType");
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(blob, "blob");
    }

    /**
     * @param json an MCP resource contents object
     * @return the contents
     */
    public static ResourceContents fromJson(JsonNode json) {
        return new ResourceContents(json.path("uri").asString(""), text(json, "mimeType"), text(json, "text"),
                text(json, "blob"));
    }

    /**
     * The size of the contents once decoded, computed without decoding: the UTF-8 length of the text, the
     * number of bytes the base64 blob stands for (from its length and padding), or 0 for neither.
     *
     * @return the decoded size in bytes
     */
    public long size() {
        if (blob.isPresent()) {
            String b = blob.get();
            long chars = 0;
            int padding = 0;
            for (int i = 0; i < b.length(); i++) {
                char c = b.charAt(i);
                if (c == '\r' || c == '\n' || c == ' ' || c == '\t') {
                    continue;
                }
                chars++;
                padding = c == '=' ? padding + 1 : 0;
            }
            return Math.max(0, chars * 3 / 4 - padding);
        }
        return text.map(ResourceContents::utf8Length).orElse(0L);
    }

    /**
     * @return the bytes: the blob decoded (line breaks in it ignored), or the text in UTF-8 (empty for neither)
     * @throws McpException if the blob is not valid base64
     */
    public byte[] bytes() {
        if (blob.isPresent()) {
            try {
                // Line breaks are allowed (some servers wrap base64); any other character that is not base64 fails.
                String b = blob.get();
                return java.util.Base64.getDecoder().decode(b.indexOf('\n') < 0 && b.indexOf('\r') < 0 ? b
                        : b.replace("\r", "").replace("\n", ""));
            } catch (IllegalArgumentException e) {
                throw new McpException("Resource " + uri + ": the blob is not valid base64: " + e.getMessage(), e);
            }
        }
        return text.map(t -> t.getBytes(java.nio.charset.StandardCharsets.UTF_8)).orElse(new byte[0]);
    }

    private static long utf8Length(String s) {
        long bytes = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    /** @return the MCP JSON form */
    public ObjectNode toJson() {
        ObjectNode json = McpJson.object().put("uri", uri);
        mimeType.ifPresent(m -> json.put("mimeType", m));
        text.ifPresent(t -> json.put("text", t));
        blob.ifPresent(b -> json.put("blob", b));
        return json;
    }

    private static Optional<String> text(JsonNode json, String field) {
        JsonNode value = json.get(field);
        return value != null && value.isString() ? Optional.of(value.asString()) : Optional.empty();
    }
}
