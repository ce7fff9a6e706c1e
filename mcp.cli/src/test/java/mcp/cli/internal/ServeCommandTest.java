package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import mcp.api.McpJson;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code serve}: its options, its token, the agents' configs it prints, and one client over stdio. */
class ServeCommandTest {

    @TempDir
    Path temp;

    private CliRunner cli;
    private Path home;

    @BeforeEach
    void fixture() throws Exception {
        home = Files.createDirectories(temp.resolve("home"));
        cli = new CliRunner(Files.createDirectories(temp.resolve("project")), home);
    }

    @Test
    void theTokenIsMadeOnceAndKeptOwnerOnly() throws Exception {
        CliRunner.Result first = cli.run("serve", "--token");
        CliRunner.Result second = cli.run("serve", "--token");
        assertEquals(0, first.exitCode(), first.toString());
        String token = first.out().strip();
        assertTrue(token.length() >= 43, token);
        assertEquals(token, second.out().strip(), "the same token at every start");
        Path file = home.resolve(".local/state/mcp-host/serve-token");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }

    @Test
    void eachAgentGetsItsOwnFormOfTheSameCommand() {
        cli.env("MCP_HOST_LAUNCHER", "/opt/mcp host/bin/mcp-host");
        for (String agent : ServeCommand.AGENTS) {
            CliRunner.Result result = cli.run("serve", "--print-config", agent);
            assertEquals(0, result.exitCode(), result.toString());
            assertTrue(result.out().contains("/opt/mcp host/bin/mcp-host"), agent + ": " + result.out());
            assertTrue(result.out().contains("\"serve\"") && result.out().contains("\"--stdio\""), result.out());
        }
        String vscode = cli.run("serve", "--print-config", "vscode").out();
        JsonNode json = McpJson.mapper().readTree(vscode.substring(vscode.indexOf('{')));
        assertEquals("stdio", json.path("servers").path("mcp-host").path("type").asString());
        CliRunner.Result unknown = cli.run("serve", "--print-config", "emacs");
        assertEquals(2, unknown.exitCode(), unknown.toString());
        assertTrue(unknown.err().contains("claude, codex, gemini, cursor, vscode"), unknown.err());
    }

    @Test
    void unsafeOrContradictoryOptionsAreRefused() {
        for (List<String> args : List.of(List.of("serve", "--stdio", "--http"), List.of("serve", "--no-token"),
                List.of("serve", "--http", "--no-token", "--bind", "0.0.0.0"), List.of("serve", "--shared", "--http"),
                List.of("serve", "--standalone", "--http"), List.of("serve", "--idle", "0"))) {
            CliRunner.Result result = cli.run(args.toArray(String[]::new));
            assertEquals(2, result.exitCode(), args + ": " + result);
        }
    }

    @Test
    void oneClientOverStdioListsAndCallsTheServersTools() throws Exception {
        ObjectNode root = McpJson.object();
        ObjectNode servers = root.putObject("mcpServers");
        for (String name : List.of("alpha", "beta")) {
            List<String> command = TestServers.command();
            ObjectNode entry = servers.putObject(name).put("command", command.get(0));
            command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        }
        Path config = temp.resolve("servers.json");
        Files.writeString(config, root.toString());
        String input = String.join("\n",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"beta_echo\","
                        + "\"arguments\":{\"message\":\"through the gateway\"}}}") + "\n";
        CliRunner.Result result = cli.runWithInput(input, "--config", config.toString(), "serve", "--stdio");
        assertEquals(0, result.exitCode(), result.toString());
        // The answers; list_changed may come between them, as the servers connect after the handshake.
        List<JsonNode> messages = result.out().lines().map(McpJson.mapper()::readTree)
                .filter(message -> message.has("id")).toList();
        assertEquals("mcp-host", messages.get(0).path("result").path("serverInfo").path("name").asString(),
                result.toString());
        assertEquals(2, messages.size(), result.toString());
        assertEquals("through the gateway", messages.get(1).path("result").path("content").get(0).path("text")
                .asString(), result.toString());
    }
}
