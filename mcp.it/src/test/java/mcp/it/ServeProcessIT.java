package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import mcp.api.Content;
import mcp.api.HttpServerConfig;
import mcp.api.McpJson;
import mcp.api.ToolResult;
import mcp.manager.CallOptions;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code mcp-host serve --http} as a process of its own, as a user runs it for every agent: five clients and three
 * stdio servers run exactly three server processes, shared by all; SIGTERM ends the gateway and leaves none of them,
 * after the calls in flight finished (within {@code --drain-timeout}; what outlives it is cancelled upstream and its
 * client told), and a second SIGTERM ends it at once; a changed config file reaches the clients as a list change, and
 * restarts only what it changed. Signals are sent by PID ({@link ProcessHandle#destroy()} is SIGTERM), so nothing
 * depends on how the test's own process was started (a background job inherits SIGINT ignored).
 */
class ServeProcessIT {

    private static final List<String> SERVERS = List.of("alpha", "beta", "gamma");

    @TempDir
    Path temp;

    private final List<McpClient> clients = new ArrayList<>();
    private LoopbackServer gateway;

    @AfterEach
    void closeAll() throws Exception {
        for (McpClient client : clients) {
            client.close();
        }
        if (gateway != null) {
            gateway.close();
        }
        EraPeer.assertNoChildLeft();
    }

    @Test
    void aChangedConfigFileReachesTheClientsAsAListChange() throws Exception {
        Path home = Files.createDirectories(temp.resolve("home"));
        Path config = temp.resolve("servers.json");
        ObjectNode servers = McpJson.object();
        servers.set("alpha", entry());
        servers.set("beta", entry());
        Files.writeString(config, McpJson.object().set("mcpServers", servers).toString());
        gateway = new LoopbackServer(port -> List.of("env", "HOME=" + home, Cli.IMAGE.resolve("bin/mcp-host").toString(),
                "--config", config.toString(), "serve", "--http", "--no-token", "--port", Integer.toString(port)));
        java.util.concurrent.CountDownLatch changed = new java.util.concurrent.CountDownLatch(1);
        McpClient client = EraPeer.connect("gateway", HttpServerConfig.of("http://127.0.0.1:" + gateway.port() + "/mcp"),
                ClientOptions.builder("gateway").listener(new mcp.manager.ClientListener() {
                    @Override
                    public void onToolsListChanged() {
                        changed.countDown();
                    }
                }), temp, clients);
        String alphaPid = ((Content.Text) client.callToolBlocking("alpha_pid", McpJson.object()).content().get(0)).text();
        servers.set("gamma", entry());
        Files.writeString(config, McpJson.object().set("mcpServers", servers).toString());
        assertTrue(changed.await(60, TimeUnit.SECONDS), "no list_changed after the config file changed");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (client.listToolsBlocking().stream().noneMatch(tool -> tool.name().equals("gamma_echo"))) {
            assertTrue(System.nanoTime() < deadline, "gamma's tools never came");
            Thread.sleep(200);
        }
        assertEquals(alphaPid, ((Content.Text) client.callToolBlocking("alpha_pid", McpJson.object()).content().get(0))
                .text(), "an unchanged server keeps its process");
    }

    @Test
    void sigtermLetsTheCallsInFlightFinishAndCancelsWhatOutlivesTheBound() throws Exception {
        Path home = Files.createDirectories(temp.resolve("home"));
        Path cancelLog = temp.resolve("cancelled.log");
        startSlowGateway(home, cancelLog, 3_000);
        McpClient modern = connect(McpClient.AUTO);
        McpClient legacy = connect("2025-11-25");
        long upstream = Long.parseLong(text(modern.callToolBlocking("pid", McpJson.object())));

        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(2);
        CompletableFuture<ToolResult> finishing = modern.callTool("slow", slow(2_500), CallOptions.DEFAULT
                .withProgress(update -> running.countDown()));
        CompletableFuture<ToolResult> outliving = legacy.callTool("slow", slow(120_000), CallOptions.DEFAULT
                .withProgress(update -> running.countDown()));
        assertTrue(running.await(30, TimeUnit.SECONDS), "both calls run upstream (their progress came)");

        ProcessHandle serve = gateway.process().toHandle();
        serve.destroy(); // SIGTERM, by PID
        String refusal = refusedOnceStopping(modern);
        assertTrue(refusal.contains("shutting down") || refusal.contains("503"), refusal);

        assertEquals("done", text(finishing.get(30, TimeUnit.SECONDS)), "a call in flight finishes and is answered");
        ExecutionException cancelled = assertThrows(ExecutionException.class, () -> outliving.get(30,
                TimeUnit.SECONDS), "a call over the bound fails");
        assertTrue(String.valueOf(cancelled.getCause().getMessage()).contains("shut down before the request finished"),
                "its client hears why: " + cancelled.getCause());
        assertTrue(serve.onExit().get(30, TimeUnit.SECONDS) != null, "serve did not end");
        assertEquals(0, gateway.process().waitFor(), "a drained stop is a clean exit: " + gateway.output());
        assertGone(upstream);
        assertFalse(Files.readString(cancelLog).isBlank(), "the server heard notifications/cancelled");
        assertTrue(gateway.output().stream().anyMatch(line -> line.contains("SIGTERM: taking no new requests")),
                gateway.output().toString());
        assertTrue(gateway.output().stream().anyMatch(line -> line.contains("cancelled 1 call still running")),
                gateway.output().toString());
    }

    @Test
    void aSecondSigtermStopsAtOnce() throws Exception {
        Path home = Files.createDirectories(temp.resolve("home"));
        startSlowGateway(home, temp.resolve("cancelled.log"), 120_000);
        McpClient client = connect(McpClient.AUTO);
        long upstream = Long.parseLong(text(client.callToolBlocking("pid", McpJson.object())));
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
        CompletableFuture<ToolResult> outliving = client.callTool("slow", slow(120_000), CallOptions.DEFAULT
                .withProgress(update -> running.countDown()));
        assertTrue(running.await(30, TimeUnit.SECONDS), "the call runs upstream");
        ProcessHandle serve = gateway.process().toHandle();
        serve.destroy();
        refusedOnceStopping(client);
        long second = System.nanoTime();
        serve.destroy();
        assertTrue(serve.onExit().get(30, TimeUnit.SECONDS) != null, "serve did not end");
        assertTrue(System.nanoTime() - second < TimeUnit.SECONDS.toNanos(30), "it did not wait for the bound");
        assertEquals(128 + 15, gateway.process().waitFor(), "ended by the signal: " + gateway.output());
        assertThrows(ExecutionException.class, () -> outliving.get(30, TimeUnit.SECONDS));
        assertGone(upstream);
    }

    @Test
    void aGatewayStartedAsAServerOfAGatewayRefusesSoOnlyOneRuns() throws Exception {
        Path home = Files.createDirectories(temp.resolve("home"));
        Path config = temp.resolve("looped.json");
        Path runs = temp.resolve("runs.log");
        // A user's wrapper: discovery sees "sh loop.sh", not the mcp-host serve inside it.
        Path script = temp.resolve("loop.sh");
        Files.writeString(script, "#!/bin/sh\necho \"$$ $PPID\" >> '" + runs + "'\nexec '"
                + Cli.IMAGE.resolve("bin/mcp-host") + "' --config '" + config + "' serve\n");
        ObjectNode servers = McpJson.object();
        servers.set("kit", entry());
        servers.putObject("loop").put("command", "sh").putArray("args").add(script.toString());
        Files.writeString(config, McpJson.object().set("mcpServers", servers).toString());

        gateway = new LoopbackServer(port -> List.of("env", "HOME=" + home, Cli.IMAGE.resolve("bin/mcp-host")
                .toString(), "--config", config.toString(), "serve", "--http", "--no-token", "--port",
                Integer.toString(port)));
        long outer = gateway.process().pid();
        McpClient client = connect("2025-11-25");
        // One server in view (the looped one has no tools): its own names.
        assertEquals("hi", text(client.callToolBlocking("echo", McpJson.object().put("message", "hi"))));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (gateway.output().stream().noneMatch(line -> line.contains("loop") && line.contains("serve refuses to "
                + "start"))) {
            assertTrue(System.nanoTime() < deadline, "the looped server's failure was not said: " + gateway.output());
            Thread.sleep(200);
        }
        assertTrue(client.listToolsBlocking().stream().noneMatch(tool -> tool.name().startsWith("loop_")
                || tool.name().startsWith("kit_")), "the inner gateway served nothing");
        // Every start of the wrapper came from the outer gateway: the inner one never started a server.
        for (String line : Files.readAllLines(runs)) {
            assertEquals(Long.toString(outer), line.split(" ")[1], "a wrapper started by another gateway: " + line);
        }

        // mcp-host status on the same config says why, and starts no gateway of its own either.
        Files.delete(runs);
        Cli.Run status = Cli.run(home, temp, Map.of(), "--config", config.toString(), "status");
        assertTrue(status.out().contains("loop") && (status.out() + status.err()).contains("serve refuses to start"),
                status.toString());
        // One parent for every start of the wrapper: status itself, never a gateway that status started.
        Set<String> parents = new TreeSet<>();
        Files.readAllLines(runs).forEach(line -> parents.add(line.split(" ")[1]));
        assertEquals(1, parents.size(), "the wrapper's parents: " + parents);
    }

    /** A gateway in front of one testkit server that logs the cancellations it hears. */
    private void startSlowGateway(Path home, Path cancelLog, long drainMillis) throws Exception {
        Path config = temp.resolve("slow.json");
        List<String> command = TestServers.command("--cancel-log", cancelLog.toString());
        ObjectNode entry = McpJson.object().put("command", command.get(0));
        command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        Files.writeString(config, McpJson.object().set("mcpServers", McpJson.object().set("slowpoke", entry))
                .toString());
        gateway = new LoopbackServer(port -> List.of("env", "HOME=" + home, Cli.IMAGE.resolve("bin/mcp-host")
                .toString(), "--config", config.toString(), "serve", "--http", "--no-token", "--port",
                Integer.toString(port), "--drain-timeout", Long.toString(drainMillis)));
    }

    private McpClient connect(String version) {
        return EraPeer.connect("gateway", HttpServerConfig.of("http://127.0.0.1:" + gateway.port() + "/mcp"),
                ClientOptions.builder("gateway").protocolVersion(version), temp, clients);
    }

    private static ObjectNode slow(long millis) {
        return McpJson.object().put("ms", millis).put("steps", Math.max(1, millis / 100));
    }

    /** Calls until the gateway refuses (the signal reaches it a moment after it is sent); returns the refusal. */
    private static String refusedOnceStopping(McpClient client) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                client.callTool("pid", McpJson.object()).get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                return String.valueOf(e.getCause().getMessage());
            }
            assertTrue(System.nanoTime() < deadline, "new calls were still taken 20 s after SIGTERM");
            Thread.sleep(50);
        }
    }

    private static void assertGone(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            assertTrue(System.nanoTime() < deadline, "the server process " + pid + " outlived the gateway");
            Thread.sleep(100);
        }
    }

    private static String text(ToolResult result) {
        return ((Content.Text) result.content().get(0)).text();
    }

    private static ObjectNode entry() {
        List<String> command = TestServers.command();
        ObjectNode entry = McpJson.object().put("command", command.get(0));
        command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        return entry;
    }

    @Test
    void fiveClientsShareThreeServerProcessesAndSigtermLeavesNone() throws Exception {
        Path home = Files.createDirectories(temp.resolve("home"));
        Path config = temp.resolve("servers.json");
        ObjectNode servers = McpJson.object();
        for (String name : SERVERS) {
            List<String> command = TestServers.command();
            ObjectNode entry = servers.putObject(name).put("command", command.get(0));
            command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        }
        Files.writeString(config, McpJson.object().set("mcpServers", servers).toString());
        gateway = new LoopbackServer(port -> List.of("env", "HOME=" + home, Cli.IMAGE.resolve("bin/mcp-host").toString(),
                "--config", config.toString(), "serve", "--http", "--port", Integer.toString(port)));
        String token = Cli.run(home, temp, Map.of(), "serve", "--token").out().strip();
        HttpServerConfig endpoint = HttpServerConfig.of("http://127.0.0.1:" + gateway.port() + "/mcp")
                .withHeaders(Map.of("Authorization", "Bearer " + token));
        for (int i = 0; i < 5; i++) {
            clients.add(EraPeer.connect("gateway", endpoint, ClientOptions.builder("gateway")
                    .protocolVersion(i % 2 == 0 ? McpClient.AUTO : "2025-11-25"), temp, new ArrayList<>()));
        }
        Set<String> pids = new TreeSet<>();
        for (McpClient client : clients) {
            for (String server : SERVERS) {
                pids.add(((Content.Text) client.callToolBlocking(server + "_pid", McpJson.object()).content().get(0))
                        .text());
            }
        }
        assertEquals(3, pids.size(), "every client's calls reach the same three processes: " + pids);
        ProcessHandle serve = gateway.process().toHandle();
        List<ProcessHandle> upstreams = serve.descendants().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().commandLine().orElse("").contains("mcp.testkit.TestServer")).toList();
        assertEquals(3, upstreams.size(), "three server processes, not one per client: " + upstreams);

        for (McpClient client : clients) {
            client.close();
        }
        clients.clear();
        serve.destroy(); // SIGTERM
        assertTrue(serve.onExit().get(30, TimeUnit.SECONDS) != null && !serve.isAlive(), "serve did not end");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (upstreams.stream().anyMatch(ProcessHandle::isAlive)) {
            assertTrue(System.nanoTime() < deadline, "a server outlived the gateway: " + upstreams.stream()
                    .filter(ProcessHandle::isAlive).map(ProcessHandle::pid).toList());
            Thread.sleep(100);
        }
    }
}
