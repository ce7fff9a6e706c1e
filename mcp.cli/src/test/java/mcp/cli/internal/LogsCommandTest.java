package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import mcp.api.McpJson;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code logs} and the shell's {@code /logs} against testkit servers that log, in both eras. */
class LogsCommandTest {

    @TempDir
    Path temp;

    private Path home;
    private Path config;
    private CliRunner cli;

    @BeforeEach
    void fixture() throws IOException {
        home = Files.createDirectories(temp.resolve("home"));
        Path project = Files.createDirectories(temp.resolve("project"));
        config = temp.resolve("servers.json");
        ObjectNode servers = McpJson.object();
        servers.set("kit", server("--era", "legacy", "--features", "logging", "--log-every", "100"));
        servers.set("modern", server("--era", "modern", "--features", "logging", "--log-every", "100"));
        servers.set("quiet", server("--era", "legacy", "--features", "logging"));
        ObjectNode root = McpJson.object();
        root.set("mcpServers", servers);
        Files.writeString(config, root.toString());
        cli = new CliRunner(project, home);
    }

    private static ObjectNode server(String... args) {
        return CliRunner.stdioServer(TestServers.command(args));
    }

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        CliRunner.assertNoChildProcessLeft();
    }

    private CliRunner.Result run(String... args) {
        return cli.runWithConfig(config, args);
    }

    @Test
    void theShellShowsWhatAServerLoggedAndTheFileOutlivesIt() throws IOException {
        String input = String.join("\n",
                "/call mcp_quiet_log {\"level\": \"error\", \"logger\": \"fs\", \"message\": \"disk \\u001b[31mfull\\u001b[0m, token=s3cr3t\"}",
                "/call mcp_quiet_log {\"level\": \"debug\", \"message\": \"not asked for\"}",
                "/logs quiet",
                "/logs quiet -f",
                // Waits for kit's connection and then long enough for its --log-every ticks (every 100 ms).
                "/call mcp_kit_slow {\"ms\": 400}",
                "/quit") + "\n";
        CliRunner.Result shell = cli.runWithInput(input, "shell", "--config", config.toString(), "--no-cache");
        assertEquals(0, shell.exitCode(), shell::toString);
        assertTrue(shell.out().lines().anyMatch(l -> l.endsWith(" error [fs] disk full, token=<hidden>")), shell::toString);
        assertFalse(shell.out().contains("not asked for"), shell::toString);
        assertTrue(shell.err().contains("logs -f cannot run inside the shell"), shell::toString);

        // After the shell ended: from the file, owner-only, in the state directory.
        Path file = home.resolve(".local/state/mcp-host/logs/quiet.log");
        assertTrue(Files.exists(file));
        assertFalse(Files.readString(file).contains("s3cr3t"));
        CliRunner.Result text = run("logs", "quiet");
        assertEquals(0, text.exitCode(), text::toString);
        assertTrue(text.out().lines().anyMatch(l -> l.endsWith(" error [fs] disk full, token=<hidden>")), text::toString);
        CliRunner.Result json = run("logs", "quiet", "--json", "-n", "1");
        assertEquals(0, json.exitCode(), json::toString);
        List<String> lines = json.out().lines().toList();
        assertEquals(1, lines.size(), json::toString);
        JsonNode line = McpJson.mapper().readTree(lines.get(0));
        assertEquals("error", line.path("level").asString());
        assertEquals("fs", line.path("logger").asString());
        assertEquals("disk full, token=<hidden>", line.path("data").asString());
        assertTrue(line.path("time").isString());
        // A server the shell ran logged on its own (--log-every), beside the tool calls.
        assertTrue(run("logs", "kit").out().contains(" info tick "));
        // A name that never logged has nothing stored: no output, a note on stderr.
        CliRunner.Result none = run("logs", "nobody");
        assertEquals(0, none.exitCode(), none::toString);
        assertEquals("", none.out());
        assertTrue(none.err().contains("No log messages of \"nobody\" are stored"), none::toString);
    }

    @Test
    void followConnectsTheServerAndPrintsItsNewMessagesInEachEra() {
        for (String name : List.of("kit", "modern")) {
            CliRunner.Result followed = run("logs", name, "-f", "--timeout", "1500", "--json");
            assertEquals(0, followed.exitCode(), followed::toString);
            List<String> ticks = followed.out().lines().filter(l -> l.contains("\"data\":\"tick ")).toList();
            assertFalse(ticks.isEmpty(), followed::toString);
            assertEquals("info", McpJson.mapper().readTree(ticks.get(0)).path("level").asString());
        }
        // A level above info: the server is asked for less and sends none of its ticks; only the stored ones show.
        long stored = run("logs", "modern", "-n", "0").out().lines().filter(l -> l.contains(" tick ")).count();
        assertTrue(stored > 0);
        CliRunner.Result quiet = run("logs", "modern", "-f", "--timeout", "800", "--level", "error", "-n", "0");
        assertEquals(0, quiet.exitCode(), quiet::toString);
        assertEquals(stored, quiet.out().lines().filter(l -> l.contains(" tick ")).count(), quiet::toString);
    }

    @Test
    void badInputIsAUsageError() {
        CliRunner.Result level = run("logs", "kit", "--level", "loud");
        assertEquals(2, level.exitCode(), level::toString);
        assertTrue(level.err().contains("--level must be one of"), level::toString);
        CliRunner.Result unknown = run("logs", "nope", "-f", "--timeout", "100");
        assertEquals(2, unknown.exitCode(), unknown::toString);
        assertTrue(unknown.err().contains("No MCP server named \"nope\""), unknown::toString);
    }
}
