package mcp.gateway;

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
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import mcp.api.Content;
import mcp.api.HttpServerConfig;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.api.spi.Providers;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.host.LoadResult;
import mcp.host.McpHost;
import mcp.manager.CallOptions;
import mcp.search.Hit;
import mcp.search.IndexedTool;
import mcp.search.spi.ToolRanker;
import mcp.search.spi.ToolRankerProvider;
import mcp.manager.ClientListener;
import mcp.manager.ClientOptions;
import mcp.manager.ElicitationHandlers;
import mcp.manager.SamplingHandlers;
import mcp.manager.McpClient;
import mcp.manager.ServerRequestHandler;
import mcp.server.HttpEndpoint;
import mcp.server.HttpOptions;
import mcp.server.McpServer;
import mcp.server.ServerLimits;
import mcp.testkit.ConformanceServer;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The gateway over real parts: testkit servers run by a real host, served over Streamable HTTP on loopback by
 * mcp.server, and mcp-host's own client as the gateway's clients, in the era each asks for.
 */
class GatewayTest {

    @TempDir
    Path temp;

    private final Opened open = new Opened();
    /** Whether the next gateway runs calls as tasks when its clients want them. */
    private boolean tasks;
    /** Whether the next gateway runs as tasks the calls of tools whose servers run them as tasks. */
    private boolean upstreamTasks = true;
    /** The next host's tool search ranker, if any; its gateway then searches with the host's finder. */
    private ToolRankerProvider ranker;

    @AfterEach
    void closeAll() throws Exception {
        open.closeAll();
        Opened.awaitNoServerProcess();
    }

    /** A host of testkit servers (name to server arguments), a gateway of it, served over HTTP. */
    private HttpEndpoint gateway(Map<String, List<String>> servers) throws Exception {
        ObjectNode entries = McpJson.object();
        new TreeMap<>(servers).forEach((name, args) -> entries.set(name, stdio(TestServers.command(
                args.toArray(String[]::new)))));
        return gateway(entries, ServerLimits.DEFAULT);
    }

    private static ObjectNode stdio(List<String> command) {
        ObjectNode entry = McpJson.object().put("command", command.get(0));
        command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        return entry;
    }

    /** A host of these config entries, a gateway of it with these limits, served over HTTP. */
    private HttpEndpoint gateway(ObjectNode entries, ServerLimits limits) throws Exception {
        return server(entries, limits, false).serveHttp(HttpOptions.LOOPBACK);
    }

    /** A host of these config entries, a gateway of it (with tool search or not), not served yet. */
    private McpServer server(ObjectNode entries, ServerLimits limits, boolean search) throws Exception {
        ObjectNode root = McpJson.object();
        root.set("mcpServers", entries);
        Path config = temp.resolve("mcp.json");
        Files.writeString(config, root.toString());
        McpHost.Builder hostBuilder = McpHost.builder().configFile(config).home(temp).workingDirectory(temp)
                .cacheDirectory(temp.resolve("cache")).startupGate(Duration.ofSeconds(60))
                .clientSettings(Gateway.clientSettings());
        if (ranker != null) {
            hostBuilder.toolRanker(ranker);
        }
        McpHost host = open.track(hostBuilder.build());
        LoadResult loaded = host.load();
        assertEquals(Map.of(), loaded.errors());
        Gateway.Builder gatewayBuilder = Gateway.builder(host.manager()).search(search).tasks(tasks)
                .upstreamTasks(upstreamTasks);
        if (ranker != null) {
            gatewayBuilder.toolFinder(host.toolFinder());
        }
        Gateway gateway = open.track(gatewayBuilder.build());
        McpServer server = open.track(McpServer.builder("mcp-host", "test").handler(gateway).limits(limits).build());
        gateway.attach(server);
        return server;
    }

    private McpClient client(HttpEndpoint endpoint, ClientOptions.Builder options) {
        TransportProvider http = Providers.load(TransportProvider.class, getClass().getClassLoader()).stream()
                .filter(provider -> provider.id().equals("http")).findFirst().orElseThrow();
        HttpServerConfig config = HttpServerConfig.of(endpoint.uri().toString());
        return open.track(McpClient.connectBlocking(http.open(TransportRequest.of("gateway", config, temp)),
                options.build()));
    }

    private static String text(ToolResult result) {
        return ((Content.Text) result.content().get(0)).text();
    }

    private static Set<String> names(List<ToolDefinition> tools) {
        return tools.stream().map(ToolDefinition::name).collect(Collectors.toCollection(TreeSet::new));
    }

