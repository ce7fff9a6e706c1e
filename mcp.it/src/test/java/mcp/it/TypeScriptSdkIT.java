package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.api.spi.Providers;
import mcp.api.spi.ToolCache;
import mcp.api.spi.ToolCacheProvider;
import mcp.api.spi.TransportProvider;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.manager.McpManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * mcp-host's client against a server on the TypeScript SDK v2 ({@code @modelcontextprotocol/server} 2.4.0 with
 * {@code @modelcontextprotocol/node} 2.1.2, pinned in {@code interop/package.json}), the script
 * {@code interop/typescript/era-server.mjs}: {@code serveStdio} over stdio and {@code createMcpHandler} over
 * stateless Streamable HTTP on 127.0.0.1. The era is found by the probe on both transports, the SDK's
 * {@code inputRequired} is answered through a multi round-trip request, the list change comes on the listen
 * stream, and 2025-11-25 pinned is spoken as pinned. The checks are {@link EraPeer}'s, shared with the Python SDK's.
 */
class TypeScriptSdkIT {

    private static final EraPeer PEER = EraPeer.typescript();

    private final List<McpClient> clients = new ArrayList<>();
    private final List<AutoCloseable> servers = new ArrayList<>();

    @TempDir
    Path temp;

    @BeforeAll
    static void installed() {
        PEER.assertInstalled();
    }

    @AfterEach
    void closeAll() throws Exception {
        clients.forEach(McpClient::close);
        for (AutoCloseable server : servers) {
            server.close();
        }
        EraPeer.assertNoChildLeft();
    }

    private LoopbackServer httpServer() throws Exception {
        return httpServer(PEER::httpCommand);
    }

    private LoopbackServer httpServer(IntFunction<List<String>> command) throws Exception {
        LoopbackServer server = new LoopbackServer(command);
        servers.add(server);
        return server;
    }

    @Test
    void theModernEraIsChosenByItselfOverStdioWithInputRoundsAndTheListenStream() throws Exception {
        Path log = temp.resolve("sent.jsonl");
        CountDownLatch changed = new CountDownLatch(1);
        McpClient client = EraPeer.connect("ts", StdinLog.wrap(PEER.stdio(), log), EraPeer.options("ts", "Grace", changed),
                temp, clients);
        EraPeer.showsTheModernEra(client, changed, "stdio");
        client.close();
        // What the client sent, seen outside it: the probe and the listen request, no handshake, one retry of greet.
        assertEquals(List.of("server/discover", "subscriptions/listen", "tools/list", "tools/call", "tools/call",
                "tools/call", "tools/call", "tools/list"), StdinLog.methods(log), () -> log.toString());
    }

    @Test
    void aPinned2025VersionIsSpokenOverStdioAsPinned() throws Exception {
        Path log = temp.resolve("sent.jsonl");
        McpClient client = EraPeer.connect("ts", StdinLog.wrap(PEER.stdio(), log), EraPeer.pinned2025("ts"), temp, clients);
        // The SDK's legacy shim turns the handler's inputRequired into an elicitation/create request of its own.
        EraPeer.showsThePinnedHandshakeEra(client);
        client.close();
        List<String> sent = StdinLog.methods(log);
        assertEquals(List.of("initialize", "notifications/initialized"), sent.subList(0, 2), sent::toString);
        assertTrue(sent.contains("(response)"), "the elicitation was answered: " + sent);
        assertTrue(!sent.contains("server/discover"), sent::toString);
    }

