package mcp.config.internal.sources;

import static mcp.config.internal.sources.Fixture.names;
import static mcp.config.internal.sources.Fixture.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import mcp.api.spi.CapabilitySource;
import mcp.api.spi.CapabilitySource.Problem;
import mcp.api.spi.CapabilitySource.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input is a problem that names the file (and where known the position, the server, the field),
 * and never costs another file or server. Claude's source is used where a source with several files
 * is needed: the project's {@code .mcp.json} is broken while the other files must still load.
 */
class BadInputTest {

    private static final List<String> OTHER_CLAUDE_SERVERS =
            List.of("local-db", "app-tools", "decoy-above-root", "memory");

    private final ClaudeSource claude = new ClaudeSource();

    @Test
    void missingFilesAreSilent(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        for (CapabilitySource source : Fixture.allSources()) {
            Result result = source.discover(f.context());
            assertEquals(List.of(), result.servers(), source.id());
            assertEquals(List.of(), result.problems(), source.id());
        }
    }

    @Test
    void aDirectoryWhereAFileIsExpectedCannotBeRead(@TempDir Path dir) throws IOException {
        Fixture f = Fixture.copy(dir);
        Path file = f.project.resolve(".mcp.json");
        Files.delete(file);
        Files.createDirectory(file);

        Result result = claude.discover(f.context());
        assertEquals(List.of(new Problem(file, "", "", "cannot be read: it is a directory")), result.problems());
        assertEquals(OTHER_CLAUDE_SERVERS, names(result));
    }

    @Test
    void aDanglingSymbolicLinkIsReportedNotSkipped(@TempDir Path dir) throws IOException {
        Fixture f = Fixture.copy(dir);
        Path file = f.project.resolve(".mcp.json");
        Files.delete(file);
        Path target = dir.resolve("moved-away.json");
        Files.createSymbolicLink(file, target);

        Result result = claude.discover(f.context());
        assertEquals(List.of(new Problem(file, "", "", "cannot be read: it is a dangling symbolic link (to " + target
                + ", which does not exist)")), result.problems());
        assertEquals(OTHER_CLAUDE_SERVERS, names(result));
    }

    @Test
    void aSymbolicLinkLoopIsReportedNotSkipped(@TempDir Path dir) throws IOException {
        Fixture f = Fixture.copy(dir);
        Path file = f.project.resolve(".mcp.json");
        Files.delete(file);
        Path other = f.project.resolve("other.json");
        Files.createSymbolicLink(file, other);
        Files.createSymbolicLink(other, file);

        Result result = claude.discover(f.context());
        assertEquals(List.of(new Problem(file, "", "", "cannot be read: it is a symbolic link in a loop (to " + other
                + ")")), result.problems());
        assertEquals(OTHER_CLAUDE_SERVERS, names(result));
    }

