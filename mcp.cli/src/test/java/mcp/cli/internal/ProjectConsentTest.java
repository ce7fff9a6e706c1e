package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import mcp.api.McpJson;
import mcp.host.LoadResult;
import mcp.host.McpHost;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A cloned repository whose {@code .mcp.json} holds a server that would write a marker file: no command
 * and no embedder ever starts it until the user approves it in Claude Code. A server the user did
 * approve (in {@code ~/.claude/settings.json}) starts beside it, so the commands are seen to work.
 */
class ProjectConsentTest {

    @TempDir
    Path temp;

    private Path home;
    private Path repo;
    private Path marker;
    private CliRunner cli;

    @BeforeEach
    void clonedRepository() throws IOException {
        home = Files.createDirectories(temp.resolve("home"));
        repo = Files.createDirectories(temp.resolve("clone"));
        Files.createDirectories(repo.resolve(".git"));
        marker = temp.resolve("MARKER");
        ObjectNode servers = McpJson.object();
        ObjectNode planted = servers.putObject("planted");
        planted.put("command", "sh");
        planted.putArray("args").add("-c").add("touch '" + marker + "'");
        ObjectNode kit = servers.putObject("kit");
        List<String> command = TestServers.command();
        kit.put("command", command.get(0));
        ArrayNode args = kit.putArray("args");
        command.subList(1, command.size()).forEach(args::add);
        ObjectNode root = McpJson.object();
        root.set("mcpServers", servers);
        Files.writeString(repo.resolve(".mcp.json"), root.toString());
        // Approval of the kit only, where Claude Code keeps it for every project of the user.
        cli = new CliRunner(repo, home).approveInClaude("kit");
        // And in mcp-host, whose approval comes on top of Claude Code's (ProjectApprovalCliTest).
        CliRunner.Result approved = cli.run("approve", "kit");
        assertEquals(0, approved.exitCode(), approved::toString);
    }

    @AfterEach
    void theMarkerIsNeverWrittenAndNoProcessIsLeft() throws InterruptedException {
        CliRunner.assertNoChildProcessLeft();
        assertFalse(Files.exists(marker), "the unapproved server ran");
    }

    @Test
    void toolsCallStatusAndShellNeverStartTheUnapprovedServer() {
        CliRunner.Result tools = cli.run("tools", "--json", "--no-cache");
        assertEquals(0, tools.exitCode(), tools::toString);
        List<String> servers = tools.json().get("tools").valueStream().map(t -> t.get("server").asString())
                .distinct().toList();
        assertEquals(List.of("kit"), servers, tools::toString);

        CliRunner.Result call = cli.run("call", "mcp_planted_anything", "{}", "--no-cache");
        assertEquals(2, call.exitCode(), call::toString);
        assertTrue(call.err().contains("pending approval in Claude Code"), call::toString);

        CliRunner.Result status = cli.run("status", "--no-cache");
        assertEquals(0, status.exitCode(), status::toString);
        assertTrue(status.out().lines().anyMatch(l -> l.startsWith("◌ planted ")), status::toString);
        assertFalse(status.out().lines().anyMatch(l -> l.startsWith("● planted")), status::toString);

        CliRunner.Result test = cli.run("test", "planted", "--no-cache");
        assertEquals(2, test.exitCode(), test::toString);
        assertTrue(test.err().contains("pending approval in Claude Code"), test::toString);

        CliRunner.Result shell = cli.runWithInput("/mcp status\n/tools\n/quit\n", "shell", "--no-cache");
        assertEquals(0, shell.exitCode(), shell::toString);

        // mcp-host's approval cannot override Claude Code's: the owning tool's decision wins.
        CliRunner.Result approve = cli.run("approve", "planted");
        assertEquals(2, approve.exitCode(), approve::toString);
        assertTrue(approve.err().contains("MCP server \"planted\" cannot be approved in mcp-host: pending approval in"
                + " Claude Code"), approve::toString);
        CliRunner.Result all = cli.run("approve", "--all");
        assertEquals(0, all.exitCode(), all::toString);
        assertTrue(all.out().contains("No project server is pending approval."), all::toString);
    }

