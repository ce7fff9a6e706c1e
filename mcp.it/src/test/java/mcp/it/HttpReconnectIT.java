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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import mcp.api.HttpServerConfig;
import mcp.api.McpJson;
import mcp.api.ReconnectPolicy;
import mcp.api.ServerConfig;
import mcp.api.SseServerConfig;
import mcp.manager.BridgedTool;
import mcp.manager.ManagerListener;
import mcp.manager.McpClient;
import mcp.manager.McpManager;
import mcp.manager.ServerStatus;
import mcp.manager.ToolOutput;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17's "a server that comes back after its dependency returns reconnects", for remote servers: a real HTTP
 * server process on 127.0.0.1 is killed while the manager holds its session, and started again on the same port;
 * the manager reports it reconnecting, keeps its tools as deferred tools, lets a call made meanwhile wait, and is
 * connected again with live tools once the server listens. One server per transport and era: the reference
 * {@code server-everything} over Streamable HTTP with a session and a GET stream (2025), the same over the legacy
 * HTTP+SSE transport, and the Python SDK's server over stateless Streamable HTTP (2026-07-28, with its listen
 * stream).
 */
class HttpReconnectIT {

    private static final Path INTEROP = Path.of(System.getProperty("mcp.interop.dir", "../interop")).toAbsolutePath();
    /** Enough attempts for a server that stays down a few seconds and a slow start on a loaded machine. */
    private static final ReconnectPolicy PATIENT = new ReconnectPolicy(40, Duration.ofMillis(100),
            Duration.ofMillis(500), 0.2, Duration.ofMillis(200));

    @TempDir
    Path temp;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final List<String> states = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private static IntFunction<List<String>> everything(String mode) {
        Path script = INTEROP.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        assertTrue(Files.isRegularFile(script), script + " is missing: run interop/install.sh (mvn verify runs it)");
        return port -> List.of("env", "PORT=" + port, "node", "--require", INTEROP.resolve("loopback.cjs").toString(),
                script.toString(), mode);
    }

    private McpManager manager() {
        McpManager manager = McpManager.builder().workingDirectory(temp).reconnect(PATIENT)
                .listener(new ManagerListener() {
                    @Override
                    public void onStatusChange(String serverName, ServerStatus status) {
                        states.add(status.state().name());
                    }
                }).build();
        resources.add(manager);
        return manager;
    }

    private LoopbackServer start(int port, IntFunction<List<String>> command) throws Exception {
        LoopbackServer server = new LoopbackServer(port, command);
        resources.add(server);
        return server;
    }

    /**
     * Connects {@code config} (for the server {@code command} starts), kills the server, checks what the session
     * looks like while it is gone, starts it again on the same port and checks it is back.
     */
    private void killedAndStartedAgain(IntFunction<List<String>> command, IntFunction<ServerConfig> config, String tool,
            String arguments, String expected) throws Exception {
        int port = LoopbackServer.freePort();
        LoopbackServer first = start(port, command);
        McpManager manager = manager();
        manager.connectServers(Map.of("web", config.apply(port)), Map.of());
        await("web is connected", () -> manager.status("web").state() == ServerStatus.State.CONNECTED);
        String name = "mcp_web_" + tool;
        assertEquals(expected, call(manager, name, arguments).text());
        int tools = manager.toolsOf("web").size();

        first.close();
        await("web is reconnecting", () -> manager.status("web").state() == ServerStatus.State.RECONNECTING);
        assertEquals(tools, manager.toolsOf("web").size(), "its tools stay");
        assertTrue(manager.toolsOf("web").stream().allMatch(BridgedTool::deferred), "as deferred tools");
        // A call made while the server is gone waits for it (its own timeout is the tool-call timeout, 60 s).
        CompletableFuture<ToolOutput> waiting = tool(manager, name).call(McpJson.mapper().readTree(arguments));
        Thread.sleep(1000);
        assertFalse(waiting.isDone(), "the call waits for the server: " + (waiting.isDone() ? waiting.join().text() : ""));
        assertEquals(ServerStatus.State.RECONNECTING, manager.status("web").state(),
                "still reconnecting while nothing listens: " + manager.status("web"));

        start(port, command);
        ToolOutput output = waiting.get(60, TimeUnit.SECONDS);
        assertFalse(output.isError(), output.text());
        assertEquals(expected, output.text());
        await("web is connected again with live tools", () -> manager.status("web").state()
                == ServerStatus.State.CONNECTED && manager.toolsOf("web").stream().noneMatch(BridgedTool::deferred));
        assertEquals(tools, manager.toolsOf("web").size());
        assertEquals(expected, call(manager, name, arguments).text());
        assertTrue(states.contains("RECONNECTING"), "the listener saw the reconnect: " + states);
    }

