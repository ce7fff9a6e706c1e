package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
        assertFalse(status.out().contains("planted") && status.out().contains("●"), status::toString);

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
