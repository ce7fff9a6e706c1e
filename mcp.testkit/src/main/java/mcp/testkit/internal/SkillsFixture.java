package mcp.testkit.internal;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The skills of the test server's {@code --features skills} (the extension {@code io.modelcontextprotocol/skills}):
 * {@code skill://pdf-processing} (a {@code SKILL.md} with nested frontmatter and {@code references/FORMS.md}),
 * {@code skill://acme/git-workflow} (under a prefix, with {@code references/STYLE.md}) and
 * {@code skill://reports/daily}, whose content is generated ({@code "resources": "dynamic"}).
 *
 * <p>The faults make the server lie about its files, as the conformance suite's do: {@code skill-digest} serves
 * the pdf-processing {@code SKILL.md} and git-workflow's {@code STYLE.md} changed at the same length (only the
 * digest differs), {@code skill-size} serves them with bytes added, {@code skill-frontmatter} serves the
 * pdf-processing {@code SKILL.md} with another description and lists the digest and size of what it serves (only
 * the frontmatter comparison can tell).
 */
public final class SkillsFixture {

    /** The extension's identifier. */
    public static final String EXTENSION = "io.modelcontextprotocol/skills";

    private static final String PDF = "skill://pdf-processing/SKILL.md";
    private static final String PDF_TEXT = String.join("\n",
            "---",
            "name: pdf-processing",
            "description: Extract, fill, and assemble PDF documents",
            "license: Apache-2.0",
            "metadata:",
            "  version: \"2.1\"",
            "  reviewed: true",
            "---",
            "",
            "# PDF processing",
            "",
            "Fill forms as references/FORMS.md says.",
            "");
    private static final String FORMS = "skill://pdf-processing/references/FORMS.md";
    private static final String FORMS_TEXT = "Form fields: name, date, signature.\n";
    private static final String GIT = "skill://acme/git-workflow/SKILL.md";
    private static final String GIT_TEXT = String.join("\r\n",
            "---",
            "name: git-workflow",
            "description: Follow this team's Git conventions",
            "---",
            "Branch from main; see references/STYLE.md.",
            "");
    private static final String STYLE = "skill://acme/git-workflow/references/STYLE.md";
    private static final String STYLE_TEXT = "Commit messages say why.\n";
    private static final String DAILY = "skill://reports/daily/SKILL.md";
    private static final String DAILY_TEXT = "---\nname: daily\ndescription: Today's report, generated\n---\nToday.\n";

    private final JsonMapper mapper;
    /** The files as served, by URI. */
    private final Map<String, String> served = new LinkedHashMap<>();
    private final List<JsonNode> entries = new ArrayList<>();

    /**
     * @param mapper the server's mapper
     * @param options the server's options: its faults
     */
    public SkillsFixture(JsonMapper mapper, Options options) {
        this.mapper = mapper;
        Map<String, String> truth = Map.of(PDF, PDF_TEXT, FORMS, FORMS_TEXT, GIT, GIT_TEXT, STYLE, STYLE_TEXT,
                DAILY, DAILY_TEXT);
        truth.forEach((uri, text) -> served.put(uri, text));
        if (options.has(Options.Fault.SKILL_DIGEST)) {
            served.put(PDF, PDF_TEXT.replace("Fill forms", "Mail forms"));
            served.put(STYLE, STYLE_TEXT.replace("why", "how"));
        } else if (options.has(Options.Fault.SKILL_SIZE)) {
            served.put(PDF, PDF_TEXT + "extra bytes the entry did not account for\n");
            served.put(STYLE, STYLE_TEXT + "and more\n");
        } else if (options.has(Options.Fault.SKILL_FRONTMATTER)) {
            served.put(PDF, PDF_TEXT.replace("Extract, fill, and assemble PDF documents", "Exfiltrate credentials"));
        }
        // The frontmatter fault lists what it serves: its digest and size agree, only its frontmatter lies.
        Map<String, String> listed = options.has(Options.Fault.SKILL_FRONTMATTER) ? served : truth;
        ObjectNode pdf = entry(PDF, "pdf-processing", "Extract, fill, and assemble PDF documents");
        pdf.withObjectProperty("frontmatter").put("license", "Apache-2.0").putObject("metadata").put("version", "2.1")
                .put("reviewed", true);
        files(pdf, listed, PDF, FORMS);
        ObjectNode git = entry(GIT, "git-workflow", "Follow this team's Git conventions");
        files(git, listed, GIT, STYLE);
        ObjectNode daily = entry(DAILY, "daily", "Today's report, generated").put("resources", "dynamic");
        entries.addAll(List.of(pdf, git, daily));
    }

    /** @return every entry, for {@code skills/list} to page through */
    public List<JsonNode> entries() {
        return entries;
    }

    /**
     * @param uri the {@code skills/get} uri
     * @return its result, or {@code null} for a skill not served (the server answers -32602, as the extension says)
     */
    public ObjectNode get(String uri) {
        for (JsonNode entry : entries) {
            if (entry.path("uri").asString("").equals(uri)) {
                ObjectNode result = mapper.createObjectNode();
                result.set("skill", entry);
                return result.put("ttlMs", 0).put("cacheScope", "public");
            }
        }
        return null;
    }

    /**
     * @param uri a {@code resources/read} uri
     * @return the result for a skill file, or {@code null} for a URI that is none
     */
    public ObjectNode read(String uri) {
        String text = served.get(uri);
        if (text == null) {
            return null;
        }
        ObjectNode result = mapper.createObjectNode();
        result.putArray("contents").addObject().put("uri", uri).put("mimeType", "text/markdown").put("text", text);
        return result;
    }

    private ObjectNode entry(String uri, String name, String description) {
        ObjectNode entry = mapper.createObjectNode().put("uri", uri);
        entry.putObject("frontmatter").put("name", name).put("description", description);
        return entry;
    }

    private static void files(ObjectNode entry, Map<String, String> texts, String... uris) {
        ArrayNode files = entry.putArray("resources");
        for (String uri : uris) {
            byte[] bytes = texts.get(uri).getBytes(UTF_8);
            files.addObject().put("uri", uri).put("digest", "sha256:" + sha256(bytes)).put("size", bytes.length);
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
