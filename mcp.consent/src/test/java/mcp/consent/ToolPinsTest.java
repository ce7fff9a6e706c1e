package mcp.consent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import mcp.api.McpJson;
import mcp.api.ToolChanges;
import mcp.api.ToolDefinition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pins store on its own: canonical hashing, the rules of a comparison, and its files. */
class ToolPinsTest {

    private static final String KEY = "0123456789abcdef".repeat(4);

    @TempDir
    Path temp;

    private static ToolDefinition tool(String name, String description, String schema) {
        return new ToolDefinition(name, Optional.empty(), Optional.of(description), McpJson.mapper().readTree(schema),
                Optional.empty(), Optional.empty());
    }

    private static final ToolDefinition READ = tool("read", "Reads a file.",
            "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}");

    @Test
    void theHashIsOfTheCanonicalDefinitionWhateverTheKeyOrder() {
        ToolDefinition reordered = tool("read", "Reads a file.",
                "{\"properties\":{\"path\":{\"type\":\"string\"}},\"type\":\"object\"}");
        assertEquals(ToolPins.hash(READ), ToolPins.hash(reordered));
        assertFalse(ToolPins.hash(READ).equals(ToolPins.hash(tool("read", "Reads a file!",
                "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}"))));
        assertEquals(64, ToolPins.hash(READ).length());
    }

    @Test
    void whatIsForTheHostAndItsClientIsNotPinned() {
        // _meta (result size hints, UI links) and execution (tasks) are not what the model reads: pins made before
        // either was kept stay valid when a server adds or changes them.
        ToolDefinition described = new ToolDefinition("read", Optional.empty(), Optional.of("Reads a file."),
                READ.inputSchema(), Optional.empty(), Optional.empty(),
                Optional.of(McpJson.object().put("anthropic/maxResultSizeChars", 1000)),
                Optional.of(McpJson.object().put("taskSupport", "optional")));
        assertEquals(ToolPins.hash(READ), ToolPins.hash(described));
        assertEquals(described, ToolDefinition.fromJson(described.toJson()), "kept through its JSON form");
    }

    @Test
    void aDiffShowsHiddenCharactersAndMultiLineTextsLineByLine() {
        ToolPins pins = ToolPins.at(temp);
        pins.compare(KEY, "s", Optional.empty(), List.of(tool("read", "Reads a file.\nSafely.", "{}")), false);
        ToolPins.Verdict verdict = pins.compare(KEY, "s", Optional.empty(),
                List.of(tool("read", "Reads a file.\nSafely \u202Eelif\u202C.\u001B[2J", "{}")), false);
        ToolChanges.ToolChange change = verdict.changes().tools().get(0);
        assertEquals(List.of("description: - Safely.", "description: + Safely \\u{202E}elif\\u{202C}.\\u{1B}[2J"),
                change.diff());
        assertEquals(List.of(), verdict.exposed());
    }

    @Test
    void aPinsFileThatCannotBeReadWithholdsEverythingAndIsLeftAlone() throws IOException {
        ToolPins pins = ToolPins.at(temp.resolve("pins"));
        pins.compare(KEY, "s", Optional.of("hello"), List.of(READ), false);
        byte[] broken = "{\"version\": 1, \"tools\": [".getBytes(StandardCharsets.UTF_8);
        Files.write(pins.file(KEY), broken);

        ToolPins.Verdict verdict = pins.compare(KEY, "s", Optional.of("hello"), List.of(READ), false);
        assertEquals(List.of(), verdict.exposed(), "fail closed");
        assertFalse(verdict.instructionsExposed());
        String problem = verdict.changes().problem().orElseThrow();
        assertTrue(problem.startsWith(pins.file(KEY) + ": not valid JSON at line 1"), problem);
        assertEquals(ToolChanges.Kind.UNVERIFIED, verdict.changes().tools().get(0).kind());
        assertArrayEquals(broken, Files.readAllBytes(pins.file(KEY)), "never overwritten by a comparison");

        ToolChanges accepted = pins.accept(KEY).orElseThrow();
        assertEquals(Optional.of(problem), accepted.problem());
        ToolPins.Verdict after = pins.compare(KEY, "s", Optional.of("hello"), List.of(READ), false);
        assertEquals(List.of(READ), after.exposed(), "accepting replaces the broken file");
        assertTrue(after.changes().isEmpty());
    }

    @Test
    void filesAreOwnerOnlyAndWrittenWithoutTemporaryFilesLeft() throws IOException {
        Path directory = temp.resolve("state").resolve("mcp-host").resolve("pins");
        ToolPins pins = ToolPins.forUser(Map.of("XDG_STATE_HOME", temp.resolve("state").toString()), temp);
        assertEquals(directory, pins.directory());
        pins.compare(KEY, "s", Optional.empty(), List.of(READ), false);
        pins.compare(KEY, "s", Optional.empty(), List.of(tool("read", "Changed.", "{}")), false);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(directory)));
        try (Stream<Path> files = Files.list(directory)) {
            List<String> names = files.map(f -> {
                try {
                    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)), f::toString);
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
                return f.getFileName().toString();
            }).sorted().toList();
            assertEquals(List.of(KEY + ".json", KEY + ".json.lock", KEY + ".observed.json"), names);
        }
        assertEquals(ToolChanges.Kind.CHANGED, pins.observed(KEY).orElseThrow().tools().get(0).kind());
    }

    @Test
    void comparisonsOfOneKeyFromManyThreadsWaitForEachOther() throws Exception {
        ToolPins pins = ToolPins.at(temp);
        List<java.util.concurrent.Future<ToolPins.Verdict>> verdicts = new java.util.ArrayList<>();
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            for (int i = 0; i < 32; i++) {
                verdicts.add(threads.submit(() -> pins.compare(KEY, "s", Optional.empty(), List.of(READ), false)));
            }
            for (java.util.concurrent.Future<ToolPins.Verdict> verdict : verdicts) {
                ToolPins.Verdict v = verdict.get(30, java.util.concurrent.TimeUnit.SECONDS);
                assertEquals(List.of(READ), v.exposed(), v.changes()::toString);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aKeyMustBeAHashSoThatNoFileNameCanBeSmuggledIn() {
        ToolPins pins = ToolPins.at(temp);
        assertThrows(IllegalArgumentException.class, () -> pins.file("../../.bashrc"));
        assertThrows(IllegalArgumentException.class, () -> pins.file(KEY.toUpperCase(java.util.Locale.ROOT)));
    }

    @Test
    void cachedToolsAreVerifiedAgainstThePins() {
        ToolPins pins = ToolPins.at(temp);
        assertEquals(List.of(), pins.verified(KEY, List.of(READ)), "nothing pinned: nothing verified");
        pins.compare(KEY, "s", Optional.empty(), List.of(READ), false);
        ToolDefinition changed = tool("read", "Reads and uploads a file.", "{}");
        assertEquals(List.of(READ), pins.verified(KEY, List.of(READ)));
        assertEquals(List.of(), pins.verified(KEY, List.of(changed)));
    }
}
