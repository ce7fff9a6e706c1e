package mcp.transport.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.api.HttpServerConfig;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.ServerConfig;
import mcp.api.StoredCredential;
import mcp.api.spi.AuthServices;
import mcp.api.spi.TransportRequest;
import mcp.auth.internal.FileAuthStorage;
import mcp.auth.internal.HeadlessAuthorizationUi;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.testkit.DpopVerifier;
import mcp.transport.http.HttpTransports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * DPoP (RFC 9449) end to end: the real Streamable HTTP transport and OAuth client against an authorization
 * server and an MCP server on 127.0.0.1 (two servers, so two origins) that check every proof with
 * {@link DpopVerifier} and bind tokens to the proof's key, and that ask for nonces: the token endpoint with a
 * {@code use_dpop_nonce} error (§8), the MCP server with a {@code DPoP error="use_dpop_nonce"} challenge (§9).
 */
class DpopFlowTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final String AS_NONCE = "as-nonce-1";
    private static final String RS_NONCE = "rs-nonce-1";

    @TempDir
    Path temp;

    private final List<AutoCloseable> resources = new ArrayList<>();
    /** Every rule a proof broke, or anything else the servers refused: must stay empty. */
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final Set<String> jtis = ConcurrentHashMap.newKeySet();
    /** Access and refresh tokens issued, with the thumbprint of the key they are bound to. */
    private final Map<String, String> boundTokens = new ConcurrentHashMap<>();
    private final AtomicInteger tokenRequests = new AtomicInteger();
    private final AtomicInteger nonceChallenges = new AtomicInteger();
    private final AtomicInteger accepted = new AtomicInteger();
    private final List<String> schemes = new CopyOnWriteArrayList<>();
    /** The token endpoint gives a new nonce with every use_dpop_nonce (a server that never takes one). */
    private volatile boolean asRotatesNonce;
    /** The MCP server refuses every proof with use_dpop_nonce, always the same nonce. */
    private volatile boolean rsNeverSatisfied;

    private TestHttpServer as;
    private TestHttpServer rs;
    private FileAuthStorage storage;

    @AfterEach
    void close() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private void start() throws Exception {
        as = TestHttpServer.start(this::authorizationServer);
        resources.add(as);
        McpStub mcp = new McpStub();
        rs = TestHttpServer.start(call -> resourceServer(call, mcp));
        resources.add(rs);
        storage = new FileAuthStorage(temp.resolve("credentials"));
    }

    private String issuer() {
        return as.url("");
    }

    private McpClient connect(boolean withUi) {
        HttpServerConfig config = new HttpServerConfig(rs.url("/mcp"), Map.of(), TIMEOUT, true,
                Optional.of(new ServerConfig.AuthRef("oauth", "remote")), Optional.empty(), List.of());
        AuthServices services = withUi ? new AuthServices(storage, Optional.of(new HeadlessAuthorizationUi()))
                : AuthServices.storedOnly(storage);
        McpClient client = McpClient.connectBlocking(HttpTransports.httpProvider().open(
                TransportRequest.of("remote", config, temp).withAuth(services)), ClientOptions.builder("dpop-test")
                .protocolVersion("2025-11-25").initializeTimeout(TIMEOUT).requestTimeout(TIMEOUT).build());
        resources.add(client);
        return client;
    }

    @Test
    void tokensAreBoundToTheKeyEveryRequestProvesItAndBothNoncesAreHonoured() throws Exception {
        start();
        McpClient client = connect(true);
        assertEquals(1, client.listToolsBlocking().size());
        assertFalse(client.callToolBlocking("echo", McpJson.object().put("message", "hi")).isError());
        client.close();
        assertEquals(List.of(), errors);
        // The first token request got the nonce challenge; the second carried the nonce.
        assertEquals(2, tokenRequests.get());
        // The MCP server asked for its nonce once; every request after that carried it.
        assertEquals(1, nonceChallenges.get());
        assertTrue(accepted.get() >= 4, "initialize, initialized, tools/list, tools/call: " + accepted.get());
        assertEquals(Set.of("DPoP"), Set.copyOf(schemes));
        StoredCredential stored = storage.load("remote").orElseThrow();
        assertEquals("DPoP", stored.tokenType());
        assertTrue(stored.attribute("dpop_key").isPresent());

        // A later run: the stored token and its key, no new authorization, the nonce learnt again.
        int before = tokenRequests.get();
        McpClient again = connect(false);
        assertEquals(1, again.listToolsBlocking().size());
        assertEquals(before, tokenRequests.get());
        assertEquals(2, nonceChallenges.get());
        assertEquals(List.of(), errors);
    }

    @Test
    void aTokenEndpointThatNeverTakesItsNonceIsAskedTwiceOnly() throws Exception {
        start();
        asRotatesNonce = true;
        McpException e = assertThrows(McpException.class, () -> connect(true));
        assertTrue(e.getMessage().contains("use_dpop_nonce"), e.getMessage());
        assertEquals(2, tokenRequests.get());
        assertEquals(List.of(), errors);
    }

    @Test
    void anMcpServerThatRefusesItsOwnNonceIsGivenUpOn() throws Exception {
        start();
        rsNeverSatisfied = true;
        McpException e = assertThrows(McpException.class, () -> connect(true));
        assertTrue(e.getMessage().contains("refused the proof that carried it"), e.getMessage());
        // Without the nonce, then with it: no third try, and no new authorization for a nonce.
        assertEquals(2, nonceChallenges.get());
        assertEquals(2, tokenRequests.get());
        assertEquals(List.of(), errors);
    }

    // ---- the servers ----

    private void authorizationServer(TestHttpServer.Call call) throws Exception {
        String path = call.request.path();
        switch (path) {
            case "/.well-known/oauth-authorization-server" -> {
                ObjectNode metadata = McpJson.object().put("issuer", issuer())
                        .put("authorization_endpoint", issuer() + "/authorize")
                        .put("token_endpoint", issuer() + "/token")
                        .put("registration_endpoint", issuer() + "/register")
                        .put("authorization_response_iss_parameter_supported", true);
                metadata.putArray("code_challenge_methods_supported").add("S256");
                metadata.putArray("token_endpoint_auth_methods_supported").add("none");
                metadata.putArray("dpop_signing_alg_values_supported").add("ES256");
                call.json(metadata.toString());
            }
            case "/register" -> call.json(201, McpJson.object().put("client_id", "dpop-client")
                    .put("token_endpoint_auth_method", "none").toString(), Map.of());
            case "/authorize" -> {
                Map<String, String> query = form(call.request.query());
                String location = query.get("redirect_uri") + "?code=code-1&state=" + query.get("state") + "&iss="
                        + java.net.URLEncoder.encode(issuer(), StandardCharsets.UTF_8);
                call.status(302, "", Map.of("Location", location));
            }
            case "/token" -> token(call);
            default -> call.status(404);
        }
    }

    private void token(TestHttpServer.Call call) throws Exception {
        tokenRequests.incrementAndGet();
        Map<String, String> form = form(call.request.text());
        DpopVerifier.Verified proof;
        try {
            proof = DpopVerifier.verify(call.header("DPoP"), "POST", issuer() + "/token", Optional.empty(),
                    Optional.empty(), Instant.now(), Duration.ofSeconds(60));
        } catch (DpopVerifier.Refused e) {
            errors.add("token request: " + e.getMessage());
            call.json(400, "{\"error\":\"invalid_dpop_proof\"}", Map.of());
            return;
        }
        if (!jtis.add(proof.jti())) {
            errors.add("token request: a jti used again");
        }
        String expectedNonce = asRotatesNonce ? "as-rotating-" + tokenRequests.get() : AS_NONCE;
        if (asRotatesNonce || !AS_NONCE.equals(proof.claims().path("nonce").asString(null))) {
            call.json(400, "{\"error\":\"use_dpop_nonce\",\"error_description\":\"a nonce is required\"}",
                    Map.of("DPoP-Nonce", expectedNonce));
            return;
        }
        if (form.get("grant_type").equals("refresh_token")
                && !proof.jkt().equals(boundTokens.get(form.get("refresh_token")))) {
            errors.add("refresh with another key");
        }
        String access = "at-" + java.util.UUID.randomUUID();
        String refresh = "rt-" + java.util.UUID.randomUUID();
        boundTokens.put(access, proof.jkt());
        boundTokens.put(refresh, proof.jkt());
        call.json(McpJson.object().put("access_token", access).put("token_type", "DPoP").put("expires_in", 3600)
                .put("refresh_token", refresh).toString());
    }

    private void resourceServer(TestHttpServer.Call call, McpStub mcp) throws Exception {
        String path = call.request.path();
        if (path.startsWith("/.well-known/oauth-protected-resource")) {
            ObjectNode prm = McpJson.object().put("resource", rs.url("/mcp"));
            prm.putArray("authorization_servers").add(issuer());
            call.json(prm.toString());
            return;
        }
        String metadata = "resource_metadata=\"" + rs.url("/.well-known/oauth-protected-resource/mcp") + "\"";
        String authorization = call.header("Authorization");
        if (authorization == null) {
            call.status(401, "", Map.of("WWW-Authenticate", "DPoP algs=\"ES256\", " + metadata));
            return;
        }
        int space = authorization.indexOf(' ');
        String scheme = authorization.substring(0, Math.max(space, 0));
        String token = authorization.substring(space + 1);
        schemes.add(scheme);
        DpopVerifier.Verified proof;
        try {
            proof = DpopVerifier.verify(call.header("DPoP"), call.method(), rs.url(path), Optional.of(token),
                    Optional.empty(), Instant.now(), Duration.ofSeconds(60));
        } catch (DpopVerifier.Refused e) {
            errors.add(call.method() + " " + path + ": " + e.getMessage());
            call.status(401, "", Map.of("WWW-Authenticate", "DPoP error=\"invalid_dpop_proof\", " + metadata));
            return;
        }
        if (!jtis.add(proof.jti())) {
            errors.add(call.method() + " " + path + ": a jti used again");
        }
        if (!proof.jkt().equals(boundTokens.get(token))) {
            errors.add(call.method() + " " + path + ": the token is not bound to the proof's key");
        }
        if (rsNeverSatisfied || !RS_NONCE.equals(proof.claims().path("nonce").asString(null))) {
            nonceChallenges.incrementAndGet();
            call.status(401, "", Map.of("WWW-Authenticate", "DPoP error=\"use_dpop_nonce\", " + metadata,
                    "DPoP-Nonce", RS_NONCE));
            return;
        }
        accepted.incrementAndGet();
        mcp.handle(call);
    }

    private static Map<String, String> form(String text) {
        Map<String, String> out = new HashMap<>();
        if (text == null || text.isEmpty()) {
            return out;
        }
        for (String pair : text.split("&")) {
            int eq = pair.indexOf('=');
            out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }
}
