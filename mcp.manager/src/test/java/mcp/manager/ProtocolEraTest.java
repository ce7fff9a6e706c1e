package mcp.manager;

import static mcp.manager.TestServerProcesses.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.api.ToolResult;
import mcp.api.spi.Providers;
import mcp.api.spi.ToolCache;
import mcp.api.spi.ToolCacheProvider;
import mcp.manager.internal.ClientSession;
import mcp.manager.internal.ConfigHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Both eras of MCP against the testkit server in each of its eras: the 2026-07-28 revision found by a
 * {@code server/discover} probe and spoken statelessly (envelope, multi round-trip requests, listen
 * stream), the 2025 handshake as the fallback on anything else, a pinned version, and the verdict
 * remembered so that a warm start makes no probe.
 */
class ProtocolEraTest {

    @TempDir
    Path temp;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        TestServerProcesses.assertNoChildProcessLeft();
    }

    private McpClient track(McpClient client) {
        open.add(client);
        return client;
    }

    private static String text(ToolResult result) {
        return ((mcp.api.Content.Text) result.content().get(0)).text();
    }

    /** The methods the server received so far, in order. */
    private static List<String> received(McpClient client) {
        JsonNode array = McpJson.mapper().readTree(text(client.callToolBlocking("received", McpJson.object())));
        List<String> methods = new ArrayList<>();
        array.forEach(m -> methods.add(m.asString()));
        return methods;
    }

    private static ClientOptions.Builder withElicitation(String name) {
        return ClientOptions.builder(name).handler(ClientOptions.ELICITATION_METHOD, ElicitationHandlers.acceptDefaults());
    }

    @Test
    void aModernServerIsSpokenStatelesslyWithItsInputRoundsAndListenStream() throws Exception {
        CountDownLatch changed = new CountDownLatch(1);
        ClientOptions.Builder options = withElicitation("modern").listener(new ClientListener() {
            @Override
            public void onToolsListChanged() {
                changed.countDown();
            }
        });
        McpClient client = track(connect("modern", options, "--era", "modern"));
        assertEquals("2026-07-28", client.initializeResult().protocolVersion());
        assertEquals("mcp-testkit", client.initializeResult().serverName());
        assertTrue(client.listTools().join().stream().anyMatch(t -> t.name().equals("ask")));
        // A multi round-trip request: the server asks for the name, the elicitation handler gives the default.
        assertEquals("hello Ada", text(client.callToolBlocking("ask", McpJson.object())));
        client.callToolBlocking("change_tools", McpJson.object());
        assertTrue(changed.await(10, TimeUnit.SECONDS), "tools/list_changed on the listen stream");
        List<String> methods = received(client);
        assertEquals(List.of("server/discover", "subscriptions/listen", "tools/list", "tools/call", "tools/call",
                "tools/call", "tools/call"), methods, "no initialize, no ping: " + methods);
    }

    @Test
    void aListenStreamTheServerEndsIsOpenedAgainAndTheToolsAreListedAgain() throws Exception {
        java.util.concurrent.Semaphore changes = new java.util.concurrent.Semaphore(0);
        ClientOptions.Builder options = ClientOptions.builder("relisten").listener(new ClientListener() {
            @Override
            public void onToolsListChanged() {
                changes.release();
            }
        });
        McpClient client = track(connect("relisten", options, "--era", "modern"));
        awaitListeners(client, 1);
        assertEquals("ended 1", text(client.callToolBlocking("end_listen", McpJson.object())));
        assertTrue(changes.tryAcquire(10, TimeUnit.SECONDS), "reopened: a change may have been missed, list again");
        awaitListeners(client, 2);
        client.callToolBlocking("change_tools", McpJson.object());
        assertTrue(changes.tryAcquire(10, TimeUnit.SECONDS), "a change on the new stream");
        assertEquals(2, received(client).stream().filter("subscriptions/listen"::equals).count());
    }

    /** Waits until the server has received that many listen requests. */
    private static void awaitListeners(McpClient client, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (received(client).stream().filter("subscriptions/listen"::equals).count() < count
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    @Test
    void cancellingACallCancelsItOnTheServerInEitherEra() throws Exception {
        for (String era : List.of("modern", "legacy")) {
            McpClient client = track(connect(era, "--era", era));
            java.util.concurrent.CompletableFuture<ToolResult> call = client.callTool("slow",
                    McpJson.object().put("ms", 10_000));
            Thread.sleep(200);
            assertTrue(call.cancel(true));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            String count = "0";
            while (count.equals("0") && System.nanoTime() < deadline) {
                count = text(client.callToolBlocking("cancellations", McpJson.object()));
                Thread.sleep(20);
            }
            assertEquals("1", count, era + ": the server heard of the cancellation");
        }
    }

    @Test
    void aServerOfTheHandshakeEraIsFoundByTheProbeAndInitialized() {
        McpClient client = track(connect("legacy", withElicitation("legacy"), "--era", "legacy"));
        assertEquals("2025-11-25", client.initializeResult().protocolVersion());
        assertEquals("hello Ada", text(client.callToolBlocking("ask", McpJson.object())), "a server request, in 2025");
        assertEquals(List.of("server/discover", "initialize", "tools/call", "tools/call"), received(client));
    }

    @Test
    void aDualServerIsSpokenInTheModernEraAndInTheOneThatIsPinned() {
        McpClient auto = track(connect("dual", withElicitation("dual"), "--era", "dual"));
        assertEquals("2026-07-28", auto.initializeResult().protocolVersion());
        McpClient pinned = track(connect("dual-2025", withElicitation("dual-2025").protocolVersion("2025-11-25"),
                "--era", "dual"));
        assertEquals("2025-11-25", pinned.initializeResult().protocolVersion());
        assertEquals("hello Ada", text(pinned.callToolBlocking("ask", McpJson.object())));
        assertEquals(List.of("initialize", "tools/call", "tools/call"), received(pinned), "no probe when pinned");
    }

    @Test
    void aRememberedHandshakeEraSkipsTheProbe() {
        McpClient client = track(connect("known", ClientOptions.builder("known").knownProtocolVersion("2025-06-18"),
                "--era", "legacy"));
        assertEquals(List.of("initialize", "tools/call"), received(client));
    }

    @Test
    void aProbeThatIsNeverAnsweredFallsBackWhenItTimesOut() {
        McpClient client = track(connect("silent", ClientOptions.builder("silent")
                .initializeTimeout(Duration.ofMillis(2500)), "--fault", "silent-discover"));
        assertEquals("2025-11-25", client.initializeResult().protocolVersion());
    }

    @Test
    void pinningTheModernEraOnAServerOfTheHandshakeFailsClearly() {
        McpException failure = assertThrows(McpException.class, () -> connect("old",
                ClientOptions.builder("old").protocolVersion("2026-07-28")));
        assertTrue(failure.getMessage().contains("does not speak protocol version 2026-07-28"), failure.getMessage());
    }

    @Test
    void pinningTheHandshakeOnAServerOfTheStatelessEraOnlyFailsWithWhatItSupports() {
        McpException failure = assertThrows(McpException.class, () -> connect("new",
                ClientOptions.builder("new").protocolVersion("2025-06-18"), "--era", "modern"));
        assertTrue(failure.getMessage().contains("refused protocol version 2025-06-18 and supports [\"2026-07-28\"]: "
                + "set its protocolVersion to auto or 2026-07-28"), failure.getMessage());
        CompletionException remembered = assertThrows(CompletionException.class, () -> McpClient.connect(
                TestServerProcesses.open("new", "--era", "modern"),
                ClientOptions.builder("new").knownProtocolVersion("2025-11-25").build()).join());
        assertTrue(causes(remembered).stream().anyMatch(ClientSession.HandshakeRefusedException.class::isInstance),
                remembered.toString());
    }

    private static List<Throwable> causes(Throwable error) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            chain.add(cause);
        }
        return chain;
    }

    @Test
    void aRememberedHandshakeEraThatTheServerRefusesIsProbedAgainAndForgotten() throws Exception {
        ToolCacheProvider file = Providers.require(ToolCacheProvider.class, Providers.byId(ToolCacheProvider.class,
                Providers.load(ToolCacheProvider.class, getClass().getClassLoader()), ToolCacheProvider::id), "file");
        ToolCache cache = file.open(new ToolCacheProvider.Settings(Optional.of(temp), temp, Map.of(), Duration.ofDays(1)));
        StdioServerConfig modern = TestServerProcesses.config("--era", "modern");
        // What the cache holds after the server spoke the handshake era, before it was upgraded to 2026-07-28 alone.
        cache.write("upgraded", ConfigHash.of(modern), List.of(), Optional.of("2025-11-25"));
        try (McpManager manager = McpManager.builder().transportProviders(List.of(TestServerProcesses.stdio()))
                .toolCache(cache).build()) {
            assertEquals(Map.of(), manager.connectServers(Map.of("upgraded", modern), Map.of()).errors());
            McpClient client = manager.waitForConnection("upgraded").join();
            assertEquals("2026-07-28", client.initializeResult().protocolVersion());
            // A new process, started with the probe: the refused initialize went to the first one.
            assertEquals(List.of("server/discover", "subscriptions/listen", "tools/list", "tools/call"),
                    received(client));
        }
        assertEquals(Optional.of("2026-07-28"), cache.readEntry("upgraded", ConfigHash.of(modern)).orElseThrow()
                .protocolVersion());
    }

    @Test
    void aServerThatExitsOnTheProbeIsReportedAsSuch() {
        CompletionException failure = assertThrows(CompletionException.class, () -> McpClient.connect(
                TestServerProcesses.open("fragile", "--fault", "exit-before-initialize"),
                ClientOptions.builder("fragile").build()).join());
        assertInstanceOf(ClientSession.ProbeClosedException.class, failure.getCause(), failure.toString());
    }

    @Test
    void inputRoundsAreBounded() {
        McpClient client = track(connect("endless", withElicitation("endless"), "--era", "modern", "--fault",
                "endless-input"));
        CompletionException failure = assertThrows(CompletionException.class,
                () -> client.callTool("ask", McpJson.object()).join());
        assertTrue(failure.getCause().getMessage().contains("still asked for input after 10 rounds of tools/call"),
                failure.getCause().getMessage());
        assertEquals("still", text(client.callToolBlocking("echo", McpJson.object().put("message", "still"))));
    }

    @Test
    void theManagerRemembersTheEraAndStartsAServerThatExitsOnTheProbeAgain() throws Exception {
        ToolCacheProvider file = Providers.require(ToolCacheProvider.class, Providers.byId(ToolCacheProvider.class,
                Providers.load(ToolCacheProvider.class, getClass().getClassLoader()), ToolCacheProvider::id), "file");
        ToolCache cache = file.open(new ToolCacheProvider.Settings(Optional.of(temp), temp, Map.of(), Duration.ofDays(1)));
        StdioServerConfig legacy = TestServerProcesses.config("--era", "legacy");
        StdioServerConfig fragile = TestServerProcesses.config("--fault", "exit-before-initialize");
        try (McpManager first = McpManager.builder().transportProviders(List.of(TestServerProcesses.stdio()))
                .toolCache(cache).build()) {
            ConnectResult result = first.connectServers(Map.of("legacy", legacy, "fragile", fragile), Map.of());
            assertEquals(Map.of(), result.errors(), "the fragile server is started again in the 2025 era");
            assertEquals("2025-11-25", first.waitForConnection("fragile").join().initializeResult().protocolVersion());
        }
        assertEquals(Optional.of("2025-11-25"), cache.readEntry("legacy", ConfigHash.of(legacy)).orElseThrow()
                .protocolVersion());
        // A config that pins the handshake era is spoken so, without a probe, even by a dual server.
        StdioServerConfig dual = TestServerProcesses.config("--era", "dual");
        StdioServerConfig pinned = new StdioServerConfig(dual.command(), dual.args(), Map.of(), Optional.empty(),
                Optional.empty(), dual.timeout(), Optional.empty(), true, Optional.empty(), Optional.empty(), List.of(),
                true, "2025-11-25");
        try (McpManager manager = McpManager.builder().transportProviders(List.of(TestServerProcesses.stdio())).build()) {
            manager.connectServers(Map.of("pinned", pinned), Map.of());
            McpClient client = manager.waitForConnection("pinned").join();
            assertEquals("2025-11-25", client.initializeResult().protocolVersion());
            assertEquals("initialize", received(client).get(0));
        }
        try (McpManager warm = McpManager.builder().transportProviders(List.of(TestServerProcesses.stdio()))
                .toolCache(cache).build()) {
            warm.connectServers(Map.of("legacy", legacy), Map.of());
            McpClient client = warm.waitForConnection("legacy").join();
            List<String> methods = received(client);
            assertEquals("initialize", methods.get(0), methods::toString);
            assertTrue(!methods.contains("server/discover"), "a warm start sends no probe: " + methods);
        }
    }
}
