package mcp.api;

import java.util.List;
import java.util.Objects;

/**
 * A skill loaded from one server: its {@code SKILL.md} read and verified against the entry (digest, size, and the
 * file's YAML frontmatter compared field by field with the entry's), and the entry held from then on, so that the
 * skill's other files are read only as that entry lists them ({@code McpClient.readSkillFile}).
 *
 * <p>Skill content is the server's text for a model: untrusted input, to be shown tagged with {@link #server()}.
 *
 * @param entry the entry it was loaded and verified by
 * @param skillFile its verified {@code SKILL.md}
 * @param instructions the body of {@code SKILL.md}: the text after the frontmatter block
 */
public record LoadedSkill(SkillEntry entry, SkillFile skillFile, String instructions) {

    /** Validates. */
    public LoadedSkill {
        Objects.requireNonNull(entry, "entry");
        Objects.requireNonNull(skillFile, "skillFile");
        Objects.requireNonNull(instructions, "instructions");
    }

    /** @return the name of the server it came from: its origin, to which its reads are bound */
    public String server() {
        return entry.server();
    }

    /** @return the skill's name */
    public String name() {
        return entry.name();
    }

    /** @return the URIs of the skill's other files, as the held entry lists them, in its order */
    public List<String> files() {
        return entry.resources().orElse(List.of()).stream().map(SkillResource::uri)
                .filter(uri -> !uri.equals(entry.uri())).toList();
    }
}
