package mcp.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import mcp.api.McpJson;
import mcp.config.AgentConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code mcp-host connect AGENT --yes} with the pinned agents' CLIs ({@code interop/agents}) on the PATH, offline in a
 * network namespace, in a scratch home: Claude Code's and Gemini CLI's files (user and project scope) are written by
 * their own {@code mcp add-json}/{@code mcp add} and {@code mcp remove}, Codex's directly (its {@code mcp add} cannot
 * write {@code env_vars}); connect says which, each agent's own {@code mcp list} then lists the gateway's entry and not
 * the moved server, and {@code disconnect} gives the file back.
 *
 * <p>The entry names a launcher that does not exist: the agents' {@code list} would start it (Claude Code's checks
 * each server's health), and what is tested here is the entry as the agent reads it. {@code ConnectedAgentsIT} runs
 * real turns through the gateway with files written the same way.
 */
class ConnectThroughAgentCliIT {

    private static AgentTurns.Runtime runtime;

    @TempDir
    Path temp;

    private Path home;
    private Path project;
    private Map<String, String> agentEnv;
    private String launcher;

    @BeforeAll
    static void agentsAndANetworkNamespace() {
        runtime = AgentTurns.assumeAgentsCanRun();
    }

    @AfterEach
    void endWhatIsLeft() {
        if (home != null) {
            AgentTurns.killAll(home);
        }
    }

    @Test
    void claudeAndGeminiAreWrittenByTheirOwnCliCodexDirectlyAndEachListsTheGateway() throws Exception {
        home = Files.createDirectories(temp.resolve("home"));
        project = Files.createDirectories(temp.resolve("project"));
        agentEnv = new LinkedHashMap<>();
        // No model and no API key: with a key set, Claude Code's `mcp list` took about 17 s offline here.
        AgentTurns.agentEnvironment(runtime, home, AgentTurns.xdg(home)).forEach((name, value) -> {
            if (!value.contains("@MODEL@") && !name.endsWith("_API_KEY")) {
                agentEnv.put(name, value);
            }
        });
        launcher = temp.resolve("not-installed/mcp-host").toString();

        connectListDisconnect("claude", false, home.resolve(".claude.json"), "ownclaude",
                List.of("claude", "mcp", "add", "--scope", "user", "ownclaude", "--", "/bin/true"));
        connectListDisconnect("codex", false, home.resolve(".codex/config.toml"), "owncodex",
                List.of("codex", "mcp", "add", "owncodex", "--", "/bin/true"));
        connectListDisconnect("gemini", false, home.resolve(".gemini/settings.json"), "owngemini",
                List.of("gemini", "mcp", "add", "--scope", "user", "owngemini", "/bin/true"));
        connectListDisconnect("claude", true, project.resolve(".mcp.json"), "projclaude",
                List.of("claude", "mcp", "add", "--scope", "project", "projclaude", "--", "/bin/true"));
        connectListDisconnect("gemini", true, project.resolve(".gemini/settings.json"), "projgemini",
                List.of("gemini", "mcp", "add", "--scope", "project", "projgemini", "/bin/true"));
    }