    @Test
    void aDanglingManagedPolicyLinkIsAPolicyThatCannotBeRead(@TempDir Path dir) throws IOException {
        Path policy = dir.resolve("managed-mcp.json");
        Files.createSymbolicLink(policy, dir.resolve("gone.json"));

        ManagedPolicy.Read read = ManagedPolicy.read(policy, Map.of());
        assertEquals(1, read.problems().size(), read.problems().toString());
        assertEquals(policy, read.problems().get(0).file());
        assertEquals(true, read.problems().get(0).message().contains("dangling symbolic link"), read.problems().toString());
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void aFifoIsNeverOpened(@TempDir Path dir) throws Exception {
        Fixture f = Fixture.copy(dir);
        Path file = f.project.resolve(".mcp.json");
        Files.delete(file);
        Process mkfifo;
        try {
            mkfifo = new ProcessBuilder("mkfifo", file.toString()).start();
        } catch (IOException e) {
            assumeTrue(false, "no mkfifo here");
            return;
        }
        assumeTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo failed");

        // Opening a FIFO without a writer blocks forever: the source must not try.
        Result result = claude.discover(f.context());
        assertEquals(List.of(new Problem(file, "", "", "cannot be read: it is not a regular file")), result.problems());
        assertEquals(OTHER_CLAUDE_SERVERS, names(result));
    }

    @Test
    void invalidJsonIsOneProblemAtLineAndColumn(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Path file = f.write(f.project.resolve(".mcp.json"),
                "{\n  \"mcpServers\": {\n    \"github\": { \"url\" \"https://x\" }\n  }\n}\n");

        Result result = claude.discover(f.context());
        assertEquals(List.of(new Problem(file, "3:23", "",
                "invalid JSON: Unexpected character ('\"' (code 34)): was expecting a colon to separate property name and value")),
                result.problems());
        assertEquals(OTHER_CLAUDE_SERVERS, names(result));
    }

    @Test
    void twoDocumentsInOneFileAreInvalid(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Path file = f.write(f.project.resolve(".mcp.json"), "{\"mcpServers\": {}}\n{\"mcpServers\": {}}\n");

        Result result = claude.discover(f.context());
        assertEquals(1, result.problems().size());
        assertEquals(file, result.problems().get(0).file());
        assertEquals("2:1", result.problems().get(0).location());
        assertEquals("invalid JSON: Trailing token (`JsonToken.START_OBJECT`) found after value (bound as"
                + " `tools.jackson.databind.JsonNode`): not allowed as per `DeserializationFeature.FAIL_ON_TRAILING_TOKENS`",
                result.problems().get(0).message());
    }

    @Test
    void randomBytesAreInvalidJson(@TempDir Path dir) throws IOException {
        Fixture f = Fixture.copy(dir);
        Path file = f.project.resolve(".mcp.json");
        Files.write(file, new byte[] {(byte) 0xff, (byte) 0xfe, 0x00, 0x7b, (byte) 0x80});

        Result result = claude.discover(f.context());
        assertEquals(1, result.problems().size());
        assertEquals(file, result.problems().get(0).file());
        assertEquals(OTHER_CLAUDE_SERVERS, names(result));
    }

    @Test
    void deepNestingIsOneProblemNotAStackOverflow(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Path json = f.write(f.project.resolve(".mcp.json"), "{\"mcpServers\": " + "[".repeat(100_000));
        Path toml = f.write(f.app.resolve(".codex/config.toml"), "[mcp_servers.x]\nargs = " + "[".repeat(100_000));

        Result claudeResult = claude.discover(f.context());
        assertEquals(1, claudeResult.problems().size(), claudeResult.problems()::toString);
        assertEquals(json, claudeResult.problems().get(0).file());
        assertEquals(OTHER_CLAUDE_SERVERS, names(claudeResult));

        Result codexResult = new CodexSource().discover(f.context());
        assertEquals(1, codexResult.problems().size(), codexResult.problems()::toString);
        assertEquals(toml, codexResult.problems().get(0).file());
        assertEquals(List.of("context7", "figma"), names(codexResult));
    }

    @Test
    void anEmptyFileOrOneWithOnlyCommentsIsEmpty(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        f.write(f.project.resolve(".mcp.json"), "");
        f.write(f.project.resolve(".claude/mcp.json"), "  // nothing yet\n");

        Result result = claude.discover(f.context());
        assertEquals(List.of(), result.problems());
        assertEquals(List.of("local-db", "app-tools", "decoy-above-root", "memory"), names(result));
    }

    @Test
    void aTopLevelThatIsNotAnObject(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Path file = f.write(f.project.resolve(".mcp.json"), "[{\"mcpServers\": {}}]");

        Result result = claude.discover(f.context());
        assertEquals(List.of(new Problem(file, "", "", "the top level must be an object, got an array")), result.problems());
        assertEquals(OTHER_CLAUDE_SERVERS, names(result));
    }

    @Test
    void aContainerThatIsNotAnObject(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Path file = f.write(f.project.resolve(".mcp.json"), "{\"mcpServers\": [{\"name\": \"github\"}]}");

        Result result = claude.discover(f.context());
        assertEquals(List.of(new Problem(file, "/mcpServers", "", "\"mcpServers\" must be an object, got an array")),
                result.problems());
        assertEquals(OTHER_CLAUDE_SERVERS, names(result));
    }

    @Test
    void anAbsentOrNullContainerIsSilent(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        f.write(f.project.resolve(".mcp.json"), "{\"servers\": {\"x\": {\"command\": \"x\"}}}");
        f.write(f.project.resolve(".claude/mcp.json"), "{\"mcpServers\": null}");

        Result result = claude.discover(f.context());
        assertEquals(List.of(), result.problems());
        assertEquals(List.of("local-db", "app-tools", "decoy-above-root", "memory"), names(result));
    }

    @Test
    void aServerEntryThatIsNotAnObjectSkipsThatServerOnly(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Path file = f.write(f.project.resolve(".mcp.json"),
                "{\"mcpServers\": {\"github\": \"npx github-mcp\", \"filesystem\": {\"command\": \"npx\"}, \"n\": null}}");

        Result result = claude.discover(f.context());
        assertEquals(List.of(
                new Problem(file, "/mcpServers/github", "github", "the server entry must be an object, got a string"),
                new Problem(file, "/mcpServers/n", "n", "the server entry must be an object, got null")),
                result.problems());
        assertEquals(List.of("local-db", "app-tools", "filesystem", "decoy-above-root", "memory"), names(result));
    }

    @Test
    void eachFieldOfTheWrongTypeIsAProblemThatSkipsItsServer(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Path file = f.write(f.project.resolve(".mcp.json"), "{\"mcpServers\": {\n"
                + "\"args\": {\"command\": \"x\", \"args\": \"x\"},\n"
                + "\"env\": {\"command\": \"x\", \"env\": []},\n"
                + "\"timeout\": {\"command\": \"x\", \"timeout\": \"10\"},\n"
                + "\"enabled\": {\"command\": \"x\", \"enabled\": \"yes\"},\n"
                + "\"command\": {\"command\": [\"npx\", \"x\"]},\n"
                + "\"item\": {\"command\": \"x\", \"args\": [\"a\", {\"b\": 1}]},\n"
                + "\"value\": {\"type\": \"http\", \"url\": \"http://x\", \"headers\": {\"A\": \"1\", \"B\": [\"2\"]}},\n"
                + "\"auth\": {\"type\": \"http\", \"url\": \"http://x\", \"auth\": {\"type\": \"oauth\"}},\n"
                + "\"auth-type\": {\"type\": \"http\", \"url\": \"http://x\", \"auth\": {\"type\": 1, \"credentialId\": \"c\"}},\n"
                + "\"tools\": {\"command\": \"x\", \"enabledTools\": [\"a\", 1]},\n"
                + "\"huge\": {\"command\": \"x\", \"timeout\": 1e30},\n"
                + "\"two\": {\"command\": 1, \"args\": 2},\n"
                + "\"a/b~c\": {\"command\": \"x\", \"cwd\": false},\n"
                + "\"ok\": {\"command\": \"x\", \"args\": [\"--port\", 8080, true], \"timeout\": 1500.4, \"cwd\": null}\n"
                + "}}");

        Result result = claude.discover(f.context());
        assertEquals(List.of(
                new Problem(file, "/mcpServers/args/args", "args", "\"args\" must be an array of strings, got a string"),
                new Problem(file, "/mcpServers/env/env", "env", "\"env\" must be an object of strings, got an array"),
                new Problem(file, "/mcpServers/timeout/timeout", "timeout", "\"timeout\" must be a number of milliseconds, got a string"),
                new Problem(file, "/mcpServers/enabled/enabled", "enabled", "\"enabled\" must be true or false, got a string"),
                new Problem(file, "/mcpServers/command/command", "command", "\"command\" must be a string, got an array"),
                new Problem(file, "/mcpServers/item/args/1", "item", "\"args\" must be an array of strings, got an object at index 1"),
                new Problem(file, "/mcpServers/value/headers/B", "value", "\"headers\" must be an object of strings, got an array for \"B\""),
                new Problem(file, "/mcpServers/auth/auth", "auth",
                        "\"auth\" must be an object with string \"type\" and \"credentialId\", got no \"credentialId\""),
                new Problem(file, "/mcpServers/auth-type/auth/type", "auth-type",
                        "\"auth\" must be an object with string \"type\" and \"credentialId\", got a number for \"type\""),
                new Problem(file, "/mcpServers/tools/enabledTools/1", "tools", "\"enabledTools\" must be an array of strings, got a number at index 1"),
                new Problem(file, "/mcpServers/huge/timeout", "huge", "\"timeout\" must be a number of milliseconds, got a number out of range"),
                new Problem(file, "/mcpServers/two/command", "two", "\"command\" must be a string, got a number"),
                new Problem(file, "/mcpServers/two/args", "two", "\"args\" must be an array of strings, got a number"),
                new Problem(file, "/mcpServers/a~1b~0c/cwd", "a/b~c", "\"cwd\" must be a string, got a boolean")),
                result.problems());

        assertEquals(List.of("local-db", "app-tools", "ok", "decoy-above-root", "memory"), names(result));
        var ok = server(result, "ok");
        assertEquals(List.of("--port", "8080", "true"), ok.args(), "numbers and booleans in args are their text");
        assertEquals(Optional.of(1500L), ok.timeoutMillis());
        assertEquals(Optional.empty(), ok.cwd(), "null is absent");
    }

    @Test
    void wholeNumbersAreExactUpToTheLargestLong(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.approveInClaude();
        Path file = f.write(f.project.resolve(".mcp.json"), "{\"mcpServers\": {"
                + "\"max\": {\"command\": \"x\", \"timeout\": 9223372036854775807},"
                + "\"over\": {\"command\": \"x\", \"timeout\": 9223372036854775808},"
                + "\"negative\": {\"command\": \"x\", \"timeout\": -1}}}");
        Result result = claude.discover(f.context());
        assertEquals(List.of(new Problem(file, "/mcpServers/over/timeout", "over",
                "\"timeout\" must be a number of milliseconds, got a number out of range")), result.problems());
        assertEquals(Optional.of(Long.MAX_VALUE), server(result, "max").timeoutMillis());
        assertEquals(Optional.of(-1L), server(result, "negative").timeoutMillis(), "as written: validation judges it");
    }

    @Test
    void namesArePassedThroughAndEscapedInPointers(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.approveInClaude();
        f.write(f.project.resolve(".mcp.json"), "{\"mcpServers\": {\"\": {\"command\": \"x\"}, \"a/b~c\": {\"command\": \"y\"},"
                + " \"dup\": {\"command\": \"first\"}, \"dup\": {\"command\": \"last\"}}}");

        Result result = claude.discover(f.context());
        assertEquals(List.of(), result.problems());
        assertEquals(List.of("", "a/b~c", "dup"), names(result));
        assertEquals("/mcpServers/", server(result, "").location());
        assertEquals("/mcpServers/a~1b~0c", server(result, "a/b~c").location());
        assertEquals(Optional.of("last"), server(result, "dup").command(), "a duplicate key: the last one wins");
    }

    @Test
    void unknownKeysAreIgnored(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.approveInClaude();
        f.write(f.project.resolve(".mcp.json"), "{\"version\": 2, \"mcpServers\": {\"x\": {\"command\": \"x\","
                + " \"alwaysAllow\": [\"read\"], \"autoApprove\": 3, \"trust\": \"yes\"}}}");
        Result result = claude.discover(f.context());
        assertEquals(List.of(), result.problems());
        assertEquals(List.of("x"), names(result));
    }

    @Test
    void aUtf8ByteOrderMarkIsAccepted(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.approveInClaude();
        f.write(f.project.resolve(".mcp.json"), "\uFEFF{\"mcpServers\": {\"bom\": {\"command\": \"x\"}}}");
        Result result = claude.discover(f.context());
        assertEquals(List.of(), result.problems());
        assertEquals(List.of("bom"), names(result));
    }

    @Test
    void aBadFileInOneSourceDoesNotAffectAnother(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        f.write(f.project.resolve(".mcp.json"), "{");
        assertEquals(List.of("workspace-tools", "server-name", "remote-server"),
                names(new CursorSource().discover(f.context(Map.of()))));
    }
}