    @Test
    void theModernEraIsChosenByItselfOverStatelessHttp() throws Exception {
        // The SDK writes an SSE comment (": keepalive") on open streams, every 100 ms here instead of every 15 s.
        LoopbackServer server = httpServer(port -> {
            List<String> command = new ArrayList<>(PEER.httpCommand(port));
            command.add("100");
            return command;
        });
        CountDownLatch changed = new CountDownLatch(1);
        McpClient client = EraPeer.connect("ts-http", EraPeer.http(server.port()),
                EraPeer.options("ts-http", "Grace", changed), temp, clients);
        // The listen stream gets a few keep-alive comments before anything else; it must stay open through them.
        Thread.sleep(500);
        // Each POST meets a new server instance; the change comes from the handler's bus on the listen POST's stream.
        EraPeer.showsTheModernEra(client, changed, server.output());
    }

    @Test
    void argumentsAreMirroredIntoParamHeadersThatTheSdkChecks() throws Exception {
        LoopbackServer server = httpServer();
        McpClient client = EraPeer.connect("ts-http", EraPeer.http(server.port()), ClientOptions.builder("ts-http"), temp,
                clients);
        List<String> names = client.listToolsBlocking().stream().map(ToolDefinition::name).toList();
        // weigh puts x-mcp-header on a number, which the revision forbids (the SDK lists it and warns): left out.
        assertTrue(names.contains("route") && !names.contains("weigh"), names.toString());
        // The SDK answers 400 with -32020 before the handler runs when a header is missing or disagrees with the
        // body, so each answer below shows the headers were there and decoded to the arguments: a plain value, the
        // base64 form for non-ASCII text, edge spaces and a tab, a negative integer, a boolean, and none when absent.
        assertEquals("[\"eu-west\",3,true]", EraPeer.text(client.callToolBlocking("route",
                EraPeer.args("{\"region\": \"eu-west\", \"count\": 3, \"dry\": true}"))));
        assertEquals("[\"Zürich\",-7,false]", EraPeer.text(client.callToolBlocking("route",
                EraPeer.args("{\"region\": \"Zürich\", \"count\": -7, \"dry\": false}"))));
        assertEquals("[\" a\\tb \",null,null]", EraPeer.text(client.callToolBlocking("route",
                EraPeer.args("{\"region\": \" a\\tb \"}"))));
    }

    @Test
    void aPinned2025VersionIsSpokenOverStatelessHttpAsPinned() throws Exception {
        LoopbackServer server = httpServer();
        McpClient client = EraPeer.connect("ts-http", EraPeer.http(server.port()), EraPeer.pinned2025("ts-http"), temp,
                clients);
        assertEquals("2025-11-25", client.initializeResult().protocolVersion());
        assertEquals("42", EraPeer.text(client.callToolBlocking("add", EraPeer.args("{\"a\": 40, \"b\": 2}"))));
        // The SDK's stateless 2025 fallback serves each POST with a new instance, which cannot send the shim's
        // server request: it says so in a tool error (the Python SDK answers a JSON-RPC error), which shows the
        // pinned era was spoken.
        ToolResult greet = client.callToolBlocking("greet", McpJson.object());
        assertTrue(greet.isError(), EraPeer.text(greet));
        assertTrue(EraPeer.text(greet).contains("cannot receive server-to-client requests"), EraPeer.text(greet));
    }

