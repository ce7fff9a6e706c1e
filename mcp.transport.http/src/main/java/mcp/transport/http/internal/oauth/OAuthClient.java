package mcp.transport.http.internal.oauth;

import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import mcp.api.HttpServerConfig;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.StoredCredential;
import mcp.api.spi.AuthServices;
import mcp.api.spi.AuthorizationUi;
import mcp.transport.http.internal.Urls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OAuth 2.1 client of one HTTP server (Streamable HTTP or legacy HTTP+SSE), following the MCP
 * authorization specification (2025-11-25, with the 2025-03-26 fallbacks). The transport asks it for
 * the {@code Authorization} header of every request ({@link #authorization()}), lets it renew a token
 * about to expire before a request ({@link #ready()}), and hands it every 401, and every 403 whose
 * challenge says {@code insufficient_scope} ({@link #challenged}); when that completes, the transport
 * sends the request again.
 *
 * <p>On a challenge: refresh the token when there is a refresh token (not for a step-up); else
 * discover the authorization server, identify the client (pre-registered, Client ID Metadata
 * Document, or Dynamic Client Registration), and obtain a token with the configured grant:
 * authorization code with PKCE (through the {@link AuthorizationUi}; without one the request fails
 * with a message that says how to log in), client credentials, or cross-app access. A credential is
 * stored only once obtained: a failed flow never loses the previous one.
 *
 * <p>Secrets (tokens, codes, client secrets, private keys) never appear in a log line or a message.
 */
public final class OAuthClient {

    private static final Logger LOG = LoggerFactory.getLogger(OAuthClient.class);

    /** How many times one request may lead to an authorization before the client gives up. */
    public static final int MAX_ATTEMPTS = 3;

    /** How long the user has to authorize in the browser. */
    static final Duration USER_TIMEOUT = Duration.ofMinutes(5);

    /**
     * A token that expires within this margin is renewed before use (a tenth of its lifetime for
     * short-lived tokens).
     */
    static final Duration EXPIRY_MARGIN = Duration.ofSeconds(60);

    static final String GRANT_AUTHORIZATION_CODE = "authorization_code";
    static final String GRANT_CLIENT_CREDENTIALS = "client_credentials";
    static final String GRANT_CROSS_APP = "cross_app_access";
    static final String GRANT_JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

    /** The attribute with the resource indicator sent to the authorization server (the PRM's resource). */
    static final String RESOURCE_INDICATOR = "resource_indicator";

    /** The token request fields that hold a secret. */
    private static final List<String> SECRET_FIELDS = List.of("code", "code_verifier", "refresh_token", "client_secret",
            "client_assertion", "assertion", "subject_token");

    private static final SecureRandom RANDOM = new SecureRandom();

    private final String serverName;
    private final String credentialId;
    private final URI server;
    private final AuthServices services;
    private final Map<String, String> options;
    private final OAuthHttp http;
    private final Executor executor;
    private final Clock clock;
    private final Object lock = new Object();
    private StoredCredential current;
    private boolean loaded;
    private String unusable;
    private CompletableFuture<Void> flow;

    OAuthClient(String serverName, URI server, Optional<HttpServerConfig.AuthRef> auth, AuthServices services,
            OAuthHttp http, Executor executor, Clock clock) {
        this.serverName = serverName;
        this.server = server;
        this.credentialId = auth.map(HttpServerConfig.AuthRef::credentialId).filter(id -> !id.isBlank())
                .orElse(serverName);
        this.options = auth.map(HttpServerConfig.AuthRef::options).orElse(Map.of());
        this.services = services;
        this.http = http;
        this.executor = executor;
        this.clock = clock;
    }

    /**
     * @param serverName the server's name
     * @param server the server's URL
     * @param auth the config's {@code auth}: the credential id and the client options
     * @param services the storage and the UI
     * @param client the transport's HTTP client
     * @param timeout the bound of each exchange with an authorization server
     * @param executor where flows run (they block)
     * @param userAgent the User-Agent header
     * @return the client of this server
     */
    public static OAuthClient create(String serverName, URI server, Optional<HttpServerConfig.AuthRef> auth,
            AuthServices services, HttpClient client, Duration timeout, Executor executor, String userAgent) {
        return new OAuthClient(serverName, server, auth, services, new OAuthHttp(client, timeout, userAgent),
                executor, Clock.systemUTC());
    }

    /** @return the storage key of this server's credential */
    public String credentialId() {
        return credentialId;
    }

    /** @return the {@code Authorization} header value for the next request, when there is a token */
    public Optional<String> authorization() {
        StoredCredential credential = credential();
        return credential == null ? Optional.empty() : Optional.of(header(credential));
    }

    /**
     * @return a future that completes when a request may go out: at once, or after the renewal of a
     *     token about to expire (a failed renewal completes it too: the request then meets a 401)
     */
    public CompletableFuture<Void> ready() {
        StoredCredential credential = credential();
        if (credential == null || credential.refreshToken().isEmpty()
                || !credential.expiredAt(clock.instant(), margin(credential))) {
            return CompletableFuture.completedFuture(null);
        }
        synchronized (lock) {
            if (flow == null || flow.isDone()) {
                flow = CompletableFuture.runAsync(() -> {
                    try {
                        refresh(credential);
                    } catch (McpException e) {
                        LOG.info("MCP server \"{}\": renewing the access token failed: {}", serverName, e.getMessage());
                    }
                }, executor);
            }
            return flow.handle((v, e) -> null);
        }
    }

    /**
     * Handles a 401, or a 403 with {@code insufficient_scope}: obtains a better credential.
     *
     * @param status the HTTP status
     * @param wwwAuthenticate the response's {@code WWW-Authenticate} values
     * @param sentAuthorization the {@code Authorization} header the request carried, if any
     * @param attempt how many times this request has been challenged, this time included
     * @param statusMessage what the server answered, for the message when giving up
     * @return a future that completes when the request may be sent again, or fails with the reason
     */
    public CompletableFuture<Void> challenged(int status, List<String> wwwAuthenticate, Optional<String> sentAuthorization,
            int attempt, String statusMessage) {
        Challenge challenge = Challenge.parse(wwwAuthenticate);
        if (attempt > MAX_ATTEMPTS) {
            return CompletableFuture.failedFuture(new McpException(statusMessage + "; gave up after " + MAX_ATTEMPTS
                    + " authorizations for this request"));
        }
        synchronized (lock) {
            if (flow != null && !flow.isDone()) {
                // Another request is already obtaining a credential: its outcome is this request's too.
                return flow.exceptionallyCompose(error -> CompletableFuture.failedFuture(unwrap(error)));
            }
            if (status == 401 && !sentAuthorization.equals(authorization())) {
                // The credential changed since the request went out.
                return CompletableFuture.completedFuture(null);
            }
            flow = CompletableFuture.runAsync(() -> obtain(status, challenge, statusMessage), executor);
            return flow.exceptionallyCompose(error -> CompletableFuture.failedFuture(unwrap(error)));
        }
    }

    // ------------------------------------------------------------------------------------------ the flow

    private void obtain(int status, Challenge challenge, String statusMessage) {
        boolean stepUp = status == 403;
        StoredCredential previous = credential();
        if (!stepUp && previous != null && previous.refreshToken().isPresent()) {
            try {
                refresh(previous);
                return;
            } catch (McpException e) {
                LOG.info("MCP server \"{}\": renewing the access token failed ({}); authorizing again", serverName,
                        e.getMessage());
            }
        }
        LOG.info("MCP server \"{}\" asks for authorization ({}); discovering its authorization server", serverName,
                stepUp ? "more scopes: " + challenge.scope().orElse("none given") : "HTTP " + status);
        Optional<Discovery.ResourceMetadata> prm = Discovery.resourceMetadata(http, server, challenge);
        Discovery.AuthServer as;
        if (prm.isPresent()) {
            List<String> servers = prm.get().authorizationServers();
            if (servers.isEmpty()) {
                throw new McpException("the protected resource metadata at " + Urls.redact(prm.get().location())
                        + " names no authorization server");
            }
            as = Discovery.authServer(http, servers.get(0));
        } else {
            as = Discovery.legacyAuthServer(http, server);
        }
        String resource = prm.flatMap(Discovery.ResourceMetadata::resource).orElse(Discovery.canonical(server));
        String grant = grant();
        Optional<String> scope = scope(challenge, prm, as, previous, stepUp, grant);
        StoredCredential obtained = switch (grant) {
            case GRANT_CLIENT_CREDENTIALS -> clientCredentials(as, resource, scope);
            case GRANT_CROSS_APP -> crossAppAccess(as, resource, scope);
            default -> authorizationCode(as, resource, scope, previous, statusMessage);
        };
        store(obtained);
    }

    private String grant() {
        String grant = option("grant").orElse(GRANT_AUTHORIZATION_CODE).trim().toLowerCase(Locale.ROOT);
        return switch (grant) {
            case GRANT_CLIENT_CREDENTIALS -> GRANT_CLIENT_CREDENTIALS;
            case GRANT_CROSS_APP, GRANT_JWT_BEARER, "cross-app-access", "jwt_bearer" -> GRANT_CROSS_APP;
            case GRANT_AUTHORIZATION_CODE -> GRANT_AUTHORIZATION_CODE;
            default -> throw new McpException("the auth option \"grant\" is \"" + grant + "\"; use authorization_code, "
                    + "client_credentials or cross_app_access");
        };
    }

    /**
     * The scopes to ask for (MCP "Scope Selection Strategy"): the challenge's, else the configured
     * ones, else all of the PRM's {@code scopes_supported}, else none; a step-up adds the challenge's
     * to those held. {@code offline_access} is added for interactive logins when the authorization
     * server lists it (a refresh token spares the user the next login).
     */
    private Optional<String> scope(Challenge challenge, Optional<Discovery.ResourceMetadata> prm,
            Discovery.AuthServer as, StoredCredential previous, boolean stepUp, String grant) {
        Set<String> scopes = new LinkedHashSet<>();
        if (stepUp && previous != null) {
            scopes.addAll(previous.scopes());
        }
        Optional<String> chosen = challenge.scope().or(() -> option("scope"))
                .or(() -> prm.flatMap(Discovery.ResourceMetadata::scopesSupported).filter(list -> !list.isEmpty())
                        .map(list -> String.join(" ", list)));
        chosen.ifPresent(text -> scopes.addAll(split(text)));
        if (grant.equals(GRANT_AUTHORIZATION_CODE) && as.supportsScope("offline_access") && !scopes.isEmpty()) {
            scopes.add("offline_access");
        }
        return scopes.isEmpty() ? Optional.empty() : Optional.of(String.join(" ", scopes));
    }

    // ------------------------------------------------------------------------------------------ grants

    private StoredCredential authorizationCode(Discovery.AuthServer as, String resource, Optional<String> scope,
            StoredCredential previous, String statusMessage) {
        String why;
        synchronized (lock) {
            why = unusable == null ? "" : " (the stored credential cannot be used: " + unusable + ")";
        }
        AuthorizationUi ui = services.ui().orElseThrow(() -> new McpException(statusMessage
                + "; the server needs authorization" + why + ": run \"mcp-host auth login " + serverName + "\""));
        if (as.codeChallengeMethods().isPresent() && !as.codeChallengeMethods().get().contains("S256")) {
            throw new McpException("the authorization server " + as.issuer() + " does not support PKCE with S256 "
                    + "(code_challenge_methods_supported: " + as.codeChallengeMethods().get() + "); refusing to authorize");
        }
        int preferredPort = previous == null ? option("callbackPort").map(OAuthClient::port).orElse(0)
                : previous.attribute(StoredCredential.REDIRECT_URI).map(uri -> URI.create(uri).getPort()).orElse(0);
        try (AuthorizationUi.Receiver receiver = ui.open(serverName, Math.max(preferredPort, 0))) {
            String redirectUri = receiver.redirectUri().toString();
            Client client = client(as, redirectUri, previous);
            String verifier = random(32);
            String state = random(24);
            Map<String, String> query = new LinkedHashMap<>();
            query.put("response_type", "code");
            query.put("client_id", client.id());
            query.put("redirect_uri", redirectUri);
            query.put("state", state);
            query.put("code_challenge", challenge(verifier));
            query.put("code_challenge_method", "S256");
            query.put("resource", resource);
            scope.ifPresent(value -> query.put("scope", value));
            URI endpoint = as.authorizationEndpoint();
            URI authorizationUrl = URI.create(endpoint + (endpoint.getRawQuery() == null ? "?" : "&")
                    + OAuthHttp.form(query));
            LOG.info("MCP server \"{}\": asking the user to authorize at {}", serverName,
                    Urls.redact(as.authorizationEndpoint()));
            Map<String, String> answer = receiver.await(authorizationUrl, USER_TIMEOUT);
            checkIssuer(as, answer.get("iss"));
            if (answer.containsKey("error")) {
                throw new McpException("the authorization server refused the authorization: " + answer.get("error")
                        + Optional.ofNullable(answer.get("error_description")).map(d -> " (" + oneLine(d) + ")").orElse(""));
            }
            if (!state.equals(answer.get("state"))) {
                throw new McpException("the authorization answer carries a different state than the request; refusing "
                        + "it (a forged or stale redirect)");
            }
            String code = answer.get("code");
            if (code == null || code.isBlank()) {
                throw new McpException("the authorization answer carries no code");
            }
            Map<String, String> form = new LinkedHashMap<>();
            form.put("grant_type", "authorization_code");
            form.put("code", code);
            form.put("redirect_uri", redirectUri);
            form.put("code_verifier", verifier);
            form.put("resource", resource);
            TokenResponse token = token(as.tokenEndpoint(), form, client);
            return token.toCredential(clock.instant(), scope, Optional.empty(),
                    attributes(as, resource, client, GRANT_AUTHORIZATION_CODE));
        }
    }

    private StoredCredential clientCredentials(Discovery.AuthServer as, String resource, Optional<String> scope) {
        String clientId = option("clientId").orElseThrow(() -> new McpException(
                "the client_credentials grant needs a pre-registered client: set auth.clientId (and clientSecret or "
                        + "privateKey) in the server's config"));
        Client client = option("privateKey")
                .map(pem -> new Client(clientId, Optional.of(pem), "private_key_jwt", ""))
                .orElseGet(() -> {
                    Optional<String> secret = option("clientSecret");
                    return new Client(clientId, secret, method(as, secret.isPresent()), "");
                });
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", "client_credentials");
        form.put("resource", resource);
        scope.ifPresent(value -> form.put("scope", value));
        TokenResponse token = token(as.tokenEndpoint(), form, client, as.issuer());
        return token.toCredential(clock.instant(), scope, Optional.empty(),
                attributes(as, resource, client, GRANT_CLIENT_CREDENTIALS));
    }

    private StoredCredential crossAppAccess(Discovery.AuthServer as, String resource, Optional<String> scope) {
        String clientId = required("clientId", "cross-app access");
        String clientSecret = required("clientSecret", "cross-app access");
        URI idpTokenEndpoint = URI.create(required("idpTokenEndpoint", "cross-app access"));
        String idToken = required("idToken", "cross-app access");
        String idJag = CrossAppAccess.requestIdJag(http, idpTokenEndpoint, required("idpClientId", "cross-app access"),
                option("idpClientSecret"), idToken, as.issuer(), resource, scope);
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", GRANT_JWT_BEARER);
        form.put("assertion", idJag);
        scope.ifPresent(value -> form.put("scope", value));
        Client client = new Client(clientId, Optional.of(clientSecret), "client_secret_basic", "");
        TokenResponse token = token(as.tokenEndpoint(), form, client);
        return token.toCredential(clock.instant(), scope, Optional.empty(),
                attributes(as, resource, client, GRANT_CROSS_APP));
    }

    /** Renews with the refresh token; stores the new credential. */
    private void refresh(StoredCredential credential) {
        String endpoint = credential.attribute(StoredCredential.TOKEN_ENDPOINT).orElseThrow(
                () -> new McpException("the stored credential does not say where to renew it"));
        Client client = new Client(credential.attribute(StoredCredential.CLIENT_ID).orElse(""),
                credential.attribute(StoredCredential.CLIENT_SECRET),
                credential.attribute(StoredCredential.TOKEN_ENDPOINT_AUTH_METHOD).orElse("none"),
                credential.attribute(StoredCredential.REDIRECT_URI).orElse(""));
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", "refresh_token");
        form.put("refresh_token", credential.refreshToken().orElseThrow());
        credential.attribute(RESOURCE_INDICATOR).ifPresent(resource -> form.put("resource", resource));
        TokenResponse token = token(URI.create(endpoint), form, client);
        Optional<String> scope = credential.scopes().isEmpty() ? Optional.empty()
                : Optional.of(String.join(" ", credential.scopes()));
        store(token.toCredential(clock.instant(), scope, credential.refreshToken(), credential.attributes()));
        LOG.info("MCP server \"{}\": access token renewed", serverName);
    }

    // ------------------------------------------------------------------------------------------ the client

    /** The client's identity at the authorization server. {@code secret} is a private key for private_key_jwt. */
    private record Client(String id, Optional<String> secret, String method, String redirectUri) {
        @Override
        public String toString() {
            return "Client[id=" + id + ", method=" + method + "]";
        }
    }

    private Client client(Discovery.AuthServer as, String redirectUri, StoredCredential previous) {
        Optional<String> configured = option("clientId");
        if (configured.isPresent()) {
            Optional<String> secret = option("clientSecret");
            return new Client(configured.get(), secret, method(as, secret.isPresent()), redirectUri);
        }
        Optional<String> metadataUrl = option("clientMetadataUrl");
        if (as.clientIdMetadataDocumentSupported() && metadataUrl.isPresent()) {
            return new Client(metadataUrl.get(), Optional.empty(), "none", redirectUri);
        }
        if (previous != null && previous.attribute(StoredCredential.ISSUER).filter(as.issuer()::equals).isPresent()
                && previous.attribute(StoredCredential.REDIRECT_URI).filter(redirectUri::equals).isPresent()
                && previous.attribute(StoredCredential.CLIENT_ID).isPresent()) {
            return new Client(previous.attribute(StoredCredential.CLIENT_ID).get(),
                    previous.attribute(StoredCredential.CLIENT_SECRET),
                    previous.attribute(StoredCredential.TOKEN_ENDPOINT_AUTH_METHOD).orElse("none"), redirectUri);
        }
        URI registration = as.registrationEndpoint().orElseThrow(() -> new McpException("the authorization server "
                + as.issuer() + " offers no dynamic client registration; register mcp-host there and set auth.clientId "
                + "(and auth.clientSecret) in the server's config"));
        return register(as, registration, redirectUri);
    }

    /**
     * RFC 9207 (2026-07-28, SEP-2468): an authorization answer that names an issuer must name this one, compared
     * as strings (no normalisation); one that names none is refused when the server said it always does. Checked
     * before anything else of the answer is used, its error included: an answer from a mix-up is not shown.
     */
    static void checkIssuer(Discovery.AuthServer as, String iss) {
        if (iss != null && !iss.equals(as.issuer())) {
            throw new McpException("the authorization answer comes from the issuer " + iss + ", not " + as.issuer()
                    + " that was asked; refusing it (an authorization server mix-up)");
        }
        if (iss == null && as.issParameterSupported()) {
            throw new McpException("the authorization answer names no issuer although " + as.issuer()
                    + " says it always does (authorization_response_iss_parameter_supported); refusing it");
        }
    }

    /** Dynamic Client Registration (RFC 7591). */
    private Client register(Discovery.AuthServer as, URI endpoint, String redirectUri) {
        ObjectNode body = McpJson.object();
        body.put("client_name", "mcp-host");
        // A command-line and desktop client with a loopback redirect (2026-07-28, SEP-837: clients say which).
        body.put("application_type", "native");
        body.putArray("redirect_uris").add(redirectUri);
        ArrayNode grants = body.putArray("grant_types").add("authorization_code");
        if (as.grantTypes().isEmpty() || as.supportsGrant("refresh_token")) {
            // Asked for only where the server may issue it (a server that lists its grants without it does not).
            grants.add("refresh_token");
        }
        body.putArray("response_types").add("code");
        List<String> methods = as.tokenEndpointAuthMethods();
        String wanted = methods.isEmpty() || methods.contains("none") ? "none"
                : methods.contains("client_secret_basic") ? "client_secret_basic"
                : methods.contains("client_secret_post") ? "client_secret_post" : "none";
        body.put("token_endpoint_auth_method", wanted);
        OAuthHttp.Answer answer = http.postJson(endpoint, body);
        if (!answer.ok()) {
            throw new McpException("registering mcp-host at " + Urls.redact(endpoint) + " failed: "
                    + OAuthHttp.oauthError(answer));
        }
        JsonNode json = OAuthHttp.parse(answer.body(), "the client registration at " + Urls.redact(endpoint));
        String clientId = Discovery.text(json, "client_id").orElseThrow(() -> new McpException(
                "the client registration at " + Urls.redact(endpoint) + " returned no client_id"));
        Optional<String> secret = Discovery.text(json, "client_secret");
        String method = Discovery.text(json, "token_endpoint_auth_method")
                .orElseGet(() -> secret.isPresent() ? method(as, true) : "none");
        LOG.info("MCP server \"{}\": registered mcp-host at {}", serverName, Urls.redact(endpoint));
        return new Client(clientId, secret, method, redirectUri);
    }

    /** The token endpoint authentication for a client with or without a secret, as the server advertises. */
    private static String method(Discovery.AuthServer as, boolean hasSecret) {
        if (!hasSecret) {
            return "none";
        }
        List<String> methods = as.tokenEndpointAuthMethods();
        if (methods.isEmpty() || methods.contains("client_secret_basic")) {
            return "client_secret_basic";
        }
        return methods.contains("client_secret_post") ? "client_secret_post" : "client_secret_basic";
    }

    private TokenResponse token(URI endpoint, Map<String, String> form, Client client) {
        return token(endpoint, form, client, null);
    }

    /** A token request with the client's authentication. */
    private TokenResponse token(URI endpoint, Map<String, String> form, Client client, String audience) {
        Map<String, String> fields = new LinkedHashMap<>(form);
        Optional<String> authorization = Optional.empty();
        switch (client.method()) {
            case "client_secret_basic" -> authorization = Optional.of(OAuthHttp.basic(client.id(),
                    client.secret().orElse("")));
            case "client_secret_post" -> {
                fields.put("client_id", client.id());
                fields.put("client_secret", client.secret().orElse(""));
            }
            case "private_key_jwt" -> {
                fields.put("client_id", client.id());
                fields.put("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
                fields.put("client_assertion", Jwt.clientAssertion(client.id(), audience == null ? endpoint.toString()
                        : audience, Jwt.parsePrivateKey(client.secret().orElseThrow()), clock));
            }
            default -> fields.put("client_id", client.id());
        }
        OAuthHttp.Answer answer = http.postForm(endpoint, fields, authorization);
        if (!answer.ok()) {
            // A server may echo what it was sent: none of it may reach the message.
            List<String> secrets = new ArrayList<>();
            for (String name : SECRET_FIELDS) {
                Optional.ofNullable(fields.get(name)).ifPresent(secrets::add);
            }
            client.secret().ifPresent(secrets::add);
            throw new McpException("the token request (" + form.get("grant_type") + ") at " + Urls.redact(endpoint)
                    + " failed: " + OAuthHttp.oauthError(answer, secrets));
        }
        return parseToken(answer, endpoint);
    }

    static TokenResponse parseToken(OAuthHttp.Answer answer, URI endpoint) {
        JsonNode json = OAuthHttp.parse(answer.body(), "the token endpoint " + Urls.redact(endpoint));
        String accessToken = Discovery.text(json, "access_token").orElseThrow(() -> new McpException(
                "the token endpoint " + Urls.redact(endpoint) + " returned no access_token"));
        String type = Discovery.text(json, "token_type").orElse("Bearer");
        JsonNode expires = json.get("expires_in");
        Optional<Long> expiresIn = expires != null && expires.isNumber() ? Optional.of(expires.asLong())
                : expires != null && expires.isString() && expires.stringValue().matches("\\d{1,12}")
                        ? Optional.of(Long.parseLong(expires.stringValue())) : Optional.empty();
        return new TokenResponse(accessToken, type, Discovery.text(json, "refresh_token"), expiresIn,
                Discovery.text(json, "scope"));
    }

    private Map<String, String> attributes(Discovery.AuthServer as, String resource, Client client, String grant) {
        Map<String, String> attributes = new LinkedHashMap<>();
        attributes.put(StoredCredential.RESOURCE, Discovery.canonical(server));
        attributes.put(RESOURCE_INDICATOR, resource);
        attributes.put(StoredCredential.ISSUER, as.issuer());
        attributes.put(StoredCredential.TOKEN_ENDPOINT, as.tokenEndpoint().toString());
        attributes.put(StoredCredential.CLIENT_ID, client.id());
        attributes.put(StoredCredential.TOKEN_ENDPOINT_AUTH_METHOD, client.method());
        if (!client.method().equals("private_key_jwt")) {
            client.secret().ifPresent(secret -> attributes.put(StoredCredential.CLIENT_SECRET, secret));
        }
        if (!client.redirectUri().isEmpty()) {
            attributes.put(StoredCredential.REDIRECT_URI, client.redirectUri());
        }
        attributes.put(StoredCredential.GRANT, grant);
        return attributes;
    }

    // ------------------------------------------------------------------------------------------ the credential

    private StoredCredential credential() {
        synchronized (lock) {
            if (!loaded) {
                loaded = true;
                try {
                    current = services.storage().load(credentialId).filter(this::forThisServer).orElse(null);
                } catch (McpException e) {
                    // Corrupt or unsafe: never used; the message names the file and the fix.
                    unusable = e.getMessage();
                    LOG.warn("MCP server \"{}\": the stored credential cannot be used: {}", serverName, e.getMessage());
                }
            }
            return current;
        }
    }

    /** A token is never sent to another server than the one it was obtained for. */
    private boolean forThisServer(StoredCredential credential) {
        Optional<String> resource = credential.attribute(StoredCredential.RESOURCE);
        if (resource.isPresent() && !resource.get().equals(Discovery.canonical(server))) {
            LOG.info("MCP server \"{}\": the stored credential \"{}\" is for another URL; it is not used", serverName,
                    credentialId);
            return false;
        }
        return true;
    }

    private void store(StoredCredential credential) {
        try {
            services.storage().save(credentialId, credential);
        } catch (McpException e) {
            // The session goes on with it; the next run will have to authorize again.
            LOG.warn("MCP server \"{}\": the new credential is used but could not be stored: {}", serverName,
                    e.getMessage());
        }
        synchronized (lock) {
            current = credential;
            loaded = true;
        }
        LOG.info("MCP server \"{}\": credential stored (scopes: {}, expires: {})", serverName,
                credential.scopes().isEmpty() ? "none" : String.join(" ", credential.scopes()),
                credential.expiresAt().map(Instant::toString).orElse("not said"));
    }

    // ------------------------------------------------------------------------------------------ helpers

    private static Duration margin(StoredCredential credential) {
        return credential.expiresAt().map(expiry -> Duration.between(credential.obtainedAt(), expiry).dividedBy(10))
                .filter(tenth -> tenth.compareTo(EXPIRY_MARGIN) < 0).orElse(EXPIRY_MARGIN);
    }

    private static String header(StoredCredential credential) {
        return "Bearer " + credential.accessToken();
    }

    private Optional<String> option(String name) {
        return Optional.ofNullable(options.get(name)).map(String::trim).filter(value -> !value.isEmpty());
    }

    private String required(String name, String what) {
        return option(name).orElseThrow(() -> new McpException(what + " needs the auth option \"" + name
                + "\" in the server's config"));
    }

    private static int port(String text) {
        try {
            int port = Integer.parseInt(text.trim());
            return port > 0 && port < 65536 ? port : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static List<String> split(String scopes) {
        List<String> out = new ArrayList<>();
        for (String scope : scopes.trim().split("\\s+")) {
            if (!scope.isEmpty()) {
                out.add(scope);
            }
        }
        return out;
    }

    /** @return {@code bytes} random bytes, base64url without padding */
    static String random(int bytes) {
        byte[] value = new byte[bytes];
        RANDOM.nextBytes(value);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(value);
    }

    /** The PKCE S256 challenge of a verifier (RFC 7636 §4.2). */
    static String challenge(String verifier) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    private static String oneLine(String text) {
        String line = text.replace('\r', ' ').replace('\n', ' ').trim();
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }

    private static Throwable unwrap(Throwable error) {
        Throwable current = error;
        while (current instanceof CompletionException && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }
}