    /** A client who answers every elicitation with its own name. */
    private static ClientOptions.Builder named(String era, String name) {
        ServerRequestHandler answer = params -> {
            ObjectNode result = McpJson.object().put("action", "accept");
            result.putObject("content").put("name", name);
            return result;
        };
        return ClientOptions.builder("gateway").protocolVersion(era).handler(ClientOptions.ELICITATION_METHOD, answer);
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "2025-11-25"})
    void severalServersAreServedUnderPrefixedNamesOverOneProcessEach(String era) throws Exception {
        HttpEndpoint endpoint = gateway(Map.of("alpha", List.of(), "beta", List.of()));
        List<McpClient> clients = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            clients.add(client(endpoint, ClientOptions.builder("gateway").protocolVersion(era)));
        }
        McpClient first = clients.get(0);
        assertEquals(era.equals("auto") ? "2026-07-28" : era, first.initializeResult().protocolVersion());
        Set<String> names = names(first.listToolsBlocking());
        assertTrue(names.containsAll(Set.of("alpha_echo", "beta_echo", "alpha_pid", "beta_pid")), names.toString());
        assertEquals("hi", text(first.callToolBlocking("alpha_echo", McpJson.object().put("message", "hi"))));
        // Five clients, two servers: every client's calls reach the same two processes.
        Set<String> pids = new TreeSet<>();
        for (McpClient client : clients) {
            pids.add(text(client.callToolBlocking("alpha_pid", McpJson.object())));
            pids.add(text(client.callToolBlocking("beta_pid", McpJson.object())));
        }
        assertEquals(2, pids.size(), pids.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "2025-11-25"})
    void progressReachesTheClientThatAskedForIt(String era) throws Exception {
        McpClient client = client(gateway(Map.of("solo", List.of())), ClientOptions.builder("gateway").protocolVersion(era));
        List<Double> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        ToolResult asked = client.callTool("slow", McpJson.object().put("ms", 200).put("steps", 4),
                CallOptions.DEFAULT.withProgress(update -> seen.add(update.progress()))).get(60, TimeUnit.SECONDS);
        assertFalse(asked.isError());
        assertFalse(seen.isEmpty(), "no progress reached the client that asked for it");
        // A call that does not ask is answered all the same.
        ToolResult quiet = client.callTool("slow", McpJson.object().put("ms", 200).put("steps", 4), CallOptions.DEFAULT)
                .get(60, TimeUnit.SECONDS);
        assertFalse(quiet.isError());
    }

    @Test
    void aLongNameIsCutSoThatAnAgentsPrefixKeepsItWithinSixtyFourCharacters() throws Exception {
        // 45 characters: "<server>_pid" and "<server>_add" fit the 49, "<server>_echo" and longer do not.
        String server = "a-server-whose-name-takes-forty-five-chars-xy";
        assertEquals(45, server.length());
        McpClient client = client(gateway(Map.of(server, List.of(), "alpha", List.of())), ClientOptions.builder("gateway"));
        List<ToolDefinition> tools = client.listToolsBlocking();
        Set<String> names = names(tools);
        String prefix = server.replace('-', '_') + "_";
        List<String> long_ = names.stream().filter(name -> !name.startsWith("alpha_")).toList();
        assertEquals(names.size() / 2, long_.size(), names.toString());
        assertTrue(names.stream().allMatch(name -> name.length() <= 49), names.toString());
        assertTrue(names.containsAll(Set.of(prefix + "pid", prefix + "add", "alpha_server_requests")),
                "a name that fits keeps its form: " + names);
        List<String> cut = long_.stream().filter(name -> !name.equals(prefix + "pid") && !name.equals(prefix + "add"))
                .toList();
        assertEquals(long_.size() - 2, cut.size());
        assertTrue(cut.stream().allMatch(name -> name.length() == 49 && name.matches(".*_[0-9a-f]{8}")), cut.toString());
        String echo = tools.stream().filter(tool -> cut.contains(tool.name()))
                .filter(tool -> tool.description().orElse("").startsWith("Echoes")).findFirst().orElseThrow().name();
        assertEquals("hi", text(client.callToolBlocking(echo, McpJson.object().put("message", "hi"))));
    }

    @Test
    void lazyServersAreListedFromTheCacheAndStartedByACall() throws Exception {
        ObjectNode entries = McpJson.object();
        for (String name : List.of("alpha", "beta")) {
            ObjectNode entry = stdio(TestServers.command("--state", temp.resolve("starts-" + name).toString()));
            entry.put("lazy", true);
            entries.set(name, entry);
        }
        // A first host fills the cache: each server is started once, listed, and stopped.
        ObjectNode root = McpJson.object();
        root.set("mcpServers", entries);
        Files.writeString(temp.resolve("mcp.json"), root.toString());
        try (McpHost filler = McpHost.builder().configFile(temp.resolve("mcp.json")).home(temp).workingDirectory(temp)
                .cacheDirectory(temp.resolve("cache")).build()) {
            assertEquals(Map.of(), filler.load().errors());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!filler.manager().statuses().values().stream().allMatch(status -> status.state()
                    == mcp.manager.ServerStatus.State.STOPPED) || filler.manager().statuses().size() != 2) {
                assertTrue(System.nanoTime() < deadline, "filled and stopped: " + filler.manager().statuses());
                Thread.sleep(20);
            }
        }
        assertEquals(1, Files.readAllLines(temp.resolve("starts-alpha")).size());
        assertEquals(1, Files.readAllLines(temp.resolve("starts-beta")).size());
        // A stopped server's process may take a moment to go on a loaded machine: wait for it, bounded, so that a
        // process seen below can only be one the gateway started.
        long gone = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (ProcessHandle.current().descendants().anyMatch(p -> p.info().commandLine().orElse("")
                .contains("starts-"))) {
            assertTrue(System.nanoTime() < gone, "the filler's servers did not end");
            Thread.sleep(20);
        }

        // The gateway's host starts neither; its client lists their cached tools.
        McpClient client = client(gateway(entries, ServerLimits.DEFAULT), ClientOptions.builder("gateway"));
        Set<String> names = names(client.listToolsBlocking());
        assertTrue(names.containsAll(Set.of("alpha_echo", "alpha_pid", "beta_echo", "beta_pid")), names.toString());
        assertTrue(ProcessHandle.current().descendants().noneMatch(p -> p.info().commandLine().orElse("")
                .contains("starts-")), "no server process");
        assertEquals(1, Files.readAllLines(temp.resolve("starts-alpha")).size());

        // A call starts its own server, and only that one.
        assertEquals("hi", text(client.callToolBlocking("alpha_echo", McpJson.object().put("message", "hi"))));
        assertEquals(2, Files.readAllLines(temp.resolve("starts-alpha")).size());
        assertEquals(1, Files.readAllLines(temp.resolve("starts-beta")).size());
        assertTrue(names(client.listToolsBlocking()).containsAll(names), "the same tools, live now");
    }

    @Test
    void oneServerKeepsItsOwnNames() throws Exception {
        McpClient client = client(gateway(Map.of("solo", List.of())), ClientOptions.builder("gateway"));
        Set<String> names = names(client.listToolsBlocking());
        assertTrue(names.containsAll(Set.of("echo", "pid", "add")), names.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "2025-11-25"})
    void aServersQuestionReachesTheClientWhoseCallItIs(String era) throws Exception {
        // The upstream speaks the stateless revision: its questions come in its call's own result.
        HttpEndpoint endpoint = gateway(Map.of("kit", List.of("--era", "modern"), "other", List.of()));
        McpClient ann = client(endpoint, named(era, "Ann"));
        McpClient bob = client(endpoint, named(era, "Bob"));
        List<CompletableFuture<ToolResult>> anns = new ArrayList<>();
        List<CompletableFuture<ToolResult>> bobs = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            anns.add(ann.callTool("kit_ask", McpJson.object(), CallOptions.DEFAULT));
            bobs.add(bob.callTool("kit_ask", McpJson.object(), CallOptions.DEFAULT));
        }
        for (CompletableFuture<ToolResult> call : anns) {
            assertEquals("hello Ann", text(call.get(60, TimeUnit.SECONDS)));
        }
        for (CompletableFuture<ToolResult> call : bobs) {
            assertEquals("hello Bob", text(call.get(60, TimeUnit.SECONDS)));
        }
    }

    @Test
    void aClientThatCannotBeAskedGetsTheServersRefusalNotAnotherClientsAnswer() throws Exception {
        HttpEndpoint endpoint = gateway(Map.of("kit", List.of("--era", "modern"), "other", List.of()));
        McpClient ann = client(endpoint, named("auto", "Ann"));
        McpClient mute = client(endpoint, ClientOptions.builder("gateway"));
        CompletableFuture<ToolResult> answered = ann.callTool("kit_ask", McpJson.object(), CallOptions.DEFAULT);
        McpProtocolException refused = assertThrows(McpProtocolException.class,
                () -> mute.callToolBlocking("kit_ask", McpJson.object()));
        assertTrue(refused.getMessage().contains("needs the client capability \"elicitation\", which the client did "
                + "not declare"), refused.getMessage());
        assertEquals("hello Ann", text(answered.get(60, TimeUnit.SECONDS)));
    }

    @Test
    void listChangesReachEveryClientThatListens() throws Exception {
        HttpEndpoint endpoint = gateway(Map.of("kit", List.of(), "other", List.of()));
        List<CountDownLatch> heard = new ArrayList<>();
        List<McpClient> clients = new ArrayList<>();
        for (String era : List.of("auto", "2025-11-25")) {
            CountDownLatch latch = new CountDownLatch(1);
            heard.add(latch);
            clients.add(client(endpoint, ClientOptions.builder("gateway").protocolVersion(era)
                    .listener(new ClientListener() {
                        @Override
                        public void onToolsListChanged() {
                            latch.countDown();
                        }
                    })));
        }
        clients.get(0).callToolBlocking("kit_change_tools", McpJson.object());
        for (CountDownLatch latch : heard) {
            assertTrue(latch.await(30, TimeUnit.SECONDS), "a client did not hear of the change");
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!names(clients.get(1).listToolsBlocking()).contains("kit_extra_0")) {
            assertTrue(System.nanoTime() < deadline, "the new tool never appeared");
            Thread.sleep(100);
        }
    }

    /** Two testkit servers; kit's config keeps its echo always loaded. */
    private McpServer searchGateway() throws Exception {
        ObjectNode entries = McpJson.object();
        entries.set("kit", stdio(TestServers.command()));
        ((ObjectNode) entries.get("kit")).putArray("alwaysLoad").add("echo");
        entries.set("other", stdio(TestServers.command()));
        return server(entries, ServerLimits.DEFAULT, true);
    }

    @Test
    void aSearchAddsItsFindsToTheSearchingClientsListOnly() throws Exception {
        HttpEndpoint endpoint = searchGateway().serveHttp(HttpOptions.LOOPBACK);
        CountDownLatch annHeard = new CountDownLatch(1);
        CountDownLatch bobHeard = new CountDownLatch(1);
        McpClient ann = client(endpoint, listening("2025-11-25", annHeard));
        McpClient bob = client(endpoint, listening("2025-11-25", bobHeard));
        Set<String> before = Set.of("kit_echo", "search_tools");
        assertEquals(before, names(ann.listToolsBlocking()), "always loaded, and the search");
        assertEquals(before, names(bob.listToolsBlocking()));

        ToolResult found = ann.callToolBlocking("search_tools", McpJson.object().put("query", "other_pid")
                .put("limit", 1));
        assertTrue(text(found).startsWith("Tools found") && text(found).contains("other_pid: Returns this server's "
                + "process id"), text(found));
        assertTrue(annHeard.await(30, TimeUnit.SECONDS), "the searching client hears its list changed");
        assertEquals(Set.of("kit_echo", "other_pid", "search_tools"), names(ann.listToolsBlocking()));
        assertEquals(before, names(bob.listToolsBlocking()), "another client's list is its own");
        // Sent at the same moment as ann's, had it been sent: a while later, bob still heard nothing.
        assertTrue(!bobHeard.await(1, TimeUnit.SECONDS), "the other client heard of a change of someone else's list");

        // Every tool is callable by its name, listed or not.
        assertEquals("hi", text(bob.callToolBlocking("other_echo", McpJson.object().put("message", "hi"))));
        ToolResult none = bob.callToolBlocking("search_tools", McpJson.object().put("query", "/zz+qq/"));
        assertTrue(text(none).startsWith("No tool matches"), text(none));
        assertTrue(bob.callToolBlocking("search_tools", McpJson.object()).isError(), "a query is needed");
    }

    @Test
    void searchToolsRanksWithTheHostsRankerAndSaysSo() throws Exception {
        List<String> queries = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicInteger puts = new java.util.concurrent.atomic.AtomicInteger();
        ranker = new PidRanker(queries, puts);
        McpClient client = client(searchGateway().serveHttp(HttpOptions.LOOPBACK), ClientOptions.builder("gateway")
                .protocolVersion("2025-11-25"));

        // Words alone find nothing for this; the ranker puts the pid tools first whatever is asked.
        ToolResult found = client.callToolBlocking("search_tools", McpJson.object().put("query", "zebra giraffe")
                .put("limit", 2));
        assertTrue(text(found).contains("kit_pid") && text(found).contains("other_pid"), text(found));
        JsonNode structured = found.structuredContent().orElseThrow();
        assertEquals("pid-first", structured.path("ranker").asString(), structured.toString());
        assertTrue(structured.path("rankerSkipped").isNull(), structured.toString());
        assertEquals(List.of("zebra giraffe"), queries);

        ToolResult again = client.callToolBlocking("search_tools", McpJson.object().put("query", "add two numbers"));
        assertTrue(text(again).contains("kit_add"), "the words still count: " + text(again));
        assertEquals(2, puts.get(), "each server's tools went to the ranker once, not at every search");
    }

    /** A ranker that puts every tool whose name has "pid" first, whatever the query, and counts what it is given. */
    private record PidRanker(List<String> queries, java.util.concurrent.atomic.AtomicInteger puts)
            implements ToolRankerProvider {
        @Override
        public String id() {
            return "pid-first";
        }

        @Override
        public ToolRanker create(Context context) {
            Map<String, IndexedTool> tools = new java.util.concurrent.ConcurrentHashMap<>();
            return new ToolRanker() {
                @Override
                public String id() {
                    return "pid-first";
                }

                @Override
                public void put(String server, java.util.Collection<IndexedTool> given) {
                    puts.incrementAndGet();
                    remove(server);
                    given.forEach(tool -> tools.put(tool.id(), tool));
                }

                @Override
                public void remove(String server) {
                    tools.values().removeIf(tool -> tool.server().equals(server));
                }

                @Override
                public List<Hit> rank(String query, int limit) {
                    queries.add(query);
                    return tools.values().stream().filter(tool -> tool.name().contains("pid")).limit(limit)
                            .map(tool -> new Hit(tool.id(), tool.server(), tool.name(), 1)).toList();
                }
            };
        }
    }

    @Test
    void aStatelessClientOverHttpFindsAndCallsButHasNoListOfItsOwn() throws Exception {
        McpClient client = client(searchGateway().serveHttp(HttpOptions.LOOPBACK), ClientOptions.builder("gateway"));
        assertEquals("2026-07-28", client.initializeResult().protocolVersion());
        ToolResult found = client.callToolBlocking("search_tools", McpJson.object().put("query", "kit_add"));
        assertTrue(text(found).startsWith("Tools found (call them by name)") && text(found).contains("kit_add"),
                text(found));
        assertEquals(Set.of("kit_echo", "search_tools"), names(client.listToolsBlocking()),
                "nothing tells one stateless HTTP client from another");
        assertEquals("5", text(client.callToolBlocking("kit_add", McpJson.object().put("a", 2).put("b", 3))));
    }

    @Test
    void aStatelessClientOverStdioHearsItsListChangeOnItsListenStream() throws Exception {
        McpServer server = searchGateway();
        java.io.PipedInputStream serverIn = new java.io.PipedInputStream(1 << 20);
        java.io.OutputStream toServer = new java.io.PipedOutputStream(serverIn);
        java.io.PipedInputStream clientIn = new java.io.PipedInputStream(1 << 20);
        open.track(server.serveStdio(serverIn, new java.io.PipedOutputStream(clientIn)));
        java.util.concurrent.BlockingQueue<JsonNode> fromServer = new java.util.concurrent.LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (java.io.BufferedReader lines = new java.io.BufferedReader(new java.io.InputStreamReader(clientIn,
                    java.nio.charset.StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                    fromServer.add(McpJson.mapper().readTree(line));
                }
            } catch (java.io.IOException e) {
                // the server ended its output
            }
        }, "gateway-test-stdio");
        reader.setDaemon(true);
        reader.start();
        java.util.function.BiConsumer<Integer, String> send = (id, line) -> {
            try {
                toServer.write((line + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                toServer.flush();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
        send.accept(1, statelessRequest(1, "subscriptions/listen", "{\"notifications\":{\"toolsListChanged\":true}}"));
        assertEquals("notifications/subscriptions/acknowledged", next(fromServer, m -> m.has("method")).path("method")
                .asString());
        send.accept(2, statelessRequest(2, "tools/list", "{}"));
        assertEquals(2, next(fromServer, m -> m.path("id").asInt() == 2).path("result").path("tools").size());
        send.accept(3, statelessRequest(3, "tools/call", "{\"name\":\"search_tools\",\"arguments\":{\"query\":"
                + "\"kit_pid\",\"limit\":1}}"));
        JsonNode changed = next(fromServer, m -> m.path("method").asString("").equals("notifications/tools/list_changed"));
        assertEquals(1, changed.path("params").path("_meta").path("io.modelcontextprotocol/subscriptionId").asInt(),
                "on the client's own listen stream: " + changed);
        assertTrue(next(fromServer, m -> m.path("id").asInt() == 3).path("result").path("content").path(0).path("text")
                .asString().contains("kit_pid"));
        send.accept(4, statelessRequest(4, "tools/list", "{}"));
        JsonNode tools = next(fromServer, m -> m.path("id").asInt() == 4).path("result").path("tools");
        Set<String> listed = new TreeSet<>();
        tools.forEach(tool -> listed.add(tool.path("name").asString()));
        assertEquals(Set.of("kit_echo", "kit_pid", "search_tools"), listed);
        toServer.close();
    }

    private static String statelessRequest(int id, String method, String params) {
        ObjectNode json = (ObjectNode) McpJson.mapper().readTree(params);
        ObjectNode meta = json.putObject("_meta");
        meta.put("io.modelcontextprotocol/protocolVersion", "2026-07-28");
        meta.putObject("io.modelcontextprotocol/clientCapabilities");
        ObjectNode request = McpJson.object().put("jsonrpc", "2.0").put("id", id).put("method", method);
        request.set("params", json);
        return request.toString();
    }

    /** The next message that matches, within 30 s; the others before it are dropped. */
    private static JsonNode next(java.util.concurrent.BlockingQueue<JsonNode> messages,
            java.util.function.Predicate<JsonNode> wanted) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            JsonNode message = messages.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            assertTrue(message != null, "no such message within 30 s");
            if (wanted.test(message)) {
                return message;
            }
        }
    }

    private static ClientOptions.Builder listening(String era, CountDownLatch heard) {
        return ClientOptions.builder("gateway").protocolVersion(era).listener(new ClientListener() {
            @Override
            public void onToolsListChanged() {
                heard.countDown();
            }
        });
    }

    /**
     * Two clients, each with its own model and its own user, make 1,000 calls at once of tools that sample or elicit:
     * each gets only its own questions, and every result is its own. The upstream is the conformance fixture in the
     * two ways a server's question can be told apart: over stdio in the 2026-07-28 era (a round of the call's result)
     * and over HTTP pinned to 2025-11-25 (a request on the call's own stream).
     */
    @ParameterizedTest
    @ValueSource(strings = {"stdio-2026", "http-2025"})
    void aThousandCallsOfTwoClientsThatSampleAndElicitNeverCrossTalk(String upstream) throws Exception {
        // Room for the thousand at once, in the fixture and in the gateway: the default bounds refuse the 513th.
        ServerLimits roomy = ServerLimits.DEFAULT.withMaxConcurrentRequests(2_048).withStreams(4_096, 1_000);
        ObjectNode entry;
        if (upstream.equals("stdio-2026")) {
            entry = stdio(TestServers.conformance("--max-requests", "2048"));
        } else {
            McpServer fixture = open.track(ConformanceServer.create(roomy));
            entry = McpJson.object().put("type", "http").put("url", fixture.serveHttp(HttpOptions.LOOPBACK).uri()
                    .toString()).put("protocolVersion", "2025-11-25");
        }
        HttpEndpoint endpoint = gateway(McpJson.object().set("fixture", entry), roomy);
        Map<String, McpClient> clients = new TreeMap<>();
        List<String> eras = List.of("auto", "2025-11-25");
        int i = 0;
        for (String person : List.of("Ann", "Bob")) {
            String era = eras.get(i++);
            clients.put(person, client(endpoint, ClientOptions.builder("gateway").protocolVersion(era)
                    .handler(ClientOptions.SAMPLING_METHOD, SamplingHandlers.text(person + "-model",
                            params -> person + " says " + params.path("messages").get(0).path("content").path("text")
                                    .asString("?")))
                    .handler(ClientOptions.ELICITATION_METHOD, ElicitationHandlers.accepting(params -> McpJson.object()
                            .put("username", person.toLowerCase(java.util.Locale.ROOT))
                            .put("email", person.toLowerCase(java.util.Locale.ROOT) + "@example.test")))));
        }
        // A thousand calls at once on two cores: each far slower than alone, so a bound of its own.
        CallOptions patient = CallOptions.DEFAULT.withTimeout(Duration.ofMinutes(3));
        Map<String, List<CompletableFuture<ToolResult>>> sampled = new TreeMap<>();
        Map<String, List<CompletableFuture<ToolResult>>> elicited = new TreeMap<>();
        for (int n = 0; n < 250; n++) {
            for (Map.Entry<String, McpClient> client : clients.entrySet()) {
                sampled.computeIfAbsent(client.getKey(), k -> new ArrayList<>()).add(client.getValue().callTool(
                        "test_sampling", McpJson.object().put("prompt", "question " + n), patient));
                elicited.computeIfAbsent(client.getKey(), k -> new ArrayList<>()).add(client.getValue().callTool(
                        "test_elicitation", McpJson.object().put("message", "who?"), patient));
            }
        }
        for (String person : clients.keySet()) {
            String other = person.equals("Ann") ? "bob" : "ann";
            List<CompletableFuture<ToolResult>> samples = sampled.get(person);
            for (int n = 0; n < samples.size(); n++) {
                assertEquals("LLM response: " + person + " says question " + n,
                        text(samples.get(n).get(200, TimeUnit.SECONDS)), upstream);
            }
            for (CompletableFuture<ToolResult> call : elicited.get(person)) {
                String answer = text(call.get(200, TimeUnit.SECONDS));
                assertTrue(answer.contains("\"username\":\"" + person.toLowerCase(java.util.Locale.ROOT) + "\"")
                        && !answer.contains(other), upstream + ": " + answer);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "2025-11-25"})
    void resourcesPromptsAndCompletionsAreRoutedToTheirServers(String era) throws Exception {
        HttpEndpoint endpoint = gateway(Map.of("kit", List.of("--features", "prompts,resources,completions"),
                "other", List.of()));
        McpClient client = client(endpoint, ClientOptions.builder("gateway").protocolVersion(era));
        JsonNode resources = McpJson.mapper().valueToTree(client.listResources().get(30, TimeUnit.SECONDS).stream()
                .map(resource -> resource.uri()).toList());
        assertTrue(resources.size() >= 1, resources.toString());
        String uri = resources.get(0).asString();
        assertTrue(client.readResource(uri).get(30, TimeUnit.SECONDS).contents().size() >= 1);
        List<String> prompts = client.listPrompts().get(30, TimeUnit.SECONDS).stream().map(p -> p.name()).toList();
        assertTrue(prompts.stream().allMatch(name -> name.startsWith("kit_")), prompts.toString());
    }

    /** One stateless request of a client with the tasks extension, over plain HTTP; its Authorization is its own. */
    private static JsonNode statelessCall(HttpEndpoint endpoint, String method, ObjectNode params, String auth)
            throws Exception {
        return statelessCall(endpoint, method, params, auth, McpJson.object());
    }

    /** As above, the client declaring these capabilities besides the tasks extension. */
    private static JsonNode statelessCall(HttpEndpoint endpoint, String method, ObjectNode params, String auth,
            ObjectNode capabilities) throws Exception {
        ObjectNode meta = params.putObject("_meta");
        meta.put("io.modelcontextprotocol/protocolVersion", "2026-07-28");
        ObjectNode declared = capabilities.deepCopy();
        declared.putObject("extensions").putObject("io.modelcontextprotocol/tasks");
        meta.set("io.modelcontextprotocol/clientCapabilities", declared);
        ObjectNode body = McpJson.object().put("jsonrpc", "2.0").put("id", 1).put("method", method);
        body.set("params", params);
        String name = params.has("name") ? params.get("name").asString() : params.path("taskId").asString();
        java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(endpoint.uri()).timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json").header("Accept", "application/json")
                        .header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", method)
                        .header("Mcp-Name", name).header("Authorization", auth)
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body.toString())).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        return McpJson.mapper().readTree(response.body());
    }

    /** Polls a task of the gateway (30 s at most) until it has completed. */
    private static JsonNode completed(HttpEndpoint endpoint, String id, String auth) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        JsonNode task = statelessCall(endpoint, "tasks/get", McpJson.object().put("taskId", id), auth).path("result");
        while (!task.path("status").asString().equals("completed")) {
            assertTrue(System.nanoTime() < deadline, task.toString());
            Thread.sleep(50);
            task = statelessCall(endpoint, "tasks/get", McpJson.object().put("taskId", id), auth).path("result");
        }
        return task;
    }

    @Test
    void aClientsCallRunsAsATaskOfTheGatewayThatNoOtherClientReaches() throws Exception {
        tasks = true;
        HttpEndpoint endpoint = gateway(Map.of("kit", List.of()));
        ObjectNode call = McpJson.object().put("name", "echo");
        call.putObject("arguments").put("message", "from a task");
        JsonNode created = statelessCall(endpoint, "tools/call", call, "Bearer one").path("result");
        assertEquals("task", created.path("resultType").asString(), created.toString());
        String id = created.path("taskId").asString();
        JsonNode foreign = statelessCall(endpoint, "tasks/get", McpJson.object().put("taskId", id), "Bearer two");
        assertEquals(-32602, foreign.path("error").path("code").asInt(), foreign.toString());
        JsonNode task = completed(endpoint, id, "Bearer one");
        assertEquals("from a task", task.path("result").path("content").path(0).path("text").asString(),
                task.toString());

        ObjectNode slow = McpJson.object().put("name", "slow");
        slow.putObject("arguments").put("ms", 60_000);
        String running = statelessCall(endpoint, "tools/call", slow, "Bearer one").path("result").path("taskId")
                .asString();
        JsonNode ack = statelessCall(endpoint, "tasks/cancel", McpJson.object().put("taskId", running), "Bearer one");
        assertEquals("complete", ack.path("result").path("resultType").asString(), ack.toString());
        assertEquals("cancelled", statelessCall(endpoint, "tasks/get", McpJson.object().put("taskId", running),
                "Bearer one").path("result").path("status").asString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "2025-11-25"})
    void aToolItsServerRunsAsATaskMayRunAsOneOfTheGatewayAndItsQuestionsReachTheCaller(String era) throws Exception {
        HttpEndpoint endpoint = gateway(Map.of("kit", List.of("--era", "modern", "--tasks", "20"), "plain", List.of()));
        McpClient client = client(endpoint, named(era, "Zoe"));
        Map<String, ToolDefinition> listed = client.listToolsBlocking().stream()
                .collect(Collectors.toMap(ToolDefinition::name, tool -> tool));
        assertTrue(listed.get("kit_echo").mayRunAsTask(), listed.get("kit_echo").toString());
        assertFalse(listed.get("kit_pid").mayRunAsTask(), "the server runs it at once: " + listed.get("kit_pid"));
        assertFalse(listed.get("plain_echo").mayRunAsTask(), "its server has no tasks: " + listed.get("plain_echo"));
        // The server's question, asked in its task, reaches this caller, in its era, through the gateway's task.
        assertEquals("hello Zoe", text(client.callToolBlocking("kit_ask", McpJson.object())));
        assertEquals("hi", text(client.callToolBlocking("plain_echo", McpJson.object().put("message", "hi"))));
        if (era.equals("auto")) {
            ObjectNode call = McpJson.object().put("name", "kit_echo");
            call.putObject("arguments").put("message", "as a task");
            JsonNode created = statelessCall(endpoint, "tools/call", call, "Bearer one").path("result");
            assertEquals("task", created.path("resultType").asString(), created.toString());
            ObjectNode plain = McpJson.object().put("name", "plain_echo");
            plain.putObject("arguments").put("message", "at once");
            JsonNode answered = statelessCall(endpoint, "tools/call", plain, "Bearer one").path("result");
            assertEquals("complete", answered.path("resultType").asString(), answered.toString());
            assertEquals("at once", answered.path("content").path(0).path("text").asString(), answered.toString());
        }
    }

    @Test
    void aServersQuestionsBeforeItsTaskAreRoundsOfTheCallWhichBecomesATaskWithTheServers() throws Exception {
        ObjectNode entries = McpJson.object();
        entries.set("fixture", stdio(TestServers.conformance()));
        HttpEndpoint endpoint = gateway(entries, ServerLimits.DEFAULT);
        ObjectNode elicitation = McpJson.object();
        elicitation.putObject("elicitation");
        JsonNode round = statelessCall(endpoint, "tools/call", McpJson.object().put("name", "test_tool_with_task"),
                "Bearer one", elicitation).path("result");
        assertEquals("input_required", round.path("resultType").asString(), round.toString());
        assertFalse(round.has("taskId"), "no task before the server makes one: " + round);
        String key = round.path("inputRequests").propertyNames().iterator().next();
        ObjectNode retry = McpJson.object().put("name", "test_tool_with_task")
                .put("requestState", round.path("requestState").asString());
        retry.putObject("inputResponses").putObject(key).put("action", "accept").putObject("content")
                .put("name", "Alice");
        JsonNode created = statelessCall(endpoint, "tools/call", retry, "Bearer one", elicitation).path("result");
        assertEquals("task", created.path("resultType").asString(), created.toString());
        assertFalse(created.has("requestState"), created.toString());
        String id = created.path("taskId").asString();
        JsonNode task = completed(endpoint, id, "Bearer one");
        assertEquals("Hello, Alice!", task.path("result").path("content").path(0).path("text").asString(),
                task.toString());
    }

    @Test
    void aGatewayToldNotToOffersNoTaskAndStillAnswersEveryCall() throws Exception {
        // As a replica does: its tasks would be its own, and a balancer may send a poll to another.
        upstreamTasks = false;
        HttpEndpoint endpoint = gateway(Map.of("kit", List.of("--era", "modern", "--tasks", "20")));
        McpClient client = client(endpoint, named("auto", "Zoe"));
        assertTrue(client.listToolsBlocking().stream().noneMatch(ToolDefinition::mayRunAsTask));
        assertEquals("hello Zoe", text(client.callToolBlocking("ask", McpJson.object())));
        ObjectNode call = McpJson.object().put("name", "echo");
        call.putObject("arguments").put("message", "at once");
        JsonNode answered = statelessCall(endpoint, "tools/call", call, "Bearer one").path("result");
        assertEquals("complete", answered.path("resultType").asString(), answered.toString());
        assertEquals("at once", answered.path("content").path(0).path("text").asString(), answered.toString());
    }
}
