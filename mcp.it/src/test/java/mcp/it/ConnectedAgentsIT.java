package mcp.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.api.ToolDefinition;
import mcp.gateway.Attachment;
import mcp.gateway.SharedGateway;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Claude Code, Codex and Gemini CLI (pinned in {@code interop/agents}) put behind the user's shared gateway by
 * {@code mcp-host connect AGENT --yes}, in one scratch home, and back by {@code mcp-host disconnect AGENT}.
 *
 * <p>Each agent first has a user-level server of its own, written by its own CLI ({@code claude mcp add}, {@code codex
 * mcp add}, {@code gemini mcp add}), which connect moves into mcp-host's config; connect runs with the agents' CLIs on
 * the PATH, so Claude Code's and Gemini CLI's files are written by their own CLI (and Codex's directly). Two projects have a project server of
 * mcp-host's ({@code .mcp-host/mcp.json}), approved in the first only. Then one turn of each agent against the
 * recording model endpoint, offline ({@code agent-model.sh} in a network namespace), in each project, one after
 * another; the first agent's {@code serve --stdio} starts the shared gateway and the others
 * attach to it. Every server starts through a script that notes its process, its parent and its name, so the test
 * counts: each moved user server ran once for all three agents, the approved project server once, the unapproved one
 * never, all as children of the one gateway. Each agent offered its model exactly the tools a client of the gateway
 * attached in the same project sees. Then {@code serve --stop} leaves no process, and {@code disconnect} gives every
 * agent its file back as it was before connect.
 */
class ConnectedAgentsIT {

    /** The server each agent had of its own, as its CLI added it (user scope). */
    private static final Map<String, String> OWN = new TreeMap<>(Map.of(
            "claude", "fromclaude",
            "codex", "fromcodex",
            "gemini", "fromgemini"));
    private static final String PROJECT_SERVER = "notes";
    /** The gateway's own tool that asks a project's user to approve its waiting servers. */
    private static final String APPROVE_TOOL = "approve_project_servers";

    private static AgentTurns.Runtime runtime;

    @TempDir
    Path temp;

    private final List<McpClient> clients = new ArrayList<>();

    @BeforeAll
    static void agentsAndANetworkNamespace() {
        runtime = AgentTurns.assumeAgentsCanRun();
    }

    @AfterEach
    void closeClientsAndEndWhatIsLeft() throws Exception {
        // A failed run may leave a gateway (and its servers) waiting out its idle time: every process of this
        // scratch home is the test's own.
        AgentTurns.killAll(temp.resolve("home"));
        // The gateway's log and Claude Code's debug log stay for the reader beside the recorder's.
        Path kept = Path.of("target/connected-agents").toAbsolutePath();
        Path log = temp.resolve("home/.local/state/mcp-host/serve-shared.log");
        if (Files.isDirectory(kept) && Files.isRegularFile(log)) {
            Files.copy(log, kept.resolve("serve-shared.log"), StandardCopyOption.REPLACE_EXISTING);
        }
        Path debug = temp.resolve("home/.claude/debug");
        if (Files.isDirectory(kept) && Files.isDirectory(debug)) {
            try (Stream<Path> files = Files.list(debug)) {
                for (Path file : files.toList()) {
                    Files.copy(file, kept.resolve("claude-" + file.getFileName()),
                            StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        EraPeer.closeAndAssertNoChildLeft(clients);
    }

    @Test
    void connectedAgentsShareOneGatewayEachSeesItsProjectAndDisconnectRestoresTheirFiles() throws Exception {
        Path home = Files.createDirectories(temp.resolve("home"));
        Path run = Files.createDirectories(temp.resolve("run"));
        Path p1 = Files.createDirectories(temp.resolve("p1"));
        Path p2 = Files.createDirectories(temp.resolve("p2"));
        Path pids = temp.resolve("pids");
        Map<String, String> env = new LinkedHashMap<>(AgentTurns.xdg(home));
        env.put("XDG_RUNTIME_DIR", run.toString());
        Map<String, String> agentEnv = AgentTurns.agentEnvironment(runtime, home, env);

        // Each agent's own user server, written by its own CLI; each server a script that notes its start.
        Map<String, Path> files = Map.of(
                "claude", home.resolve(".claude.json"),
                "codex", home.resolve(".codex/config.toml"),
                "gemini", home.resolve(".gemini/settings.json"));
        Files.createDirectories(home.resolve(".codex"));
        Files.writeString(files.get("codex"), "# The user's own settings.\nmodel_reasoning_effort = \"low\"\n");
        Files.createDirectories(home.resolve(".gemini"));
        ObjectNode settings = McpJson.object();
        settings.putObject("security").putObject("auth").put("selectedType", "gemini-api-key");
        Files.writeString(files.get("gemini"), settings.toPrettyString());
        // The folders trusted as Gemini CLI's trust dialog writes them (it runs headless only in a trusted one).
        Files.writeString(home.resolve(".gemini/trustedFolders.json"), McpJson.object()
                .put(p1.toString(), "TRUST_FOLDER").put(p2.toString(), "TRUST_FOLDER").toPrettyString());
        agentCli(home, agentEnv, "claude", "mcp", "add", "--scope", "user", OWN.get("claude"), "--",
                noted(pids, OWN.get("claude")).toString());
        agentCli(home, agentEnv, "codex", "mcp", "add", OWN.get("codex"), "--",
                noted(pids, OWN.get("codex")).toString());
        agentCli(home, agentEnv, "gemini", "mcp", "add", "--scope", "user", OWN.get("gemini"),
                noted(pids, OWN.get("gemini")).toString());
        Map<String, byte[]> before = new TreeMap<>();
        for (String agent : OWN.keySet()) {
            before.put(agent, Files.readAllBytes(files.get(agent)));
            assertTrue(new String(before.get(agent), StandardCharsets.UTF_8).contains(OWN.get(agent)),
                    agent + "'s CLI wrote its server: " + files.get(agent));
        }

        // Connected: each file now starts the gateway, and the servers are mcp-host's. With the agents' CLIs on the
        // PATH, offline: Claude Code's and Gemini CLI's files are written by their own CLI, Codex's directly.
        String launcher = Cli.IMAGE.resolve("bin/mcp-host").toString();
        Map<String, byte[]> connected = new TreeMap<>();
        for (String agent : OWN.keySet()) {
            List<String> command = new ArrayList<>(runtime.netns());
            command.addAll(List.of("env", "-i"));
            agentEnv.forEach((name, value) -> {
                if (!value.contains("@MODEL@")) {
                    command.add(name + "=" + value);
                }
            });
            command.addAll(List.of(launcher, "connect", agent, "--yes"));
            Cli.Run connect = Cli.exec(command, home, home, Map.of());
            assertEquals(0, connect.exitCode(), connect.toString());
            assertTrue(connect.err().contains("mcp-host connect: " + files.get(agent) + (agent.equals("codex")
                    ? " written directly: codex mcp add cannot write the env_vars" : " written by " + agent
                            + "'s own CLI: ")), connect.toString());
            connected.put(agent, Files.readAllBytes(files.get(agent)));
            String now = new String(connected.get(agent), StandardCharsets.UTF_8);
            assertTrue(now.contains(launcher) && !now.contains(OWN.get(agent)), agent + ": " + now);
        }

        // Two projects with a server of mcp-host's each, under one name; approved in the first only.
        for (Path project : List.of(p1, p2)) {
            ObjectNode entry = McpJson.object().put("command", noted(pids, project.getFileName() + "-"
                    + PROJECT_SERVER).toString());
            Files.createDirectories(project.resolve(".mcp-host"));
            Files.writeString(project.resolve(".mcp-host/mcp.json"), McpJson.object().set("mcpServers",
                    McpJson.object().set(PROJECT_SERVER, entry)).toPrettyString());
        }
        Cli.Run approved = Cli.run(home, p1, env, "approve", PROJECT_SERVER);
        assertEquals(0, approved.exitCode(), approved.toString());
        // A user who has run mcp-host before: the tool cache is filled (AgentsThroughGatewayIT says why).
        Cli.Run warm = Cli.run(home, p1, env, "tools");
        assertEquals(0, warm.exitCode(), warm.toString());
        for (String server : OWN.values()) {
            assertTrue(warm.out().contains(server), "the moved server " + server + " is mcp-host's: " + warm);
        }
        Files.deleteIfExists(pids);

        // One turn of each agent in each project, one after another: the first agent's serve starts the shared
        // gateway, which outlives the turn (its idle time) and serves the next agents. Gemini CLI goes first: it
        // waits for its servers before its first model request, and Claude Code in `-p` does not (its request went
        // out 3 ms before its connect to a gateway that was still starting, on a busy machine, and offered no tool):
        // attaching to a running gateway takes it well under its own start.
        List<Turn> turns = new ArrayList<>();
        // The recorder's logs stay for the reader in target/connected-agents/.
        Path kept = Files.createDirectories(Path.of("target/connected-agents").toAbsolutePath());
        for (Path project : List.of(p1, p2)) {
            for (String agent : List.of("gemini", "claude", "codex")) {
                Path log = kept.resolve("model-" + agent + "-" + project.getFileName() + ".jsonl");
                Files.deleteIfExists(log);
                List<String> command = new ArrayList<>(AgentTurns.command(agent));
                if (agent.equals("claude")) {
                    command.add("--debug"); // its log (when its MCP server connected, and what it sent) is kept
                }
                Cli.Run ran = AgentTurns.turn(runtime, log, project, agentEnv, command, home);
                assertEquals(0, ran.exitCode(), ran.toString());
                assertTrue(Files.isRegularFile(log), agent + " sent its model no request that offered tools; " + ran);
                turns.add(new Turn(agent, project, log));
            }
        }

        // The processes: one per user server for all three agents, one for the approved project server, none for
        // the unapproved one; all children of the one gateway.
        Path socket = run.resolve("mcp-host").resolve(SharedGateway.SOCKET);
        JsonNode status = Attachment.status(socket, Duration.ofSeconds(5)).orElseThrow(() -> new AssertionError(
                "no shared gateway answers at " + socket));
        long gateway = status.path("pid").asLong();
        Map<String, List<Long>> byServer = new TreeMap<>();
        Set<Long> parents = new TreeSet<>();
        Set<Long> started = new TreeSet<>(List.of(gateway));
        for (String line : Files.readAllLines(pids)) {
            String[] fields = line.strip().split(" ");
            byServer.computeIfAbsent(fields[2], k -> new ArrayList<>()).add(Long.parseLong(fields[0]));
            parents.add(Long.parseLong(fields[1]));
            started.add(Long.parseLong(fields[0]));
        }
        Map<String, Integer> counts = new TreeMap<>();
        byServer.forEach((server, list) -> counts.put(server, list.size()));
        Map<String, Integer> once = new TreeMap<>();
        OWN.values().forEach(server -> once.put(server, 1));
        once.put("p1-" + PROJECT_SERVER, 1);
        assertEquals(once, counts, "each user server once for all agents, p1's approved server once, p2's never");
        assertEquals(Set.of(gateway), parents, "every server is the one gateway's (pid " + gateway + ")");

        // What each agent offered its model: exactly the gateway's tools in its project, under its own prefix.
        Map<Path, Set<String>> exposed = new LinkedHashMap<>();
        for (Path project : List.of(p1, p2)) {
            McpClient client = EraPeer.connect("gateway-" + project.getFileName(), StdioServerConfig.of(launcher,
                    List.of("serve", "--stdio")).withEnv(AgentTurns.withHome(home, env)).withCwd(project.toString()),
                    ClientOptions.builder("gateway"), temp, clients);
            exposed.put(project, client.listToolsBlocking().stream().map(ToolDefinition::name)
                    .collect(Collectors.toCollection(TreeSet::new)));
        }
        Set<String> users = new TreeSet<>(OWN.values());
        Set<String> withProject = new TreeSet<>(users);
        withProject.add(PROJECT_SERVER);
        assertEquals(withProject, servers(exposed.get(p1)), "p1: the user's servers and its approved one");
        assertEquals(users, servers(exposed.get(p2)), "p2: the user's servers alone");
        // p2's unapproved server waits for its user: the one tool that asks them is there, and only there.
        assertTrue(exposed.get(p2).contains(APPROVE_TOOL), "p2 offers " + APPROVE_TOOL);
        assertFalse(exposed.get(p1).contains(APPROVE_TOOL), "p1 has nothing waiting");
        for (Turn turn : turns) {
            Set<String> expected = exposed.get(turn.project()).stream().map(name -> AgentTurns.PREFIX.get(turn.agent())
                    + name).collect(Collectors.toCollection(TreeSet::new));
            List<String> records = Files.readAllLines(turn.log()).stream().filter(l -> !l.isBlank()).toList();
            assertFalse(records.isEmpty(), turn + " recorded no model request");
            for (String record : records) {
                assertEquals(expected, AgentTurns.offered(McpJson.mapper().readTree(record)), turn.agent() + " in "
                        + turn.project().getFileName() + " offered exactly its project's tools, in every request: "
                        + records);
            }
        }
        EraPeer.closeAndAssertNoChildLeft(clients);
        clients.clear();

        Cli.Run stopped = Cli.run(home, home, env, "serve", "--stop");
        assertTrue(stopped.err().contains("the shared gateway is ending"), stopped.toString());
        AgentTurns.assertNothingLeft(started, home);
        assertFalse(Files.readString(pids).contains("p2-" + PROJECT_SERVER), "p2's unapproved server never ran");

        // Disconnected: each file as it was. Codex and Gemini CLI leave their files alone during a turn: the very
        // bytes come back. Claude Code rewrites ~/.claude.json at every start (its counters and per-project state),
        // so disconnect puts its servers back into the file as Claude Code left it: the servers are the original
        // document's, and everything else is what Claude Code wrote since.
        for (String agent : OWN.keySet()) {
            byte[] beforeDisconnect = Files.readAllBytes(files.get(agent));
            Cli.Run disconnect = Cli.run(home, home, env, "disconnect", agent);
            assertEquals(0, disconnect.exitCode(), disconnect.toString());
            byte[] after = Files.readAllBytes(files.get(agent));
            if (agent.equals("claude")) {
                assertRestoredAsADocument(before.get(agent), beforeDisconnect, after);
            } else {
                assertArrayEquals(connected.get(agent), beforeDisconnect, agent + " rewrote its file during a turn");
                assertArrayEquals(before.get(agent), after, agent + "'s file, byte for byte: "
                        + new String(after, StandardCharsets.UTF_8));
            }
        }
        JsonNode own = McpJson.mapper().readTree(Files.readString(home.resolve(".config/mcp-host/mcp.json")));
        for (String server : OWN.values()) {
            assertFalse(own.path("mcpServers").has(server), "disconnect took " + server + " back: " + own);
        }
    }

    /** One agent's turn in a project, and the recorder's log of it. */
    private record Turn(String agent, Path project, Path log) {
    }

    /**
     * Claude Code's file after disconnect: byte for byte the original when Claude Code did not touch it since connect;
     * otherwise the original's servers and, beside them, everything as Claude Code left it.
     */
    private static void assertRestoredAsADocument(byte[] original, byte[] beforeDisconnect, byte[] after) {
        JsonNode was = McpJson.mapper().readTree(original);
        JsonNode is = McpJson.mapper().readTree(after);
        assertEquals(was.path("mcpServers"), is.path("mcpServers"), "claude's servers as they were");
        ObjectNode rest = ((ObjectNode) is).deepCopy();
        rest.remove("mcpServers");
        ObjectNode left = ((ObjectNode) McpJson.mapper().readTree(beforeDisconnect)).deepCopy();
        left.remove("mcpServers");
        assertEquals(left, rest, "the rest of ~/.claude.json as Claude Code left it");
    }

    /**
     * The servers of the gateway's tool names: {@code <server>_<tool>}, and no server name here has a '_' or a '-'
     * (which the gateway's names turn into '_').
     */
    private static Set<String> servers(Set<String> tools) {
        return tools.stream().filter(name -> !name.equals(APPROVE_TOOL))
                .map(name -> name.substring(0, name.indexOf('_')))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /**
     * A script that notes "pid parent-pid name" in the file and becomes a testkit server: the command each server
     * has, so that its starts can be counted whoever starts it.
     */
    private Path noted(Path pids, String name) throws IOException {
        Path script = Files.createDirectories(temp.resolve("bin")).resolve(name + ".sh");
        String command = TestServers.command().stream().map(ConnectedAgentsIT::shellQuote)
                .collect(Collectors.joining(" "));
        Files.writeString(script, "#!/bin/sh\necho \"$$ $PPID " + name + "\" >>" + shellQuote(pids.toString())
                + "\nexec " + command + "\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    private static String shellQuote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }

    /** An agent's own CLI, with the agent's environment (no model: it only writes its config). */
    private static void agentCli(Path home, Map<String, String> agentEnv, String... args) {
        List<String> command = new ArrayList<>(List.of("env", "-i"));
        agentEnv.forEach((name, value) -> {
            if (!value.contains("@MODEL@")) {
                command.add(name + "=" + value);
            }
        });
        command.addAll(List.of(args));
        Cli.Run run = Cli.exec(command, home, home, Map.of());
        assertEquals(0, run.exitCode(), String.join(" ", args) + ": " + run);
    }
}
