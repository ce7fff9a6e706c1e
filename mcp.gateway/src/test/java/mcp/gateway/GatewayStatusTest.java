package mcp.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import mcp.api.HttpServerConfig;
import mcp.api.McpJson;
import mcp.api.ToolDefinition;
import mcp.api.spi.Providers;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.host.McpHost;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.server.Caller;
import mcp.server.HttpAuthenticator;
import mcp.server.HttpEndpoint;
import mcp.server.HttpOptions;
import mcp.server.McpServer;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code GET /status} of a gateway served over Streamable HTTP on loopback by mcp.server, with a real host running
 * testkit servers as stdio children: behind the endpoint's token or authenticator, each server's state and counts
 * after real calls, errors masked, and with a policy each caller's own servers only.
 */
class GatewayStatusTest {

    private static final String TOKEN = "tok-status-5e1d";

    @TempDir
    Path temp;

    private final Opened open = new Opened();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void closeAll() throws Exception {
        open.closeAll();
        Opened.awaitNoServerProcess();
    }

    /** The servers (name to command), a host that runs them, a gateway with the policy (or none), over HTTP. */
    private HttpEndpoint gateway(Map<String, List<String>> servers, String policy, HttpOptions options)
            throws Exception {
        ObjectNode entries = McpJson.object();
        new TreeMap<>(servers).forEach((name, command) -> {
            // Not started again: a server that fails at its start fails at once, and the host's load is quick.
            ObjectNode entry = entries.putObject(name).put("command", command.get(0)).put("reconnect", "off");
            command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        });
        ObjectNode root = McpJson.object();
        root.set("mcpServers", entries);
        Path config = temp.resolve("mcp.json");
        Files.writeString(config, root.toString());
        McpHost host = open.track(McpHost.builder().configFile(config).home(temp).workingDirectory(temp)
                .cacheDirectory(temp.resolve("cache")).startupGate(Duration.ofSeconds(60))
                .clientSettings(Gateway.clientSettings()).build());
        host.load();
        Gateway.Builder builder = Gateway.builder(host.manager());
        if (policy != null) {
            Path file = temp.resolve("policy.json");
            Files.writeString(file, policy);
            builder.policyFile(file).policyPoll(Duration.ofHours(1));
        }
        Gateway gateway = open.track(builder.build());
        McpServer server = open.track(McpServer.builder("mcp-host", "9.8.7").handler(gateway).build());
        gateway.attach(server);
        return server.serveHttp(options);
    }

    private McpClient client(HttpEndpoint endpoint, String token) {
        TransportProvider provider = Providers.load(TransportProvider.class, getClass().getClassLoader()).stream()
                .filter(p -> p.id().equals("http")).findFirst().orElseThrow();
        HttpServerConfig config = HttpServerConfig.of(endpoint.uri().toString())
                .withHeaders(Map.of("Authorization", "Bearer " + token));
        return open.track(McpClient.connectBlocking(provider.open(TransportRequest.of("gateway", config, temp)),
                ClientOptions.builder("gateway").protocolVersion("2025-11-25").build()));
    }

    private HttpResponse<String> get(HttpEndpoint endpoint, String path, String token) throws Exception {
        return send(endpoint, path, token, "GET");
    }

