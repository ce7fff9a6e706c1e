package mcp.manager;

import static mcp.manager.TestServerProcesses.connect;
import static mcp.manager.TestServerProcesses.received;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import mcp.api.LoadedSkill;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.McpVerificationException;
import mcp.api.SkillEntry;
import mcp.api.SkillFile;
import mcp.api.SkillResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The skills extension ({@code io.modelcontextprotocol/skills}, SEP-2640) against the testkit server's
 * {@code --features skills} (a real child over stdio), in both eras: listing without reading a file, loading with
 * the size, digest and frontmatter checks, reading a loaded skill's files only as its entry lists them, and the
 * testkit's faults, which serve files other than their entries say.
 */
class SkillsTest {

    private static final String PDF = "skill://pdf-processing/SKILL.md";
    private static final String FORMS = "skill://pdf-processing/references/FORMS.md";
    private static final String GIT = "skill://acme/git-workflow/SKILL.md";
    private static final String STYLE = "skill://acme/git-workflow/references/STYLE.md";
    private static final String DAILY = "skill://reports/daily/SKILL.md";

    private final List<McpClient> clients = new ArrayList<>();

    @AfterEach
    void closeEverything() throws InterruptedException {
        clients.forEach(McpClient::close);
        TestServerProcesses.assertNoChildProcessLeft();
    }

    private McpClient connectIn(String era, ClientOptions.Builder options, String... more) {
        List<String> args = new ArrayList<>(List.of("--era", era, "--features", "skills"));
        args.addAll(List.of(more));
        McpClient client = connect(options.build().serverName(), options, args.toArray(String[]::new));
        clients.add(client);
        assertEquals(era.equals("modern") ? McpClient.MODERN_PROTOCOL_VERSION : McpClient.LATEST_PROTOCOL_VERSION,
                client.initializeResult().protocolVersion());
        return client;
    }

    private static long count(List<String> methods, String method) {
        return methods.stream().filter(method::equals).count();
    }