    @Test
    void aServerOfTheStatelessEraOnlyRefusesAPinnedHandshakeWithAClearReason() throws Exception {
        StdioServerConfig stdio = StdioServerConfig.of(PEER.runtime().toString(),
                List.of(PEER.script().toString(), "--modern-only"));
        McpException overStdio = assertThrows(McpException.class,
                () -> EraPeer.connect("ts", stdio, EraPeer.pinned2025("ts"), temp, clients));
        assertTrue(overStdio.getMessage().contains("refused protocol version 2025-11-25 and supports [\"2026-07-28\"]: "
                + "set its protocolVersion to auto or 2026-07-28"), overStdio.getMessage());
        LoopbackServer server = httpServer(port -> {
            List<String> command = new ArrayList<>(PEER.httpCommand(port));
            command.add("--modern-only");
            return command;
        });
        // Over HTTP the refusal is a 400 whose body is the JSON-RPC error: the server's answer, not a reason to
        // try the legacy HTTP+SSE transport.
        McpException overHttp = assertThrows(McpException.class,
                () -> EraPeer.connect("ts-http", EraPeer.http(server.port()), EraPeer.pinned2025("ts-http"), temp,
                        clients));
        assertTrue(overHttp.getMessage().contains("refused protocol version 2025-11-25 and supports [\"2026-07-28\"]: "
                + "set its protocolVersion to auto or 2026-07-28"), overHttp.getMessage());
        assertFalse(overHttp.getMessage().contains("HTTP+SSE"), overHttp.getMessage());
        // auto on the same servers: the probe finds the stateless era.
        assertEquals("2026-07-28", EraPeer.connect("ts", stdio, ClientOptions.builder("ts"), temp, clients)
                .initializeResult().protocolVersion());
        assertEquals("2026-07-28", EraPeer.connect("ts-http", EraPeer.http(server.port()),
                ClientOptions.builder("ts-http"), temp, clients).initializeResult().protocolVersion());
    }