    @Test
    void toolsAndStatusShowEveryServerNotStartedAndWhy() throws IOException {
        // Beside planted (pending in Claude Code): one Claude Code approved and mcp-host not yet, one disabled.
        Path mcpJson = repo.resolve(".mcp.json");
        ObjectNode root = (ObjectNode) McpJson.mapper().readTree(Files.readString(mcpJson));
        ObjectNode unvetted = ((ObjectNode) root.get("mcpServers")).putObject("unvetted");
        unvetted.put("command", "sh");
        unvetted.putArray("args").add("-c").add("touch '" + marker + "'");
        Files.writeString(mcpJson, root.toString());
        cli.approveInClaude("kit", "unvetted");
        Path user = home.resolve(".config/mcp-host/mcp.json");
        Files.createDirectories(user.getParent());
        ObjectNode off = McpJson.object();
        off.putObject("mcpServers").putObject("off").put("command", "sh").put("enabled", false)
                .putArray("args").add("-c").add("touch '" + marker + "'");
        Files.writeString(user, off.toString());

        CliRunner.Result tools = cli.run("tools", "--json", "--no-cache");
        assertEquals(0, tools.exitCode(), tools::toString);
        Map<String, JsonNode> notStarted = byName(tools.json().get("notStarted"));
        assertEquals(List.of("off", "planted", "unvetted"), List.copyOf(notStarted.keySet()), tools::toString);
        JsonNode planted = notStarted.get("planted");
        assertEquals("not-consented", planted.get("reason").asString());
        assertEquals("pending-approval", planted.at("/owner/state").asString());
        assertEquals(mcpJson.toString(), planted.get("path").asString());
        assertTrue(planted.get("detail").asString().startsWith("pending approval in Claude Code"), tools::toString);
        assertEquals("not-approved", notStarted.get("unvetted").get("reason").asString());
        assertEquals("pending", notStarted.get("unvetted").at("/approval/state").asString());
        assertEquals("disabled", notStarted.get("off").get("reason").asString());
        assertEquals(List.of("unvetted"), List.copyOf(byName(tools.json().get("pending")).keySet()),
                "pending keeps its meaning: waiting for mcp-host's approval");

        CliRunner.Result human = cli.run("tools", "--no-cache");
        assertEquals(0, human.exitCode(), human::toString);
        assertTrue(human.err().contains("not started: planted (Claude Code, " + mcpJson + "): pending approval in"
                + " Claude Code"), human::toString);
        assertTrue(human.err().contains("not started: unvetted (Claude Code, " + mcpJson + "): project server not"
                + " approved in mcp-host yet"), human::toString);
        assertTrue(human.err().contains("not started: off (mcp-host, " + user + "): "), human::toString);

        CliRunner.Result status = cli.run("status", "--json", "--no-cache");
        assertEquals(0, status.exitCode(), status::toString);
        Map<String, JsonNode> rows = byName(status.json());
        assertEquals(List.of("kit", "off", "planted", "unvetted"), List.copyOf(rows.keySet()), status::toString);
        assertEquals("connected", rows.get("kit").get("status").asString());
        assertEquals("inactive", rows.get("planted").get("status").asString());
        assertEquals(0, rows.get("planted").get("tools").asInt());
        assertEquals(planted.get("detail").asString(), rows.get("planted").get("error").asString());
        assertEquals("pending-approval", rows.get("planted").at("/owner/state").asString());
        assertEquals("not-approved", rows.get("unvetted").get("status").asString());
        assertEquals("inactive", rows.get("off").get("status").asString());
        assertEquals("disabled", rows.get("off").get("reason").asString());

        CliRunner.Result table = cli.run("status", "--no-cache");
        assertEquals(0, table.exitCode(), table::toString);
        List<String> lines = table.out().lines().toList();
        assertTrue(lines.get(0).startsWith("● kit "), table::toString);
        assertTrue(lines.contains("◌ planted   not started (Claude Code, " + mcpJson + "): "
                + planted.get("detail").asString()), table::toString);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("◌ unvetted  not started (Claude Code, " + mcpJson
                + "): project server not approved in mcp-host yet")), table::toString);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("◌ off       not started (mcp-host, " + user + "): ")),
                table::toString);
    }

    private static Map<String, JsonNode> byName(JsonNode array) {
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        array.forEach(entry -> byName.put(entry.get("name").asString(), entry));
        return byName;
    }

    @Test
    void listShowsItInactiveWithClaudeCodesReason() {
        CliRunner.Result list = cli.run("list", "--json");
        assertEquals(0, list.exitCode(), list::toString);
        JsonNode planted = list.json().valueStream().filter(e -> e.get("name").asString().equals("planted"))
                .findFirst().orElseThrow(() -> new AssertionError(list.toString()));
        assertEquals("inactive", planted.get("status").asString());
        assertTrue(planted.get("error").asString().startsWith("pending approval in Claude Code"), list::toString);
        assertEquals(repo.resolve(".mcp.json").toString(), planted.get("path").asString());

        CliRunner.Result human = cli.run("list");
        assertTrue(human.out().lines().anyMatch(l -> l.contains("◌ planted") && l.contains("pending approval")),
                human::toString);
    }

    @Test
    void anEmbedderThatLoadsTheFolderNeverStartsIt() throws Exception {
        try (McpHost host = McpHost.builder().home(home).workingDirectory(repo).cache(false)
                .environment(Map.of("HOME", home.toString())).build()) {
            LoadResult load = host.load();
            assertTrue(load.tools().stream().allMatch(t -> t.name().startsWith("mcp_kit_")), load.tools()::toString);
            assertFalse(load.tools().isEmpty());
            // Give a started process the time to write its file, were one started.
            Thread.sleep(300);
        }
    }
}
