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

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ProcessHandle.current().descendants().anyMatch(ProcessHandle::isAlive)) {
            assertTrue(System.nanoTime() < deadline, "a server process outlived the host");
            Thread.sleep(50);
        }
    }

    private <T extends AutoCloseable> T track(T closeable) {
        open.add(closeable);
        return closeable;
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
        ObjectNode root = McpJson.object();
        root.set("mcpServers", entries);
        Path config = temp.resolve("mcp.json");
        Files.writeString(config, root.toString());
        McpHost host = track(McpHost.builder().configFile(config).home(temp).workingDirectory(temp)
                .cacheDirectory(temp.resolve("cache")).startupGate(Duration.ofSeconds(60))
                .clientSettings(Gateway.clientSettings()).build());
        LoadResult loaded = host.load();
        assertEquals(Map.of(), loaded.errors());
        Gateway gateway = track(Gateway.builder(host.manager()).build());
        McpServer server = track(McpServer.builder("mcp-host", "test").handler(gateway).limits(limits).build());
        gateway.attach(server);
        return server.serveHttp(HttpOptions.LOOPBACK);
    }

    private McpClient client(HttpEndpoint endpoint, ClientOptions.Builder options) {
        TransportProvider http = Providers.load(TransportProvider.class, getClass().getClassLoader()).stream()
                .filter(provider -> provider.id().equals("http")).findFirst().orElseThrow();
        HttpServerConfig config = HttpServerConfig.of(endpoint.uri().toString());
        return track(McpClient.connectBlocking(http.open(TransportRequest.of("gateway", config, temp)),
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
            McpServer fixture = track(ConformanceServer.create(roomy));
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
}
