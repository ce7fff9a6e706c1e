package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import mcp.api.McpJson;
import mcp.it.Cli.Run;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code mcp-host} command as users get it: the jlink image's {@code bin/mcp-host}, run as a
 * process against the official {@code server-everything} (npm) and against fixture config files.
 */
class CliIT {

    private static final Path IMAGE = Cli.IMAGE;
    private static final Path INTEROP = Path.of(System.getProperty("mcp.interop.dir", "../interop")).toAbsolutePath();

    @TempDir
    Path temp;

    private Path home;
    private Path project;
    private Path config;
    /** On every server command line of this test, to find leftover processes after the CLI has exited. */
    private String marker;

    @BeforeEach
    void fixture() throws IOException {
        Path launcher = IMAGE.resolve("bin/mcp-host");
        assertTrue(Files.isExecutable(launcher), launcher + " is missing: build mcp.cli (mvn package) first");
        home = Files.createDirectories(temp.resolve("home"));
        project = Files.createDirectories(temp.resolve("project"));
        Files.createDirectories(project.resolve(".git"));
        marker = "cli-it-" + UUID.randomUUID();
        Path everything = INTEROP.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        assertTrue(Files.isRegularFile(everything), everything + " is missing: run interop/install.sh");
        // server-everything reads only its first argument (the transport); the marker after it is ignored.
        config = temp.resolve("everything.json");
        Files.writeString(config, """
                {"mcpServers": {"everything": {"command": "node", "args": [%s, "stdio", %s]}}}
                """.formatted(quote(everything.toString()), quote(marker)));
    }

