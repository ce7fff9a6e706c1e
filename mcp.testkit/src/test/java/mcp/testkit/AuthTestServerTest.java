package mcp.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import mcp.testkit.AuthTestServer.Endpoint;
import mcp.testkit.internal.OAuthWire;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Drives the OAuth test server by hand, as an MCP client would, with the JDK's HTTP client. */
class AuthTestServerTest {

    private static final HttpClient HTTP = HttpClient.newBuilder()
            .followRedirects(HttpClient.Redirect.NEVER) // the authorization redirect is checked, not followed
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String REDIRECT_URI = "http://127.0.0.1:33418/callback";
    private static final String VERIFIER = "a-verifier-of-enough-length-0123456789-abcdefghijklmnop";

    private final List<AuthTestServer> started = new ArrayList<>();
    private final AtomicInteger ids = new AtomicInteger();

    @AfterEach
    void stopServers() {
        started.forEach(AuthTestServer::close);
    }

    private AuthTestServer start(AuthTestServer.Builder builder) throws IOException {
        AuthTestServer server = builder.start();
        started.add(server);
        return server;
    }

    // ---- the whole flow ----

    @Test
    void wholeFlowByHand() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder().scopesSupported(List.of("mcp:tools", "mcp:admin")));
        assertTrue(server.mcpUrl().matches("http://127\\.0\\.0\\.1:\\d+/mcp"), server.mcpUrl());

        // 1. No token: 401 and a challenge naming the Protected Resource Metadata.
        HttpResponse<String> denied = mcp(server, null, "initialize", "{\"protocolVersion\":\"2025-11-25\"}");
        assertEquals(401, denied.statusCode());
        String challenge = denied.headers().firstValue("WWW-Authenticate").orElseThrow();
        assertEquals("Bearer resource_metadata=\"" + server.resourceMetadataUrl() + "\"", challenge);
        assertFalse(json(denied).has("error"), denied.body());

        // 2. Protected Resource Metadata, at the URL of the challenge and at the root well-known URL.
        JsonNode prm = json(get(server.resourceMetadataUrl()));
        assertEquals(server.mcpUrl(), prm.path("resource").stringValue());
        assertEquals(server.issuer(), prm.path("authorization_servers").path(0).stringValue());
        assertEquals("[\"mcp:tools\",\"mcp:admin\"]", prm.path("scopes_supported").toString());
        assertEquals(200, get(server.issuer() + "/.well-known/oauth-protected-resource").statusCode());

        // 3. Authorization server metadata (RFC 8414); no OpenID configuration unless asked for.
        JsonNode as = json(get(server.issuer() + "/.well-known/oauth-authorization-server"));
        assertEquals(server.issuer(), as.path("issuer").stringValue());
        assertEquals("[\"S256\"]", as.path("code_challenge_methods_supported").toString());
        assertEquals("[\"authorization_code\",\"refresh_token\"]", as.path("grant_types_supported").toString());
        assertEquals("[\"none\",\"client_secret_basic\",\"client_secret_post\"]",
                as.path("token_endpoint_auth_methods_supported").toString());
        assertEquals(404, get(server.issuer() + "/.well-known/openid-configuration").statusCode());

        // 4. Dynamic client registration of a public client.
        HttpResponse<String> registered = postJson(as.path("registration_endpoint").stringValue(),
                "{\"client_name\":\"t\",\"redirect_uris\":[\"" + REDIRECT_URI + "\"],\"token_endpoint_auth_method\":\"none\"}");
        assertEquals(201, registered.statusCode());
        JsonNode client = json(registered);
        String clientId = client.path("client_id").stringValue();
        assertEquals("t", client.path("client_name").stringValue());
        assertFalse(client.has("client_secret"));

        // 5. Authorization: a 302 at once to the redirect URI, with a code and the same state.
        Map<String, String> redirect = authorize(as.path("authorization_endpoint").stringValue(),
                authorizationParams(server, clientId, "st-1", "mcp:tools"));
        assertEquals("st-1", redirect.get("state"));
        String code = redirect.get("code");
        assertTrue(code.startsWith("mcpac_") && code.length() > 40, code);
        assertEquals("mcp:tools", server.lastAuthorizationRequest().orElseThrow().get("scope"));
        assertEquals(server.mcpUrl(), server.lastAuthorizationRequest().orElseThrow().get("resource"));

        // 6. Token: a wrong PKCE verifier is refused, and the code is used up by that attempt.
        String tokenEndpoint = as.path("token_endpoint").stringValue();
        HttpResponse<String> wrong = postForm(tokenEndpoint, codeForm(server, clientId, code, "not-the-verifier"));
        assertEquals(400, wrong.statusCode());
        assertEquals("invalid_grant", json(wrong).path("error").stringValue());
        assertTrue(server.errors().get(0).contains("PKCE"), server.errors().toString());
        assertEquals(400, postForm(tokenEndpoint, codeForm(server, clientId, code, VERIFIER)).statusCode());

        String code2 = authorize(as.path("authorization_endpoint").stringValue(),
                authorizationParams(server, clientId, "st-2", "mcp:tools")).get("code");
        HttpResponse<String> tokenResponse = postForm(tokenEndpoint, codeForm(server, clientId, code2, VERIFIER));
        assertEquals(200, tokenResponse.statusCode());
        assertEquals("no-store", tokenResponse.headers().firstValue("Cache-Control").orElseThrow());
        JsonNode tokens = json(tokenResponse);
        String access = tokens.path("access_token").stringValue();
        String refresh = tokens.path("refresh_token").stringValue();
        assertTrue(access.startsWith("mcpat_") && access.length() > 40, access);
        assertTrue(refresh.startsWith("mcprt_") && refresh.length() > 40, refresh);
        assertEquals("Bearer", tokens.path("token_type").stringValue());
        assertEquals(3600, tokens.path("expires_in").longValue());
        assertEquals("mcp:tools", tokens.path("scope").stringValue());

        // 7. MCP with the token.
        HttpResponse<String> init = mcp(server, access, "initialize", "{\"protocolVersion\":\"2025-11-25\"}");
        assertEquals(200, init.statusCode());
        JsonNode result = json(init).path("result");
        assertEquals("2025-11-25", result.path("protocolVersion").stringValue());
        assertEquals("{}", result.path("capabilities").path("tools").toString());
        assertTrue(result.path("serverInfo").has("name"));
        assertTrue(init.headers().firstValue("Mcp-Session-Id").isPresent());
        assertEquals(202, send(server, access, "POST",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").statusCode());
        JsonNode tool = json(mcp(server, access, "tools/list", "{}")).path("result").path("tools").path(0);
        assertEquals("echo", tool.path("name").stringValue());
        assertEquals("string", tool.path("inputSchema").path("properties").path("text").path("type").stringValue());
        JsonNode echoed = json(mcp(server, access, "tools/call", "{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}"));
        assertEquals("hi", echoed.path("result").path("content").path(0).path("text").stringValue());
        assertEquals(-32601, json(mcp(server, access, "nope", "{}")).path("error").path("code").intValue());
        assertEquals(405, send(server, access, "GET", null).statusCode());
        assertEquals(204, send(server, access, "DELETE", null).statusCode());
        assertEquals(401, send(server, null, "DELETE", null).statusCode());

        // 8. What was recorded.
        assertEquals(2, server.requests(Endpoint.AUTHORIZATION));
        assertEquals(3, server.tokenRequests("authorization_code"));
        assertEquals(0, server.tokenRequests("refresh_token"));
        assertEquals(1, server.requests(Endpoint.REGISTRATION));
        assertEquals(2, server.requests(Endpoint.PROTECTED_RESOURCE_METADATA));
        assertEquals(1, server.requests(Endpoint.AUTHORIZATION_SERVER_METADATA));
        assertEquals(2, server.responses(Endpoint.MCP, 401));
        assertEquals(4, server.responses(Endpoint.MCP, 200));
        assertEquals(2, server.responses(Endpoint.TOKEN, 400));
        assertEquals(Set.of(code, code2, access, refresh), server.issuedSecrets());
        assertEquals(2, server.errors().size(), server.errors().toString());
        for (String error : server.errors()) {
            for (String secret : server.issuedSecrets()) {
                assertFalse(error.contains(secret), "a secret in an error description");
            }
        }
    }

    // ---- refresh ----

    @Test
    void refreshRotatesTheRefreshTokenAndFailRefreshRefusesIt() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder().accessTokenLifetime(Duration.ofMinutes(5)));
        String clientId = register(server, "none").path("client_id").stringValue();
        JsonNode tokens = tokens(server, clientId, null);
        assertEquals(300, tokens.path("expires_in").longValue());
        String refresh = tokens.path("refresh_token").stringValue();

        JsonNode refreshed = json(postForm(server.issuer() + "/token", refreshForm(server, clientId, refresh)));
        String access2 = refreshed.path("access_token").stringValue();
        String refresh2 = refreshed.path("refresh_token").stringValue();
        assertNotEquals(refresh, refresh2);
        assertEquals(200, mcp(server, access2, "ping", "{}").statusCode());
        // The old access token stays valid until it expires; the old refresh token is used up.
        assertEquals(200, mcp(server, tokens.path("access_token").stringValue(), "ping", "{}").statusCode());
        HttpResponse<String> reused = postForm(server.issuer() + "/token", refreshForm(server, clientId, refresh));
        assertEquals("invalid_grant", json(reused).path("error").stringValue());

        server.failRefresh(true);
        HttpResponse<String> failed = postForm(server.issuer() + "/token", refreshForm(server, clientId, refresh2));
        assertEquals(400, failed.statusCode());
        assertEquals("invalid_grant", json(failed).path("error").stringValue());
        server.failRefresh(false);
        assertEquals(200, postForm(server.issuer() + "/token", refreshForm(server, clientId, refresh2)).statusCode());
        assertEquals(4, server.tokenRequests("refresh_token"));
        assertEquals(1, server.errors().size(), "failRefresh is no client mistake: " + server.errors());
    }

    @Test
    void refreshTokensCanBeOffOrNotRotated() throws Exception {
        AuthTestServer none = start(AuthTestServer.builder().refreshTokens(false));
        JsonNode tokens = tokens(none, register(none, "none").path("client_id").stringValue(), null);
        assertFalse(tokens.has("refresh_token"));
        assertEquals("[\"authorization_code\"]", json(get(none.authorizationServerMetadataUrl()))
                .path("grant_types_supported").toString());

        AuthTestServer kept = start(AuthTestServer.builder().rotateRefreshTokens(false));
        String clientId = register(kept, "none").path("client_id").stringValue();
        String refresh = tokens(kept, clientId, null).path("refresh_token").stringValue();
        for (int i = 0; i < 2; i++) {
            JsonNode refreshed = json(postForm(kept.issuer() + "/token", refreshForm(kept, clientId, refresh)));
            assertTrue(refreshed.has("access_token"));
            assertFalse(refreshed.has("refresh_token"));
        }
    }

    @Test
    void aReplayedRefreshTokenRevokesItsGrantWhenReuseIsDetected() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder().detectRefreshTokenReuse(true));
        String clientId = register(server, "none").path("client_id").stringValue();
        JsonNode first = tokens(server, clientId, null);
        JsonNode other = tokens(server, clientId, null);
        String refresh = first.path("refresh_token").stringValue();
        JsonNode refreshed = json(postForm(server.issuer() + "/token", refreshForm(server, clientId, refresh)));
        String access2 = refreshed.path("access_token").stringValue();
        String refresh2 = refreshed.path("refresh_token").stringValue();
        assertFalse(server.isActive(refresh), "rotated away");
        assertTrue(server.isActive(refresh2));
        assertTrue(server.isActive(access2));
        assertTrue(server.isActive(first.path("access_token").stringValue()), "access tokens live until they expire");

        HttpResponse<String> replay = postForm(server.issuer() + "/token", refreshForm(server, clientId, refresh));
        assertEquals("invalid_grant", json(replay).path("error").stringValue());
        // The whole grant is gone, the tokens that replaced the replayed one included; another grant is not.
        assertFalse(server.isActive(refresh2));
        assertFalse(server.isActive(access2));
        assertFalse(server.isActive(first.path("access_token").stringValue()));
        assertEquals(401, mcp(server, access2, "ping", "{}").statusCode());
        assertEquals("invalid_grant", json(postForm(server.issuer() + "/token",
                refreshForm(server, clientId, refresh2))).path("error").stringValue());
        assertTrue(server.isActive(other.path("refresh_token").stringValue()));
        assertEquals(200, mcp(server, other.path("access_token").stringValue(), "ping", "{}").statusCode());
        assertTrue(server.errors().stream().anyMatch(e -> e.contains("used again after it was rotated")),
                server.errors().toString());

        // Without the switch a replay is refused and nothing else happens.
        AuthTestServer lenient = start(AuthTestServer.builder());
        String lenientClient = register(lenient, "none").path("client_id").stringValue();
        String old = tokens(lenient, lenientClient, null).path("refresh_token").stringValue();
        String current = json(postForm(lenient.issuer() + "/token", refreshForm(lenient, lenientClient, old)))
                .path("refresh_token").stringValue();
        assertEquals(400, postForm(lenient.issuer() + "/token", refreshForm(lenient, lenientClient, old)).statusCode());
        assertTrue(lenient.isActive(current));
        assertFalse(lenient.isActive("mcprt_not-issued"));
    }

    @Test
    void failRefreshCanBeSetByTheBuilder() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder().failRefresh(true));
        String clientId = register(server, "none").path("client_id").stringValue();
        String refresh = tokens(server, clientId, null).path("refresh_token").stringValue();
        assertEquals(400, postForm(server.issuer() + "/token", refreshForm(server, clientId, refresh)).statusCode());
    }

    // ---- revocation and expiry ----

    @Test
    void revokeAllInvalidatesAccessTokensButNotRefreshTokens() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder().requiredScope("mcp:tools"));
        String clientId = register(server, "none").path("client_id").stringValue();
        JsonNode tokens = tokens(server, clientId, "mcp:tools");
        String access = tokens.path("access_token").stringValue();
        assertEquals(200, mcp(server, access, "tools/list", "{}").statusCode());

        server.revokeAll();
        HttpResponse<String> revoked = mcp(server, access, "tools/list", "{}");
        assertEquals(401, revoked.statusCode());
        assertEquals("Bearer resource_metadata=\"" + server.resourceMetadataUrl() + "\", scope=\"mcp:tools\", "
                        + "error=\"invalid_token\", error_description=\"the access token is unknown, expired or revoked\"",
                revoked.headers().firstValue("WWW-Authenticate").orElseThrow());

        JsonNode refreshed = json(postForm(server.issuer() + "/token",
                refreshForm(server, clientId, tokens.path("refresh_token").stringValue())));
        assertEquals(200, mcp(server, refreshed.path("access_token").stringValue(), "tools/list", "{}").statusCode());

        server.revokeRefreshTokens();
        HttpResponse<String> gone = postForm(server.issuer() + "/token",
                refreshForm(server, clientId, refreshed.path("refresh_token").stringValue()));
        assertEquals("invalid_grant", json(gone).path("error").stringValue());
    }

    @Test
    void anExpiredAccessTokenIsRefused() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder().accessTokenLifetime(Duration.ofMillis(100)));
        JsonNode tokens = tokens(server, register(server, "none").path("client_id").stringValue(), null);
        assertEquals(0, tokens.path("expires_in").longValue());
        Thread.sleep(150);
        HttpResponse<String> expired = mcp(server, tokens.path("access_token").stringValue(), "ping", "{}");
        assertEquals(401, expired.statusCode());
        assertTrue(expired.headers().firstValue("WWW-Authenticate").orElseThrow().contains("error=\"invalid_token\""));
    }

    // ---- front channel ----

    @Test
    void tamperStateRedirectsWithAnotherState() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder().tamperState(true));
        String clientId = register(server, "none").path("client_id").stringValue();
        Map<String, String> redirect = authorize(server.issuer() + "/authorize",
                authorizationParams(server, clientId, "my-state", null));
        assertNotEquals("my-state", redirect.get("state"));
        assertTrue(redirect.containsKey("code"));

        server.tamperState(false);
        assertEquals("my-state", authorize(server.issuer() + "/authorize",
                authorizationParams(server, clientId, "my-state", null)).get("state"));
    }

    @Test
    void authorizationMistakesAreRefusedAndRecorded() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder().scopesSupported(List.of("a")));
        String clientId = register(server, "none").path("client_id").stringValue();
        String endpoint = server.issuer() + "/authorize";

        Map<String, String> params = authorizationParams(server, clientId, "s", null);
        params.remove("resource");
        Map<String, String> redirect = authorize(endpoint, params);
        assertEquals("invalid_request", redirect.get("error"));
        assertEquals("s", redirect.get("state"));
        assertNull(redirect.get("code"));

        params = authorizationParams(server, clientId, "s", null);
        params.put("code_challenge_method", "plain");
        assertEquals("invalid_request", authorize(endpoint, params).get("error"));

        params = authorizationParams(server, clientId, "s", null);
        params.put("resource", "http://127.0.0.1:1/other");
        assertEquals("invalid_target", authorize(endpoint, params).get("error"));

        assertEquals("invalid_scope", authorize(endpoint, authorizationParams(server, clientId, "s", "b")).get("error"));

        params = authorizationParams(server, clientId, "s", null);
        params.put("redirect_uri", "http://evil.example/cb");
        assertEquals(400, get(endpoint + "?" + OAuthWire.form(params)).statusCode());

        // A loopback redirect URI may use any port (OAuth 2.1, native clients).
        params = authorizationParams(server, clientId, null, null);
        params.put("redirect_uri", "http://127.0.0.1:40000/callback");
        HttpResponse<String> loopback = get(endpoint + "?" + OAuthWire.form(params));
        assertEquals(302, loopback.statusCode());
        assertTrue(loopback.headers().firstValue("Location").orElseThrow().startsWith("http://127.0.0.1:40000/callback?code="));

        List<String> errors = server.errors();
        assertEquals(6, errors.size(), errors.toString());
        assertTrue(errors.get(0).contains("resource"), errors.toString());
        assertTrue(errors.get(5).contains("state"), errors.toString());
        assertEquals(6, server.requests(Endpoint.AUTHORIZATION));
    }

    @Test
    void theTokenEndpointChecksResourceAndRedirectUri() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder());
        String clientId = register(server, "none").path("client_id").stringValue();
        Map<String, String> form = codeForm(server, clientId, code(server, clientId, null), VERIFIER);
        form.remove("resource");
        assertEquals("invalid_request", json(postForm(server.issuer() + "/token", form)).path("error").stringValue());

        form = codeForm(server, clientId, code(server, clientId, null), VERIFIER);
        form.put("redirect_uri", "http://127.0.0.1:1/else");
        assertEquals("invalid_grant", json(postForm(server.issuer() + "/token", form)).path("error").stringValue());

        form = codeForm(server, clientId, code(server, clientId, null), VERIFIER);
        form.put("grant_type", "password");
        assertEquals("unsupported_grant_type", json(postForm(server.issuer() + "/token", form)).path("error").stringValue());
        assertEquals(1, server.tokenRequests("password"));

        AuthTestServer lenient = start(AuthTestServer.builder().requireResource(false));
        String lenientClient = register(lenient, "none").path("client_id").stringValue();
        Map<String, String> params = authorizationParams(lenient, lenientClient, "s", null);
        params.remove("resource");
        form = codeForm(lenient, lenientClient, authorize(lenient.issuer() + "/authorize", params).get("code"), VERIFIER);
        form.remove("resource");
        assertEquals(200, postForm(lenient.issuer() + "/token", form).statusCode());
    }

    // ---- scopes ----

    @Test
    void alwaysInsufficientScopeRefusesEveryRequestAfterInitialize() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder().alwaysInsufficientScope(true)
                .scopesSupported(List.of("mcp:tools")));
        String access = tokens(server, register(server, "none").path("client_id").stringValue(), "mcp:tools")
                .path("access_token").stringValue();
        assertEquals(200, mcp(server, access, "initialize", "{}").statusCode());
        assertEquals(202, send(server, access, "POST",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").statusCode());
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> refused = mcp(server, access, "tools/list", "{}");
            assertEquals(403, refused.statusCode());
            String challenge = refused.headers().firstValue("WWW-Authenticate").orElseThrow();
            assertTrue(challenge.contains("error=\"insufficient_scope\""), challenge);
            assertTrue(challenge.contains("scope=\"mcp:tools\""), challenge);
            assertTrue(challenge.contains("resource_metadata=\"" + server.resourceMetadataUrl() + "\""), challenge);
        }
        assertEquals(3, server.responses(Endpoint.MCP, 403));
        server.alwaysInsufficientScope(false);
        assertEquals(200, mcp(server, access, "tools/list", "{}").statusCode());
    }

    @Test
    void requiredScopeIsChallengedAndEnforced() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder().requiredScope("mcp:read"));
        HttpResponse<String> denied = mcp(server, null, "initialize", "{}");
        assertEquals("Bearer resource_metadata=\"" + server.resourceMetadataUrl() + "\", scope=\"mcp:read\"",
                denied.headers().firstValue("WWW-Authenticate").orElseThrow());
        String clientId = register(server, "none").path("client_id").stringValue();

        HttpResponse<String> narrow = mcp(server, tokens(server, clientId, "other").path("access_token").stringValue(),
                "initialize", "{}");
        assertEquals(403, narrow.statusCode());
        assertTrue(narrow.headers().firstValue("WWW-Authenticate").orElseThrow()
                .contains("scope=\"other mcp:read\", error=\"insufficient_scope\""));
        String access = tokens(server, clientId, "mcp:read").path("access_token").stringValue();
        assertEquals(200, mcp(server, access, "initialize", "{}").statusCode());
    }

    @Test
    void stepUpForToolCallsAfterAPublicInitialize() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder().initializeWithoutAuth(true)
                .requiredScope("mcp:read").toolCallScope("mcp:write"));
        assertEquals(200, mcp(server, null, "initialize", "{}").statusCode());
        assertEquals(202, send(server, null, "POST",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").statusCode());
        assertEquals(401, mcp(server, null, "tools/list", "{}").statusCode());

        String clientId = register(server, "none").path("client_id").stringValue();
        String read = tokens(server, clientId, "mcp:read").path("access_token").stringValue();
        assertEquals(200, mcp(server, read, "tools/list", "{}").statusCode());
        HttpResponse<String> stepUp = mcp(server, read, "tools/call", "{\"name\":\"echo\",\"arguments\":{\"text\":\"x\"}}");
        assertEquals(403, stepUp.statusCode());
        assertTrue(stepUp.headers().firstValue("WWW-Authenticate").orElseThrow()
                .contains("scope=\"mcp:read mcp:write\", error=\"insufficient_scope\""));
        String write = tokens(server, clientId, "mcp:read mcp:write").path("access_token").stringValue();
        assertEquals(200, mcp(server, write, "tools/call", "{\"name\":\"echo\",\"arguments\":{\"text\":\"x\"}}")
                .statusCode());
    }

    // ---- metadata switches ----

    @Test
    void prmResourceOverridesTheAdvertisedResource() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder().prmResource("https://elsewhere.example/mcp"));
        assertEquals("https://elsewhere.example/mcp",
                json(get(server.resourceMetadataUrl())).path("resource").stringValue());
    }

    @Test
    void issuerPathOpenIdConfigurationAndAChallengeWithoutMetadataUrl() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder().issuerPath("/tenant1").openIdConfigurationOnly(true)
                .resourceMetadataInChallenge(false));
        assertTrue(server.issuer().endsWith("/tenant1"), server.issuer());
        assertEquals("Bearer", mcp(server, null, "initialize", "{}").headers().firstValue("WWW-Authenticate").orElseThrow());
        String base = server.mcpUrl().replace("/mcp", "");
        assertEquals(server.issuer(), json(get(server.resourceMetadataUrl())).path("authorization_servers").path(0).stringValue());
        assertEquals(404, get(base + "/.well-known/oauth-authorization-server/tenant1").statusCode());
        JsonNode inserted = json(get(base + "/.well-known/openid-configuration/tenant1"));
        JsonNode appended = json(get(server.issuer() + "/.well-known/openid-configuration"));
        assertEquals(inserted, appended);
        assertEquals(server.issuer() + "/token", inserted.path("token_endpoint").stringValue());
        assertEquals(base + "/.well-known/openid-configuration/tenant1", server.authorizationServerMetadataUrl());

        // The whole flow works under the issuer path.
        String clientId = register(server, "none").path("client_id").stringValue();
        assertEquals(200, mcp(server, tokens(server, clientId, null).path("access_token").stringValue(), "ping", "{}")
                .statusCode());
    }

    // ---- the HTTP+SSE transport ----

    @Test
    void sseTransportByHand() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder().requiredScope("mcp:tools"));
        assertTrue(server.sseUrl().matches("http://127\\.0\\.0\\.1:\\d+/sse"), server.sseUrl());

        // No token: the /mcp challenge, naming the SSE resource's metadata, whose resource is the SSE URL.
        HttpResponse<String> denied = HTTP.send(sseRequest(server, null).build(), BodyHandlers.ofString());
        assertEquals(401, denied.statusCode());
        assertEquals("Bearer resource_metadata=\"" + server.sseResourceMetadataUrl() + "\", scope=\"mcp:tools\"",
                denied.headers().firstValue("WWW-Authenticate").orElseThrow());
        assertEquals(server.sseUrl().replace("/sse", "/.well-known/oauth-protected-resource/sse"),
                server.sseResourceMetadataUrl());
        assertEquals(server.sseUrl(), json(get(server.sseResourceMetadataUrl())).path("resource").stringValue());
        assertEquals(server.mcpUrl(), json(get(server.resourceMetadataUrl())).path("resource").stringValue());

        // A token for the SSE resource (RFC 8707), then the stream: an endpoint event first.
        String clientId = register(server, "none").path("client_id").stringValue();
        String access = tokens(server, clientId, "mcp:tools", server.sseUrl());
        HttpResponse<String> notAcceptable = HTTP.send(sseRequest(server, access).setHeader("Accept", "application/json")
                .build(), BodyHandlers.ofString());
        assertEquals(406, notAcceptable.statusCode());
        try (SseStream stream = SseStream.open(server, access)) {
            SseEvent endpoint = stream.next();
            assertEquals("endpoint", endpoint.event());
            assertTrue(endpoint.data().matches("/messages\\?sessionId=[-0-9a-f]{36}"), endpoint.data());
            String messages = URI.create(server.sseUrl()).resolve(endpoint.data()).toString();

            // Every POST is accepted at once; its response comes on the stream.
            assertEquals(202, post(messages, access, rpc("initialize", "{\"protocolVersion\":\"2024-11-05\"}"))
                    .statusCode());
            JsonNode init = stream.nextMessage();
            assertEquals(ids.get(), init.path("id").intValue());
            assertEquals("2024-11-05", init.path("result").path("protocolVersion").stringValue());
            assertEquals("{}", init.path("result").path("capabilities").path("tools").toString());
            assertEquals(202, post(messages, access, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")
                    .statusCode());
            // The notification put nothing on the stream: the next message answers tools/list.
            assertEquals(202, post(messages, access, rpc("tools/list", "{}")).statusCode());
            assertEquals("echo", stream.nextMessage().path("result").path("tools").path(0).path("name").stringValue());
            assertEquals(202, post(messages, access, rpc("tools/call", "{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}"))
                    .statusCode());
            assertEquals("hi", stream.nextMessage().path("result").path("content").path(0).path("text").stringValue());
            // A newer version asked for over SSE gets the server's.
            post(messages, access, rpc("initialize", "{\"protocolVersion\":\"2025-06-18\"}"));
            assertEquals(AuthTestServer.PROTOCOL_VERSION,
                    stream.nextMessage().path("result").path("protocolVersion").stringValue());

            HttpResponse<String> unknown = post(messages.replaceAll("sessionId=.*", "sessionId=nope"), access,
                    rpc("ping", "{}"));
            assertEquals(404, unknown.statusCode());
            assertEquals(405, get(messages).statusCode());

            // The same scope and revocation checks as /mcp, on the POST.
            String narrow = tokens(server, clientId, null, server.sseUrl());
            HttpResponse<String> lacking = post(messages, narrow, rpc("tools/list", "{}"));
            assertEquals(403, lacking.statusCode());
            assertTrue(lacking.headers().firstValue("WWW-Authenticate").orElseThrow()
                    .contains("scope=\"mcp:tools\", error=\"insufficient_scope\""));
            server.revokeAll();
            HttpResponse<String> revoked = post(messages, access, rpc("tools/list", "{}"));
            assertEquals(401, revoked.statusCode());
            assertEquals("Bearer resource_metadata=\"" + server.sseResourceMetadataUrl() + "\", scope=\"mcp:tools\", "
                            + "error=\"invalid_token\", error_description=\"the access token is unknown, expired or revoked\"",
                    revoked.headers().firstValue("WWW-Authenticate").orElseThrow());
        }

        // Recorded under Endpoint.SSE, not MCP; the open stream counts as one 200.
        assertEquals(0, server.requests(Endpoint.MCP));
        assertEquals(1, server.responses(Endpoint.SSE, 200));
        assertEquals(5, server.responses(Endpoint.SSE, 202));
        assertEquals(2, server.responses(Endpoint.SSE, 401));
        assertEquals(1, server.responses(Endpoint.SSE, 403));
        assertEquals(1, server.responses(Endpoint.SSE, 404));
        assertEquals(List.of(), server.errors());
    }

    @Test
    void theSseStreamOpensWithoutATokenWhenInitializeIsPublic() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder().initializeWithoutAuth(true));
        try (SseStream stream = SseStream.open(server, null)) {
            String messages = URI.create(server.sseUrl()).resolve(stream.next().data()).toString();
            assertEquals(202, post(messages, null, rpc("initialize", "{\"protocolVersion\":\"2024-11-05\"}")).statusCode());
            assertEquals("2024-11-05", stream.nextMessage().path("result").path("protocolVersion").stringValue());
            assertEquals(401, post(messages, null, rpc("tools/list", "{}")).statusCode());
        }
    }

    @Test
    void closeEndsAnOpenSseStreamPromptly() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder());
        String access = tokens(server, register(server, "none").path("client_id").stringValue(), null, server.sseUrl());
        try (SseStream stream = SseStream.open(server, access)) {
            assertEquals("endpoint", stream.next().event());
            assertTimeoutPreemptively(Duration.ofSeconds(10), server::close);
            assertEquals(SseStream.END, stream.next());
        }
    }

    // ---- client registration and authentication ----

    @Test
    void confidentialClientsAuthenticateAsTheyRegistered() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder());
        JsonNode basic = register(server, "client_secret_basic");
        String basicId = basic.path("client_id").stringValue();
        String basicSecret = basic.path("client_secret").stringValue();
        assertTrue(basicSecret.startsWith("mcpcs_"), basicSecret);
        assertEquals(0, basic.path("client_secret_expires_at").intValue());
        String authorization = "Basic " + Base64.getEncoder().encodeToString((basicId + ":" + basicSecret).getBytes(UTF_8));

        Map<String, String> form = codeForm(server, basicId, code(server, basicId, null), VERIFIER);
        form.remove("client_id");
        assertEquals(200, postForm(server.issuer() + "/token", form, "Authorization", authorization).statusCode());
        // Without the secret, or with it in the form, the basic client is refused.
        form = codeForm(server, basicId, code(server, basicId, null), VERIFIER);
        HttpResponse<String> noSecret = postForm(server.issuer() + "/token", form);
        assertEquals(401, noSecret.statusCode());
        assertEquals("invalid_client", json(noSecret).path("error").stringValue());
        form.put("client_secret", basicSecret);
        assertEquals(401, postForm(server.issuer() + "/token", form).statusCode());

        JsonNode post = register(server, "client_secret_post");
        String postId = post.path("client_id").stringValue();
        form = codeForm(server, postId, code(server, postId, null), VERIFIER);
        form.put("client_secret", post.path("client_secret").stringValue());
        assertEquals(200, postForm(server.issuer() + "/token", form).statusCode());
        form = codeForm(server, postId, code(server, postId, null), VERIFIER);
        form.put("client_secret", basicSecret);
        assertEquals(401, postForm(server.issuer() + "/token", form).statusCode());

        // No method named: RFC 7591's default, client_secret_basic.
        HttpResponse<String> defaulted = postJson(server.issuer() + "/register",
                "{\"redirect_uris\":[\"" + REDIRECT_URI + "\"]}");
        assertEquals("client_secret_basic", json(defaulted).path("token_endpoint_auth_method").stringValue());
        assertTrue(server.issuedSecrets().contains(json(defaulted).path("client_secret").stringValue()));
        assertEquals(3, server.errors().size(), server.errors().toString());
    }

    @Test
    void registrationRefusesUnsupportedMethodsAndMissingRedirectUris() throws Exception {
        AuthTestServer server = start(AuthTestServer.builder().tokenEndpointAuthMethods(List.of("none")));
        assertEquals("[\"none\"]", json(get(server.authorizationServerMetadataUrl()))
                .path("token_endpoint_auth_methods_supported").toString());
        HttpResponse<String> secret = postJson(server.issuer() + "/register",
                "{\"redirect_uris\":[\"" + REDIRECT_URI + "\"],\"token_endpoint_auth_method\":\"client_secret_post\"}");
        assertEquals(400, secret.statusCode());
        assertEquals("invalid_client_metadata", json(secret).path("error").stringValue());
        HttpResponse<String> noRedirect = postJson(server.issuer() + "/register", "{\"token_endpoint_auth_method\":\"none\"}");
        assertEquals("invalid_redirect_uri", json(noRedirect).path("error").stringValue());
        assertEquals(400, postJson(server.issuer() + "/register", "not json").statusCode());
        assertEquals(405, get(server.issuer() + "/register").statusCode());
        assertEquals(3, server.responses(Endpoint.REGISTRATION, 400));
        assertEquals(1, server.responses(Endpoint.REGISTRATION, 405));
        assertThrows(IllegalArgumentException.class,
                () -> AuthTestServer.builder().tokenEndpointAuthMethods(List.of("private_key_jwt")));
    }

    @Test
    void closeStopsTheServerAtOnce() throws Exception {
        AuthTestServer server = AuthTestServer.builder().start();
        String url = server.resourceMetadataUrl();
        assertEquals(200, get(url).statusCode());
        server.close();
        assertThrows(IOException.class, () -> get(url));
        server.close();
    }

    // ---- the client side, by hand ----

    private JsonNode register(AuthTestServer server, String method) throws Exception {
        HttpResponse<String> response = postJson(server.issuer() + "/register",
                "{\"redirect_uris\":[\"" + REDIRECT_URI + "\"],\"token_endpoint_auth_method\":\"" + method + "\"}");
        assertEquals(201, response.statusCode(), response.body());
        return json(response);
    }

    /** Authorizes a public client (or one whose secret is not needed) and redeems the code. */
    private JsonNode tokens(AuthTestServer server, String clientId, String scope) throws Exception {
        HttpResponse<String> response = postForm(server.issuer() + "/token",
                codeForm(server, clientId, code(server, clientId, scope), VERIFIER));
        assertEquals(200, response.statusCode(), response.body());
        return json(response);
    }

    /** Authorizes a public client for another resource (RFC 8707) and returns the access token. */
    private String tokens(AuthTestServer server, String clientId, String scope, String resource) throws Exception {
        Map<String, String> params = authorizationParams(server, clientId, "s", scope);
        params.put("resource", resource);
        Map<String, String> form = codeForm(server, clientId,
                authorize(server.issuer() + "/authorize", params).get("code"), VERIFIER);
        form.put("resource", resource);
        HttpResponse<String> response = postForm(server.issuer() + "/token", form);
        assertEquals(200, response.statusCode(), response.body());
        return json(response).path("access_token").stringValue();
    }

    private String code(AuthTestServer server, String clientId, String scope) throws Exception {
        Map<String, String> redirect = authorize(server.issuer() + "/authorize",
                authorizationParams(server, clientId, "s", scope));
        assertTrue(redirect.containsKey("code"), redirect.toString());
        return redirect.get("code");
    }

    private static Map<String, String> authorizationParams(AuthTestServer server, String clientId, String state,
                                                           String scope) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("response_type", "code");
        params.put("client_id", clientId);
        params.put("redirect_uri", REDIRECT_URI);
        params.put("code_challenge", OAuthWire.s256(VERIFIER));
        params.put("code_challenge_method", "S256");
        if (state != null) {
            params.put("state", state);
        }
        if (scope != null) {
            params.put("scope", scope);
        }
        params.put("resource", server.mcpUrl());
        return params;
    }

    /** Sends the user agent to the authorization endpoint; returns the parameters of the redirect. */
    private static Map<String, String> authorize(String endpoint, Map<String, String> params) throws Exception {
        HttpResponse<String> response = get(endpoint + "?" + OAuthWire.form(params));
        assertEquals(302, response.statusCode(), response.body());
        URI location = URI.create(response.headers().firstValue("Location").orElseThrow());
        assertEquals(URI.create(params.get("redirect_uri")).getPath(), location.getPath());
        return OAuthWire.parseForm(location.getRawQuery());
    }

    private static Map<String, String> codeForm(AuthTestServer server, String clientId, String code, String verifier) {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", "authorization_code");
        form.put("code", code);
        form.put("code_verifier", verifier);
        form.put("redirect_uri", REDIRECT_URI);
        form.put("client_id", clientId);
        form.put("resource", server.mcpUrl());
        return form;
    }

    private static Map<String, String> refreshForm(AuthTestServer server, String clientId, String refreshToken) {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", "refresh_token");
        form.put("refresh_token", refreshToken);
        form.put("client_id", clientId);
        form.put("resource", server.mcpUrl());
        return form;
    }

    private HttpResponse<String> mcp(AuthTestServer server, String token, String method, String params) throws Exception {
        return send(server, token, "POST", rpc(method, params));
    }

    /** A JSON-RPC request with the next id. */
    private String rpc(String method, String params) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + ids.incrementAndGet() + ",\"method\":\"" + method
                + "\",\"params\":" + params + "}";
    }

    private static HttpResponse<String> send(AuthTestServer server, String token, String method, String body)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.mcpUrl()))
                .timeout(Duration.ofSeconds(5))
                .header("Accept", "application/json, text/event-stream")
                .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(request.build(), BodyHandlers.ofString());
    }

    private static HttpRequest.Builder sseRequest(AuthTestServer server, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.sseUrl())).timeout(Duration.ofSeconds(5))
                .header("Accept", "text/event-stream");
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return request;
    }

    /** POSTs a JSON-RPC message to an SSE session's message endpoint. */
    private static HttpResponse<String> post(String url, String token, String json) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/json").POST(BodyPublishers.ofString(json));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(request.build(), BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                BodyHandlers.ofString());
    }

    private static HttpResponse<String> postJson(String url, String json) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/json").POST(BodyPublishers.ofString(json)).build(),
                BodyHandlers.ofString());
    }

    private static HttpResponse<String> postForm(String url, Map<String, String> form, String... headers)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(BodyPublishers.ofString(OAuthWire.form(form)));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return HTTP.send(request.build(), BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> response) {
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("application/json"),
                response.statusCode() + " " + response.body());
        return JSON.readTree(response.body());
    }

    private record SseEvent(String event, String data) {
    }

    /** The client's end of an SSE stream: a daemon thread parses the events into a queue, then {@link #END}. */
    private static final class SseStream implements AutoCloseable {
        static final SseEvent END = new SseEvent("(end of stream)", "");

        private final InputStream body;
        private final BlockingQueue<SseEvent> events = new LinkedBlockingQueue<>();

        private SseStream(InputStream body) {
            this.body = body;
            Thread reader = new Thread(this::read, "sse-test-reader");
            reader.setDaemon(true);
            reader.start();
        }

        static SseStream open(AuthTestServer server, String token) throws Exception {
            HttpResponse<InputStream> response = HTTP.send(sseRequest(server, token).build(),
                    BodyHandlers.ofInputStream());
            if (response.statusCode() != 200) {
                response.body().close();
            }
            assertEquals(200, response.statusCode());
            assertEquals("text/event-stream", response.headers().firstValue("Content-Type").orElse(""));
            return new SseStream(response.body());
        }

        /** The next event, waiting at most 5 s for it. */
        SseEvent next() throws InterruptedException {
            SseEvent event = events.poll(5, TimeUnit.SECONDS);
            assertNotNull(event, "no SSE event within 5 s");
            return event;
        }

        /** The JSON of the next event, which must be a {@code message}. */
        JsonNode nextMessage() throws InterruptedException {
            SseEvent event = next();
            assertEquals("message", event.event(), event.toString());
            return JSON.readTree(event.data());
        }

        private void read() {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(body, UTF_8))) {
                String event = "message";
                List<String> data = new ArrayList<>();
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    if (line.isEmpty()) {
                        if (!data.isEmpty()) {
                            events.add(new SseEvent(event, String.join("\n", data)));
                        }
                        event = "message";
                        data.clear();
                    } else if (line.startsWith("event:")) {
                        event = line.substring(6).strip();
                    } else if (line.startsWith("data:")) {
                        data.add(line.substring(5).strip());
                    }
                }
            } catch (IOException e) {
                // A broken stream ends like a closed one here.
            } finally {
                events.add(END);
            }
        }

        @Override
        public void close() throws IOException {
            body.close();
        }
    }
}
