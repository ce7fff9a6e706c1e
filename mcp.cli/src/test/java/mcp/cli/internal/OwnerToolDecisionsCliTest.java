package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import mcp.api.McpJson;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code tools} and {@code call} under the per-tool decisions of the tool owning a server's config: a Claude Code
 * user server whose settings deny {@code echo}, ask before {@code add} and allow {@code pid}; a real testkit server.
 */
class OwnerToolDecisionsCliTest {

    @TempDir
    Path temp;

    private Path settings;
    private CliRunner cli;

    @BeforeEach
    void claudeCodeUserServer() throws IOException {
        Path home = Files.createDirectories(temp.resolve("home"));
        Path project = Files.createDirectories(temp.resolve("project"));
        ObjectNode root = McpJson.object();
        root.putObject("mcpServers").set("kit", CliRunner.stdioServer(TestServers.command()));
        Files.writeString(home.resolve(".claude.json"), root.toString());
        settings = home.resolve(".claude/settings.json");
        Files.createDirectories(settings.getParent());
        Files.writeString(settings, "{\"permissions\": {\"deny\": [\"mcp__kit__echo\"], \"ask\": [\"mcp__kit__add\"],"
                + " \"allow\": [\"mcp__kit__pid\"]}}");
        cli = new CliRunner(project, home);
    }

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        CliRunner.assertNoChildProcessLeft();
    }

    private CliRunner.Result run(String... args) {
        String[] all = java.util.Arrays.copyOf(args, args.length + 1);
        all[args.length] = "--no-cache";
        return cli.run(all);
    }

    private static JsonNode tool(JsonNode document, String name) {
        for (JsonNode tool : document.get("tools")) {
            if (tool.get("name").asString().equals(name)) {
                return tool;
            }
        }
        throw new AssertionError(name + " not in " + document.get("tools"));
    }

    @Test
    void toolsLeavesTheDeniedToolOutAndSaysWhoDeniedItWhere() {
        CliRunner.Result result = run("tools");
        assertEquals(0, result.exitCode(), result::toString);
        assertFalse(result.out().contains("mcp_kit_echo"), result::toString);
        assertTrue(result.err().contains("withheld by its owner: kit/echo: Claude Code: permissions.deny"
                + " \"mcp__kit__echo\" in " + settings), result::toString);
        assertTrue(result.out().lines().anyMatch(line -> line.startsWith("mcp_kit_add ")
                && line.endsWith("(asks first)")), result::toString);
        assertTrue(result.out().lines().anyMatch(line -> line.startsWith("mcp_kit_pid ")
                && line.endsWith("(allowed)")), result::toString);
        assertTrue(result.out().lines().anyMatch(line -> line.startsWith("mcp_kit_content ")
                && !line.contains("(asks first)") && !line.contains("(allowed)")), result::toString);
    }

    @Test
    void toolsJsonHasEachToolsCallPolicyAndTheWithheldOnes() {
        CliRunner.Result result = run("tools", "--json");
        assertEquals(0, result.exitCode(), result::toString);
        JsonNode document = result.json();
        assertEquals(McpJson.mapper().readTree("{\"decision\":\"ask\",\"owner\":\"Claude Code\","
                + "\"rule\":\"permissions.ask \\\"mcp__kit__add\\\"\",\"file\":" + McpJson.mapper()
                .writeValueAsString(settings.toString()) + "}"), tool(document, "mcp_kit_add").get("callPolicy"));
        assertEquals(McpJson.mapper().readTree("{\"decision\":\"allow\"}"),
                tool(document, "mcp_kit_content").get("callPolicy"), "nothing decided");
        JsonNode withheld = document.get("withheldByOwner");
        assertEquals(1, withheld.size(), withheld::toString);
        assertEquals("mcp_kit_echo", withheld.get(0).get("name").asString());
        assertEquals("kit", withheld.get(0).get("server").asString());
        assertEquals("echo", withheld.get(0).get("tool").asString());
        assertEquals("permissions.deny \"mcp__kit__echo\"", withheld.get(0).get("rule").asString());
        assertEquals(settings.toString(), withheld.get(0).get("file").asString());
        for (JsonNode tool : document.get("tools")) {
            assertFalse(tool.get("name").asString().equals("mcp_kit_echo"), document::toString);
        }
    }

    @Test
    void aDeniedToolIsRefusedEvenWithYes() {
        CliRunner.Result result = run("call", "--yes", "mcp_kit_echo", "{\"message\": \"hi\"}");
        assertEquals(ExitCodes.REFUSED, result.exitCode(), result::toString);
        assertTrue(result.err().contains("Refused: kit/echo is denied by Claude Code: permissions.deny"
                + " \"mcp__kit__echo\" in " + settings), result::toString);
    }

    @Test
    void anAskToolIsRefusedWithoutATerminalAndSaysHowToConfirm() {
        CliRunner.Result result = run("call", "mcp_kit_add", "{\"a\": 1, \"b\": 2}");
        assertEquals(ExitCodes.REFUSED, result.exitCode(), result::toString);
        assertTrue(result.err().contains("Refused: kit/add asks before each call (Claude Code: permissions.ask"
                + " \"mcp__kit__add\" in " + settings + "), and there is no terminal to ask at: pass --yes"),
                result::toString);

        CliRunner.Result confirmed = run("call", "--yes", "mcp_kit_add", "{\"a\": 1, \"b\": 2}");
        assertEquals(0, confirmed.exitCode(), confirmed::toString);
        assertTrue(confirmed.out().contains("3"), confirmed::toString);
    }

    @Test
    void atATerminalAnAskToolIsAskedAboutAndOnlyYesCallsIt() {
        CliRunner.Result yes = cli.runAtTerminal("y\n", "call", "--no-cache", "mcp_kit_add", "{\"a\": 1, \"b\": 2}");
        assertEquals(0, yes.exitCode(), yes::toString);
        assertTrue(yes.err().contains("Call it? [y/N]"), yes::toString);
        assertTrue(yes.err().contains("arguments: {\"a\":1,\"b\":2}"), yes::toString);

        CliRunner.Result no = cli.runAtTerminal("\n", "call", "--no-cache", "mcp_kit_add", "{\"a\": 1, \"b\": 2}");
        assertEquals(ExitCodes.REFUSED, no.exitCode(), no::toString);
        assertTrue(no.err().contains("Not called: kit/add"), no::toString);
    }

    @Test
    void anAllowedToolAndOneNobodyDecidedRunWithoutAQuestion() {
        for (String tool : new String[] {"mcp_kit_pid", "mcp_kit_content"}) {
            CliRunner.Result result = cli.runAtTerminal("", "call", "--no-cache", tool);
            assertEquals(0, result.exitCode(), result::toString);
            assertFalse(result.err().contains("Call it?"), result::toString);
        }
    }

    @Test
    void inTheShellTheAnswerIsTheNextLineOfItsInput() {
        CliRunner.Result result = cli.runAtTerminal("/call mcp_kit_add {\"a\": 20, \"b\": 22}\ny\n"
                + "/call mcp_kit_add {\"a\": 1, \"b\": 1}\nn\n/quit\n", "shell", "--no-cache");
        assertEquals(0, result.exitCode(), result::toString);
        assertTrue(result.out().contains("42"), result::toString);
        assertTrue(result.err().contains("Not called: kit/add"), result::toString);
        assertFalse(result.err().contains("Unknown command"), "the answers were not read as commands: " + result);
    }
}
