package mcp.api;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * A file of a loaded skill, read with {@code resources/read} and verified against the skill's entry: its size and
 * SHA-256 digest are those the entry lists. Only verified content is ever a {@code SkillFile}.
 *
 * @param server the name of the server it came from (its origin, as the host names it)
 * @param uri the file's URI
 * @param listed the entry's listing the content matched
 * @param contents the verified contents
 * @param raw the {@code resources/read} result exactly as the server sent it
 */
public record SkillFile(String server, String uri, SkillResource listed, ResourceContents contents, JsonNode raw) {

    /** Validates. */
    public SkillFile {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(listed, "listed");
        Objects.requireNonNull(contents, "contents");
        Objects.requireNonNull(raw, "raw");
    }

    /** @return the file's raw bytes (the ones its digest covers) */
    public byte[] bytes() {
        return contents.bytes();
    }

    /** @return the file's bytes as UTF-8 text (malformed sequences replaced) */
    public String text() {
        return new String(bytes(), StandardCharsets.UTF_8);
    }
}