    @Test
    void aStreamableHttpServerWithASessionComesBackOnTheSamePort() throws Exception {
        killedAndStartedAgain(everything("streamableHttp"), port -> HttpServerConfig.of("http://127.0.0.1:" + port
                + "/mcp"), "echo", "{\"message\":\"again\"}", "Echo: again");
    }

    @Test
    void aLegacySseServerComesBackOnTheSamePort() throws Exception {
        killedAndStartedAgain(everything("sse"), port -> SseServerConfig.of("http://127.0.0.1:" + port + "/sse"),
                "echo", "{\"message\":\"again\"}", "Echo: again");
    }

    @Test
    void aStatelessServerOfThe2026RevisionComesBackOnTheSamePort() throws Exception {
        EraPeer peer = EraPeer.python();
        peer.assertInstalled();
        killedAndStartedAgain(peer::httpCommand, EraPeer::http, "add", "{\"a\":2,\"b\":40}", "42");
    }

    /**
     * The Python SDK's stateless server pinned to 2025-11-25 holds no stream open (no session, no GET stream), so
     * nothing shows that it went away until a call finds nothing listening: that call never reached the server, so
     * it waits for the reconnect that its failure started and runs there, as a call made during a reconnect does.
     */
    @Test
    void aCallThatFindsAStreamlessServerGoneWaitsForItAndRuns() throws Exception {
        EraPeer peer = EraPeer.python();
        peer.assertInstalled();
        int port = LoopbackServer.freePort();
        LoopbackServer first = start(port, peer::httpCommand);
        McpManager manager = manager();
        manager.connectServers(Map.of("web", new HttpServerConfig(EraPeer.http(port).url(), Map.of(),
                Duration.ofSeconds(30), Optional.empty(), true, Optional.empty(), Optional.empty(), List.of(), false,
                "2025-11-25")), Map.of());
        await("web is connected", () -> manager.status("web").state() == ServerStatus.State.CONNECTED);
        assertEquals("42", call(manager, "mcp_web_add", "{\"a\":2,\"b\":40}").text());

        first.close();
        Thread.sleep(500);
        assertEquals(ServerStatus.State.CONNECTED, manager.status("web").state(), "nothing noticed yet");
        CompletableFuture<ToolOutput> waiting = tool(manager, "mcp_web_add").call(McpJson.mapper().readTree(
                "{\"a\":1,\"b\":2}"));
        await("web is reconnecting", () -> manager.status("web").state() == ServerStatus.State.RECONNECTING);
        Thread.sleep(500);
        assertFalse(waiting.isDone(), "the call waits: " + (waiting.isDone() ? waiting.join().text() : ""));
        start(port, peer::httpCommand);
        ToolOutput output = waiting.get(60, TimeUnit.SECONDS);
        assertFalse(output.isError(), output.text());
        assertEquals("3", output.text());
        await("web is connected again", () -> manager.status("web").state() == ServerStatus.State.CONNECTED);
    }

    private static BridgedTool tool(McpManager manager, String name) {
        return manager.getTools().stream().filter(t -> t.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no tool " + name + " in " + manager.getTools()));
    }

    private static ToolOutput call(McpManager manager, String name, String arguments) {
        ToolOutput output = McpClient.await(tool(manager, name).call(McpJson.mapper().readTree(arguments)));
        assertFalse(output.isError(), output.text());
        return output;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(20);
        }
    }
}
