package mcp.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import mcp.testkit.internal.OAuthWire;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A local OAuth 2.1 authorization server and an OAuth-protected MCP server over Streamable HTTP and
 * over the legacy HTTP+SSE transport, in one JDK {@code HttpServer} on 127.0.0.1 (a free port), for
 * tests of an MCP client's authorization as the MCP authorization spec 2025-11-25 describes it.
 *
 * <p>Endpoints, with {@code ISSUER} = {@link #issuer()} (the base URL plus {@link Builder#issuerPath}):
 * <ul>
 *   <li>{@code POST /mcp} (JSON-RPC: {@code initialize}, {@code ping}, {@code tools/list}, {@code tools/call}
 *       of the one tool {@code echo}; notifications get 202), {@code DELETE /mcp} (204), {@code GET /mcp}
 *       (405: no server-sent stream). Every request needs a valid {@code Authorization: Bearer} token, or
 *       gets 401 with {@code WWW-Authenticate: Bearer resource_metadata="..."}.</li>
 *   <li>The HTTP+SSE transport of protocol 2024-11-05, always on, with the same token checks and the same
 *       JSON-RPC answers: {@code GET /sse} ({@code Accept: text/event-stream}) opens a stream whose first
 *       event is {@code endpoint} with data {@code /messages?sessionId=ID}, then one {@code message} event
 *       per JSON-RPC response; {@code POST /messages?sessionId=ID} answers 202 at once (404 for an unknown
 *       session) and puts the response on the session's stream. Its challenges name
 *       {@link #sseResourceMetadataUrl()}, whose {@code resource} is {@link #sseUrl()}.</li>
 *   <li>{@code GET /.well-known/oauth-protected-resource/mcp} (and without {@code /mcp}) and
 *       {@code GET /.well-known/oauth-protected-resource/sse}: the Protected Resource Metadata (RFC 9728)
 *       of each endpoint.</li>
 *   <li>{@code GET /.well-known/oauth-authorization-server} + issuer path: the authorization server
 *       metadata (RFC 8414); or, with {@link Builder#openIdConfigurationOnly}, only the OpenID
 *       configuration at {@code /.well-known/openid-configuration} + issuer path and at
 *       {@code ISSUER/.well-known/openid-configuration}.</li>
 *   <li>{@code POST ISSUER/register} (Dynamic Client Registration, RFC 7591, unless
 *       {@link Builder#dynamicRegistration} is off; {@link Builder#preRegisteredClient} adds clients registered
 *       ahead, held to their redirect URIs exactly), {@code GET ISSUER/authorize}
 *       (answers at once with a 302 to the client's redirect URI: no user, no page) and
 *       {@code POST ISSUER/token} ({@code authorization_code} with PKCE S256 and {@code refresh_token}
 *       grants, RFC 8707 {@code resource} checked).</li>
 * </ul>
 *
 * <p>Everything it sees is recorded for assertions: requests and responses per {@link Endpoint},
 * token requests per grant type, the last authorization and token request parameters, the client
 * mistakes it refused ({@link #errors()}), and every secret it issued ({@link #issuedSecrets()}), so
 * that a test can prove that none of them leaked into logs or output. Secrets are 43 random base64url
 * characters after a prefix: {@code mcpat_} (access token), {@code mcprt_} (refresh token),
 * {@code mcpac_} (authorization code) and {@code mcpcs_} (client secret).
 *
 * <pre>{@code
 * try (AuthTestServer server = AuthTestServer.builder().scopesSupported(List.of("mcp:tools")).start()) {
 *     // connect the client under test to server.mcpUrl(), then:
 *     assertEquals(1, server.tokenRequests("authorization_code"));
 *     assertEquals(List.of(), server.errors());
 * }
 * }</pre>
 *
 * <p>Thread-safe: requests are served concurrently on a pool of daemon threads, and the switches that
 * can change while it runs ({@link #failRefresh(boolean)}, {@link #tamperState(boolean)},
 * {@link #alwaysInsufficientScope(boolean)}, {@link #revokeAll()}, {@link #useAuthorizationServer}) may be used
 * from any thread.
 *
 * <p>Loading this class sets the system property {@code sun.net.httpserver.nodelay} to {@code true}
 * unless it is set already: without it, every response of the JDK server waits some 40 ms for a
 * delayed ACK. It takes effect only if no {@code HttpServer} was started in the JVM before.
 */
public final class AuthTestServer implements AutoCloseable {

    /** The endpoints whose requests and responses are counted. */
    public enum Endpoint {
        /** {@code /.well-known/oauth-protected-resource[/mcp]} and {@code .../oauth-protected-resource/sse}. */
        PROTECTED_RESOURCE_METADATA,
        /** {@code /.well-known/oauth-authorization-server...} or {@code .../openid-configuration}. */
        AUTHORIZATION_SERVER_METADATA,
        /** {@code ISSUER/register}. */
        REGISTRATION,
        /** {@code ISSUER/authorize}. */
        AUTHORIZATION,
        /** {@code ISSUER/token}. */
        TOKEN,
        /** {@code /mcp}. */
        MCP,
        /** {@code /sse} and {@code /messages}: the HTTP+SSE transport (a stream counts once, as a 200). */
        SSE,
        /** Any other path (answered 404). */
        OTHER
    }

    /** The protocol version that {@code initialize} answers. */
    public static final String PROTOCOL_VERSION = "2025-11-25";

    /**
     * The protocol version of the HTTP+SSE transport: {@code initialize} over it answers this version when
     * the client asks for it, otherwise {@link #PROTOCOL_VERSION}.
     */
    public static final String LEGACY_PROTOCOL_VERSION = "2024-11-05";

    /** Token endpoint client authentication methods, all advertised by default. */
    public static final List<String> AUTH_METHODS = List.of("none", "client_secret_basic", "client_secret_post");

    private static final String MCP_PATH = "/mcp";
    private static final String SSE_PATH = "/sse";
    private static final String MESSAGES_PATH = "/messages";
    private static final String PRM_PATH = "/.well-known/oauth-protected-resource";
    private static final String OAUTH_METADATA_PATH = "/.well-known/oauth-authorization-server";
    private static final String OPENID_PATH = "/.well-known/openid-configuration";
    private static final Duration CODE_LIFETIME = Duration.ofMinutes(2);
    /** How long an idle SSE stream waits before a comment line, which is how a gone client is noticed. */
    private static final Duration SSE_KEEPALIVE = Duration.ofSeconds(15);
    /** Queued on an SSE session to end its stream; never a JSON-RPC message, which is never empty. */
    private static final String END_OF_STREAM = "";

    // ---- settings: fixed at start, except the volatile switches ----
    private final List<String> scopesSupported;
    private final List<String> requiredScopes;
    private final List<String> toolCallScopes;
    private final Duration accessTokenLifetime;
    private final boolean refreshTokens;
    private final boolean rotateRefreshTokens;
    private final boolean detectRefreshTokenReuse;
    private final List<String> authMethods;
    private final boolean initializeWithoutAuth;
    private final boolean resourceMetadataInChallenge;
    private final boolean requireResource;
    private final boolean openIdConfigurationOnly;
    private final String issuerPath;
    private final boolean dynamicRegistration;
    /** The {@code resource} of every Protected Resource Metadata document, or null for the endpoint's URL. */
    private final String prmResource;
    private volatile boolean failRefresh;
    private volatile boolean tamperState;
    private volatile boolean alwaysInsufficientScope;
    /** The authorization server whose tokens the MCP endpoints take and which the PRM names: this one, or another. */
    private volatile AuthTestServer authority = this;
    /** Resources of other servers this one issues tokens for (those that named it their authorization server). */
    private final Set<String> servedResources = ConcurrentHashMap.newKeySet();

    private final JsonMapper mapper = JsonMapper.builder().build();
    private final HttpServer server;
    private final ExecutorService executor;
    private final String baseUrl;
    private volatile boolean closed;

    // ---- grants: concurrent maps, each the only owner of its values. A code or a rotated refresh token is
    // used up by removing it (remove(key, value)), so two racing requests can never both redeem it. ----
    private final Map<String, Client> clients = new ConcurrentHashMap<>();
    private final Map<String, Code> codes = new ConcurrentHashMap<>();
    private final Map<String, Grant> accessTokens = new ConcurrentHashMap<>();
    private final Map<String, Grant> refreshGrants = new ConcurrentHashMap<>();
    /** Refresh tokens used up by rotation, with the family of their grant: a second use is a replay. */
    private final Map<String, String> rotatedRefreshTokens = new ConcurrentHashMap<>();
    /**
     * Families revoked for a replayed refresh token. Checked wherever a grant is used, besides removing the
     * family's grants, so that a token issued by a refresh racing the revocation is dead too.
     */
    private final Set<String> revokedFamilies = ConcurrentHashMap.newKeySet();
    /** Every secret ever issued; only grows (revocation removes grants, never these). */
    private final Set<String> issuedSecrets = ConcurrentHashMap.newKeySet();

    // ---- HTTP+SSE sessions: an entry lives exactly as long as its stream's writer loop, which alone takes from
    // the queue; POST /messages only adds. close() sets `closed` before ending the streams it finds, and a new
    // stream checks `closed` after adding itself, so no stream outlives close(). ----
    private final Map<String, SseSession> sseSessions = new ConcurrentHashMap<>();

    // ---- recording ----
    private final Map<Endpoint, AtomicInteger> requests = new ConcurrentHashMap<>();
    private final Map<StatusKey, AtomicInteger> responses = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> tokenRequests = new ConcurrentHashMap<>();
    private final AtomicReference<Map<String, String>> lastAuthorization = new AtomicReference<>();
    private final AtomicReference<Map<String, String>> lastTokenRequest = new AtomicReference<>();
    private final List<String> errors = new CopyOnWriteArrayList<>();

    /** {@code exactRedirect}: its redirect URIs must come back character for character, port included. */
    private record Client(String id, String secret, String authMethod, List<String> redirectUris,
                          boolean exactRedirect) {
    }

    private record Code(String clientId, String redirectUri, String challenge, String resource, List<String> scopes,
                        Instant expires) {
    }

    /**
     * What an access token (with an expiry) or a refresh token (expires = null) allows. {@code family} names the
     * authorization it descends from: every refresh of a code's tokens keeps it, so that a replay can revoke them all.
     */
    private record Grant(String clientId, List<String> scopes, String resource, Instant expires, String family) {
    }

    private record StatusKey(Endpoint endpoint, int status) {
    }

    /** One open SSE stream: the JSON-RPC messages waiting to be written on it, or {@link #END_OF_STREAM}. */
    private record SseSession(String id, BlockingQueue<String> events) {
    }

    /** A refusal as OAuth words it: the {@code error} code and a description for people. */
    private record Refusal(String error, String description) {
    }

    static {
        // The JDK server writes a response's headers and body in two small writes; with Nagle's algorithm on,
        // the body then waits for the client's delayed ACK, some 40 ms per request, which makes a whole OAuth
        // flow take seconds. The property is read once, when the first HttpServer of the JVM starts, so it only
        // helps if no other one started before; a value set on the command line is kept.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private AuthTestServer(Builder b) throws IOException {
        scopesSupported = b.scopesSupported;
        requiredScopes = scopes(b.requiredScope);
        toolCallScopes = scopes(b.toolCallScope);
        accessTokenLifetime = b.accessTokenLifetime;
        refreshTokens = b.refreshTokens;
        rotateRefreshTokens = b.rotateRefreshTokens;
        detectRefreshTokenReuse = b.detectRefreshTokenReuse;
        authMethods = b.tokenEndpointAuthMethods;
        initializeWithoutAuth = b.initializeWithoutAuth;
        resourceMetadataInChallenge = b.resourceMetadataInChallenge;
        requireResource = b.requireResource;
        openIdConfigurationOnly = b.openIdConfigurationOnly;
        issuerPath = b.issuerPath;
        dynamicRegistration = b.dynamicRegistration;
        b.preRegistered.forEach(client -> {
            clients.put(client.id(), client);
            if (client.secret() != null) {
                // Given, not issued, but a secret all the same: a test proves it leaked nowhere.
                issuedSecrets.add(client.secret());
            }
        });
        failRefresh = b.failRefresh;
        tamperState = b.tamperState;
        alwaysInsufficientScope = b.alwaysInsufficientScope;
        AtomicInteger threads = new AtomicInteger();
        executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "mcp-testkit-auth-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.setExecutor(executor);
        server.createContext("/", this::dispatch);
        baseUrl = "http://127.0.0.1:" + server.getAddress().getPort();
        prmResource = b.prmResource;
        server.start();
    }

    /**
     * A builder with every switch off: no scopes, one-hour access tokens, rotated refresh tokens, all
     * three client authentication methods, {@code resource} required.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Registers a client ahead while the server runs, for a redirect URI that names the server's own URL (Codex's
     * callback path ends with a hash of it); otherwise as {@link Builder#preRegisteredClient}.
     *
     * @param clientId the client id
     * @param clientSecret its secret, or {@code null} for a public client
     * @param authMethod {@code none}, {@code client_secret_basic} or {@code client_secret_post}
     * @param redirectUris the redirect URIs it may use, compared exactly
     */
    public void preRegisterClient(String clientId, String clientSecret, String authMethod, List<String> redirectUris) {
        Client client = Builder.client(clientId, clientSecret, authMethod, redirectUris);
        if (clientSecret != null) {
            issuedSecrets.add(clientSecret);
        }
        clients.put(clientId, client);
    }

    // ---- URLs ----

    /** @return the MCP endpoint, {@code http://127.0.0.1:PORT/mcp} */
    public String mcpUrl() {
        return baseUrl + MCP_PATH;
    }

    /** @return the HTTP+SSE endpoint (protocol 2024-11-05), {@code http://127.0.0.1:PORT/sse} */
    public String sseUrl() {
        return baseUrl + SSE_PATH;
    }

    /** @return the issuer: {@code http://127.0.0.1:PORT} plus the issuer path, without a trailing slash */
    public String issuer() {
        return baseUrl + issuerPath;
    }

    /** @return the Protected Resource Metadata URL named in the challenge, {@code .../oauth-protected-resource/mcp} */
    public String resourceMetadataUrl() {
        return baseUrl + PRM_PATH + MCP_PATH;
    }

    /**
     * @return the Protected Resource Metadata URL named in the challenges of {@code /sse} and {@code /messages},
     *     {@code .../oauth-protected-resource/sse}
     */
    public String sseResourceMetadataUrl() {
        return baseUrl + PRM_PATH + SSE_PATH;
    }

    /** @return where the authorization server metadata is served (RFC 8414, or OpenID when asked for) */
    public String authorizationServerMetadataUrl() {
        return baseUrl + (openIdConfigurationOnly ? OPENID_PATH : OAUTH_METADATA_PATH) + issuerPath;
    }

    // ---- switches that may change while running ----

    /**
     * Makes every {@code refresh_token} grant fail with 400 {@code invalid_grant} (on) or work again (off).
     *
     * @param on the new state
     */
    public void failRefresh(boolean on) {
        failRefresh = on;
    }

    /**
     * Makes the authorization endpoint redirect with a {@code state} other than the one it was given.
     *
     * @param on the new state
     */
    public void tamperState(boolean on) {
        tamperState = on;
    }

    /**
     * Makes every MCP request other than {@code initialize} and {@code notifications/initialized} that
     * carries a valid token get 403 with {@code error="insufficient_scope"}, whatever the token's scopes.
     *
     * @param on the new state
     */
    public void alwaysInsufficientScope(boolean on) {
        alwaysInsufficientScope = on;
    }

    /**
     * Moves this server's MCP endpoints to another authorization server: from now on the Protected Resource
     * Metadata names {@code other}'s issuer and only tokens {@code other} issued are taken (so every token of the
     * previous one gets 401); {@code other} issues tokens for this server's resources. {@code this} moves them
     * back.
     *
     * @param other the authorization server to use
     */
    public void useAuthorizationServer(AuthTestServer other) {
        Objects.requireNonNull(other, "other");
        if (other != this) {
            other.servedResources.add(mcpUrl());
            other.servedResources.add(sseUrl());
        }
        authority = other;
    }

    /**
     * Invalidates every access token issued so far; the MCP endpoints answer them 401 (SSE streams already open
     * stay open). Refresh tokens stay valid.
     */
    public void revokeAll() {
        accessTokens.clear();
    }

    /** Invalidates every refresh token issued so far (the {@code refresh_token} grant answers {@code invalid_grant}). */
    public void revokeRefreshTokens() {
        refreshGrants.clear();
    }

    /**
     * Whether this server would take a token now, as token introspection (RFC 7662) would answer, without using
     * it up: an access token it issued that has not expired, or a refresh token that has not been rotated away,
     * revoked, or revoked with its grant after a replay. Lets a test check a stored credential without changing it.
     *
     * @param token an access token or a refresh token
     * @return whether it is active
     */
    public boolean isActive(String token) {
        Objects.requireNonNull(token, "token");
        if (activeAccessGrant(token) != null) {
            return true;
        }
        Grant refresh = refreshGrants.get(token);
        return refresh != null && !revokedFamilies.contains(refresh.family());
    }

    /** @return the grant of an access token this server issued that is neither expired nor revoked, or null */
    private Grant activeAccessGrant(String token) {
        Grant grant = accessTokens.get(token);
        if (grant != null && Instant.now().isAfter(grant.expires())) {
            accessTokens.remove(token, grant);
            return null;
        }
        return grant == null || revokedFamilies.contains(grant.family()) ? null : grant;
    }

    // ---- recording ----

    /**
     * @param endpoint an endpoint
     * @return how many requests it received, whatever their method or outcome
     */
    public int requests(Endpoint endpoint) {
        AtomicInteger n = requests.get(endpoint);
        return n == null ? 0 : n.get();
    }

    /**
     * @param endpoint an endpoint
     * @param status an HTTP status such as 200, 401 or 403
     * @return how many of its responses had this status
     */
    public int responses(Endpoint endpoint, int status) {
        AtomicInteger n = responses.get(new StatusKey(endpoint, status));
        return n == null ? 0 : n.get();
    }

    /**
     * @param grantType {@code authorization_code}, {@code refresh_token}, or any other value sent
     * @return how many token requests had this {@code grant_type}
     */
    public int tokenRequests(String grantType) {
        AtomicInteger n = tokenRequests.get(grantType);
        return n == null ? 0 : n.get();
    }

    /** @return the query parameters of the last authorization request, or empty before the first one */
    public Optional<Map<String, String>> lastAuthorizationRequest() {
        return Optional.ofNullable(lastAuthorization.get());
    }

    /** @return the form parameters of the last token request, or empty before the first one */
    public Optional<Map<String, String>> lastTokenRequest() {
        return Optional.ofNullable(lastTokenRequest.get());
    }

    /**
     * The client mistakes refused so far at the registration, authorization and token endpoints (a
     * wrong PKCE verifier, a missing {@code resource}, an unknown redirect URI, a missing {@code state},
     * a used code...), in order. Refusals asked for by a switch ({@code failRefresh}) are not listed.
     * The descriptions never contain a secret.
     *
     * @return a snapshot, empty when the client did everything right
     */
    public List<String> errors() {
        return List.copyOf(errors);
    }

    /** @return every access token, refresh token, authorization code and client secret issued so far (a snapshot) */
    public Set<String> issuedSecrets() {
        return Set.copyOf(issuedSecrets);
    }

    /**
     * Stops the server at once, without waiting for exchanges in progress, and its threads; open SSE streams
     * end. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        sseSessions.values().forEach(s -> s.events().offer(END_OF_STREAM));
        server.stop(0);
        executor.shutdownNow();
    }

    // ---- dispatch ----

    private void dispatch(HttpExchange http) throws IOException {
        String path = http.getRequestURI().getPath();
        Endpoint endpoint = endpoint(path);
        requests.computeIfAbsent(endpoint, e -> new AtomicInteger()).incrementAndGet();
        Call call = new Call(http, endpoint);
        try {
            switch (endpoint) {
                case MCP: mcp(call); break;
                case SSE: sse(call); break;
                case PROTECTED_RESOURCE_METADATA: resourceMetadata(call); break;
                case AUTHORIZATION_SERVER_METADATA: serverMetadata(call); break;
                case REGISTRATION: register(call); break;
                case AUTHORIZATION: authorize(call); break;
                case TOKEN: token(call); break;
                default: call.send(404, "text/plain", "not found: " + path, Map.of());
            }
        } catch (IOException e) {
            // The client went away: nothing to answer.
        } catch (RuntimeException e) {
            errors.add("server failure on " + path + ": " + e);
            if (!call.sent) {
                call.send(500, "text/plain", "internal error: " + e, Map.of());
            }
        } finally {
            http.close();
        }
    }

    private Endpoint endpoint(String path) {
        if (path.equals(MCP_PATH)) {
            return Endpoint.MCP;
        } else if (path.equals(SSE_PATH) || path.equals(MESSAGES_PATH)) {
            return Endpoint.SSE;
        } else if (path.equals(PRM_PATH + MCP_PATH) || path.equals(PRM_PATH) || path.equals(PRM_PATH + SSE_PATH)) {
            return Endpoint.PROTECTED_RESOURCE_METADATA;
        } else if (openIdConfigurationOnly
                ? path.equals(OPENID_PATH + issuerPath) || path.equals(issuerPath + OPENID_PATH)
                : path.equals(OAUTH_METADATA_PATH + issuerPath)) {
            return Endpoint.AUTHORIZATION_SERVER_METADATA;
        } else if (path.equals(issuerPath + "/register")) {
            return Endpoint.REGISTRATION;
        } else if (path.equals(issuerPath + "/authorize")) {
            return Endpoint.AUTHORIZATION;
        } else if (path.equals(issuerPath + "/token")) {
            return Endpoint.TOKEN;
        }
        return Endpoint.OTHER;
    }

    // ---- the MCP endpoint ----

    private void mcp(Call call) throws IOException {
        String method = call.http.getRequestMethod();
        JsonNode message = null;
        if (method.equals("POST")) {
            message = jsonObject(call);
            if (message == null) {
                call.json(400, rpcError(mapper.nullNode(), -32700, "Parse error: one JSON-RPC object expected"), Map.of());
                return;
            }
        }
        String rpcMethod = message == null ? null : text(message.path("method"), null);
        boolean opening = "initialize".equals(rpcMethod) || "notifications/initialized".equals(rpcMethod);
        if (!(opening && initializeWithoutAuth) && !authorized(call, rpcMethod, opening)) {
            return;
        }
        switch (method) {
            case "POST": {
                ObjectNode reply = reply(message, false);
                if (reply == null) {
                    call.send(202, null, "", Map.of()); // a notification or a response: accepted, nothing to answer
                } else {
                    boolean opened = "initialize".equals(rpcMethod) && reply.has("result");
                    call.json(200, reply, opened ? Map.of("Mcp-Session-Id", UUID.randomUUID().toString()) : Map.of());
                }
                break;
            }
            case "DELETE": call.send(204, null, "", Map.of()); break;
            case "GET": call.send(405, "text/plain", "no server-sent event stream here", Map.of("Allow", "POST, DELETE"));
                break;
            default: call.send(405, "text/plain", "method not allowed", Map.of("Allow", "POST, DELETE"));
        }
    }

    /** Checks the bearer token; when it does not do, answers 401 or 403 with a challenge and returns false. */
    private boolean authorized(Call call, String rpcMethod, boolean opening) throws IOException {
        List<String> needed = new ArrayList<>(requiredScopes);
        if ("tools/call".equals(rpcMethod)) {
            needed.addAll(toolCallScopes);
        }
        Optional<String> token = OAuthWire.bearerToken(call.header("Authorization"));
        Grant grant = token.map(authority::activeAccessGrant).orElse(null);
        if (grant == null) {
            String error = token.isPresent() ? "invalid_token" : null;
            challenge(call, 401, error, needed, token.isPresent() ? "the access token is unknown, expired or revoked"
                    : "an access token is required");
            return false;
        }
        if (alwaysInsufficientScope && !opening) {
            challenge(call, 403, "insufficient_scope", union(grant.scopes(), needed, scopesSupported),
                    "insufficient scope (alwaysInsufficientScope)");
            return false;
        }
        if (!grant.scopes().containsAll(needed)) {
            challenge(call, 403, "insufficient_scope", union(grant.scopes(), needed), "the token lacks a needed scope");
            return false;
        }
        return true;
    }

    private void challenge(Call call, int status, String error, List<String> scopes, String description)
            throws IOException {
        List<String> params = new ArrayList<>();
        if (resourceMetadataInChallenge) {
            String metadata = call.endpoint == Endpoint.SSE ? sseResourceMetadataUrl() : resourceMetadataUrl();
            params.add("resource_metadata=\"" + metadata + "\"");
        }
        if (!scopes.isEmpty()) {
            params.add("scope=\"" + String.join(" ", scopes) + "\"");
        }
        if (error != null) {
            params.add("error=\"" + error + "\"");
            params.add("error_description=\"" + description + "\"");
        }
        String header = params.isEmpty() ? "Bearer" : "Bearer " + String.join(", ", params);
        // RFC 6750: a request without credentials gets no error code, only the challenge.
        ObjectNode body = mapper.createObjectNode();
        if (error != null) {
            body.put("error", error);
        }
        body.put("error_description", description);
        call.json(status, body, Map.of("WWW-Authenticate", header));
    }

    /**
     * The JSON-RPC answer to one message, the same on both transports, or null when there is none (a
     * notification or a response). Over HTTP+SSE ({@code legacy}), {@code initialize} answers
     * {@link #LEGACY_PROTOCOL_VERSION} to a client that asks for it.
     */
    private ObjectNode reply(JsonNode message, boolean legacy) {
        JsonNode id = message.get("id");
        String method = text(message.path("method"), null);
        if (method == null || id == null || id.isNull()) {
            return null;
        }
        JsonNode params = message.path("params");
        ObjectNode result = mapper.createObjectNode();
        switch (method) {
            case "initialize": {
                boolean asksLegacy = LEGACY_PROTOCOL_VERSION.equals(text(params.path("protocolVersion"), null));
                result.put("protocolVersion", legacy && asksLegacy ? LEGACY_PROTOCOL_VERSION : PROTOCOL_VERSION);
                result.putObject("capabilities").putObject("tools");
                result.putObject("serverInfo").put("name", "mcp-testkit-auth").put("version", "1.0");
                break;
            }
            case "ping":
                break;
            case "tools/list": {
                ObjectNode tool = result.putArray("tools").addObject().put("name", "echo")
                        .put("description", "Echoes the text back.");
                ObjectNode schema = tool.putObject("inputSchema").put("type", "object");
                schema.putObject("properties").putObject("text").put("type", "string");
                schema.putArray("required").add("text");
                break;
            }
            case "tools/call": {
                if (!"echo".equals(text(params.path("name"), null))) {
                    return rpcError(id, -32602, "Unknown tool: " + params.path("name"));
                }
                JsonNode text = params.path("arguments").path("text");
                ArrayNode content = result.putArray("content");
                if (text.isString()) {
                    content.addObject().put("type", "text").put("text", text.stringValue());
                } else {
                    content.addObject().put("type", "text").put("text", "argument 'text' must be a string");
                    result.put("isError", true);
                }
                break;
            }
            default:
                return rpcError(id, -32601, "Method not found: " + method);
        }
        ObjectNode response = mapper.createObjectNode().put("jsonrpc", "2.0");
        response.set("id", id);
        response.set("result", result);
        return response;
    }

    private ObjectNode rpcError(JsonNode id, int code, String text) {
        ObjectNode response = mapper.createObjectNode().put("jsonrpc", "2.0");
        response.set("id", id);
        response.putObject("error").put("code", code).put("message", text);
        return response;
    }

    // ---- the HTTP+SSE endpoints (protocol 2024-11-05) ----

    private void sse(Call call) throws IOException {
        if (call.http.getRequestURI().getPath().equals(MESSAGES_PATH)) {
            messages(call);
            return;
        }
        // Opening the stream counts as opening a session: public with initializeWithoutAuth, and not refused
        // by alwaysInsufficientScope, as initialize is on /mcp.
        if (!call.expect("GET") || !(initializeWithoutAuth || authorized(call, null, true))) {
            return;
        }
        String accept = call.header("Accept");
        if (accept != null && !accept.contains("text/event-stream") && !accept.contains("*/*")) {
            call.send(406, "text/plain", "GET /sse needs Accept: text/event-stream", Map.of());
            return;
        }
        SseSession session = new SseSession(UUID.randomUUID().toString(), new LinkedBlockingQueue<>());
        sseSessions.put(session.id(), session);
        try (OutputStream out = call.stream("text/event-stream", Map.of("Cache-Control", "no-cache"))) {
            writeEvent(out, "endpoint", MESSAGES_PATH + "?sessionId=" + session.id());
            while (!closed) {
                String data = session.events().poll(SSE_KEEPALIVE.toMillis(), TimeUnit.MILLISECONDS);
                if (data == null) {
                    out.write(": keepalive\n\n".getBytes(UTF_8)); // fails once the client has gone
                    out.flush();
                } else if (data.equals(END_OF_STREAM)) {
                    break;
                } else {
                    writeEvent(out, "message", data);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // close(): the pool is shutting down
        } finally {
            sseSessions.remove(session.id(), session);
        }
    }

    private void messages(Call call) throws IOException {
        if (!call.expect("POST")) {
            return;
        }
        JsonNode message = jsonObject(call);
        if (message == null) {
            call.json(400, rpcError(mapper.nullNode(), -32700, "Parse error: one JSON-RPC object expected"), Map.of());
            return;
        }
        String rpcMethod = text(message.path("method"), null);
        boolean opening = "initialize".equals(rpcMethod) || "notifications/initialized".equals(rpcMethod);
        if (!(opening && initializeWithoutAuth) && !authorized(call, rpcMethod, opening)) {
            return;
        }
        String sessionId = OAuthWire.parseForm(call.http.getRequestURI().getRawQuery()).get("sessionId");
        SseSession session = sessionId == null ? null : sseSessions.get(sessionId);
        if (session == null) {
            call.send(404, "text/plain", "no open SSE session " + sessionId, Map.of());
            return;
        }
        ObjectNode reply = reply(message, true);
        call.send(202, null, "", Map.of());
        if (reply != null) {
            session.events().offer(mapper.writeValueAsString(reply));
        }
    }

    /** Writes one event; {@code data} is one line (compact JSON or a URI), so one {@code data:} field. */
    private static void writeEvent(OutputStream out, String event, String data) throws IOException {
        out.write(("event: " + event + "\ndata: " + data + "\n\n").getBytes(UTF_8));
        out.flush();
    }

    // ---- metadata ----

    private void resourceMetadata(Call call) throws IOException {
        if (!call.expect("GET")) {
            return;
        }
        String resource = call.http.getRequestURI().getPath().equals(PRM_PATH + SSE_PATH) ? sseUrl() : mcpUrl();
        ObjectNode body = mapper.createObjectNode().put("resource", prmResource != null ? prmResource : resource);
        body.putArray("authorization_servers").add(authority.issuer());
        putList(body, "scopes_supported", scopesSupported);
        body.putArray("bearer_methods_supported").add("header");
        body.put("resource_name", "mcp-testkit-auth");
        call.json(200, body, Map.of());
    }

    private void serverMetadata(Call call) throws IOException {
        if (!call.expect("GET")) {
            return;
        }
        ObjectNode body = mapper.createObjectNode()
                .put("issuer", issuer())
                .put("authorization_endpoint", issuer() + "/authorize")
                .put("token_endpoint", issuer() + "/token");
        if (dynamicRegistration) {
            body.put("registration_endpoint", issuer() + "/register");
        }
        body.putArray("response_types_supported").add("code");
        ArrayNode grants = body.putArray("grant_types_supported").add("authorization_code");
        if (refreshTokens) {
            grants.add("refresh_token");
        }
        body.putArray("code_challenge_methods_supported").add("S256");
        putList(body, "token_endpoint_auth_methods_supported", authMethods);
        putList(body, "scopes_supported", scopesSupported);
        call.json(200, body, Map.of());
    }

    /** @return the request body as a JSON object, or null when it is not one */
    private JsonNode jsonObject(Call call) throws IOException {
        try {
            JsonNode node = mapper.readTree(call.body());
            return node != null && node.isObject() ? node : null;
        } catch (JacksonException e) {
            return null;
        }
    }

    // ---- dynamic client registration ----

    private void register(Call call) throws IOException {
        if (!dynamicRegistration) {
            errors.add("registration: dynamic client registration is off, and a client asked for it");
            call.send(404, "text/plain", "no dynamic client registration here", Map.of());
            return;
        }
        if (!call.expect("POST")) {
            return;
        }
        JsonNode request = jsonObject(call);
        if (request == null) {
            refuse(call, 400, new Refusal("invalid_client_metadata", "registration: the body must be a JSON object"));
            return;
        }
        List<String> redirectUris = new ArrayList<>();
        request.path("redirect_uris").forEach(uri -> redirectUris.add(text(uri, "")));
        if (redirectUris.isEmpty() || redirectUris.contains("")) {
            refuse(call, 400, new Refusal("invalid_redirect_uri", "registration: redirect_uris must be a non-empty "
                    + "array of URIs"));
            return;
        }
        // RFC 7591: a client that names no method gets client_secret_basic.
        String method = text(request.path("token_endpoint_auth_method"), "client_secret_basic");
        if (!authMethods.contains(method)) {
            refuse(call, 400, new Refusal("invalid_client_metadata", "registration: token_endpoint_auth_method "
                    + method + " is not supported; supported: " + authMethods));
            return;
        }
        String id = "mcp-client-" + UUID.randomUUID();
        String secret = method.equals("none") ? null : issue("mcpcs_");
        clients.put(id, new Client(id, secret, method, List.copyOf(redirectUris), false));
        ObjectNode answer = ((ObjectNode) request).deepCopy();
        answer.put("client_id", id).put("client_id_issued_at", Instant.now().getEpochSecond())
                .put("token_endpoint_auth_method", method);
        if (!answer.has("grant_types")) {
            answer.putArray("grant_types").add("authorization_code").add("refresh_token");
        }
        if (!answer.has("response_types")) {
            answer.putArray("response_types").add("code");
        }
        if (secret != null) {
            answer.put("client_secret", secret).put("client_secret_expires_at", 0);
        }
        call.json(201, answer, Map.of("Cache-Control", "no-store"));
    }

    // ---- authorization endpoint: no user, a redirect at once ----

    private void authorize(Call call) throws IOException {
        if (!call.expect("GET")) {
            return;
        }
        Map<String, String> query = OAuthWire.parseForm(call.http.getRequestURI().getRawQuery());
        lastAuthorization.set(query);
        Client client = clients.get(query.getOrDefault("client_id", ""));
        String redirectUri = query.get("redirect_uri");
        // Without a known client and a registered redirect URI there is nowhere safe to redirect: answer here.
        if (client == null) {
            refuse(call, 400, new Refusal("invalid_request", "authorization: unknown client_id"));
            return;
        }
        if (redirectUri == null || client.redirectUris().stream().noneMatch(r -> client.exactRedirect() ? r.equals(redirectUri)
                : OAuthWire.sameRedirect(r, redirectUri))) {
            refuse(call, 400, new Refusal("invalid_request", "authorization: redirect_uri missing or not registered"));
            return;
        }
        String state = query.get("state");
        if (state == null) {
            errors.add("authorization: no state parameter");
        }
        List<String> scopes = scopes(query.get("scope"));
        Refusal refusal = null;
        if (!"code".equals(query.get("response_type"))) {
            refusal = new Refusal("unsupported_response_type", "authorization: response_type must be code");
        } else if (query.get("code_challenge") == null) {
            refusal = new Refusal("invalid_request", "authorization: code_challenge missing (PKCE is required)");
        } else if (!"S256".equals(query.get("code_challenge_method"))) {
            refusal = new Refusal("invalid_request", "authorization: code_challenge_method must be S256");
        } else if (!scopesSupported.isEmpty() && !scopesSupported.containsAll(scopes)) {
            refusal = new Refusal("invalid_scope", "authorization: scope " + scopes + " not within " + scopesSupported);
        } else {
            refusal = resourceRefusal("authorization", query.get("resource"), null);
        }
        Map<String, String> answer = new LinkedHashMap<>();
        if (refusal != null) {
            errors.add(refusal.description());
            answer.put("error", refusal.error());
            answer.put("error_description", refusal.description());
        } else {
            String code = issue("mcpac_");
            codes.put(code, new Code(client.id(), redirectUri, query.get("code_challenge"), query.get("resource"),
                    scopes, Instant.now().plus(CODE_LIFETIME)));
            answer.put("code", code);
        }
        if (state != null) {
            answer.put("state", tamperState ? "tampered-" + UUID.randomUUID() : state);
        }
        call.send(302, null, "", Map.of("Location", OAuthWire.withQuery(redirectUri, answer), "Cache-Control", "no-store"));
    }

    // ---- token endpoint ----

    private void token(Call call) throws IOException {
        if (!call.expect("POST")) {
            return;
        }
        Map<String, String> form = OAuthWire.parseForm(new String(call.body(), UTF_8));
        lastTokenRequest.set(form);
        String grantType = form.getOrDefault("grant_type", "");
        tokenRequests.computeIfAbsent(grantType, g -> new AtomicInteger()).incrementAndGet();
        Client client = authenticate(call, form);
        if (client == null) {
            return;
        }
        switch (grantType) {
            case "authorization_code": codeGrant(call, client, form); break;
            case "refresh_token": refreshGrant(call, client, form); break;
            default: refuse(call, 400, new Refusal("unsupported_grant_type", "token: grant_type '" + grantType
                    + "' is not supported"));
        }
    }

    /** Authenticates the client as it registered; on failure answers 401 invalid_client and returns null. */
    private Client authenticate(Call call, Map<String, String> form) throws IOException {
        Optional<List<String>> basic = OAuthWire.basicCredentials(call.header("Authorization"));
        String id = basic.map(c -> c.get(0)).orElse(form.get("client_id"));
        String secret = basic.map(c -> c.get(1)).orElse(form.get("client_secret"));
        String used = basic.isPresent() ? "client_secret_basic" : secret != null ? "client_secret_post" : "none";
        Client client = id == null ? null : clients.get(id);
        String problem = null;
        if (client == null) {
            problem = "token: unknown or missing client_id";
        } else if (basic.isPresent() && form.containsKey("client_id") && !form.get("client_id").equals(id)) {
            problem = "token: client_id in the form differs from the Basic credentials";
        } else if (!used.equals(client.authMethod())) {
            problem = "token: client registered for " + client.authMethod() + " authenticated with " + used;
        } else if (secret != null && !secret.equals(client.secret())) {
            problem = "token: wrong client secret";
        }
        if (problem == null) {
            return client;
        }
        errors.add(problem);
        ObjectNode body = mapper.createObjectNode().put("error", "invalid_client").put("error_description", problem);
        call.json(401, body, basic.isPresent() ? Map.of("WWW-Authenticate", "Basic realm=\"mcp-testkit\"") : Map.of());
        return null;
    }

    private void codeGrant(Call call, Client client, Map<String, String> form) throws IOException {
        String value = form.get("code");
        // Used up by the first attempt, whatever its outcome: a code is never redeemed twice.
        Code code = value == null ? null : codes.remove(value);
        String verifier = form.get("code_verifier");
        Refusal refusal;
        if (code == null) {
            refusal = new Refusal("invalid_grant", "token: authorization code missing, unknown or already used");
        } else if (!code.clientId().equals(client.id())) {
            refusal = new Refusal("invalid_grant", "token: authorization code issued to another client");
        } else if (Instant.now().isAfter(code.expires())) {
            refusal = new Refusal("invalid_grant", "token: authorization code expired");
        } else if (form.get("redirect_uri") != null && !form.get("redirect_uri").equals(code.redirectUri())) {
            refusal = new Refusal("invalid_grant", "token: redirect_uri differs from the authorization request's");
        } else if (verifier == null) {
            refusal = new Refusal("invalid_request", "token: code_verifier missing (PKCE)");
        } else if (!OAuthWire.s256(verifier).equals(code.challenge())) {
            refusal = new Refusal("invalid_grant", "token: PKCE verification failed (code_verifier does not match "
                    + "the S256 code_challenge)");
        } else {
            refusal = resourceRefusal("token", form.get("resource"), code.resource());
        }
        if (refusal != null) {
            refuse(call, 400, refusal);
            return;
        }
        grantTokens(call, client.id(), code.scopes(), code.resource(), true, UUID.randomUUID().toString());
    }

    private void refreshGrant(Call call, Client client, Map<String, String> form) throws IOException {
        if (failRefresh) {
            ObjectNode body = mapper.createObjectNode().put("error", "invalid_grant")
                    .put("error_description", "refresh refused on purpose (failRefresh)");
            call.json(400, body, Map.of("Cache-Control", "no-store"));
            return;
        }
        String value = form.getOrDefault("refresh_token", "");
        Grant grant = refreshGrants.get(value);
        if (grant != null && revokedFamilies.contains(grant.family())) {
            grant = null;
        }
        List<String> asked = form.containsKey("scope") ? scopes(form.get("scope")) : null;
        Refusal refusal;
        String replayed = grant == null && detectRefreshTokenReuse ? rotatedRefreshTokens.get(value) : null;
        if (replayed != null) {
            revokeFamily(replayed);
            refusal = new Refusal("invalid_grant", "token: refresh token used again after it was rotated; its grant "
                    + "is revoked");
        } else if (grant == null) {
            refusal = new Refusal("invalid_grant", "token: refresh token unknown, rotated or revoked");
        } else if (!grant.clientId().equals(client.id())) {
            refusal = new Refusal("invalid_grant", "token: refresh token issued to another client");
        } else if (asked != null && !grant.scopes().containsAll(asked)) {
            refusal = new Refusal("invalid_scope", "token: refresh asks for more scope than was granted");
        } else {
            refusal = resourceRefusal("token", form.get("resource"), grant.resource());
        }
        // A rotated refresh token is used up by exactly one request, even when two race.
        if (refusal == null && rotateRefreshTokens) {
            if (refreshGrants.remove(value, grant)) {
                rotatedRefreshTokens.put(value, grant.family());
            } else {
                if (detectRefreshTokenReuse) {
                    revokeFamily(grant.family());
                }
                refusal = new Refusal("invalid_grant", "token: refresh token used twice at once");
            }
        }
        if (refusal != null) {
            refuse(call, 400, refusal);
            return;
        }
        grantTokens(call, client.id(), asked != null ? asked : grant.scopes(), grant.resource(), rotateRefreshTokens,
                grant.family());
    }

    /** Revokes every access and refresh token descended from one authorization (replay detection). */
    private void revokeFamily(String family) {
        revokedFamilies.add(family);
        refreshGrants.values().removeIf(grant -> grant.family().equals(family));
        accessTokens.values().removeIf(grant -> grant.family().equals(family));
    }

    private void grantTokens(Call call, String clientId, List<String> scopes, String resource, boolean newRefreshToken,
            String family) throws IOException {
        String access = issue("mcpat_");
        accessTokens.put(access, new Grant(clientId, scopes, resource, Instant.now().plus(accessTokenLifetime), family));
        ObjectNode body = mapper.createObjectNode().put("access_token", access).put("token_type", "Bearer")
                .put("expires_in", accessTokenLifetime.toSeconds());
        if (!scopes.isEmpty()) {
            body.put("scope", String.join(" ", scopes));
        }
        if (refreshTokens && newRefreshToken) {
            String refresh = issue("mcprt_");
            refreshGrants.put(refresh, new Grant(clientId, scopes, resource, null, family));
            body.put("refresh_token", refresh);
        }
        call.json(200, body, Map.of("Cache-Control", "no-store", "Pragma", "no-cache"));
    }

    /**
     * Checks an RFC 8707 {@code resource}: present (unless not required), and the granted one, or (at the
     * authorization endpoint, {@code granted == null}) this server's MCP or SSE URL or its advertised resource.
     */
    private Refusal resourceRefusal(String where, String resource, String granted) {
        if (resource == null) {
            return requireResource ? new Refusal("invalid_request", where + ": resource parameter missing (RFC 8707)")
                    : null;
        }
        boolean known = granted != null ? resource.equals(granted)
                : resource.equals(mcpUrl()) || resource.equals(sseUrl()) || resource.equals(prmResource)
                        || servedResources.contains(resource);
        return known ? null : new Refusal("invalid_target", where + ": resource " + resource + " is not "
                + (granted != null ? "the one authorized" : "this server's"));
    }

    private void refuse(Call call, int status, Refusal refusal) throws IOException {
        errors.add(refusal.description());
        ObjectNode body = mapper.createObjectNode().put("error", refusal.error())
                .put("error_description", refusal.description());
        call.json(status, body, Map.of("Cache-Control", "no-store"));
    }

    // ---- small helpers ----

    private String issue(String prefix) {
        String secret = OAuthWire.randomSecret(prefix);
        issuedSecrets.add(secret);
        return secret;
    }

    private static List<String> scopes(String spaceSeparated) {
        if (spaceSeparated == null || spaceSeparated.isBlank()) {
            return List.of();
        }
        return List.copyOf(new LinkedHashSet<>(Arrays.asList(spaceSeparated.strip().split("\\s+"))));
    }

    @SafeVarargs
    private static List<String> union(List<String>... lists) {
        Set<String> all = new LinkedHashSet<>();
        for (List<String> list : lists) {
            all.addAll(list);
        }
        return List.copyOf(all);
    }

    private static void putList(ObjectNode node, String name, List<String> values) {
        if (!values.isEmpty()) {
            ArrayNode array = node.putArray(name);
            values.forEach(array::add);
        }
    }

    private static String text(JsonNode node, String fallback) {
        return node.isString() ? node.stringValue() : fallback;
    }

    /** One exchange being answered, and the endpoint whose responses it counts. */
    private final class Call {
        final HttpExchange http;
        final Endpoint endpoint;
        boolean sent;

        Call(HttpExchange http, Endpoint endpoint) {
            this.http = http;
            this.endpoint = endpoint;
        }

        String header(String name) {
            return http.getRequestHeaders().getFirst(name);
        }

        byte[] body() throws IOException {
            return http.getRequestBody().readAllBytes();
        }

        /** True when the request has this method; otherwise answers 405 and returns false. */
        boolean expect(String method) throws IOException {
            if (http.getRequestMethod().equals(method)) {
                return true;
            }
            send(405, "text/plain", "method not allowed", Map.of("Allow", method));
            return false;
        }

        void json(int status, JsonNode body, Map<String, String> headers) throws IOException {
            send(status, "application/json", mapper.writeValueAsString(body), headers);
        }

        /** Answers 200 with a body of unknown length (chunked), to be written and closed by the caller. */
        OutputStream stream(String contentType, Map<String, String> headers) throws IOException {
            sent = true;
            responses.computeIfAbsent(new StatusKey(endpoint, 200), k -> new AtomicInteger()).incrementAndGet();
            headers.forEach(http.getResponseHeaders()::set);
            http.getResponseHeaders().set("Content-Type", contentType);
            http.sendResponseHeaders(200, 0);
            return http.getResponseBody();
        }

        void send(int status, String contentType, String body, Map<String, String> headers) throws IOException {
            sent = true;
            responses.computeIfAbsent(new StatusKey(endpoint, status), k -> new AtomicInteger()).incrementAndGet();
            byte[] bytes = body.getBytes(UTF_8);
            headers.forEach(http.getResponseHeaders()::set);
            if (contentType != null) {
                http.getResponseHeaders().set("Content-Type", contentType);
            }
            http.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
            if (bytes.length > 0) {
                try (OutputStream out = http.getResponseBody()) {
                    out.write(bytes);
                }
            }
        }
    }

    /**
     * The switches of an {@link AuthTestServer}, all off by default. Not thread-safe; {@link #start()}
     * takes a snapshot, so reusing the builder never changes a running server.
     */
    public static final class Builder {
        private List<String> scopesSupported = List.of();
        private String requiredScope;
        private String toolCallScope;
        private Duration accessTokenLifetime = Duration.ofHours(1);
        private boolean refreshTokens = true;
        private boolean rotateRefreshTokens = true;
        private boolean detectRefreshTokenReuse;
        private boolean failRefresh;
        private boolean tamperState;
        private boolean alwaysInsufficientScope;
        private List<String> tokenEndpointAuthMethods = AUTH_METHODS;
        private boolean initializeWithoutAuth;
        private boolean resourceMetadataInChallenge = true;
        private boolean requireResource = true;
        private boolean openIdConfigurationOnly;
        private String issuerPath = "";
        private String prmResource;
        private boolean dynamicRegistration = true;
        private final List<Client> preRegistered = new ArrayList<>();

        private Builder() {
        }

        /**
         * A client registered ahead, as an administrator registers one for a server without Dynamic Client
         * Registration: its redirect URIs are compared character for character, port and host name included
         * ({@code localhost} is not {@code 127.0.0.1}), as a server does that holds a client to the URIs it was
         * registered with. Default: none.
         *
         * @param clientId the client id
         * @param clientSecret its secret, or {@code null} for a public client
         * @param authMethod {@code none}, {@code client_secret_basic} or {@code client_secret_post}
         * @param redirectUris the redirect URIs it may use
         * @return this builder
         */
        public Builder preRegisteredClient(String clientId, String clientSecret, String authMethod,
                List<String> redirectUris) {
            preRegistered.add(client(clientId, clientSecret, authMethod, redirectUris));
            return this;
        }

        private static Client client(String clientId, String clientSecret, String authMethod, List<String> redirectUris) {
            Objects.requireNonNull(clientId, "clientId");
            Objects.requireNonNull(authMethod, "authMethod");
            if (authMethod.equals("none") != (clientSecret == null)) {
                throw new IllegalArgumentException("a secret goes with client_secret_basic or client_secret_post only");
            }
            return new Client(clientId, clientSecret, authMethod, List.copyOf(redirectUris), true);
        }

        /**
         * Whether the metadata offers Dynamic Client Registration; when off, a registration is refused with 404 and
         * counted as an error. Default: on.
         *
         * @param on whether to offer it
         * @return this builder
         */
        public Builder dynamicRegistration(boolean on) {
            this.dynamicRegistration = on;
            return this;
        }

        /**
         * The scopes advertised in both metadata documents; when not empty, an authorization request for
         * any other scope is refused with {@code invalid_scope}. Default: none (not advertised, any accepted).
         *
         * @param scopes scope names
         * @return this builder
         */
        public Builder scopesSupported(List<String> scopes) {
            this.scopesSupported = List.copyOf(scopes);
            return this;
        }

        /**
         * Scopes every MCP request's token must carry (space-separated), named in the {@code scope} of the
         * 401 challenge; a token without them gets 403 {@code insufficient_scope}. Default: none.
         *
         * @param scope one scope or several, space-separated
         * @return this builder
         */
        public Builder requiredScope(String scope) {
            this.requiredScope = Objects.requireNonNull(scope, "scope");
            return this;
        }

        /**
         * Scopes that {@code tools/call} needs in addition to the required ones, for step-up authorization
         * tests: a token without them gets 403 {@code insufficient_scope} with a {@code scope} naming the
         * token's scopes and these. Default: none.
         *
         * @param scope one scope or several, space-separated
         * @return this builder
         */
        public Builder toolCallScope(String scope) {
            this.toolCallScope = Objects.requireNonNull(scope, "scope");
            return this;
        }

        /**
         * See {@link AuthTestServer#alwaysInsufficientScope(boolean)}. Default: off.
         *
         * @param on whether the switch starts on
         * @return this builder
         */
        public Builder alwaysInsufficientScope(boolean on) {
            this.alwaysInsufficientScope = on;
            return this;
        }

        /**
         * How long access tokens are valid. The server enforces it to the millisecond; {@code expires_in}
         * says it in whole seconds, rounded down. Default: one hour.
         *
         * @param lifetime a positive duration
         * @return this builder
         */
        public Builder accessTokenLifetime(Duration lifetime) {
            if (lifetime.isNegative() || lifetime.isZero()) {
                throw new IllegalArgumentException("accessTokenLifetime must be positive: " + lifetime);
            }
            this.accessTokenLifetime = lifetime;
            return this;
        }

        /**
         * Whether token responses include a refresh token (and the metadata the {@code refresh_token} grant).
         * Default: on.
         *
         * @param on whether refresh tokens are issued
         * @return this builder
         */
        public Builder refreshTokens(boolean on) {
            this.refreshTokens = on;
            return this;
        }

        /**
         * Whether a refresh replaces the refresh token (the old one stops working), as OAuth 2.1 asks for
         * public clients; when off, the refresh response has no new refresh token. Default: on.
         *
         * @param on whether refresh tokens rotate
         * @return this builder
         */
        public Builder rotateRefreshTokens(boolean on) {
            this.rotateRefreshTokens = on;
            return this;
        }

        /**
         * Whether a rotated refresh token that is used again (after its rotation, or twice at once) revokes the
         * whole grant it belongs to: the refresh token that replaced it and every access token issued along the
         * way, as OAuth 2.1 (section 4.3.1) advises for public clients and large providers do. Two clients that
         * share a credential and refresh it together then lose it, which is what tests of their coordination need
         * to see. Only with {@link #rotateRefreshTokens}. Default: off.
         *
         * @param on whether replays revoke the grant
         * @return this builder
         */
        public Builder detectRefreshTokenReuse(boolean on) {
            this.detectRefreshTokenReuse = on;
            return this;
        }

        /**
         * See {@link AuthTestServer#failRefresh(boolean)}. Default: off.
         *
         * @param on whether the switch starts on
         * @return this builder
         */
        public Builder failRefresh(boolean on) {
            this.failRefresh = on;
            return this;
        }

        /**
         * See {@link AuthTestServer#tamperState(boolean)}. Default: off.
         *
         * @param on whether the switch starts on
         * @return this builder
         */
        public Builder tamperState(boolean on) {
            this.tamperState = on;
            return this;
        }

        /**
         * The token endpoint authentication methods advertised and accepted at registration, a non-empty
         * subset of {@link AuthTestServer#AUTH_METHODS}. Default: all three.
         *
         * @param methods {@code none}, {@code client_secret_basic}, {@code client_secret_post}
         * @return this builder
         */
        public Builder tokenEndpointAuthMethods(List<String> methods) {
            if (methods.isEmpty() || !AUTH_METHODS.containsAll(methods)) {
                throw new IllegalArgumentException("tokenEndpointAuthMethods must be a non-empty subset of "
                        + AUTH_METHODS + ": " + methods);
            }
            this.tokenEndpointAuthMethods = List.copyOf(methods);
            return this;
        }

        /**
         * Lets {@code initialize} and {@code notifications/initialized} through without a token (every
         * other request still needs one), for step-up tests. Default: off.
         *
         * @param on whether the opening of a session is public
         * @return this builder
         */
        public Builder initializeWithoutAuth(boolean on) {
            this.initializeWithoutAuth = on;
            return this;
        }

        /**
         * Whether the challenge names {@code resource_metadata}; when off, a client must find the
         * metadata at its well-known URL. Default: on.
         *
         * @param on whether the challenge has the parameter
         * @return this builder
         */
        public Builder resourceMetadataInChallenge(boolean on) {
            this.resourceMetadataInChallenge = on;
            return this;
        }

        /**
         * Whether authorization and token requests without a {@code resource} parameter are refused
         * ({@code invalid_request}). Default: on, as the MCP spec requires the parameter.
         *
         * @param on whether the parameter is required
         * @return this builder
         */
        public Builder requireResource(boolean on) {
            this.requireResource = on;
            return this;
        }

        /**
         * Serves the authorization server metadata only as an OpenID configuration (both the path-inserted
         * and the path-appended URLs), not at the RFC 8414 URL. Default: off (RFC 8414 only).
         *
         * @param on whether only the OpenID configuration is served
         * @return this builder
         */
        public Builder openIdConfigurationOnly(boolean on) {
            this.openIdConfigurationOnly = on;
            return this;
        }

        /**
         * A path for the issuer, e.g. {@code /tenant1}: the endpoints move under it and the metadata URL
         * gets it appended. Default: none (the issuer is the base URL).
         *
         * @param path empty, or starting with {@code /} and not ending with one
         * @return this builder
         */
        public Builder issuerPath(String path) {
            if (!path.isEmpty() && (!path.startsWith("/") || path.endsWith("/"))) {
                throw new IllegalArgumentException("issuerPath must be empty or like /tenant1: " + path);
            }
            this.issuerPath = path;
            return this;
        }

        /**
         * Overrides the {@code resource} of the Protected Resource Metadata (normally {@link AuthTestServer#mcpUrl()},
         * or {@link AuthTestServer#sseUrl()} for {@code .../oauth-protected-resource/sse}), for tests where it does
         * not match the server the client connected to. Default: the URL of the endpoint the metadata is for.
         *
         * @param resource the resource identifier to advertise
         * @return this builder
         */
        public Builder prmResource(String resource) {
            this.prmResource = Objects.requireNonNull(resource, "resource");
            return this;
        }

        /**
         * Starts a server with these switches on 127.0.0.1 and a free port.
         *
         * @return the running server; close it
         * @throws IOException when the port cannot be bound
         */
        public AuthTestServer start() throws IOException {
            return new AuthTestServer(this);
        }
    }
}
