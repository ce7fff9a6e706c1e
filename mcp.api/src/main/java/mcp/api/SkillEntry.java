package mcp.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * A skill as a server of the skills extension ({@code io.modelcontextprotocol/skills}, SEP-2640) describes it in
 * {@code skills/list} or {@code skills/get}: the URI of its {@code SKILL.md}, the frontmatter of that file as JSON,
 * and every file of the skill with its digest and size. An entry is a promise about the files, not the files:
 * nothing of a skill is read until it is loaded ({@code McpClient.loadSkill}).
 *
 * <p>A skill's identity is the pair of its server and its URI: two servers may serve the same URI, and those are two
 * unrelated skills. An entry keeps both.
 *
 * @param server the name of the server that described it (the host's name for it, not the server's own)
 * @param uri the URI of the skill's {@code SKILL.md}, e.g. {@code skill://pdf-processing/SKILL.md}
 * @param frontmatter the {@code SKILL.md} frontmatter as the server rendered it (an object with at least the
 *     strings {@code name} and {@code description})
 * @param resources every file of the skill, {@code SKILL.md} included; empty for a skill whose server says its
 *     content is generated ({@code "resources": "dynamic"}), which has no digests to verify
 * @param raw the entry exactly as the server sent it
 */
public record SkillEntry(String server, String uri, JsonNode frontmatter, Optional<List<SkillResource>> resources, JsonNode raw) {

    /** The file name of a skill's instructions, last in every skill URI. */
    public static final String SKILL_FILE = "SKILL.md";

    /** Validates and copies. */
    public SkillEntry {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(frontmatter, "frontmatter");
        resources = Objects.requireNonNull(resources, "resources").map(List::copyOf);
        Objects.requireNonNull(raw, "raw");
        if (!frontmatter.isObject() || !frontmatter.path("name").isString()
                || !frontmatter.path("description").isString()) {
            throw new McpException("Invalid skill " + uri + ": its frontmatter must be an object with the strings name"
                    + " and description, got " + ToolDefinition.abbreviate(frontmatter));
        }
        if (!uri.endsWith("/" + SKILL_FILE)) {
            throw new McpException("Invalid skill " + uri + ": a skill's uri is that of its " + SKILL_FILE);
        }
        String root = uri.substring(0, uri.length() - SKILL_FILE.length() - 1);
        String last = root.substring(root.lastIndexOf('/') + 1);
        if (!last.equals(frontmatter.get("name").asString())) {
            throw new McpException("Invalid skill " + uri + ": the last segment of its path, \"" + last
                    + "\", is not its frontmatter name " + ToolDefinition.abbreviate(frontmatter.get("name")));
        }
    }

    /**
     * Reads an entry from its MCP JSON form.
     *
     * @param server the name of the server that sent it
     * @param json one element of {@code skills/list}'s {@code skills}, or {@code skills/get}'s {@code skill}
     * @return the entry
     * @throws McpException if the entry is not one a host may load: no string {@code uri}, no frontmatter with
     *     {@code name} and {@code description}, a name that is not the last segment of the skill's path, or
     *     {@code resources} neither an array of files nor {@code "dynamic"}
     */
    public static SkillEntry fromJson(String server, JsonNode json) {
        JsonNode uri = json.get("uri");
        if (uri == null || !uri.isString()) {
            throw new McpException("Invalid skill: \"uri\" must be a string, got " + ToolDefinition.abbreviate(json));
        }
        JsonNode resources = json.get("resources");
        Optional<List<SkillResource>> files;
        if (resources != null && resources.isString() && resources.asString().equals("dynamic")) {
            files = Optional.empty();
        } else if (resources != null && resources.isArray()) {
            List<SkillResource> list = new ArrayList<>();
            for (JsonNode file : resources) {
                list.add(SkillResource.fromJson(file));
            }
            files = Optional.of(list);
        } else {
            throw new McpException("Invalid skill " + uri.asString() + ": \"resources\" must be an array of files or"
                    + " \"dynamic\", got " + ToolDefinition.abbreviate(resources));
        }
        return new SkillEntry(server, uri.asString(), json.path("frontmatter"), files, json);
    }

    /** @return the skill's name: its frontmatter {@code name}, also the last segment of its path */
    public String name() {
        return frontmatter.get("name").asString();
    }

    /** @return what the skill is for: its frontmatter {@code description} */
    public String description() {
        return frontmatter.get("description").asString();
    }

    /** @return whether the server generates the skill's content and lists no digests ({@code "dynamic"}) */
    public boolean dynamic() {
        return resources.isEmpty();
    }

    /** @return the skill's directory: its URI without {@code /SKILL.md}, e.g. {@code skill://pdf-processing} */
    public String root() {
        return uri.substring(0, uri.length() - SKILL_FILE.length() - 1);
    }

    /**
     * @param fileUri a file's URI
     * @return the entry's listing of that file, if it lists it
     */
    public Optional<SkillResource> resource(String fileUri) {
        return resources.orElse(List.of()).stream().filter(r -> r.uri().equals(fileUri)).findFirst();
    }

    /**
     * Resolves a reference of the skill's instructions against the skill's directory, as a path in a file system
     * would be: {@code references/FORMS.md} in {@code skill://pdf-processing/SKILL.md} is
     * {@code skill://pdf-processing/references/FORMS.md}. A reference that is already a URI of the skill's directory
     * stays as it is. Nothing here says the file is listed: see {@link #resource(String)}.
     *
     * @param reference a path relative to the skill's directory, or a URI
     * @return the URI
     */
    public String resolve(String reference) {
        Objects.requireNonNull(reference, "reference");
        if (reference.contains("://")) {
            return reference;
        }
        List<String> segments = new ArrayList<>();
        for (String segment : reference.split("/")) {
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..")) {
                if (!segments.isEmpty()) {
                    segments.remove(segments.size() - 1);
                }
                continue; // never above the skill's directory
            }
            segments.add(segment);
        }
        return root() + "/" + String.join("/", segments);
    }
}