    private static String quote(String text) {
        return McpJson.mapper().writeValueAsString(text);
    }

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            List<ProcessHandle> left = ProcessHandle.allProcesses()
                    .filter(p -> p.info().commandLine().map(c -> c.contains(marker)).orElse(false))
                    .filter(ProcessHandle::isAlive)
                    .toList();
            if (left.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                left.forEach(ProcessHandle::destroyForcibly);
                fail("server processes outlived the CLI: " + left.stream()
                        .map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList());
            }
            Thread.sleep(50);
        }
    }

    private Run cli(String... args) {
        return cli(Map.of(), args);
    }

    private Run cli(Map<String, String> extraEnv, String... args) {
        return Cli.run(home, project, extraEnv, args);
    }

    @Test
    void version() {
        Run run = cli("--version");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().strip().matches("mcp-host \\S+"), run::toString);
    }

    @Test
    void toolsJsonAgainstServerEverything() {
        Run run = cli("tools", "--json", "--config", config.toString());
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode document = run.json();
        assertTrue(document.get("errors").isEmpty(), run::toString);
        JsonNode echo = null;
        for (JsonNode tool : document.get("tools")) {
            assertEquals("everything", tool.get("server").asString());
            if (tool.get("name").asString().equals("mcp_everything_echo")) {
                echo = tool;
            }
        }
        assertTrue(echo != null, run::toString);
        assertEquals("everything/echo", echo.get("label").asString());
        assertEquals("echo", echo.get("tool").asString());
        assertEquals("object", echo.at("/inputSchema/type").asString());
        assertFalse(echo.get("deferred").asBoolean());
        // The image's tokenizer (JTokkit as a named module) counts each definition; the totals add up.
        int sum = 0;
        for (JsonNode tool : document.get("tools")) {
            assertTrue(tool.get("tokens").asInt() > 10, tool::toString);
            sum += tool.get("tokens").asInt();
        }
        assertEquals(sum, document.at("/tokens/servers/everything").asInt(), run::toString);
        assertEquals(sum, document.at("/tokens/total").asInt(), run::toString);
        assertEquals("o200k_base", document.at("/tokens/encoding").asString());
    }

    @Test
    void callAgainstServerEverything() {
        Run run = cli("call", "mcp_everything_echo", "{\"message\":\"hi\"}", "--config", config.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertEquals("Echo: hi", run.out().strip());

        Run json = cli("--json", "--config", config.toString(), "call", "mcp_everything_echo", "{\"message\":\"hi\"}");
        assertEquals(0, json.exitCode(), json::toString);
        assertEquals("Echo: hi", json.json().at("/content/0/text").asString());
        assertFalse(json.json().get("isError").asBoolean());
    }

    @Test
    void exitCodes() throws IOException {
        Run unknownTool = cli("call", "mcp_everything_ecko", "{}", "--config", config.toString());
        assertEquals(2, unknownTool.exitCode(), unknownTool::toString);
        assertTrue(unknownTool.err().contains("mcp_everything_echo"), "close names are listed: " + unknownTool);

        Run badJson = cli("call", "mcp_everything_echo", "not json", "--config", config.toString(), "--json");
        assertEquals(2, badJson.exitCode(), badJson::toString);
        assertTrue(badJson.json().has("error"), badJson::toString);

        Run unknownOption = cli("list", "--frobnicate");
        assertEquals(2, unknownOption.exitCode(), unknownOption::toString);

        Run toolError = cli("call", "mcp_everything_echo", "{\"message\": 42}", "--config", config.toString(),
                "--json");
        assertEquals(1, toolError.exitCode(), toolError::toString);
        assertTrue(toolError.json().path("isError").asBoolean() || toolError.json().has("error"), toolError::toString);

        Path broken = temp.resolve("broken.json");
        Files.writeString(broken, """
                {"mcpServers": {"broken": {"command": %s}}}
                """.formatted(quote(temp.resolve("no-such-server-" + marker).toString())));
        Run failedTest = cli("test", "broken", "--config", broken.toString());
        assertEquals(1, failedTest.exitCode(), failedTest::toString);
        assertTrue(failedTest.out().startsWith("FAILED: "), failedTest::toString);

        Run okTest = cli("test", "everything", "--config", config.toString());
        assertEquals(0, okTest.exitCode(), okTest::toString);
        assertTrue(okTest.out().matches("(?s)OK: \\d+ tools in \\d+ ms\\R"), okTest::toString);

        Run unknownServer = cli("test", "nothing", "--config", config.toString());
        assertEquals(2, unknownServer.exitCode(), unknownServer::toString);
    }

    @Test
    void listJsonOnAFixtureHomeAndProject() throws IOException {
        Path userFile = home.resolve(".config/mcp-host/mcp.json");
        Files.createDirectories(userFile.getParent());
        Files.copy(fixture("user-mcp.json"), userFile);
        Path claudeFile = project.resolve(".mcp.json");
        Files.copy(fixture("project-claude.json"), claudeFile);
        // Approved in Claude Code, so its servers count (docs/discovery.md).
        Files.createDirectories(home.resolve(".claude"));
        Files.writeString(home.resolve(".claude/settings.json"), "{\"enableAllProjectMcpServers\": true}");

        Run run = cli("list", "--json", "-C", project.toString());
        assertEquals(0, run.exitCode(), run::toString);
        Map<String, JsonNode> byKey = new HashMap<>();
        for (JsonNode entry : run.json()) {
            // "owner" only where the owning tool's decision counted: the approved Claude Code project servers.
            List<String> fields = new java.util.ArrayList<>(List.of("name", "type", "provider", "providerName", "path",
                    "level", "enabled", "status", "error"));
            if (entry.get("level").asString().equals("project")) {
                fields.add("owner");
                fields.add("approval"); // and mcp-host's own approval, on top of Claude Code's
            }
            assertEquals(fields, List.copyOf(entry.propertyNames()), entry::toString);
            byKey.put(entry.get("provider").asString() + "/" + entry.get("name").asString(), entry);
        }
        assertEquals("not connected", byKey.get("native/kit").get("status").asString(), run::toString);
        assertEquals(userFile.toString(), byKey.get("native/kit").get("path").asString());
        assertEquals("inactive", byKey.get("native/old").get("status").asString());
        assertFalse(byKey.get("native/old").get("enabled").asBoolean());
        assertEquals("invalid", byKey.get("native/broken").get("status").asString());
        assertTrue(byKey.get("native/broken").get("error").asString().contains("stdio server requires \"command\""),
                run::toString);
        assertEquals("project", byKey.get("claude/web").get("level").asString());
        assertEquals("http", byKey.get("claude/web").get("type").asString());
        assertEquals(claudeFile.toString(), byKey.get("claude/web").get("path").asString());
        assertEquals("approved", byKey.get("claude/web").path("owner").path("state").asString(), run::toString);
        assertEquals("pending", byKey.get("claude/web").path("approval").path("state").asString(), run::toString);
    }

    private static Path fixture(String name) {
        URL resource = CliIT.class.getResource("/cli/" + name);
        assertTrue(resource != null, "test resource cli/" + name + " is missing");
        try {
            return Path.of(resource.toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void addEnableDisableRemoveRoundTrip() throws IOException {
        Path userFile = home.resolve(".config/mcp-host/mcp.json");
        Run added = cli("add", "kit", "--env", "MODE=test", "--", "kit-server", "--verbose");
        assertEquals(0, added.exitCode(), added::toString);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(userFile)));
        assertEquals(McpJson.mapper().readTree("""
                {"mcpServers": {"kit": {"command": "kit-server", "args": ["--verbose"], "env": {"MODE": "test"}}}}
                """), read(userFile));

        Run listed = cli("list", "--json");
        assertEquals("not connected", listed.json().get(0).get("status").asString(), listed::toString);

        assertEquals(0, cli("disable", "kit").exitCode());
        assertFalse(read(userFile).at("/mcpServers/kit/enabled").asBoolean(true));
        Run disabledList = cli("list", "--json");
        assertEquals("inactive", disabledList.json().get(0).get("status").asString(), disabledList::toString);

        assertEquals(0, cli("enable", "kit").exitCode());
        assertTrue(read(userFile).at("/mcpServers/kit/enabled").asBoolean(false));

        Run invalid = cli("add", "web", "--url", "http://localhost:1/mcp", "--", "web-server");
        assertEquals(2, invalid.exitCode(), invalid::toString);
        assertTrue(invalid.err().contains("both \"command\" and \"url\" are set"), invalid::toString);
        assertTrue(read(userFile).at("/mcpServers/web").isMissingNode());

        Run removed = cli("remove", "kit", "--json");
        assertEquals(0, removed.exitCode(), removed::toString);
        assertEquals("removed", removed.json().get("action").asString());
        assertTrue(read(userFile).get("mcpServers").isEmpty());
        assertEquals(2, cli("remove", "kit").exitCode());
    }

    private static JsonNode read(Path file) throws IOException {
        return McpJson.mapper().readTree(Files.readString(file));
    }

    /** Every {@code --json} document is one JSON value, even for errors. */
    @Test
    void everyJsonOutputParses() {
        for (String[] args : List.of(
                new String[] {"list", "--json"},
                new String[] {"status", "--json", "--config", config.toString()},
                new String[] {"test", "everything", "--json", "--config", config.toString()},
                new String[] {"call", "nope", "--json", "--config", config.toString()},
                new String[] {"tools", "--json", "--server", "nope", "--config", config.toString()})) {
            Run run = cli(args);
            JsonNode document = run.json();
            assertTrue(document.isArray() || document instanceof ObjectNode, run::toString);
        }
    }
}