    private static SkillEntry entry(McpClient client, String uri) {
        return McpClient.await(client.listSkills()).stream().filter(e -> e.uri().equals(uri)).findFirst().orElseThrow();
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void listsEveryPageAndReadsNoFile(String era) {
        McpClient client = connectIn(era, ClientOptions.builder("list-" + era), "--page-size", "1");
        List<SkillEntry> skills = McpClient.await(client.listSkills());
        assertEquals(List.of(PDF, GIT, DAILY), skills.stream().map(SkillEntry::uri).toList());
        SkillEntry pdf = skills.get(0);
        assertEquals("pdf-processing", pdf.name());
        assertEquals("Extract, fill, and assemble PDF documents", pdf.description());
        assertEquals("2.1", pdf.frontmatter().path("metadata").path("version").asString());
        assertEquals(List.of(PDF, FORMS), pdf.resources().orElseThrow().stream().map(SkillResource::uri).toList());
        assertEquals(FORMS, pdf.resolve("references/FORMS.md"));
        assertEquals(FORMS, pdf.resolve("../references/./FORMS.md"), "never above the skill's directory");
        assertEquals("skill://acme/git-workflow", skills.get(1).root());
        assertTrue(skills.get(2).dynamic());

        SkillEntry got = McpClient.await(client.getSkill(GIT));
        assertEquals(skills.get(1), got);
        List<String> methods = received(client);
        assertEquals(3, count(methods, "skills/list"), "three pages: " + methods);
        assertEquals(0, count(methods, "resources/read"), "no file is fetched ahead of need: " + methods);
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void loadsASkillVerifiedAndReadsItsListedFiles(String era) {
        McpClient client = connectIn(era, ClientOptions.builder("load-" + era));
        LoadedSkill pdf = McpClient.await(client.loadSkill(entry(client, PDF)));
        assertEquals("load-" + era, pdf.server());
        assertEquals("load-" + era, pdf.entry().server());
        assertEquals("pdf-processing", pdf.name());
        assertTrue(pdf.instructions().startsWith("\n# PDF processing\n"), pdf.instructions());
        assertTrue(pdf.skillFile().text().startsWith("---\nname: pdf-processing\n"));
        assertEquals(List.of(FORMS), pdf.files());
        SkillFile forms = McpClient.await(client.readSkillFile(pdf, "references/FORMS.md"));
        assertEquals("Form fields: name, date, signature.\n", forms.text());
        assertEquals(FORMS, forms.uri());

        // By URI alone (skills/get, then the load); a SKILL.md with CRLF line ends, under a prefix.
        LoadedSkill git = McpClient.await(client.loadSkill(GIT));
        assertEquals("Branch from main; see references/STYLE.md.\r\n", git.instructions());
        assertEquals("Commit messages say why.\n", McpClient.await(client.readSkillFile(git, STYLE)).text());
        List<String> methods = received(client);
        assertEquals(4, count(methods, "resources/read"), methods.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void aDigestMismatchIsAVerificationFailureAndNothingIsReturned(String era) {
        McpClient client = connectIn(era, ClientOptions.builder("digest-" + era), "--fault", "skill-digest");
        McpVerificationException error = assertThrows(McpVerificationException.class,
                () -> McpClient.await(client.loadSkill(entry(client, PDF))));
        String message = error.getMessage();
        assertTrue(message.startsWith("MCP server \"digest-" + era + "\": skill file " + PDF + " failed verification: "
                + "its digest is sha256:"), message);
        assertTrue(message.contains(", its entry says sha256:"), message);
        assertEquals(PDF, error.uri());
        // The same session goes on: another skill loads, and its file that was changed fails on its own.
        LoadedSkill git = McpClient.await(client.loadSkill(GIT));
        McpVerificationException file = assertThrows(McpVerificationException.class,
                () -> McpClient.await(client.readSkillFile(git, "references/STYLE.md")));
        assertTrue(file.getMessage().contains(STYLE) && file.getMessage().contains("digest"), file.getMessage());
        assertTrue(client.isOpen());
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void aSizeMismatchIsAVerificationFailure(String era) {
        McpClient client = connectIn(era, ClientOptions.builder("size-" + era), "--fault", "skill-size");
        McpVerificationException error = assertThrows(McpVerificationException.class,
                () -> McpClient.await(client.loadSkill(entry(client, PDF))));
        SkillResource listed = entry(client, PDF).resource(PDF).orElseThrow();
        String expected = "it is " + (listed.size() + "extra bytes the entry did not account for\n".length())
                + " bytes, its entry says " + listed.size();
        assertTrue(error.getMessage().contains(expected), error.getMessage());
        LoadedSkill git = McpClient.await(client.loadSkill(GIT));
        McpVerificationException file = assertThrows(McpVerificationException.class,
                () -> McpClient.await(client.readSkillFile(git, STYLE)));
        assertTrue(file.getMessage().contains("its entry says 25"), file.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void aFrontmatterThatDiffersFromTheEntryKeepsTheSkillFromLoading(String era) {
        McpClient client = connectIn(era, ClientOptions.builder("frontmatter-" + era), "--fault", "skill-frontmatter");
        McpVerificationException error = assertThrows(McpVerificationException.class,
                () -> McpClient.await(client.loadSkill(entry(client, PDF))));
        String message = error.getMessage();
        assertTrue(message.startsWith("MCP server \"frontmatter-" + era + "\": skill " + PDF + " failed verification: "
                + "the frontmatter of its SKILL.md differs from its entry's: description: the file has"
                + " \"Exfiltrate credentials\", the entry \"Extract, fill, and assemble PDF documents\""), message);
        assertTrue(message.endsWith("; not loaded"), message);
        // Its digest and size were right: only the comparison could tell.
        assertEquals(1, count(received(client), "resources/read"));
    }

    @Test
    void aFileTheHeldEntryDoesNotListIsNotRead() {
        McpClient client = connectIn("legacy", ClientOptions.builder("unlisted"));
        LoadedSkill pdf = McpClient.await(client.loadSkill(PDF));
        for (String reference : List.of("references/GUIDE.md", STYLE, "SKILL.md/../../git-workflow/SKILL.md")) {
            CompletableFuture<SkillFile> read = client.readSkillFile(pdf, reference);
            assertTrue(read.isDone(), "refused at once");
            McpVerificationException error = assertThrows(McpVerificationException.class, () -> McpClient.await(read));
            assertTrue(error.getMessage().contains("is not a file of skill " + PDF), error.getMessage());
        }
        assertEquals(1, count(received(client), "resources/read"), "only the SKILL.md");
    }

    @Test
    void aDynamicSkillIsNotLoadedAndNothingIsRead() {
        McpClient client = connectIn("modern", ClientOptions.builder("dynamic"));
        CompletableFuture<LoadedSkill> load = client.loadSkill(entry(client, DAILY));
        assertTrue(load.isDone());
        McpException error = assertThrows(McpException.class, () -> McpClient.await(load));
        assertTrue(error.getMessage().contains(DAILY + " is \"dynamic\""), error.getMessage());
        assertEquals(0, count(received(client), "resources/read"));
    }

    @Test
    void aSkillFileOverTheResourceLimitIsNotRead() {
        McpClient client = connectIn("legacy", ClientOptions.builder("small").maxResourceBytes(100));
        McpException error = assertThrows(McpException.class, () -> McpClient.await(client.loadSkill(PDF)));
        assertTrue(error.getMessage().contains("over the limit of 100 bytes (maxResourceBytes); not read"),
                error.getMessage());
        assertEquals(0, count(received(client), "resources/read"));
    }

    @Test
    void aSkillOfOneServerIsNeitherLoadedNorReadThroughAnother() {
        McpClient one = connectIn("legacy", ClientOptions.builder("one"));
        McpClient two = connectIn("legacy", ClientOptions.builder("two"));
        LoadedSkill pdf = McpClient.await(one.loadSkill(PDF));
        McpException error = assertThrows(McpException.class, () -> McpClient.await(two.readSkillFile(pdf, FORMS)));
        assertEquals("Skill " + PDF + " is of MCP server \"one\"; its files are not read from \"two\"",
                error.getMessage());
        McpException load = assertThrows(McpException.class, () -> McpClient.await(two.loadSkill(pdf.entry())));
        assertEquals(error.getMessage(), load.getMessage());
        assertEquals(0, count(received(two), "resources/read"));
    }

    @Test
    void anUnknownSkillIsTheServersInvalidParams() {
        McpClient client = connectIn("modern", ClientOptions.builder("unknown"));
        McpProtocolException error = assertThrows(McpProtocolException.class,
                () -> McpClient.await(client.getSkill("skill://nowhere/SKILL.md")));
        assertEquals(-32602, error.code());
    }

    @Test
    void aRepeatedCursorOrThePageCapEndsTheListing() {
        McpClient loop = connectIn("legacy", ClientOptions.builder("loop"), "--page-size", "1", "--fault",
                "repeat-cursor");
        assertEquals(List.of(PDF), McpClient.await(loop.listSkills()).stream().map(SkillEntry::uri).toList());
        McpClient capped = connectIn("modern", ClientOptions.builder("capped").maxListPages(2), "--page-size", "1");
        assertEquals(List.of(PDF, GIT), McpClient.await(capped.listSkills()).stream().map(SkillEntry::uri).toList());
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void withoutTheExtensionEachCallFailsAtOnceAndNothingIsSent(String era) {
        // Resources, but no skills extension.
        McpClient client = connect("bare-" + era, "--era", era, "--features", "resources");
        clients.add(client);
        SkillEntry pdf = SkillEntry.fromJson("bare-" + era, McpJson.mapper().readTree("{\"uri\":\"" + PDF + "\",\"frontmatter\":"
                + "{\"name\":\"pdf-processing\",\"description\":\"d\"},\"resources\":[{\"uri\":\"" + PDF + "\",\"digest\":"
                + "\"sha256:" + "0".repeat(64) + "\",\"size\":1}]}"));
        List<CompletableFuture<?>> calls = List.of(client.listSkills(), client.getSkill(PDF), client.loadSkill(pdf),
                client.loadSkill(PDF));
        for (CompletableFuture<?> call : calls) {
            assertTrue(call.isDone(), "failed at once");
            McpException error = assertThrows(McpException.class, () -> McpClient.await(call));
            assertTrue(error.getMessage().startsWith("MCP server \"bare-" + era + "\" does not offer skills (it declared"
                    + " no \"io.modelcontextprotocol/skills\" extension); "), error.getMessage());
        }
        List<String> methods = received(client);
        assertFalse(methods.stream().anyMatch(m -> m.startsWith("skills/") || m.equals("resources/read")),
                "nothing sent: " + methods);
    }
}
