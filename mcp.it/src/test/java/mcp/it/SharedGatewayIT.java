package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import mcp.api.Content;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.api.ToolResult;
import mcp.gateway.Attachment;
import mcp.gateway.SharedGateway;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code mcp-host serve --stdio} as agents start it (the runtime image, in their project directories): the first one
 * starts the user's shared gateway, the others attach to it, the user's server runs once for all, and a gateway
 * killed outright costs the agents one answer and no process.
 */
class SharedGatewayIT {

    @TempDir
    Path temp;

    private final List<McpClient> clients = new ArrayList<>();
    private Path socket;

    @AfterEach
    void closeAll() throws Exception {
        for (McpClient client : clients) {
            client.close();
        }
        if (socket != null) {
            Optional<JsonNode> status = Attachment.status(socket, Duration.ofSeconds(5));
            Attachment.stop(socket, Duration.ofSeconds(5));
            if (status.isPresent()) {
                ProcessHandle daemon = ProcessHandle.of(status.get().path("pid").asLong()).orElse(null);
                if (daemon != null) {
                    daemon.onExit().get(30, TimeUnit.SECONDS);
                }
            }
        }
        EraPeer.assertNoChildLeft();
    }

    private McpClient agent(Path home, Path project) {
        Map<String, String> env = Map.of("HOME", home.toString(), "XDG_RUNTIME_DIR", temp.resolve("run").toString(),
                "XDG_CONFIG_HOME", home.resolve(".config").toString(),
                "XDG_STATE_HOME", home.resolve(".local/state").toString(),
                "XDG_CACHE_HOME", home.resolve(".cache").toString());
        StdioServerConfig config = StdioServerConfig.of(Cli.IMAGE.resolve("bin/mcp-host").toString(),
                List.of("serve", "--stdio")).withEnv(env).withCwd(project.toString());
        return EraPeer.connect("gateway", config, ClientOptions.builder("agent").protocolVersion("2025-11-25"), temp,
                clients);
    }

    private static String text(ToolResult result) {
        return ((Content.Text) result.content().get(0)).text();
    }

    @Test
    void agentsShareOneGatewayWhichMayBeKilledWithoutLosingThemOrLeavingAProcess() throws Exception {
        Path home = Files.createDirectories(temp.resolve("home"));
        Files.createDirectories(temp.resolve("run"));
        List<String> command = TestServers.command();
        ObjectNode servers = McpJson.object();
        ObjectNode alpha = servers.putObject("alpha").put("command", command.get(0));
        command.subList(1, command.size()).forEach(alpha.putArray("args")::add);
        Path user = home.resolve(".config/mcp-host/mcp.json");
        Files.createDirectories(user.getParent());
        Files.writeString(user, McpJson.object().set("mcpServers", servers).toString());
        Path a = Files.createDirectories(temp.resolve("a"));
        Path b = Files.createDirectories(temp.resolve("b"));
        socket = temp.resolve("run/mcp-host").resolve(SharedGateway.SOCKET);

        List<McpClient> agents = List.of(agent(home, a), agent(home, a), agent(home, b));
        List<String> pids = new ArrayList<>();
        for (McpClient agent : agents) {
            pids.add(text(agent.callToolBlocking("pid", McpJson.object())));
        }
        assertEquals(1, pids.stream().distinct().count(), "the user's server runs once for every agent: " + pids);
        JsonNode status = Attachment.status(socket, Duration.ofSeconds(5)).orElseThrow();
        assertEquals(3, status.path("clients").asInt(), status.toString());
        ProcessHandle daemon = ProcessHandle.of(status.path("pid").asLong()).orElseThrow();
        // status asks the gateway, and starts nothing of its own.
        Cli.Run shown = Cli.run(home, a, Map.of("XDG_RUNTIME_DIR", temp.resolve("run").toString()), "status");
        assertEquals(0, shown.exitCode(), shown.toString());
        assertTrue(shown.err().contains("Served by mcp-host's shared gateway (pid " + daemon.pid()), shown.err());
        assertTrue(shown.out().contains("alpha"), shown.out());
        // The gateway's counts: the three agents' calls of the user's one server, and the summary beside its tools.
        assertTrue(shown.out().lines().anyMatch(line -> line.startsWith("● alpha") && line.contains("; 3 calls)")),
                shown.out());
        Cli.Run json = Cli.run(home, a, Map.of("XDG_RUNTIME_DIR", temp.resolve("run").toString()), "status",
                "--json");
        assertEquals(0, json.exitCode(), json.toString());
        JsonNode alphaActivity = json.json().path(0).path("activity");
        assertEquals(3, alphaActivity.path("calls").asLong(), json.out());
        assertEquals(0, alphaActivity.path("failedCalls").asLong(), json.out());
        ProcessHandle upstream = ProcessHandle.of(Long.parseLong(pids.get(0).strip())).orElseThrow();

        // Killed during a call: that call fails, the upstream goes with the gateway, the next calls work.
        ObjectNode slow = McpJson.object().put("ms", 20_000);
        CompletableFuture<ToolResult> during = agents.get(0).callTool("slow", slow);
        Thread.sleep(500);
        daemon.destroyForcibly();
        daemon.onExit().get(10, TimeUnit.SECONDS);
        long killed = System.nanoTime();
        upstream.onExit().get(10, TimeUnit.SECONDS);
        long outlived = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        assertTrue(outlived <= 2_000, "the upstream outlived the gateway by " + outlived + " ms");
        assertTrue(during.handle((result, error) -> error != null || result.isError()).get(30, TimeUnit.SECONDS),
                "the call in flight when the gateway died did not fail");
        List<String> after = new ArrayList<>();
        for (McpClient agent : agents) {
            after.add(text(agent.callToolBlocking("pid", McpJson.object())));
        }
        assertEquals(1, after.stream().distinct().count(), after.toString());
        assertFalse(after.get(0).equals(pids.get(0)), "a new gateway runs a new upstream");
        JsonNode again = Attachment.status(socket, Duration.ofSeconds(5)).orElseThrow();
        assertTrue(again.path("pid").asLong() != daemon.pid(), again.toString());
        assertEquals(3, again.path("clients").asInt(), again.toString());
    }
}