    /**
     * A server remembered as of the 2025 era (the tool cache's verdict) that now speaks only 2026-07-28: the same
     * command first ran server-everything, then the TypeScript SDK server in its modern-only mode (as when a
     * server is upgraded). The warm start offers the handshake, is refused with -32022, and is started again with
     * the probe, which finds the stateless era; the cache then holds the new verdict.
     */
    @Test
    void aRememberedHandshakeEraThatWentStaleIsProbedAgain() throws Exception {
        Path launcher = temp.resolve("server.sh");
        Path log = temp.resolve("sent.jsonl");
        Path cacheDir = Files.createDirectory(temp.resolve("cache"));
        StdioServerConfig config = StdinLog.wrap(StdioServerConfig.of("sh", List.of(launcher.toString())), log);
        ToolCacheProvider file = Providers.load(ToolCacheProvider.class, getClass().getClassLoader()).stream()
                .filter(p -> p.id().equals("file")).findFirst().orElseThrow();
        ToolCache cache = file.open(new ToolCacheProvider.Settings(Optional.of(cacheDir), temp, Map.of(),
                Duration.ofDays(1)));
        List<TransportProvider> stdio = ServiceLoader.load(TransportProvider.class).stream()
                .map(ServiceLoader.Provider::get).filter(p -> p.id().equals("stdio")).toList();
        Path everything = EraPeer.INTEROP.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");

        Files.writeString(launcher, "exec node '" + everything + "' stdio\n");
        try (McpManager first = McpManager.builder().transportProviders(stdio).toolCache(cache).build()) {
            assertEquals(Map.of(), first.connectServers(Map.of("srv", config), Map.of()).errors());
            assertEquals("2025-11-25", first.waitForConnection("srv").join().initializeResult().protocolVersion());
        }
        assertEquals("2025-11-25", McpJson.mapper().readTree(Files.readString(cacheDir.resolve("srv.json")))
                .path("protocolVersion").asString());

        Files.writeString(launcher, "exec '" + PEER.runtime() + "' '" + PEER.script() + "' --modern-only\n");
        try (McpManager warm = McpManager.builder().transportProviders(stdio).toolCache(cache).build()) {
            assertEquals(Map.of(), warm.connectServers(Map.of("srv", config), Map.of()).errors());
            McpClient client = warm.waitForConnection("srv").join();
            assertEquals("2026-07-28", client.initializeResult().protocolVersion());
            assertEquals("42", EraPeer.text(client.callToolBlocking("add", EraPeer.args("{\"a\": 40, \"b\": 2}"))));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!Files.readString(cacheDir.resolve("srv.json")).contains("\"protocolVersion\":\"2026-07-28\"")) {
                assertTrue(System.nanoTime() < deadline, "the new verdict is not cached");
                Thread.sleep(50);
            }
        }
        // The log is of the last start only: the one after the refused handshake, which began with the probe.
        List<String> sent = StdinLog.methods(log);
        assertEquals("server/discover", sent.get(0), sent::toString);
        assertFalse(sent.contains("initialize"), sent::toString);
    }

    /**
     * The config field, end to end: {@code mcp-host tools} with a config file naming the server twice, once as is
     * ({@code auto}) and once with {@code "protocolVersion": "2025-11-25"}. The first is probed and spoken in
     * 2026-07-28, the second gets the handshake and no probe (read from each server's stdin log), and each era
     * lands in the tool cache.
     */
    @Test
    void theConfigFieldPinsTheEraThroughTheCli() throws Exception {
        // Through a link in the temp folder, so that every process of this test names the folder in its command line.
        Path script = Files.createSymbolicLink(temp.resolve("era-server.mjs"), PEER.script());
        Path home = Files.createDirectory(temp.resolve("home"));
        Path cache = temp.resolve("cache");
        Path autoLog = temp.resolve("auto.jsonl");
        Path pinnedLog = temp.resolve("pinned.jsonl");
        ObjectNode servers = McpJson.object();
        servers.set("ts", entry(script, autoLog));
        servers.set("ts25", entry(script, pinnedLog).put("protocolVersion", "2025-11-25"));
        Path config = temp.resolve("mcp.json");
        Files.writeString(config, McpJson.mapper().writeValueAsString(McpJson.object().set("mcpServers", servers)));
        try {
            Cli.Run run = Cli.run(home, temp, Map.of(), "--config", config.toString(), "--cache-dir", cache.toString(),
                    "--json", "tools");
            assertEquals(0, run.exitCode(), run::toString);
            List<String> names = new ArrayList<>();
            run.json().get("tools").forEach(tool -> names.add(tool.get("name").asString()));
            assertTrue(names.containsAll(List.of("mcp_ts_add", "mcp_ts_greet", "mcp_ts25_add", "mcp_ts25_greet")),
                    run::toString);
        } finally {
            assertNoProcessNames(temp);
            Files.delete(script);
        }
        List<String> auto = StdinLog.methods(autoLog);
        assertEquals(List.of("server/discover", "subscriptions/listen", "tools/list"), auto.subList(0, 3), auto::toString);
        assertTrue(!auto.contains("initialize"), auto::toString);
        List<String> pinned = StdinLog.methods(pinnedLog);
        assertEquals(List.of("initialize", "notifications/initialized", "tools/list"), pinned.subList(0, 3),
                pinned::toString);
        assertTrue(!pinned.contains("server/discover"), pinned::toString);
        assertEquals("2026-07-28", McpJson.mapper().readTree(Files.readString(cache.resolve("ts.json")))
                .path("protocolVersion").asString());
        assertEquals("2025-11-25", McpJson.mapper().readTree(Files.readString(cache.resolve("ts25.json")))
                .path("protocolVersion").asString());
    }

    /** A config entry that runs the server at {@code script} under {@code interop/stdin-log.sh}. */
    private static ObjectNode entry(Path script, Path log) {
        StdioServerConfig logged = StdinLog.wrap(StdioServerConfig.of(PEER.runtime().toString(),
                List.of(script.toString())), log);
        ObjectNode entry = McpJson.object().put("command", logged.command());
        ArrayNode args = entry.putArray("args");
        logged.args().forEach(args::add);
        return entry;
    }

    /** Waits (5 s at most) until no process names this folder in its command line; ends and reports any left. */
    private static void assertNoProcessNames(Path folder) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            List<ProcessHandle> left = ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
                    .filter(p -> p.info().commandLine().map(c -> c.contains(folder.toString())).orElse(false)).toList();
            if (left.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                left.forEach(ProcessHandle::destroyForcibly);
                throw new AssertionError("server processes outlived the CLI: " + left.stream()
                        .map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList());
            }
            Thread.sleep(50);
        }
    }
}
