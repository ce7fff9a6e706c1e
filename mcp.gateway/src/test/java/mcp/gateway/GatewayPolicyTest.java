package mcp.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import mcp.api.CompletionReference;
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
import mcp.host.ToolSearch;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.protocol.ErrorCodes;
import mcp.server.Caller;
import mcp.server.HttpAuthenticator;
import mcp.server.HttpEndpoint;
import mcp.server.HttpOptions;
import mcp.server.McpServer;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Views and rate limits over real parts: testkit servers run by a real host as stdio children, the gateway served
 * over Streamable HTTP on loopback by mcp.server with an authenticator that knows a few tokens, each named after its
 * holder, and mcp-host's own client (or plain HTTP) as each holder's client, in both eras.
 */
class GatewayPolicyTest {

    @TempDir
    Path temp;

    private final Opened open = new Opened();
    /** The last gateway built, and what it reported of its policy file. */
    private Gateway gateway;
    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());

    /** Holders by token: the token is not the subject, so a log line that holds one is seen. */
    private static final Map<String, Caller> HOLDERS = Map.of(
            "tok-alice-7f3a", caller("alice", Set.of("dev")),
            "tok-bob-91c2", caller("bob", Set.of("ops")),
            "tok-carol-5d10", caller("carol", Set.of("dev")),
            "tok-flood-0b77", caller("flood", Set.of("dev")));

    private static Caller caller(String subject, Set<String> groups) {
        return new Caller(subject, Optional.of("cli"), groups, Set.of("mcp"), McpJson.object().put("sub", subject));
    }

    /** Bearer tokens of {@link #HOLDERS}; anything else is a 401. */
    private static final HttpAuthenticator TOKENS = (method, path, header) -> {
        Optional<Caller> caller = header.apply("Authorization").filter(v -> v.startsWith("Bearer "))
                .map(v -> HOLDERS.get(v.substring(7)));
        return caller.<HttpAuthenticator.Outcome>map(HttpAuthenticator.Allowed::new)
                .orElseGet(() -> new HttpAuthenticator.Refused(401, "Unauthorized", Map.of("WWW-Authenticate",
                        "Bearer")));
    };

    private static final String VIEWS = """
            {"rules": [
              {"match": {"groups": ["dev"]},
               "allow": {"tools": ["alpha/*"], "prompts": ["alpha/hello"],
                         "resources": ["test://text/**", "test://items/*"]},
               "deny": {"tools": ["alpha/crash", "alpha/write_file"]}},
              {"match": {"groups": ["ops"]}, "allow": {"servers": ["beta"]}}
            ]}
            """;

    @AfterEach
    void closeAll() throws Exception {
        open.closeAll();
        Opened.awaitNoServerProcess();
    }

    /** Two testkit servers (alpha with prompts, resources and completions), a gateway with this policy, over HTTP. */
    private HttpEndpoint gateway(String policy, boolean search) throws Exception {
        return gateway(policy, search, McpJson.object());
    }

    /** {@link #gateway(String, boolean)} with more servers. */
    private HttpEndpoint gateway(String policy, boolean search, ObjectNode more) throws Exception {
        ObjectNode entries = more.deepCopy();
        new TreeMap<>(Map.of("alpha", List.of("--features",
                "prompts,resources,completions,subscriptions"), "beta", List.<String>of()))
                .forEach((name, args) -> entries.set(name, stdio(TestServers.command(args.toArray(String[]::new)))));
        ObjectNode root = McpJson.object();
        root.set("mcpServers", entries);
        Path config = temp.resolve("mcp.json");
        Files.writeString(config, root.toString());
        Path policyFile = temp.resolve("policy.json");
        Files.writeString(policyFile, policy);
        McpHost host = open.track(McpHost.builder().configFile(config).home(temp).workingDirectory(temp)
                .cacheDirectory(temp.resolve("cache")).startupGate(Duration.ofSeconds(60))
                .clientSettings(Gateway.clientSettings()).build());
        LoadResult loaded = host.load();
        assertEquals(Map.of(), loaded.errors());
        // Polled by the test, so that it decides when a change is seen.
        Gateway.Builder builder = Gateway.builder(host.manager()).search(search).policyFile(policyFile)
                .policyPoll(Duration.ofHours(1)).policyProblems(problems::add);
        if (search) {
            builder.serverControl(ServerControl.of(host, temp));
        }
        gateway = open.track(builder.build());
        McpServer server = open.track(McpServer.builder("mcp-host", "test").handler(gateway).build());
        gateway.attach(server);
        return server.serveHttp(HttpOptions.LOOPBACK.withAuthenticator(TOKENS));
    }

    private static ObjectNode stdio(List<String> command) {
        ObjectNode entry = McpJson.object().put("command", command.get(0));
        command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        return entry;
    }

    private McpClient client(HttpEndpoint endpoint, String era, String token) {
        return client(endpoint, ClientOptions.builder("gateway").protocolVersion(era), token);
    }

    private McpClient client(HttpEndpoint endpoint, ClientOptions.Builder options, String token) {
        TransportProvider http = Providers.load(TransportProvider.class, getClass().getClassLoader()).stream()
                .filter(provider -> provider.id().equals("http")).findFirst().orElseThrow();
        HttpServerConfig config = HttpServerConfig.of(endpoint.uri().toString())
                .withHeaders(Map.of("Authorization", "Bearer " + token));
        return open.track(McpClient.connectBlocking(http.open(TransportRequest.of("gateway", config, temp)),
                options.build()));
    }

    private static Set<String> names(List<ToolDefinition> tools) {
        return tools.stream().map(ToolDefinition::name).collect(Collectors.toCollection(TreeSet::new));
    }

    private static String text(ToolResult result) {
        return ((Content.Text) result.content().get(0)).text();
    }

    /** The JSON-RPC error a request failed with. */
    private static McpProtocolException error(CompletableFuture<?> request) throws Exception {
        try {
            request.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof McpProtocolException protocol) {
                return protocol;
            }
            throw e;
        }
        throw new AssertionError("the request succeeded");
    }

    /** The error of a call, with the name (which differs) taken out: what a client learns from it. */
    private static String refusal(McpClient client, String tool) throws Exception {
        McpProtocolException e = error(client.callTool(tool, McpJson.object().put("message", "x")));
        return e.code() + " " + e.serverMessage().replace(tool, "<name>") + " " + e.data();
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "2025-11-25"})
    void twoTokensSeeAndCallDifferentToolsAndAGuessedNameRevealsNothing(String era) throws Exception {
        HttpEndpoint endpoint = gateway(VIEWS, false);
        McpClient alice = client(endpoint, era, "tok-alice-7f3a");
        McpClient bob = client(endpoint, era, "tok-bob-91c2");

        Set<String> alices = names(alice.listToolsBlocking());
        Set<String> bobs = names(bob.listToolsBlocking());
        assertTrue(alices.contains("alpha_echo") && alices.stream().allMatch(name -> name.startsWith("alpha_")),
                alices.toString());
        assertFalse(alices.contains("alpha_crash"), "a denied tool is not listed: " + alices);
        assertTrue(bobs.contains("beta_echo") && bobs.stream().allMatch(name -> name.startsWith("beta_")),
                bobs.toString());
        assertEquals("hi", text(alice.callToolBlocking("alpha_echo", McpJson.object().put("message", "hi"))));
        assertEquals("hi", text(bob.callToolBlocking("beta_echo", McpJson.object().put("message", "hi"))));

        // What an unknown name gets, every guess gets: another view's tool, a denied one, the host's own names.
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream err = System.err;
        String unknown;
        try {
            System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
            unknown = refusal(alice, "no_such_tool");
            for (String guess : List.of("beta_echo", "alpha_crash", "echo", "mcp_beta_echo", "beta/echo")) {
                assertEquals(unknown, refusal(alice, guess), guess);
            }
            for (String guess : List.of("alpha_echo", "alpha_pid", "echo")) {
                assertEquals(unknown, refusal(bob, guess), guess);
            }
        } finally {
            System.setErr(err);
        }
        String logged = log.toString(StandardCharsets.UTF_8);
        assertTrue(logged.contains("refused tool beta/echo to alice"), logged);
        assertTrue(logged.contains("refused tool alpha/echo to bob"), logged);
        assertFalse(logged.contains("tok-"), "a token reached the log: " + logged);

        // Resources, templates and prompts: the same view, the same refusals.
        List<String> aliceResources = alice.listResources().get(30, TimeUnit.SECONDS).stream().map(r -> r.uri())
                .toList();
        assertEquals(List.of("test://text/readme"), aliceResources);
        assertEquals(List.of(), bob.listResources().get(30, TimeUnit.SECONDS));
        assertFalse(alice.readResource("test://text/readme").get(30, TimeUnit.SECONDS).contents().isEmpty());
        assertFalse(alice.readResource("test://items/7").get(30, TimeUnit.SECONDS).contents().isEmpty());
        McpProtocolException noResource = error(alice.readResource("test://nothing/here"));
        McpProtocolException hiddenResource = error(alice.readResource("test://blob/data"));
        assertEquals(noResource.code(), hiddenResource.code());
        assertEquals(error(bob.readResource("test://nothing/here")).code(),
                error(bob.readResource("test://text/readme")).code());
        assertEquals(List.of("test://items/{id}"), alice.listResourceTemplates().get(30, TimeUnit.SECONDS).stream()
                .map(t -> t.uriTemplate()).toList());
        assertEquals(List.of(), bob.listResourceTemplates().get(30, TimeUnit.SECONDS));
        assertFalse(alice.complete(new CompletionReference.Template("test://items/{id}"), "id", "", Map.of())
                .get(30, TimeUnit.SECONDS).values().isEmpty());
        McpProtocolException template = error(bob.complete(new CompletionReference.Template("test://items/{id}"),
                "id", "", Map.of()));
        assertTrue(template.serverMessage().startsWith("No server lists the resource template"),
                template.serverMessage());

        assertEquals(List.of("alpha_hello"), alice.listPrompts().get(30, TimeUnit.SECONDS).stream()
                .map(p -> p.name()).toList());
        assertEquals(List.of(), bob.listPrompts().get(30, TimeUnit.SECONDS));
        assertFalse(alice.getPrompt("alpha_hello", Map.of()).get(30, TimeUnit.SECONDS).messages().isEmpty());
        McpProtocolException noPrompt = error(alice.getPrompt("alpha_nothing", Map.of()));
        McpProtocolException hiddenPrompt = error(alice.getPrompt("alpha_greet", Map.of("name", "x")));
        assertEquals(noPrompt.serverMessage().replace("alpha_nothing", "<name>"),
                hiddenPrompt.serverMessage().replace("alpha_greet", "<name>"));
        McpProtocolException completion = error(alice.complete(new CompletionReference.Prompt("alpha_greet"), "style",
                "", Map.of()));
        assertEquals("Unknown prompt: alpha_greet", completion.serverMessage());
    }

    @org.junit.jupiter.api.Test
    void theHeaderCheckOfAToolOutsideTheViewTellsNothingEither() throws Exception {
        ObjectNode conformance = McpJson.object();
        conformance.set("conf", stdio(TestServers.conformance()));
        HttpEndpoint endpoint = gateway(VIEWS, false, conformance);
        // The conformance fixture's test_header_param mirrors its region into the Mcp-Param-Region header: a stateless
        // call whose header disagrees with its body is refused before any handler when the schema is known.
        java.util.function.BiFunction<String, String, HttpResponse<String>> call = (token, tool) -> {
            ObjectNode params = McpJson.object().put("name", tool);
            params.putObject("arguments").put("region", "eu");
            ObjectNode meta = params.putObject("_meta");
            meta.put("io.modelcontextprotocol/protocolVersion", "2026-07-28");
            meta.putObject("io.modelcontextprotocol/clientCapabilities");
            ObjectNode body = McpJson.object().put("jsonrpc", "2.0").put("id", 1).put("method", "tools/call");
            body.set("params", params);
            try {
                return HttpClient.newHttpClient().send(HttpRequest.newBuilder(endpoint.uri())
                        .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                        .header("Accept", "application/json").header("MCP-Protocol-Version", "2026-07-28")
                        .header("Mcp-Method", "tools/call").header("Mcp-Name", tool)
                        .header("Mcp-Param-Region", "us").header("Authorization", "Bearer " + token)
                        .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
                        HttpResponse.BodyHandlers.ofString());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        };
        // Bob's view is the conformance server's, Alice's alpha's.
        Files.writeString(temp.resolve("policy.json"), VIEWS.replace("{\"match\": {\"groups\": [\"ops\"]}, \"allow\": "
                + "{\"servers\": [\"beta\"]}}", "{\"match\": {\"groups\": [\"ops\"]}, \"allow\": {\"servers\": "
                + "[\"conf\"]}}"));
        gateway.pollPolicy();
        HttpResponse<String> seen = call.apply("tok-bob-91c2", "conf_test_header_param");
        assertTrue(seen.body().contains(String.valueOf(ErrorCodes.HEADER_MISMATCH)), "the check holds in view: "
                + seen.statusCode() + " " + seen.body());
        HttpResponse<String> hidden = call.apply("tok-alice-7f3a", "conf_test_header_param");
        HttpResponse<String> unknown = call.apply("tok-alice-7f3a", "conf_no_such_tool");
        assertEquals(unknown.statusCode(), hidden.statusCode());
        assertEquals(unknown.body().replace("conf_no_such_tool", "<name>"),
                hidden.body().replace("conf_test_header_param", "<name>"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "2025-11-25"})
    void searchFindsOnlyWhatTheCallerMaySeeAndTheGatewaysOwnToolsNeedARule(String era) throws Exception {
        HttpEndpoint endpoint = gateway(VIEWS, true);
        McpClient alice = client(endpoint, era, "tok-alice-7f3a");
        McpClient bob = client(endpoint, era, "tok-bob-91c2");
        Set<String> listed = names(alice.listToolsBlocking());
        assertTrue(listed.contains(ToolSearch.TOOL), listed.toString());
        assertFalse(listed.contains("list_servers"), "the gateway's own tools are outside a view that does not "
                + "name them: " + listed);
        String found = text(alice.callToolBlocking(ToolSearch.TOOL, McpJson.object().put("query", "echo message")
                .put("limit", 20)));
        assertTrue(found.contains("alpha_echo"), found);
        assertFalse(found.contains("beta_"), found);
        String regex = text(alice.callToolBlocking(ToolSearch.TOOL, McpJson.object().put("query", "/.*/")
                .put("limit", 20)));
        assertFalse(regex.contains("beta_") || regex.contains("alpha_crash"), regex);
        String bobs = text(bob.callToolBlocking(ToolSearch.TOOL, McpJson.object().put("query", "echo")));
        assertTrue(bobs.contains("beta_echo") && !bobs.contains("alpha_"), bobs);
        assertEquals(refusal(alice, "no_such_tool"), refusal(alice, "list_servers"));
        assertEquals(refusal(alice, "no_such_tool"), refusal(alice, "beta_echo"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "2025-11-25"})
    void aChangedPolicyChangesTheViewAndIsHeardAndABadOneKeepsThePrevious(String era) throws Exception {
        HttpEndpoint endpoint = gateway(VIEWS, false);
        java.util.concurrent.Semaphore heard = new java.util.concurrent.Semaphore(0);
        McpClient alice = client(endpoint, ClientOptions.builder("gateway").protocolVersion(era)
                .listener(new mcp.manager.ClientListener() {
                    @Override
                    public void onToolsListChanged() {
                        heard.release();
                    }
                }), "tok-alice-7f3a");
        assertTrue(names(alice.listToolsBlocking()).contains("alpha_echo"));
        if (era.equals("auto")) {
            // The stateless client hears changes on its listen stream, which it opens after connecting.
            Thread.sleep(500);
        }
        Files.writeString(temp.resolve("policy.json"), VIEWS.replace("\"tools\": [\"alpha/*\"]",
                "\"tools\": [\"beta/*\"]"));
        gateway.pollPolicy();
        assertTrue(heard.tryAcquire(30, TimeUnit.SECONDS), "the client did not hear that its view changed");
        Set<String> now = names(alice.listToolsBlocking());
        assertTrue(now.contains("beta_echo") && now.stream().noneMatch(name -> name.startsWith("alpha_")),
                now.toString());
        assertEquals(refusal(alice, "no_such_tool"), refusal(alice, "alpha_echo"));

        Files.writeString(temp.resolve("policy.json"), "{\"rules\": [{\"match\": {}, \"allow\": {\"servers\": "
                + "[\"*\"]}, \"deny\": {\"sever\": [\"beta\"]}}]}");
        gateway.pollPolicy();
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains(temp.resolve("policy.json").toString())
                && problems.get(0).contains("/rules/0/deny/sever is not a known field"), problems.get(0));
        assertEquals(now, names(alice.listToolsBlocking()), "a bad file keeps the policy in force");
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "2025-11-25"})
    void aSubscriptionOutsideTheViewIsAcceptedAndNeverHears(String era) throws Exception {
        HttpEndpoint endpoint = gateway(VIEWS, false);
        Map<String, java.util.concurrent.Semaphore> heard = new TreeMap<>();
        Map<String, McpClient> clients = new TreeMap<>();
        for (String holder : List.of("tok-carol-5d10", "tok-bob-91c2")) {
            java.util.concurrent.Semaphore updates = new java.util.concurrent.Semaphore(0);
            heard.put(holder, updates);
            McpClient client = client(endpoint, ClientOptions.builder("gateway").protocolVersion(era)
                    .listener(new mcp.manager.ClientListener() {
                        @Override
                        public void onResourceUpdated(String uri) {
                            updates.release();
                        }
                    }), holder);
            client.subscribeResource("test://text/readme").get(30, TimeUnit.SECONDS);
            clients.put(holder, client);
        }
        // Carol's view holds the resource, Bob's does not; both were answered alike. A change reaches Carol alone.
        String touched = text(clients.get("tok-carol-5d10").callToolBlocking("alpha_touch_resource",
                McpJson.object().put("uri", "test://text/readme")));
        assertTrue(touched.startsWith("notified"), touched);
        assertTrue(heard.get("tok-carol-5d10").tryAcquire(30, TimeUnit.SECONDS), "carol did not hear the update");
        assertFalse(heard.get("tok-bob-91c2").tryAcquire(1, TimeUnit.SECONDS), "bob heard of a resource outside "
                + "his view");
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "2025-11-25"})
    void aToolsLimitIsPerClientAndPerTool(String era) throws Exception {
        HttpEndpoint endpoint = gateway("""
                {"rules": [{"match": {}, "allow": {"servers": ["*"]}}],
                 "rateLimits": {"tool": {"perSecond": 0.05, "burst": 2}}}
                """, false);
        McpClient alice = client(endpoint, era, "tok-alice-7f3a");
        McpClient carol = client(endpoint, era, "tok-carol-5d10");
        for (int i = 0; i < 2; i++) {
            assertEquals("x", text(alice.callToolBlocking("alpha_echo", McpJson.object().put("message", "x"))));
        }
        McpProtocolException limited = error(alice.callTool("alpha_echo", McpJson.object().put("message", "x")));
        assertEquals(ErrorCodes.RATE_LIMITED, limited.code(), limited.getMessage());
        assertEquals("tool", limited.data().orElseThrow().path("scope").asString());
        // One token every 20 s: the hint says so (within the rounding of a moment's refill).
        assertTrue(limited.data().orElseThrow().path("retryAfterMs").asLong() > 15_000, limited.data().toString());
        // Another tool of the same client, and the same tool of another client, have buckets of their own.
        assertEquals("y", text(alice.callToolBlocking("beta_echo", McpJson.object().put("message", "y"))));
        assertEquals("z", text(carol.callToolBlocking("alpha_echo", McpJson.object().put("message", "z"))));
    }

    private static final String LIMITS = """
            {"rules": [{"match": {}, "allow": {"servers": ["*"]}}],
             "rateLimits": {"client": {"perSecond": 20, "burst": 20}, "tool": {"perSecond": 1000, "burst": 1000}}}
            """;

    @ParameterizedTest
    @ValueSource(strings = {"2026-07-28", "2025-11-25"})
    void aFloodFromOneClientIsLimitedWhileAnotherKeepsItsLatency(String era) throws Exception {
        HttpEndpoint endpoint = gateway(LIMITS, false);
        McpClient carol = client(endpoint, era.equals("2026-07-28") ? "auto" : era, "tok-carol-5d10");
        // Carol's calls stay within her limit: 20 a second.
        List<Long> quiet = latencies(carol, 30);

        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        Function<Integer, HttpRequest> flood = floodRequests(http, endpoint, era);
        AtomicBoolean flooding = new AtomicBoolean(true);
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger limited = new AtomicInteger();
        List<String> odd = Collections.synchronizedList(new ArrayList<>());
        List<HttpResponse<String>> samples = Collections.synchronizedList(new ArrayList<>());
        ExecutorService flooders = Executors.newFixedThreadPool(4);
        try {
            AtomicInteger ids = new AtomicInteger(100);
            for (int t = 0; t < 4; t++) {
                flooders.submit(() -> {
                    while (flooding.get()) {
                        HttpResponse<String> response = http.send(flood.apply(ids.getAndIncrement()),
                                HttpResponse.BodyHandlers.ofString());
                        if (response.statusCode() == 429) {
                            limited.incrementAndGet();
                            if (samples.size() < 3) {
                                samples.add(response);
                            }
                        } else if (response.statusCode() == 200 && response.body().contains("\"flood\"")
                                && !response.body().contains("\"error\"")) {
                            ok.incrementAndGet();
                        } else {
                            odd.add(response.statusCode() + " " + response.body());
                        }
                    }
                    return null;
                });
            }
            long floodStart = System.nanoTime();
            Thread.sleep(300);
            List<Long> flooded = latencies(carol, 30);
            flooding.set(false);
            flooders.shutdown();
            assertTrue(flooders.awaitTermination(30, TimeUnit.SECONDS));
            double seconds = (System.nanoTime() - floodStart) / 1e9;
            long p50Quiet = p50(quiet);
            long p50Flooded = p50(flooded);
            System.out.printf("rate limits (%s): other client's p50 %.2f ms alone, %.2f ms during the flood; "
                    + "flood: %d answered, %d limited (429)%n", era, p50Quiet / 1e6, p50Flooded / 1e6, ok.get(),
                    limited.get());
            assertEquals(List.of(), odd);
            assertTrue(limited.get() > ok.get(), "the flood was not limited: " + ok + " ok, " + limited + " limited");
            // The burst, then 20 a second for as long as the flood lasted (a little slack for the clock's edges).
            assertTrue(ok.get() <= 20 + Math.ceil(20 * seconds) + 5, ok + " answered in " + seconds + " s");
            // A generous bound: timing decides nothing finer here (the figures are printed above).
            assertTrue(p50Flooded < Math.max(10 * p50Quiet, TimeUnit.MILLISECONDS.toNanos(250)),
                    "p50 " + p50Quiet + " ns alone, " + p50Flooded + " ns during the flood");
        } finally {
            flooding.set(false);
            flooders.shutdownNow();
        }
        HttpResponse<String> sample = samples.get(0);
        assertTrue(sample.headers().firstValue("Retry-After").map(Long::parseLong).orElse(0L) >= 1,
                sample.headers().map().toString());
        JsonNode answer = McpJson.mapper().readTree(sample.body());
        assertEquals(ErrorCodes.RATE_LIMITED, answer.path("error").path("code").asInt(), sample.body());
        assertTrue(answer.path("error").path("data").path("retryAfterMs").asLong() >= 1, sample.body());
        assertEquals("client", answer.path("error").path("data").path("scope").asString(), sample.body());
        assertTrue(answer.path("id").canConvertToInt(), "the error answers its request: " + sample.body());

        // mcp-host's own client sees the JSON-RPC error with its hint, in either era.
        McpClient flooder = client(endpoint, era.equals("2026-07-28") ? "auto" : era, "tok-flood-0b77");
        McpProtocolException hint = null;
        for (int i = 0; i < 100 && hint == null; i++) {
            try {
                flooder.callTool("alpha_echo", McpJson.object().put("message", "x")).get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                hint = (McpProtocolException) e.getCause();
            }
        }
        assertNotNull(hint, "a client over its limit was never refused");
        assertEquals(ErrorCodes.RATE_LIMITED, hint.code());
        assertTrue(ErrorCodes.retryAfter(hint.code(), hint.data().orElse(null)).orElseThrow().toMillis() >= 1);
    }

    /** Calls of alpha_echo, one at a time, within a limit of 20 a second; each call's time. */
    private static List<Long> latencies(McpClient client, int calls) throws Exception {
        List<Long> times = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            long start = System.nanoTime();
            ToolResult result = client.callTool("alpha_echo", McpJson.object().put("message", "m" + i))
                    .get(30, TimeUnit.SECONDS);
            times.add(System.nanoTime() - start);
            assertEquals("m" + i, text(result));
            Thread.sleep(60);
        }
        return times;
    }

    private static long p50(List<Long> times) {
        List<Long> sorted = new ArrayList<>(times);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    /** The flooder's calls over plain HTTP, so that every status and header is seen: a session first in 2025. */
    private static Function<Integer, HttpRequest> floodRequests(HttpClient http, HttpEndpoint endpoint, String era)
            throws Exception {
        String auth = "Bearer tok-flood-0b77";
        if (era.equals("2026-07-28")) {
            return id -> {
                ObjectNode params = McpJson.object().put("name", "alpha_echo");
                params.putObject("arguments").put("message", "flood");
                ObjectNode meta = params.putObject("_meta");
                meta.put("io.modelcontextprotocol/protocolVersion", era);
                meta.putObject("io.modelcontextprotocol/clientCapabilities");
                ObjectNode body = McpJson.object().put("jsonrpc", "2.0").put("id", id).put("method", "tools/call");
                body.set("params", params);
                return HttpRequest.newBuilder(endpoint.uri()).timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json").header("Accept", "application/json")
                        .header("MCP-Protocol-Version", era).header("Mcp-Method", "tools/call")
                        .header("Mcp-Name", "alpha_echo").header("Authorization", auth)
                        .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
            };
        }
        HttpResponse<String> initialized = http.send(HttpRequest.newBuilder(endpoint.uri())
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream").header("Authorization", auth)
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                        + "\"params\":{\"protocolVersion\":\"" + era + "\",\"capabilities\":{},\"clientInfo\":"
                        + "{\"name\":\"flood\",\"version\":\"1\"}}}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, initialized.statusCode(), initialized.body());
        String session = initialized.headers().firstValue("Mcp-Session-Id").orElseThrow();
        return id -> HttpRequest.newBuilder(endpoint.uri()).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", era).header("Mcp-Session-Id", session).header("Authorization", auth)
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":"
                        + "\"tools/call\",\"params\":{\"name\":\"alpha_echo\",\"arguments\":{\"message\":\"flood\"}}}"))
                .build();
    }
}
