package mcp.manager.internal;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import mcp.api.LoadedSkill;
import mcp.api.McpException;
import mcp.api.McpVerificationException;
import mcp.api.ResourceContents;
import mcp.api.ResourceResult;
import mcp.api.SkillEntry;
import mcp.api.SkillFile;
import mcp.api.SkillResource;
import tools.jackson.databind.JsonNode;

/**
 * The host's side of the skills extension's integrity rules (SEP-2640): which entries may be loaded at all, and
 * whether what {@code resources/read} returned is the file the entry lists (size, then SHA-256 digest) and, for a
 * {@code SKILL.md}, whether its frontmatter is the entry's. Nothing here reads anything: the session reads, these
 * judge, and content that fails is never handed on.
 */
final class SkillChecks {

    /** The extension's identifier, under {@code capabilities.extensions} of the server. */
    static final String EXTENSION = "io.modelcontextprotocol/skills";
    /** The extension's limits a host must support: files per skill, and their total size. */
    static final int MAX_FILES = 512;
    static final long MAX_TOTAL_BYTES = 16L << 20;

    private SkillChecks() {
    }

    /**
     * Refuses, before anything is read, an entry mcp-host does not load: a {@code "dynamic"} one (no digests to
     * verify by), one whose files do not list its {@code SKILL.md}, list a file twice or outside the skill's
     * directory, or exceed the extension's limits.
     *
     * @param server the server's name
     * @param entry the entry
     * @throws McpException naming the server, the skill and the reason
     */
    static void loadable(String server, SkillEntry entry) {
        String skill = "MCP server \"" + server + "\": skill " + shown(entry.uri());
        List<SkillResource> files = entry.resources().orElseThrow(() -> new McpException(skill + " is \"dynamic\": its"
                + " server lists no digests for its files, and mcp-host loads only skills it can verify; not loaded"));
        if (entry.resource(entry.uri()).isEmpty()) {
            throw new McpException(skill + ": its entry's resources do not list its " + SkillEntry.SKILL_FILE
                    + "; not loaded");
        }
        if (files.size() > MAX_FILES) {
            throw new McpException(skill + " has " + files.size() + " files, over the extension's limit of " + MAX_FILES
                    + "; not loaded");
        }
        long total = 0;
        Set<String> seen = new HashSet<>();
        String directory = entry.root() + "/";
        for (SkillResource file : files) {
            if (!seen.add(file.uri())) {
                throw new McpException(skill + ": its entry lists " + shown(file.uri()) + " twice; not loaded");
            }
            if (!file.uri().startsWith(directory) || file.uri().contains("/../") || file.uri().endsWith("/..")) {
                throw new McpException(skill + ": its entry lists " + shown(file.uri()) + ", which is not in the skill's"
                        + " directory " + shown(entry.root()) + "; not loaded");
            }
            total += file.size();
        }
        if (total > MAX_TOTAL_BYTES) {
            throw new McpException(skill + "'s files are " + total + " bytes, over the extension's limit of "
                    + MAX_TOTAL_BYTES + "; not loaded");
        }
    }

    /**
     * Verifies a {@code resources/read} result against the entry's listing of the file: its length, then its
     * SHA-256 digest.
     *
     * @param server the server's name
     * @param listed the entry's listing of the file
     * @param result the {@code resources/read} result
     * @return the verified file
     * @throws McpVerificationException when the content is not the listed file
     */
    static SkillFile verify(String server, SkillResource listed, JsonNode result) {
        String file = "MCP server \"" + server + "\": skill file " + shown(listed.uri()) + " failed verification: ";
        ResourceContents contents = contents(ResourceResult.fromJson(result), listed.uri())
                .orElseThrow(() -> new McpVerificationException(file + "the read did not return its contents (one"
                        + " content with its uri); not used", listed.uri()));
        long size = contents.size();
        if (size != listed.size()) {
            throw new McpVerificationException(file + "it is " + size + " bytes, its entry says " + listed.size()
                    + "; not used", listed.uri());
        }
        byte[] bytes;
        try {
            bytes = contents.bytes();
        } catch (McpException e) {
            throw new McpVerificationException(file + e.getMessage() + "; not used", listed.uri());
        }
        String digest = "sha256:" + Sha256.hex(bytes);
        if (bytes.length != listed.size() || !digest.equals(listed.digest())) {
            throw new McpVerificationException(file + "its digest is " + digest + ", its entry says "
                    + listed.digest() + "; not used", listed.uri());
        }
        return new SkillFile(server, listed.uri(), listed, contents, result);
    }

    /**
     * Loads a skill from its verified {@code SKILL.md}: the file's frontmatter must be the entry's, field by field.
     *
     * @param server the server's name
     * @param entry the entry the skill is loaded by
     * @param skillFile its {@code SKILL.md}, verified by {@link #verify}
     * @return the loaded skill
     * @throws McpVerificationException when the frontmatter cannot be read or differs from the entry's
     */
    static LoadedSkill load(String server, SkillEntry entry, SkillFile skillFile) {
        String skill = "MCP server \"" + server + "\": skill " + shown(entry.uri()) + " failed verification: ";
        try {
            Frontmatter.Split split = Frontmatter.split(skillFile.text());
            List<String> differences = Frontmatter.differences(Frontmatter.parse(split.yaml()), entry.frontmatter());
            if (!differences.isEmpty()) {
                throw new McpVerificationException(skill + "the frontmatter of its " + SkillEntry.SKILL_FILE
                        + " differs from its entry's: " + String.join("; ", differences.subList(0,
                        Math.min(5, differences.size()))) + (differences.size() > 5 ? "; and " + (differences.size() - 5)
                        + " more" : "") + "; not loaded", entry.uri());
            }
            return new LoadedSkill(entry, skillFile, split.body());
        } catch (Frontmatter.Unreadable e) {
            throw new McpVerificationException(skill + "its " + SkillEntry.SKILL_FILE + ": " + e.getMessage()
                    + "; not loaded", entry.uri());
        }
    }

    /** @return the content of that URI, or the only content when it names none; empty when neither is clear */
    private static Optional<ResourceContents> contents(ResourceResult result, String uri) {
        List<ResourceContents> all = result.contents();
        List<ResourceContents> matching = all.stream().filter(c -> c.uri().equals(uri)).toList();
        if (matching.size() == 1) {
            return Optional.of(matching.get(0));
        }
        if (matching.isEmpty() && all.size() == 1 && all.get(0).uri().isEmpty()) {
            return Optional.of(all.get(0));
        }
        return Optional.empty();
    }

    /** A URI as a message may show it: cleaned of control characters, cut at 200. */
    static String shown(String uri) {
        return AgentText.clean(uri, 200).text();
    }
}