    private HttpResponse<String> send(HttpEndpoint endpoint, String path, String token, String method)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint.uri().resolve(URI.create(path)))
                .timeout(Duration.ofSeconds(30)).method(method, HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode status(HttpEndpoint endpoint, String token) throws Exception {
        HttpResponse<String> response = get(endpoint, "/status", token);
        assertEquals(200, response.statusCode(), response.body());
        assertEquals("application/json", response.headers().firstValue("Content-Type").orElse(""));
        return McpJson.mapper().readTree(response.body());
    }

    private static Map<String, JsonNode> byName(JsonNode status) {
        Map<String, JsonNode> servers = new TreeMap<>();
        status.path("servers").forEach(server -> servers.put(server.path("name").asString(), server));
        return servers;
    }

    @Test
    void theStatusNeedsTheTokenAndGivesEachServersStateCountsAndMaskedErrors() throws Exception {
        // A server that fails at its start, with a credential in what it writes to stderr.
        List<String> broken = List.of("sh", "-c",
                "echo 'fatal: API_TOKEN=s3cr3t-value-77 refused' >&2; sleep 0.5; exit 3");
        HttpEndpoint endpoint = gateway(Map.of("alpha", TestServers.command(), "beta", TestServers.command(),
                "broken", broken), null, HttpOptions.LOOPBACK.withBearerToken(TOKEN));
        Instant started = Instant.now();

        assertEquals(200, get(endpoint, "/healthz", null).statusCode(), "the probes stay open");
        assertEquals(200, get(endpoint, "/readyz", null).statusCode());
        HttpResponse<String> anonymous = get(endpoint, "/status", null);
        assertEquals(401, anonymous.statusCode(), anonymous.body());
        assertFalse(anonymous.body().contains("alpha"), anonymous.body());
        assertEquals(401, get(endpoint, "/status", "tok-wrong").statusCode());
        assertEquals(405, send(endpoint, "/status", TOKEN, "POST").statusCode());

        McpClient agent = client(endpoint, TOKEN);
        long alphaTools = agent.listToolsBlocking().stream().map(ToolDefinition::name)
                .filter(name -> name.startsWith("alpha_")).count();
        agent.callToolBlocking("alpha_echo", McpJson.object().put("message", "a"));
        agent.callToolBlocking("alpha_echo", McpJson.object().put("message", "b"));
        assertTrue(agent.callToolBlocking("alpha_fail", McpJson.object()).isError());
        assertTrue(agent.callTool("beta_error", McpJson.object())
                .handle((ok, error) -> error != null || ok.isError()).join());

        JsonNode status = status(endpoint, TOKEN);
        JsonNode self = status.path("server");
        assertEquals("mcp-host", self.path("name").asString());
        assertEquals("9.8.7", self.path("version").asString());
        assertEquals(1, self.path("sessions").asInt(), "the agent's session: " + self);
        assertFalse(self.path("draining").asBoolean(true));
        assertTrue(self.path("uptimeMs").asLong(-1) >= 0, self.toString());

        Map<String, JsonNode> servers = byName(status);
        assertEquals(Set.of("alpha", "beta", "broken"), servers.keySet());
        JsonNode alpha = servers.get("alpha");
        assertEquals("connected", alpha.path("state").asString());
        assertEquals(alphaTools, alpha.path("tools").asLong());
        assertTrue(alpha.path("error").isNull());
        JsonNode alphaActivity = alpha.path("activity");
        assertEquals(3, alphaActivity.path("calls").asLong(), alphaActivity.toString());
        assertEquals(1, alphaActivity.path("toolErrors").asLong());
        assertEquals(1, alphaActivity.path("failedCalls").asLong());
        assertEquals(0, alphaActivity.path("callErrors").asLong());
        assertTrue(alphaActivity.path("lastError").isNull() && alphaActivity.path("lastCallError").isNull());
        JsonNode betaActivity = servers.get("beta").path("activity");
        assertEquals(1, betaActivity.path("calls").asLong());
        assertEquals(1, betaActivity.path("callErrors").asLong());
        JsonNode callError = betaActivity.path("lastCallError");
        assertTrue(callError.path("message").asString().startsWith("tools/call error: "), callError.toString());
        Instant at = Instant.parse(callError.path("at").asString());
        assertFalse(at.isBefore(started) || at.isAfter(Instant.now()), at.toString());

        JsonNode brokenServer = servers.get("broken");
        String lastError = brokenServer.path("activity").path("lastError").path("message").asString("");
        assertTrue(lastError.contains("API_TOKEN="), brokenServer.toString());
        assertFalse(brokenServer.toString().contains("s3cr3t-value-77"), "a credential in the status: " + brokenServer);
        assertEquals(0, brokenServer.path("tools").asInt());
    }

    /** Holders by token; anything else is a 401. */
    private static final Map<String, Caller> HOLDERS = Map.of(
            "tok-alice-7f3a", caller("alice", Set.of("dev")),
            "tok-bob-91c2", caller("bob", Set.of("ops")),
            "tok-dave-33e8", caller("dave", Set.of("guests")));

    private static Caller caller(String subject, Set<String> groups) {
        return new Caller(subject, Optional.of("cli"), groups, Set.of("mcp"), McpJson.object().put("sub", subject));
    }

    private static final HttpAuthenticator TOKENS = (method, path, header) -> {
        Optional<Caller> caller = header.apply("Authorization").filter(v -> v.startsWith("Bearer "))
                .map(v -> HOLDERS.get(v.substring(7)));
        return caller.<HttpAuthenticator.Outcome>map(HttpAuthenticator.Allowed::new)
                .orElseGet(() -> new HttpAuthenticator.Refused(401, "Unauthorized", Map.of("WWW-Authenticate",
                        "Bearer")));
    };

    @Test
    void withAPolicyEachCallerSeesTheServersOfItsViewOnlyAndNoOtherClientsCallErrors() throws Exception {
        String policy = """
                {"rules": [
                  {"match": {"groups": ["dev"]}, "allow": {"tools": ["alpha/*"]}, "deny": {"tools": ["alpha/crash"]}},
                  {"match": {"groups": ["ops"]}, "allow": {"servers": ["beta"]}}
                ]}
                """;
        HttpEndpoint endpoint = gateway(Map.of("alpha", TestServers.command(), "beta", TestServers.command()), policy,
                HttpOptions.LOOPBACK.withAuthenticator(TOKENS));
        McpClient bob = client(endpoint, "tok-bob-91c2");
        assertTrue(bob.callTool("beta_error", McpJson.object())
                .handle((ok, error) -> error != null || ok.isError()).join());
        McpClient alice = client(endpoint, "tok-alice-7f3a");
        alice.callToolBlocking("alpha_echo", McpJson.object().put("message", "a"));

        assertEquals(401, get(endpoint, "/status", null).statusCode());
        assertEquals(200, get(endpoint, "/healthz", null).statusCode());

        Map<String, JsonNode> alices = byName(status(endpoint, "tok-alice-7f3a"));
        assertEquals(Set.of("alpha"), alices.keySet(), "alice's rules give her alpha's tools only");
        long alphaTools = alice.listToolsBlocking().size();
        assertEquals(alphaTools, alices.get("alpha").path("tools").asLong(), "the tools she sees");
        assertEquals(1, alices.get("alpha").path("activity").path("calls").asLong());
        assertFalse(alices.get("alpha").path("activity").has("lastCallError"),
                "a call's error may quote another client's call");

        Map<String, JsonNode> bobs = byName(status(endpoint, "tok-bob-91c2"));
        assertEquals(Set.of("beta"), bobs.keySet());
        JsonNode betaActivity = bobs.get("beta").path("activity");
        assertEquals(1, betaActivity.path("callErrors").asLong());
        assertFalse(betaActivity.has("lastCallError"), betaActivity.toString());

        JsonNode daves = status(endpoint, "tok-dave-33e8");
        assertEquals(0, daves.path("servers").size(), "no rule gives dave anything: " + daves);
        assertEquals("mcp-host", daves.path("server").path("name").asString());
    }
}