    /**
     * @param own the server the agent's CLI adds first, which connect moves
     * @param addOwn the agent's command that adds it
     */
    private void connectListDisconnect(String agent, boolean scoped, Path file, String own, List<String> addOwn)
            throws Exception {
        String what = agent + (scoped ? " --project" : "");
        agentCli(addOwn);
        byte[] before = Files.readAllBytes(file);
        assertTrue(new String(before, StandardCharsets.UTF_8).contains(own), what + ": its CLI wrote " + own + " into " + file);

        List<String> connect = new ArrayList<>(List.of("connect", agent, "--yes"));
        if (scoped) {
            connect.add("--project");
        }
        Cli.Run connected = mcpHost(connect);
        assertEquals(0, connected.exitCode(), what + ": " + connected);
        String way = agent.equals("codex")
                ? "mcp-host connect: " + file + " written directly: codex mcp add cannot write the env_vars that the"
                        + " gateway's entry needs\n"
                : "mcp-host connect: " + file + " written by " + agent + "'s own CLI: " + agent + " mcp "
                        + (agent.equals("claude") ? "add-json" : "add") + " --scope " + (scoped ? "project" : "user")
                        + " mcp-host ";
        assertTrue(connected.err().contains(way), what + ": said which way: " + connected);
        assertTrue(connected.err().contains(agent + " mcp remove --scope " + (scoped ? "project" : "user") + " "
                + own + "\n") || agent.equals("codex"), what + ": the moved server removed by the CLI: " + connected);
        byte[] written = Files.readAllBytes(file);

        // The agent reads the gateway's entry, and no longer the moved server.
        if (agent.equals("codex")) {
            JsonNode list = McpJson.mapper().readTree(agentCli(List.of("codex", "mcp", "list", "--json")).out());
            assertEquals(1, list.size(), list.toString());
            JsonNode transport = list.get(0).path("transport");
            assertEquals(AgentConnection.GATEWAY, list.get(0).path("name").asString(), list.toString());
            assertEquals(launcher, transport.path("command").asString(), list.toString());
            assertEquals(McpJson.mapper().valueToTree(List.of("serve", "--stdio")), transport.path("args"));
            assertEquals(McpJson.mapper().valueToTree(AgentConnection.CODEX_PASSED_VARIABLES),
                    transport.path("env_vars"), list.toString());
        } else {
            // Gemini CLI prints its list on stderr.
            Cli.Run listed = agentCli(List.of(agent, "mcp", "list"));
            String list = listed.out() + listed.err();
            assertTrue(list.contains("mcp-host: " + launcher + " serve --stdio"), what + ": " + list);
            assertFalse(list.contains(own), what + ": " + list);
        }

        boolean rewritten = !Arrays.equals(written, Files.readAllBytes(file));
        Cli.Run disconnected = mcpHost(scoped ? List.of("disconnect", agent, "--project")
                : List.of("disconnect", agent));
        assertEquals(0, disconnected.exitCode(), what + ": " + disconnected);
        byte[] after = Files.readAllBytes(file);
        if (rewritten) {
            // Claude Code's list rewrote ~/.claude.json (its own state): the servers come back into it as they were.
            assertTrue(agent.equals("claude") && !scoped, what + " rewrote " + file + " in its list");
            assertEquals(McpJson.mapper().readTree(before).path("mcpServers"),
                    McpJson.mapper().readTree(after).path("mcpServers"), what + ": " + new String(after, StandardCharsets.UTF_8));
        } else {
            assertArrayEquals(before, after, what + ": byte for byte: " + new String(after, StandardCharsets.UTF_8));
        }
    }

    /** mcp-host of the runtime image, offline with the agents' CLIs on the PATH and nothing else of the machine. */
    private Cli.Run mcpHost(List<String> args) {
        List<String> command = new ArrayList<>(runtime.netns());
        command.addAll(List.of("env", "-i"));
        agentEnv.forEach((name, value) -> command.add(name + "=" + value));
        // The image's launcher script names itself; this names one that is not there (see the class comment).
        command.add("MCP_HOST_LAUNCHER=" + launcher);
        command.addAll(List.of(Cli.IMAGE.resolve("bin/java").toString(), "-XX:SharedArchiveFile="
                + Cli.IMAGE.resolve("lib/mcp-host.jsa"), "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Xlog:disable", "-m", "mcp.cli/mcp.cli.Main"));
        command.addAll(args);
        return Cli.exec(command, home, project, Map.of());
    }

    /** An agent's own CLI, offline, with the agent's environment alone, in the project. */
    private Cli.Run agentCli(List<String> args) {
        List<String> command = new ArrayList<>(runtime.netns());
        command.addAll(List.of("env", "-i"));
        agentEnv.forEach((name, value) -> command.add(name + "=" + value));
        command.addAll(args);
        Cli.Run run = Cli.exec(command, home, project, Map.of());
        assertEquals(0, run.exitCode(), String.join(" ", args) + ": " + run);
        return run;
    }
}
