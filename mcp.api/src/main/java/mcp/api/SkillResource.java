package mcp.api;

import java.util.Objects;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * One file of a skill as its entry lists it (the skills extension, {@code io.modelcontextprotocol/skills}): what
 * the file's bytes must be when it is read.
 *
 * @param uri the file's resource URI
 * @param digest the SHA-256 of the file's raw bytes, {@code sha256:} and 64 lower-case hex digits
 * @param size the length of the file's raw bytes
 */
public record SkillResource(String uri, String digest, long size) {

    private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");

    /** Validates. */
    public SkillResource {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(digest, "digest");
        if (!DIGEST.matcher(digest).matches()) {
            throw new McpException("Invalid skill resource " + uri + ": the digest must be sha256: and 64 lower-case"
                    + " hex digits, got " + ToolDefinition.abbreviate(McpJson.mapper().getNodeFactory().stringNode(digest)));
        }
        if (size < 0) {
            throw new McpException("Invalid skill resource " + uri + ": negative size " + size);
        }
    }

    /**
     * @param json one element of a skill entry's {@code resources} array
     * @return the file
     * @throws McpException if {@code uri}, {@code digest} or {@code size} is missing or malformed
     */
    public static SkillResource fromJson(JsonNode json) {
        JsonNode uri = json.get("uri");
        JsonNode digest = json.get("digest");
        JsonNode size = json.get("size");
        if (uri == null || !uri.isString() || digest == null || !digest.isString() || size == null
                || !size.isIntegralNumber() || !size.canConvertToLong()) {
            throw new McpException("Invalid skill resource: it needs a string uri and digest and an integer size, got "
                    + ToolDefinition.abbreviate(json));
        }
        return new SkillResource(uri.asString(), digest.asString(), size.longValue());
    }
}
