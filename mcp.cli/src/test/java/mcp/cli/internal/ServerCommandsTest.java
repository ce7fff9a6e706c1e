package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import mcp.api.McpJson;
import mcp.manager.TokenCounter;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code tools}, {@code call}, {@code status}, {@code test} and {@code shell} against real testkit servers. */
class ServerCommandsTest {

    @TempDir
    Path temp;

    private Path config;
    private CliRunner cli;

    @BeforeEach
    void fixture() throws IOException {
        Path home = Files.createDirectories(temp.resolve("home"));
        Path project = Files.createDirectories(temp.resolve("project"));
        config = temp.resolve("servers.json");
        ObjectNode servers = McpJson.object();
        servers.set("kit", server(TestServers.command()));
        ObjectNode broken = McpJson.object();
        broken.put("command", temp.resolve("no-such-server").toString());
        servers.set("broken", broken);
        ObjectNode root = McpJson.object();
        root.set("mcpServers", servers);
        Files.writeString(config, root.toString());
        cli = new CliRunner(project, home);
    }

    private static ObjectNode server(List<String> command) {
        return CliRunner.stdioServer(command);
    }

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        CliRunner.assertNoChildProcessLeft();
    }

    private CliRunner.Result run(String... args) {
        return cli.runWithConfig(config, args);
    }

    @Test
    void toolsJsonListsTheToolsAndTheErrors() {
        CliRunner.Result result = run("tools", "--json");
        assertEquals(0, result.exitCode(), "per-server errors are reported, not fatal: " + result);
        JsonNode document = result.json();
        JsonNode echo = null;
        for (JsonNode tool : document.get("tools")) {
            if (tool.get("name").asString().equals("mcp_kit_echo")) {
                echo = tool;
            }
        }
        assertTrue(echo != null, result::toString);
        assertEquals("kit", echo.get("server").asString());
        assertEquals("echo", echo.get("tool").asString());
        assertEquals("kit/echo", echo.get("label").asString());
        assertEquals("Echoes the message back as text.", echo.get("description").asString());
        assertEquals("object", echo.at("/inputSchema/type").asString());
        assertFalse(echo.get("deferred").asBoolean());
        assertEquals(List.of("broken"), List.copyOf(document.get("errors").propertyNames()));
        assertTrue(document.at("/errors/broken").asString().contains("broken"), result::toString);
    }

    @Test
    void toolsShowTheDefinitionsTokenEstimates() {
        CliRunner.Result result = run("tools", "--json");
        assertEquals(0, result.exitCode(), result::toString);
        JsonNode document = result.json();
        int sum = 0;
        for (JsonNode tool : document.get("tools")) {
            int tokens = tool.get("tokens").asInt();
            // As sent to a model: the definition's JSON, counted by the same encoding.
            assertEquals(TokenCounter.get().count(McpJson.mapper().writeValueAsString(TokenCounter.definitionJson(
                    tool.get("name").asString(), tool.get("description").asString(), tool.get("inputSchema")))),
                    tokens, tool.toString());
            assertTrue(tokens > 10, tool.toString());
            sum += tokens;
        }
        assertEquals("o200k_base", document.at("/tokens/encoding").asString());
        assertEquals(sum, document.at("/tokens/total").asInt());
        assertEquals(sum, document.at("/tokens/servers/kit").asInt(), "one server: its sum is the total");

        CliRunner.Result human = run("tools", "--server", "kit");
        assertEquals(0, human.exitCode(), human::toString);
        List<String> lines = human.out().lines().toList();
        int heading = lines.indexOf("Definition tokens (estimate, o200k_base):");
        assertTrue(heading > 0, human::toString);
        String total = String.format(java.util.Locale.ROOT, "%,d", sum);
        assertTrue(lines.get(heading + 1).matches("  kit\\s+" + total + "  \\(" + document.get("tools").size()
                + " tools\\)"), human::toString);
        assertTrue(lines.get(heading + 2).matches("  all\\s+" + total + "  \\(\\d+ tools\\)"), human::toString);
    }

    @Test
    void toolsMarkTheToolsTheirServersAlwaysLoad() throws IOException {
        Path file = temp.resolve("always.json");
        ObjectNode servers = McpJson.object();
        ObjectNode entry = server(TestServers.command());
        entry.putArray("alwaysLoad").add("echo").add("add").add("not_offered");
        servers.set("kit", entry);
        ObjectNode root = McpJson.object();
        root.set("mcpServers", servers);
        Files.writeString(file, root.toString());

        CliRunner.Result result = cli.runWithConfig(file, "tools", "--json");
        assertEquals(0, result.exitCode(), result::toString);
        List<String> always = new java.util.ArrayList<>();
        for (JsonNode tool : result.json().get("tools")) {
            if (tool.has("alwaysLoad")) {
                assertTrue(tool.get("alwaysLoad").asBoolean(), tool.toString());
                always.add(tool.get("tool").asString());
            }
        }
        assertEquals(List.of("add", "echo"), always.stream().sorted().toList(), result::toString);

        CliRunner.Result human = cli.runWithConfig(file, "tools");
        assertEquals(0, human.exitCode(), human::toString);
        List<String> marked = human.out().lines().filter(line -> line.endsWith(" (always loaded)"))
                .map(line -> line.substring(0, line.indexOf(' '))).sorted().toList();
        assertEquals(List.of("mcp_kit_add", "mcp_kit_echo"), marked, human::toString);
    }

    @Test
    void toolsMarkTheToolsMeantForAnAppsViewAndLeaveThemOutOfTheAgentsTotalsAndSearch() throws IOException {
        Path file = temp.resolve("apps.json");
        ObjectNode servers = McpJson.object();
        servers.set("kit", server(TestServers.command("--tool-ui", "echo=app", "--tool-ui", "add=",
                "--tool-ui", "pid=model")));
        servers.get("kit").withArray("alwaysLoad").add("echo");
        ObjectNode root = McpJson.object();
        root.set("mcpServers", servers);
        Files.writeString(file, root.toString());

        CliRunner.Result result = cli.runWithConfig(file, "tools", "--json");
        assertEquals(0, result.exitCode(), result::toString);
        java.util.Map<String, String> visibility = new java.util.TreeMap<>();
        int agentTokens = 0;
        for (JsonNode tool : result.json().get("tools")) {
            visibility.put(tool.get("tool").asString(), tool.get("visibility").toString());
            if (tool.get("visibility").toString().contains("model")) {
                agentTokens += tool.get("tokens").asInt();
            }
        }
        assertEquals("[\"app\"]", visibility.get("echo"), result::toString);
        assertEquals("[]", visibility.get("add"), result::toString);
        assertEquals("[\"model\"]", visibility.get("pid"), result::toString);
        assertEquals("[\"model\",\"app\"]", visibility.get("slow"), "no _meta.ui: both");
        assertFalse(result.json().get("tools").findValues("alwaysLoad").stream().anyMatch(JsonNode::asBoolean),
                "alwaysLoad loads no app-only tool: " + result);
        assertEquals(agentTokens, result.json().at("/tokens/total").asInt(), "the totals are the agent's tools");

        CliRunner.Result human = cli.runWithConfig(file, "tools");
        assertEquals(0, human.exitCode(), human::toString);
        List<String> lines = human.out().lines().toList();
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("mcp_kit_echo ") && l.endsWith(" (app only)")),
                human::toString);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("mcp_kit_add ") && l.endsWith(" (no audience)")),
                human::toString);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("mcp_kit_pid ") && l.endsWith("if any).")),
                "a tool for the model has no mark: " + human);
        int listed = result.json().get("tools").size();
        assertTrue(lines.stream().anyMatch(l -> l.matches("  all\\s+[0-9,]+  \\(" + (listed - 2) + " tools\\)")),
                "two tools are not the agent's: " + human);

        CliRunner.Result search = cli.runWithConfig(file, "tools", "--search", "/^(echo|add|pid)$/", "--json");
        assertEquals(0, search.exitCode(), search::toString);
        assertEquals(List.of("mcp_kit_pid"), search.json().get("tools").findValues("name").stream()
                .map(JsonNode::asString).toList(), "the agent's search never finds them: " + search);

        CliRunner.Result call = cli.runWithConfig(file, "call", "mcp_kit_echo", "{\"message\": \"by hand\"}");
        assertEquals(0, call.exitCode(), call::toString);
        assertEquals("by hand", call.out().strip(), "a person may still call one, as an app would");
    }

    @Test
    void callSavesAResultTooLargeForTheContextAndKeepsTheFile() throws IOException {
        Path large = temp.resolve("large.json");
        ObjectNode servers = McpJson.object();
        ObjectNode entry = server(TestServers.command("--features", "large-results"));
        entry.putObject("resultBudget").put("maxChars", 10_000);
        servers.set("large", entry);
        ObjectNode root = McpJson.object();
        root.set("mcpServers", servers);
        Files.writeString(large, root.toString());
        CliRunner.Result result = cli.runWithConfig(large, "call", "mcp_large_big_text", "{\"bytes\": 60000}");
        assertEquals(0, result.exitCode(), result::toString);
        assertTrue(result.out().startsWith("[This result is too large for the context: 60,000 characters is over the "
                + "cap of 10,000 characters. The whole result was saved to "), result::toString);
        java.util.regex.Matcher file = java.util.regex.Pattern.compile("saved to (\\S+); ").matcher(result.out());
        assertTrue(file.find(), result::toString);
        Path saved = Path.of(file.group(1));
        try {
            assertEquals(mcp.testkit.TestServer.numberedLines(60_000), Files.readString(saved),
                    "the command keeps the file it names");
        } finally {
            Files.deleteIfExists(saved);
            Files.deleteIfExists(saved.getParent());
        }
    }

    @Test
    void toolsForOneServerStartsOnlyThatOne() {
        CliRunner.Result result = run("tools", "--server", "kit");
        assertEquals(0, result.exitCode(), result::toString);
        assertTrue(result.out().lines().anyMatch(l -> l.startsWith("mcp_kit_echo") && l.contains("kit/echo")
                && l.contains("— Echoes the message back as text.")), result::toString);
        assertFalse(result.err().contains("broken"), result::toString);

        CliRunner.Result unknown = run("tools", "--server", "kti");
        assertEquals(2, unknown.exitCode(), unknown::toString);
        assertTrue(unknown.err().contains("Did you mean: kit"), unknown::toString);
    }

    @Test
    void toolsSearchListsTheBestMatchesFirst() {
        CliRunner.Result result = run("tools", "--server", "kit", "--search", "say it back to me", "--limit", "2");
        assertEquals(0, result.exitCode(), result::toString);
        List<String> lines = result.out().lines().takeWhile(line -> !line.isBlank()).toList();
        assertTrue(lines.size() <= 2 && lines.get(0).startsWith("mcp_kit_echo"), result::toString);
        assertTrue(result.out().contains("Definition tokens (estimate, o200k_base):"), "totals of what is listed");

        CliRunner.Result json = run("tools", "--server", "kit", "--search", "/^ech/", "--json");
        assertEquals(0, json.exitCode(), json::toString);
        assertEquals("mcp_kit_echo", json.json().at("/tools/0/name").asString(), json::toString);
        assertTrue(json.json().has("ranker") && json.json().get("ranker").isNull(),
                "no ranker module on the command's path: the words alone ranked, and --json says so: " + json);
        assertTrue(json.json().get("rankerSkipped").isNull(), json::toString);

        CliRunner.Result bad = run("tools", "--server", "kit", "--search", "x", "--limit", "0");
        assertEquals(2, bad.exitCode(), bad::toString);
        assertTrue(bad.err().contains("--limit must be 1 to 50"), bad::toString);
    }

    @Test
    void callPrintsTheRenderedResult() {
        CliRunner.Result result = run("call", "mcp_kit_echo", "{\"message\": \"hello there\"}");
        assertEquals(0, result.exitCode(), result::toString);
        assertEquals("hello there", result.out().strip());
    }

    @Test
    void callJsonPrintsTheMcpResult() {
        CliRunner.Result result = run("call", "--json", "mcp_kit_add", "{\"a\": 2, \"b\": 3}");
        assertEquals(0, result.exitCode(), result::toString);
        JsonNode document = result.json();
        assertEquals("text", document.at("/content/0/type").asString());
        assertEquals("5", document.at("/content/0/text").asString());
        assertEquals(5, document.at("/structuredContent/sum").asInt());
        assertFalse(document.get("isError").asBoolean());
    }

    @Test
    void aToolErrorExitsOne() {
        CliRunner.Result result = run("call", "mcp_kit_fail");
        assertEquals(1, result.exitCode(), result::toString);
        assertTrue(result.out().contains("Error: tool failed on purpose"), result::toString);

        CliRunner.Result json = run("call", "mcp_kit_fail", "--json");
        assertEquals(1, json.exitCode(), json::toString);
        assertTrue(json.json().get("isError").asBoolean());
    }

    @Test
    void aFailedCallExitsOneWithTheError() {
        CliRunner.Result result = run("call", "mcp_kit_error", "--json");
        assertEquals(1, result.exitCode(), result::toString);
        assertEquals("MCP error -32603: internal failure on purpose", result.json().get("error").asString(),
                result::toString);
        CliRunner.Result text = run("call", "mcp_kit_error");
        assertEquals(1, text.exitCode(), text::toString);
        assertTrue(text.out().contains("MCP error -32603: internal failure on purpose")
                && !text.out().contains("MCP error: MCP error"), text::toString);
    }

    @Test
    void usageErrorsExitTwo() {
        CliRunner.Result unknownTool = run("call", "mcp_kit_ecko", "{}");
        assertEquals(2, unknownTool.exitCode(), unknownTool::toString);
        assertTrue(unknownTool.err().contains("Unknown tool \"mcp_kit_ecko\"")
                && unknownTool.err().contains("mcp_kit_echo"), unknownTool::toString);

        CliRunner.Result badJson = run("call", "mcp_kit_echo", "{\"message\": ");
        assertEquals(2, badJson.exitCode(), badJson::toString);
        assertTrue(badJson.err().contains("ARGS_JSON"), badJson::toString);

        CliRunner.Result notAnObject = run("call", "mcp_kit_echo", "[1, 2]", "--json");
        assertEquals(2, notAnObject.exitCode(), notAnObject::toString);
        assertTrue(notAnObject.json().get("error").asString().contains("JSON object"), notAnObject::toString);

        CliRunner.Result unknownOption = run("tools", "--frobnicate");
        assertEquals(2, unknownOption.exitCode(), unknownOption::toString);
        assertTrue(unknownOption.err().contains("--frobnicate"), unknownOption::toString);

        CliRunner.Result missingParameter = run("call");
        assertEquals(2, missingParameter.exitCode(), missingParameter::toString);

        CliRunner.Result noCommand = cli.run();
        assertEquals(2, noCommand.exitCode(), noCommand::toString);
    }

    @Test
    void statusShowsALazyServerBetweenCallsAsStoppedWithItsCachedTools() throws IOException {
        Path file = temp.resolve("lazy.json");
        Path starts = temp.resolve("starts");
        ObjectNode entry = server(TestServers.command("--state", starts.toString()));
        entry.put("lazy", true);
        ObjectNode root = McpJson.object();
        root.putObject("mcpServers").set("kit", entry);
        Files.writeString(file, root.toString());

        // Nothing cached yet: started once to fill the cache (the tool cache on, unlike the other cases).
        String[] withCache = {"--config", file.toString(), "--cache-dir", temp.resolve("cache").toString()};
        CliRunner.Result filled = cli.run(concat("status", withCache));
        assertEquals(0, filled.exitCode(), filled::toString);
        assertEquals(1, Files.readAllLines(starts).size());

        CliRunner.Result result = cli.run(concat("status", withCache));
        assertEquals(0, result.exitCode(), result::toString);
        assertTrue(result.out().lines().anyMatch(line -> line.matches("○ kit  lazy, stopped, \\d+ tools cached")),
                result::toString);
        assertEquals(1, Files.readAllLines(starts).size(), "a cached lazy server is not started by status");
        CliRunner.Result json = cli.run(concat("status", withCache, "--json"));
        assertEquals("stopped", json.json().get(0).get("status").asString(), json::toString);
        assertTrue(json.json().get(0).get("tools").asInt() > 3, json::toString);

        CliRunner.Result list = cli.runWithConfig(file, "list");
        assertTrue(list.out().contains("kit [stdio]  (lazy)"), list::toString);
    }

    private static String[] concat(String command, String[] options, String... more) {
        List<String> all = new java.util.ArrayList<>(List.of(command));
        all.addAll(List.of(options));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @Test
    void statusShowsEachServer() {
        CliRunner.Result result = run("status", "--json");
        assertEquals(0, result.exitCode(), result::toString);
        JsonNode kit = null;
        JsonNode broken = null;
        for (JsonNode line : result.json()) {
            // The fields scripts read first stay first and as they were; the counts come after.
            assertEquals(List.of("name", "status", "tools", "error", "withheld", "activity"),
                    List.copyOf(line.propertyNames()));
            if (line.get("name").asString().equals("kit")) {
                kit = line;
            } else if (line.get("name").asString().equals("broken")) {
                broken = line;
            }
        }
        assertTrue(kit != null && broken != null, result::toString);
        assertEquals("connected", kit.get("status").asString());
        assertTrue(kit.get("tools").asInt() >= 10, result::toString);
        assertEquals("failed", broken.get("status").asString());
        assertFalse(broken.get("error").isNull());
        JsonNode kitActivity = kit.get("activity");
        assertEquals(0, kitActivity.get("calls").asLong(), "connecting and listing are no calls: " + kitActivity);
        assertTrue(kitActivity.get("lastError").isNull(), kitActivity.toString());
        JsonNode brokenError = broken.get("activity").get("lastError");
        assertFalse(brokenError.get("message").asString().isBlank(), broken.toString());
        java.time.Instant at = java.time.Instant.parse(brokenError.get("at").asString());
        assertFalse(at.isAfter(java.time.Instant.now()), at.toString());

        CliRunner.Result human = run("status");
        assertTrue(human.out().lines().anyMatch(l -> l.startsWith("● kit") && l.contains("connected")), human::toString);
        assertTrue(human.out().lines().anyMatch(l -> l.startsWith("✗ broken") && l.contains("failed: ")),
                human::toString);
    }

    @Test
    void statusOnAWarmToolCacheShowsEveryHealthyServerConnected() throws IOException {
        Path file = temp.resolve("two.json");
        ObjectNode servers = McpJson.object();
        for (String name : List.of("a", "b")) {
            servers.set(name, server(TestServers.command()));
        }
        ObjectNode root = McpJson.object();
        root.set("mcpServers", servers);
        Files.writeString(file, root.toString());
        String cache = temp.resolve("cache").toString();

        // The first run fills the cache; from the second on, the gate serves the servers deferred from it.
        for (int run = 1; run <= 10; run++) {
            CliRunner.Result result = cli.run("status", "--json", "--config", file.toString(), "--cache-dir", cache);
            assertEquals(0, result.exitCode(), result::toString);
            JsonNode lines = result.json();
            assertEquals(2, lines.size(), result::toString);
            for (JsonNode line : lines) {
                assertEquals("connected", line.get("status").asString(), "run " + run + ": " + result);
                assertTrue(line.get("tools").asInt() >= 10, "run " + run + ": " + result);
            }
        }
        // Even with no gate at all: the states are what came of the connects, not what the gate saw.
        CliRunner.Result human = cli.run("status", "--gate", "0", "--config", file.toString(), "--cache-dir", cache);
        assertEquals(0, human.exitCode(), human::toString);
        assertEquals(2, human.out().lines().filter(l -> l.matches("● [ab]  connected  \\(\\d+ tools\\)")).count(),
                human::toString);
        // Not waited for: the states at the gate, where both are still connecting (a JVM takes longer to start).
        CliRunner.Result atGate = cli.run("status", "--gate", "0", "--timeout", "0", "--config", file.toString(),
                "--cache-dir", cache);
        assertEquals(0, atGate.exitCode(), atGate::toString);
        assertEquals(2, atGate.out().lines().filter(l -> l.matches("◐ [ab]  connecting  \\(\\d+ tools\\)")).count(),
                atGate::toString);
    }

    @Test
    void testConnectsOneServer() {
        CliRunner.Result ok = run("test", "kit");
        assertEquals(0, ok.exitCode(), ok::toString);
        assertTrue(ok.out().matches("(?s)OK: \\d+ tools in \\d+ ms\\R"), ok::toString);

        CliRunner.Result failed = run("test", "broken");
        assertEquals(1, failed.exitCode(), failed::toString);
        assertTrue(failed.out().startsWith("FAILED: "), failed::toString);

        CliRunner.Result unknown = run("test", "nope");
        assertEquals(2, unknown.exitCode(), unknown::toString);
    }

    @Test
    void toolsGoOnWithoutAServerNothingIsCachedOfPastTheUncachedWaitAndTestWaitsForIt() throws IOException {
        Path file = temp.resolve("slow.json");
        ObjectNode servers = McpJson.object();
        servers.set("slow", server(TestServers.command("--init-delay-ms", "4000")));
        servers.set("kit", server(TestServers.command()));
        ObjectNode root = McpJson.object();
        root.set("mcpServers", servers);
        Files.writeString(file, root.toString());

        CliRunner.Result tools = cli.run("tools", "--uncached-wait", "300", "--config", file.toString(), "--no-cache");
        assertEquals(0, tools.exitCode(), tools::toString);
        assertFalse(tools.out().contains("mcp_slow_"), tools::toString);
        assertTrue(tools.err().lines().anyMatch(l -> l.startsWith("still connecting: slow; nothing is cached of it")),
                tools::toString);

        CliRunner.Result test = cli.run("test", "slow", "--uncached-wait", "300", "--config", file.toString());
        assertEquals(0, test.exitCode(), "test waits for the server itself: " + test);
        assertTrue(test.out().startsWith("OK: "), test::toString);
    }

    @Test
    void shellKeepsOneHostForManyCommands() {
        String input = String.join("\n",
                "/tools",
                "/call mcp_kit_echo {\"message\": \"hi there\"}",
                "/mcp status",
                "/frobnicate",
                "/call mcp_kit_nope",
                "/mcp reload",
                "/quit",
                "/tools") + "\n";
        CliRunner.Result result = cli.runWithInput(input, "shell", "--config", config.toString(), "--no-cache");
        assertEquals(0, result.exitCode(), result::toString);
        assertTrue(result.out().contains("mcp_kit_echo"), result::toString);
        assertTrue(result.out().lines().anyMatch(l -> l.equals("hi there")), result::toString);
        assertTrue(result.out().lines().anyMatch(l -> l.startsWith("● kit")), result::toString);
        assertTrue(result.err().contains("Unknown command \"/frobnicate\""), result::toString);
        assertTrue(result.err().contains("Unknown tool \"mcp_kit_nope\""), result::toString);
        assertFalse(result.out().contains("mcp> "), "no prompt without a terminal");
    }

    @Test
    void theShellsReloadRestartsOnlyWhatChangedOrFailed() {
        String input = String.join("\n",
                "/call mcp_kit_pid",
                "/mcp reload",
                "/call mcp_kit_pid") + "\n";
        CliRunner.Result result = cli.runWithInput(input, "shell", "--config", config.toString(), "--no-cache");
        assertEquals(0, result.exitCode(), result::toString);
        List<String> pids = result.out().lines().filter(line -> line.matches("\\d+")).toList();
        assertEquals(2, pids.size(), result::toString);
        assertEquals(pids.get(0), pids.get(1), "the same process before and after the reload: " + result);
        assertTrue(result.out().lines().anyMatch(line -> line.equals("tried again: broken")),
                "only the server that had failed is started again: " + result);
        assertFalse(result.out().contains("restarted"), result::toString);
    }

    @Test
    void shellAppliesConfigEditsLive() throws IOException {
        String input = String.join("\n",
                "/mcp disable kit",
                "/mcp status",
                "/mcp enable kit",
                "/call mcp_kit_echo {\"message\": \"back\"}") + "\n";
        CliRunner.Result result = cli.runWithInput(input, "shell", "--config", config.toString(), "--no-cache");
        assertEquals(0, result.exitCode(), result::toString);
        assertTrue(result.out().contains("○ kit is not running now"), result::toString);
        assertTrue(result.out().lines().anyMatch(l -> l.startsWith("● kit connected")), result::toString);
        assertTrue(result.out().lines().anyMatch(l -> l.equals("back")), result::toString);
        assertTrue(McpJson.mapper().readTree(Files.readString(config)).at("/mcpServers/kit/enabled").asBoolean());
    }
}
