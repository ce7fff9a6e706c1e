package mcp.auth.internal;

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
import mcp.api.spi.AuthStorage;
import mcp.api.spi.AuthorizationUi;
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
 * with a message that says how to log in), client credentials, cross-app access, or workload identity
 * (the RFC 7523 JWT bearer grant with the workload's own token). A credential is stored only once
 * obtained: a failed flow never loses the previous one.
 *
 * <p>DPoP (RFC 9449): when the authorization server takes ES256 proofs (or the {@code dpop} option says
 * so), token requests carry a proof of a key pair kept with the credential, and a DPoP-bound token is
 * presented as {@code Authorization: DPoP <token>} with a fresh proof per request ({@link #present});
 * the nonces servers ask for ({@code use_dpop_nonce}) are sent once asked for, at the token endpoint and
 * at the MCP server.
 *
 * <p>A renewal with the refresh token happens under the credential's {@linkplain AuthStorage#lock lock}, after
 * reading the store again: when another process (or another client of this JVM) that shares the credential has
 * renewed it meanwhile, its credential is taken and the token endpoint is not asked. A rotating refresh token is
 * so spent once, however many mcp-host processes hold it.
 *
 * <p>Registrations are kept by issuer (SEP-2352): a client registered at one authorization server is
 * never presented to another; when the resource's authorization server changes, mcp-host registers at
 * the new one, and keeps the old registration for when it changes back.
 *
 * <p>Secrets (tokens, codes, client secrets, private keys) never appear in a log line or a message.
 */
public final class OAuthClient {

    private static final Logger LOG = LoggerFactory.getLogger(OAuthClient.class);

    /**
     * The version of mcp-host, sent as {@code User-Agent: mcp-host/<version>} where no caller names one (the
     * headless authorization UI); {@code mcp.transport.http.HttpTransports.VERSION} is this value.
     */
    public static final String VERSION = "0.1.0";

    /** How many times one request may lead to an authorization before the client gives up. */
    public static final int MAX_ATTEMPTS = 3;

    /** How long the user has to authorize in the browser. */
    static final Duration USER_TIMEOUT = Duration.ofMinutes(5);

    /**
     * A token that expires within this margin is renewed before use (a tenth of its lifetime for
     * short-lived tokens).
     */
    static final Duration EXPIRY_MARGIN = Duration.ofSeconds(60);

    /**
     * Added to twice the exchange timeout for the wait for the lock of a credential that another holder is
     * renewing: that holder's renewal is at most two token requests (the second for a DPoP nonce), each bounded
     * by its timeout, so a waiter that gives up sooner would fail a request while a sound renewal is under way.
     */
    static final Duration LOCK_MARGIN = Duration.ofSeconds(5);

    static final String GRANT_AUTHORIZATION_CODE = "authorization_code";
    static final String GRANT_CLIENT_CREDENTIALS = "client_credentials";
    static final String GRANT_CROSS_APP = "cross_app_access";
    static final String GRANT_JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
    /** Workload identity federation (SEP-1933): the RFC 7523 JWT bearer grant with the workload's own token. */
    static final String GRANT_WORKLOAD_IDENTITY = "workload_identity";

    /** The attribute with the DPoP key pair the credential is bound to (a secret; see {@link Dpop#encoded()}). */
    static final String DPOP_KEY = "dpop_key";

    /**
     * The attributes of a client registered at one authorization server are kept under
     * {@code <attribute>@<issuer>} (the issuer as its metadata names it, unchanged): a registration is used
     * only with the issuer it came from (SEP-2352), and one of an earlier authorization server is kept for
     * when the resource goes back to it.
     */
    private static final List<String> REGISTRATION_ATTRIBUTES = List.of(StoredCredential.CLIENT_ID,
            StoredCredential.CLIENT_SECRET, StoredCredential.TOKEN_ENDPOINT_AUTH_METHOD, StoredCredential.REDIRECT_URI);

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
    /** How long a renewal waits for the credential's lock while another holder renews it. */
    private final Duration lockTimeout;
    private final Object lock = new Object();
    private StoredCredential current;
    private boolean loaded;
    private String unusable;
    private CompletableFuture<Void> flow;
    /** The DPoP key of {@link #current}, decoded once. */
    private Dpop currentKey;
    private String currentKeyText;
    /** The latest DPoP nonce of each server (authorization servers and this resource server), by origin. */
    private final Map<String, String> nonces = new java.util.concurrent.ConcurrentHashMap<>();

    OAuthClient(String serverName, URI server, Optional<HttpServerConfig.AuthRef> auth, AuthServices services,
            OAuthHttp http, Executor executor, Clock clock) {
        this(serverName, server, auth, services, http, executor, clock,
                http.timeout().multipliedBy(2).plus(LOCK_MARGIN));
    }

    OAuthClient(String serverName, URI server, Optional<HttpServerConfig.AuthRef> auth, AuthServices services,
            OAuthHttp http, Executor executor, Clock clock, Duration lockTimeout) {
        this.serverName = serverName;
        this.server = server;
        this.credentialId = auth.map(HttpServerConfig.AuthRef::credentialId).filter(id -> !id.isBlank())
                .orElse(serverName);
        this.options = auth.map(HttpServerConfig.AuthRef::options).orElse(Map.of());
        this.services = services;
        this.http = http;
        this.executor = executor;
        this.clock = clock;
        this.lockTimeout = lockTimeout;
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
     * What one request to the MCP server presents.
     *
     * @param authorization the {@code Authorization} header, when there is a token
     * @param proof the {@code DPoP} header, when the token is DPoP-bound (RFC 9449 §7.1)
     * @param nonce the server nonce the proof carries, if any
     */
    public record Presentation(Optional<String> authorization, Optional<String> proof, Optional<String> nonce) {

        /** Nothing to present. */
        public static final Presentation NONE = new Presentation(Optional.empty(), Optional.empty(), Optional.empty());

        @Override
        public String toString() {
            return "Presentation[authorization=" + authorization.isPresent() + ", proof=" + proof.isPresent() + "]";
        }
    }

    /**
     * The headers of one request: the {@code Authorization} header and, for a DPoP-bound token, a fresh
     * proof for this method and URI with the token's hash ({@code ath}) and the server's latest nonce.
     *
     * @param method the HTTP method
     * @param target the request URI
     * @return what to present
     */
    public Presentation present(String method, URI target) {
        StoredCredential credential = credential();
        if (credential == null) {
            return Presentation.NONE;
        }
        if (!isDpop(credential)) {
            return new Presentation(Optional.of(header(credential)), Optional.empty(), Optional.empty());
        }
        Dpop key = key(credential);
        if (key == null) {
            // A DPoP-bound token whose key is gone cannot be used: the server's 401 leads to a new authorization.
            return new Presentation(Optional.of(header(credential)), Optional.empty(), Optional.empty());
        }
        Optional<String> nonce = Optional.ofNullable(nonces.get(Dpop.origin(target)));
        return new Presentation(Optional.of(header(credential)),
                Optional.of(key.proof(method, target, Optional.of(credential.accessToken()), nonce, clock)), nonce);
    }

    /**
     * Keeps the nonce a server sent with a response (RFC 9449 §8.2, §9: it may send a new one with any
     * response), for the proofs of the next requests to it.
     *
     * @param target the request URI
     * @param nonce the response's {@code DPoP-Nonce}, if any
     */
    public void nonce(URI target, Optional<String> nonce) {
        nonce.filter(OAuthClient::usableNonce).ifPresent(value -> nonces.put(Dpop.origin(target), value));
    }

    /** A nonce is sent back in a JWT claim: printable ASCII only (RFC 9449 §8.1), and bounded. */
    private static boolean usableNonce(String value) {
        return !value.isEmpty() && value.length() <= 1024 && value.chars().allMatch(c -> c > 0x20 && c < 0x7f);
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
                        renew(credential);
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
        return challenged(status, wwwAuthenticate, Optional.empty(),
                new Presentation(sentAuthorization, Optional.empty(), Optional.empty()), attempt, statusMessage);
    }

    /**
     * As {@link #challenged(int, List, Optional, int, String)}, for a request that presented {@code sent}: a
     * DPoP {@code use_dpop_nonce} challenge (RFC 9449 §9) with a nonce the request did not carry is answered by
     * sending the request again with it, without a new authorization; once only, since a second one for the
     * same nonce means the server will not take it.
     *
     * @param dpopNonce the response's {@code DPoP-Nonce} header, if any
     * @param sent what the request presented
     */
    public CompletableFuture<Void> challenged(int status, List<String> wwwAuthenticate, Optional<String> dpopNonce,
            Presentation sent, int attempt, String statusMessage) {
        Challenge challenge = Challenge.parse(wwwAuthenticate);
        Optional<String> sentAuthorization = sent.authorization();
        if (attempt > MAX_ATTEMPTS) {
            return CompletableFuture.failedFuture(new McpException(statusMessage + "; gave up after " + MAX_ATTEMPTS
                    + " authorizations for this request"));
        }
        if (status == 401 && challenge.useDpopNonce() && sent.proof().isPresent()) {
            Optional<String> nonce = dpopNonce.filter(OAuthClient::usableNonce);
            if (nonce.isEmpty() || nonce.equals(sent.nonce())) {
                return CompletableFuture.failedFuture(new McpException(statusMessage + "; the server asks for a DPoP "
                        + "nonce " + (nonce.isEmpty() ? "without giving one (no DPoP-Nonce header)"
                        : "but refused the proof that carried it")));
            }
            nonces.put(Dpop.origin(server), nonce.get());
            LOG.debug("MCP server \"{}\": it asks for a DPoP nonce; sending the request again with it", serverName);
            return CompletableFuture.completedFuture(null);
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
            flow = CompletableFuture.runAsync(() -> obtain(status, challenge, statusMessage, attempt), executor);
            return flow.exceptionallyCompose(error -> CompletableFuture.failedFuture(unwrap(error)));
        }
    }

    // ------------------------------------------------------------------------------------------ the flow

    private void obtain(int status, Challenge challenge, String statusMessage, int attempt) {
        boolean stepUp = status == 403;
        StoredCredential previous = credential();
        // A refresh only for the request's first 401: a token it gave was refused already (the resource may have
        // moved to another authorization server, whose discovery comes next).
        if (!stepUp && attempt <= 1 && previous != null && previous.refreshToken().isPresent()) {
            try {
                renew(previous);
                return;
            } catch (LockUnavailable e) {
                // Another holder is renewing it: a new authorization now would only race that renewal.
                throw e;
            } catch (McpException e) {
                LOG.info("MCP server \"{}\": renewing the access token failed ({}); authorizing again", serverName,
                        e.getMessage());
            }
        }
        LOG.info("MCP server \"{}\" asks for authorization ({}); discovering its authorization server", serverName,
                stepUp ? "more scopes: " + challenge.scope().orElse("none given") : "HTTP " + status);
        Optional<Discovery.ResourceMetadata> prm;
        Discovery.AuthServer as;
        Optional<Discovery.AuthServer> configured = configuredAuthServer();
        if (configured.isPresent()) {
            // The owner named the endpoints (Gemini CLI's authorizationUrl and tokenUrl): it discovers nothing, and
            // neither does mcp-host, since such a server often publishes no metadata at all.
            prm = Optional.empty();
            as = configured.get();
        } else {
            prm = Discovery.resourceMetadata(http, server, challenge);
            Optional<String> metadataUrl = option("authServerMetadataUrl");
            if (metadataUrl.isPresent()) {
                // The owner named the metadata (Claude Code's authServerMetadataUrl): used instead of the issuer the
                // resource names, which is why it is set (a resource that names none, or names a front door).
                as = Discovery.authServerAt(http, uri("authServerMetadataUrl", metadataUrl.get()));
            } else if (prm.isPresent()) {
                List<String> servers = prm.get().authorizationServers();
                if (servers.isEmpty()) {
                    throw new McpException("the protected resource metadata at " + Urls.redact(prm.get().location())
                            + " names no authorization server");
                }
                as = Discovery.authServer(http, servers.get(0));
            } else {
                as = Discovery.legacyAuthServer(http, server);
            }
        }
        String resource = option("resource").or(() -> prm.flatMap(Discovery.ResourceMetadata::resource))
                .orElse(Discovery.canonical(server));
        String grant = grant();
        Optional<String> scope = scope(challenge, prm, as, previous, stepUp, grant);
        checkPreRegisteredIssuer(as, previous);
        Optional<Dpop> dpop = dpopFor(as, previous);
        StoredCredential obtained = switch (grant) {
            case GRANT_CLIENT_CREDENTIALS -> clientCredentials(as, resource, scope, dpop);
            case GRANT_CROSS_APP -> crossAppAccess(as, resource, scope, dpop);
            case GRANT_WORKLOAD_IDENTITY -> workloadIdentity(as, resource, scope, dpop);
            default -> authorizationCode(as, resource, scope, previous, statusMessage, dpop);
        };
        store(withKeptRegistrations(obtained, previous));
    }

    private String grant() {
        String grant = option("grant").orElse(GRANT_AUTHORIZATION_CODE).trim().toLowerCase(Locale.ROOT);
        return switch (grant) {
            case GRANT_CLIENT_CREDENTIALS -> GRANT_CLIENT_CREDENTIALS;
            case GRANT_CROSS_APP, GRANT_JWT_BEARER, "cross-app-access", "jwt_bearer" -> GRANT_CROSS_APP;
            case GRANT_WORKLOAD_IDENTITY, "workload-identity", "wif" -> GRANT_WORKLOAD_IDENTITY;
            case GRANT_AUTHORIZATION_CODE -> GRANT_AUTHORIZATION_CODE;
            default -> throw new McpException("the auth option \"grant\" is \"" + grant + "\"; use authorization_code, "
                    + "client_credentials, cross_app_access or workload_identity");
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
            StoredCredential previous, String statusMessage, Optional<Dpop> dpop) {
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
        // The redirect URI of this issuer's registration, so that it can be used again.
        Optional<String> registeredRedirect = Optional.ofNullable(registration(previous, as.issuer())
                .get(StoredCredential.REDIRECT_URI));
        int preferredPort = previous == null ? option("callbackPort").map(OAuthClient::port).orElse(0)
                : registeredRedirect.or(() -> previous.attribute(StoredCredential.REDIRECT_URI))
                        .map(uri -> URI.create(uri).getPort()).orElse(0);
        Optional<URI> fixedRedirect = fixedRedirect(Math.max(preferredPort, 0));
        try (AuthorizationUi.Receiver receiver = fixedRedirect.isPresent() ? ui.open(serverName, fixedRedirect.get())
                : ui.open(serverName, Math.max(preferredPort, 0))) {
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
            if (as.fromMetadata() || option("issuer").isPresent() || configuredAuthServer().isEmpty()) {
                // With endpoints the owner named and no issuer, there is no issuer to compare an answer's with.
                checkIssuer(as, answer.get("iss"));
            }
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
            TokenResponse token = token(as.tokenEndpoint(), form, client, null, dpop);
            return token.toCredential(clock.instant(), scope, Optional.empty(),
                    attributes(as, resource, client, GRANT_AUTHORIZATION_CODE, dpop));
        }
    }

    private StoredCredential clientCredentials(Discovery.AuthServer as, String resource, Optional<String> scope,
            Optional<Dpop> dpop) {
        String clientId = option("clientId").orElseThrow(() -> new McpException(
                "the client_credentials grant needs a pre-registered client: set auth.clientId (and clientSecret or "
                        + "privateKey) in the server's config"));
        Client client = option("privateKey")
                .map(pem -> new Client(clientId, Optional.of(pem), "private_key_jwt", "", false))
                .orElseGet(() -> {
                    Optional<String> secret = option("clientSecret");
                    return new Client(clientId, secret, method(as, secret.isPresent()), "", false);
                });
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", "client_credentials");
        form.put("resource", resource);
        scope.ifPresent(value -> form.put("scope", value));
        TokenResponse token = token(as.tokenEndpoint(), form, client, as.issuer(), dpop);
        return token.toCredential(clock.instant(), scope, Optional.empty(),
                attributes(as, resource, client, GRANT_CLIENT_CREDENTIALS, dpop));
    }

    private StoredCredential crossAppAccess(Discovery.AuthServer as, String resource, Optional<String> scope,
            Optional<Dpop> dpop) {
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
        Client client = new Client(clientId, Optional.of(clientSecret), "client_secret_basic", "", false);
        TokenResponse token = token(as.tokenEndpoint(), form, client, null, dpop);
        return token.toCredential(clock.instant(), scope, Optional.empty(),
                attributes(as, resource, client, GRANT_CROSS_APP, dpop));
    }

    /**
     * Workload identity federation (SEP-1933): the RFC 7523 JWT bearer grant with the token the workload's
     * platform gave it (a Kubernetes service account token, a CI job's OIDC token, ...), read afresh for every
     * token request (such tokens are short-lived and rotated), from {@code assertion} or {@code assertionFile}.
     * There is no refresh: when the access token is refused, the grant runs again. A refusal is reported as the
     * server words it, with no retry and no other grant.
     */
    private StoredCredential workloadIdentity(Discovery.AuthServer as, String resource, Optional<String> scope,
            Optional<Dpop> dpop) {
        String assertion = workloadToken();
        Optional<String> clientId = option("clientId");
        Client client = option("privateKey").filter(pem -> clientId.isPresent())
                .map(pem -> new Client(clientId.get(), Optional.of(pem), "private_key_jwt", "", false))
                .orElseGet(() -> {
                    Optional<String> secret = option("clientSecret").filter(value -> clientId.isPresent());
                    return new Client(clientId.orElse(""), secret, method(as, secret.isPresent()), "", false);
                });
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", GRANT_JWT_BEARER);
        form.put("assertion", assertion);
        form.put("resource", resource);
        scope.ifPresent(value -> form.put("scope", value));
        TokenResponse token = token(as.tokenEndpoint(), form, client, as.issuer(), dpop);
        return token.toCredential(clock.instant(), scope, Optional.empty(),
                attributes(as, resource, client, GRANT_WORKLOAD_IDENTITY, dpop));
    }

    /** The workload's JWT: the {@code assertion} option, else the content of {@code assertionFile}. */
    private String workloadToken() {
        Optional<String> given = option("assertion");
        if (given.isPresent()) {
            return given.get();
        }
        String file = required("assertionFile", "the workload_identity grant (or set \"assertion\")");
        java.nio.file.Path path = java.nio.file.Path.of(file);
        try {
            if (java.nio.file.Files.size(path) > 64 * 1024) {
                throw new McpException("the workload identity token file " + path + " is larger than 64 KiB; it is "
                        + "not a JWT");
            }
            String token = java.nio.file.Files.readString(path, StandardCharsets.UTF_8).strip();
            if (token.isEmpty()) {
                throw new McpException("the workload identity token file " + path + " is empty");
            }
            return token;
        } catch (java.io.IOException e) {
            throw new McpException("cannot read the workload identity token file " + path + ": "
                    + e.getClass().getSimpleName(), e);
        }
    }

    /**
     * Renews the credential this client holds, once across every holder of it: under the credential's lock (in
     * the store, so across processes), the store is read again. When another holder has renewed the credential
     * since this client read it, that one is taken as it is, or, when it is about to expire too, renewed with
     * its own refresh token; only when the store still holds this client's credential (or holds none, or one
     * that cannot be read) is this client's refresh token spent. Without the lock, two holders of one rotating
     * refresh token both send it: the authorization server takes the first and refuses the second, or, taking it
     * for a replay, revokes the credential of both.
     *
     * @param held the credential this client holds, with a refresh token
     * @throws LockUnavailable when the lock is not obtained in time: nothing was sent
     * @throws McpException when the renewal fails
     */
    private void renew(StoredCredential held) {
        AuthStorage.CredentialLock locked;
        try {
            locked = services.storage().lock(credentialId, lockTimeout);
        } catch (McpException e) {
            throw new LockUnavailable(e);
        }
        try (locked) {
            StoredCredential latest = reload();
            if (latest != null && !sameTokens(latest, held)) {
                if (!latest.expiredAt(clock.instant(), margin(latest))) {
                    adopt(latest);
                    LOG.info("MCP server \"{}\": the credential was renewed by another holder of it; using that one",
                            serverName);
                    return;
                }
                if (latest.refreshToken().isPresent()) {
                    refresh(latest);
                    return;
                }
            }
            refresh(held);
        }
    }

    /** Not renewed, because another holder of the credential kept its lock too long; the message says which. */
    private static final class LockUnavailable extends McpException {
        private static final long serialVersionUID = 1L;

        LockUnavailable(McpException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /** @return the stored credential now, when it is for this server and can be read; else null */
    private StoredCredential reload() {
        try {
            return services.storage().load(credentialId).filter(this::forThisServer).orElse(null);
        } catch (McpException e) {
            // Renewing the one in memory replaces the unreadable one, as a renewal always did.
            LOG.debug("MCP server \"{}\": the stored credential cannot be read again: {}", serverName, e.getMessage());
            return null;
        }
    }

    private static boolean sameTokens(StoredCredential a, StoredCredential b) {
        return a.accessToken().equals(b.accessToken()) && a.refreshToken().equals(b.refreshToken());
    }

    /** Takes the credential another holder stored, without storing it again. */
    private void adopt(StoredCredential credential) {
        synchronized (lock) {
            current = credential;
            loaded = true;
        }
    }

    /** Renews with the refresh token; stores the new credential. */
    private void refresh(StoredCredential credential) {
        String endpoint = credential.attribute(StoredCredential.TOKEN_ENDPOINT).orElseThrow(
                () -> new McpException("the stored credential does not say where to renew it"));
        Client client = new Client(credential.attribute(StoredCredential.CLIENT_ID).orElse(""),
                credential.attribute(StoredCredential.CLIENT_SECRET),
                credential.attribute(StoredCredential.TOKEN_ENDPOINT_AUTH_METHOD).orElse("none"),
                credential.attribute(StoredCredential.REDIRECT_URI).orElse(""), false);
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", "refresh_token");
        form.put("refresh_token", credential.refreshToken().orElseThrow());
        credential.attribute(RESOURCE_INDICATOR).ifPresent(resource -> form.put("resource", resource));
        // A refresh token obtained with a proof is bound to that key (RFC 9449 §5): the renewal proves it again.
        TokenResponse token = token(URI.create(endpoint), form, client, null, Optional.ofNullable(key(credential)));
        Optional<String> scope = credential.scopes().isEmpty() ? Optional.empty()
                : Optional.of(String.join(" ", credential.scopes()));
        store(token.toCredential(clock.instant(), scope, credential.refreshToken(), credential.attributes()));
        LOG.info("MCP server \"{}\": access token renewed", serverName);
    }

    // ------------------------------------------------------------------------------------------ the client

    /**
     * The client's identity at the authorization server. {@code secret} is a private key for private_key_jwt;
     * {@code registered}: obtained by Dynamic Client Registration (and so kept, under its issuer).
     */
    private record Client(String id, Optional<String> secret, String method, String redirectUri, boolean registered) {
        @Override
        public String toString() {
            return "Client[id=" + id + ", method=" + method + "]";
        }
    }

    private Client client(Discovery.AuthServer as, String redirectUri, StoredCredential previous) {
        Optional<String> configured = option("clientId");
        if (configured.isPresent()) {
            Optional<String> secret = option("clientSecret");
            return new Client(configured.get(), secret, configuredMethod(as, secret.isPresent()), redirectUri, false);
        }
        Optional<String> metadataUrl = option("clientMetadataUrl");
        if (as.clientIdMetadataDocumentSupported() && metadataUrl.isPresent()) {
            // A Client ID Metadata Document is portable across authorization servers: nothing to register.
            return new Client(metadataUrl.get(), Optional.empty(), "none", redirectUri, false);
        }
        Map<String, String> registered = registration(previous, as.issuer());
        if (redirectUri.equals(registered.get(StoredCredential.REDIRECT_URI))
                && registered.containsKey(StoredCredential.CLIENT_ID)) {
            return new Client(registered.get(StoredCredential.CLIENT_ID),
                    Optional.ofNullable(registered.get(StoredCredential.CLIENT_SECRET)),
                    registered.getOrDefault(StoredCredential.TOKEN_ENDPOINT_AUTH_METHOD, "none"), redirectUri, true);
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
        return new Client(clientId, secret, method, redirectUri, true);
    }

    /**
     * The token endpoint authentication of a pre-registered client: the {@code tokenEndpointAuthMethod} option (the
     * owner's way, for a server that takes only that one and does not say so), else as the server advertises.
     */
    private String configuredMethod(Discovery.AuthServer as, boolean hasSecret) {
        Optional<String> method = option("tokenEndpointAuthMethod").map(m -> m.toLowerCase(Locale.ROOT));
        if (method.isEmpty()) {
            return method(as, hasSecret);
        }
        return switch (method.get()) {
            case "none" -> "none";
            case "client_secret_basic", "client_secret_post" -> {
                if (!hasSecret) {
                    throw new McpException("the auth option \"tokenEndpointAuthMethod\" is " + method.get()
                            + ", which needs \"clientSecret\" too");
                }
                yield method.get();
            }
            default -> throw new McpException("the auth option \"tokenEndpointAuthMethod\" is \"" + method.get()
                    + "\"; use client_secret_basic, client_secret_post or none");
        };
    }

    /**
     * The authorization server of the {@code authorizationEndpoint} and {@code tokenEndpoint} options, when both
     * are set: no metadata, so no registration, and the {@code issuer} option (else the token endpoint's origin) as
     * its name.
     */
    private Optional<Discovery.AuthServer> configuredAuthServer() {
        Optional<String> authorization = option("authorizationEndpoint");
        Optional<String> token = option("tokenEndpoint");
        if (authorization.isEmpty() && token.isEmpty()) {
            return Optional.empty();
        }
        if (authorization.isEmpty() || token.isEmpty()) {
            throw new McpException("the auth options \"authorizationEndpoint\" and \"tokenEndpoint\" go together; "
                    + "set both, or neither to discover them");
        }
        URI tokenEndpoint = uri("tokenEndpoint", token.get());
        return Optional.of(Discovery.configured(uri("authorizationEndpoint", authorization.get()), tokenEndpoint,
                option("issuer").orElse(Discovery.origin(tokenEndpoint).toString().replaceAll("/$", ""))));
    }

    /** An absolute http(s) URL of an option. */
    private static URI uri(String option, String text) {
        try {
            URI uri = new URI(text.trim());
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if ((scheme.equals("https") || scheme.equals("http")) && uri.getHost() != null) {
                return uri;
            }
        } catch (java.net.URISyntaxException e) {
            // reported below
        }
        throw new McpException("the auth option \"" + option + "\" must be an absolute http(s) URL");
    }

    /**
     * The redirect URI of the {@code redirectUri} option, where the owner's pre-registered client expects the
     * answer (Claude Code's {@code http://localhost:<port>/callback}, Codex's {@code .../callback/<id>}); its port,
     * else {@code preferredPort} (the {@code callbackPort} option or the last one used), else any.
     *
     * @throws McpException when the option is not an {@code http} URI of a loopback host: mcp-host receives the
     *     answer on this machine only
     */
    private Optional<URI> fixedRedirect(int preferredPort) {
        Optional<String> written = option("redirectUri");
        if (written.isEmpty()) {
            return Optional.empty();
        }
        URI uri;
        try {
            uri = new URI(written.get());
        } catch (java.net.URISyntaxException e) {
            throw new McpException("the auth option \"redirectUri\" is not a valid URI");
        }
        String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
        if (!"http".equalsIgnoreCase(uri.getScheme()) || !LOOPBACK_HOSTS.contains(host) || uri.getRawQuery() != null
                || uri.getRawFragment() != null) {
            throw new McpException("the auth option \"redirectUri\" must be an http URI of 127.0.0.1, localhost or "
                    + "[::1] without query: mcp-host receives the authorization answer on this machine only, not at "
                    + Urls.redact(uri));
        }
        int port = uri.getPort() > 0 ? uri.getPort() : preferredPort;
        try {
            return Optional.of(new URI("http", null, uri.getHost(), port > 0 ? port : -1,
                    uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getPath(), null, null));
        } catch (java.net.URISyntaxException e) {
            throw new McpException("the auth option \"redirectUri\" is not a valid URI");
        }
    }

    private static final Set<String> LOOPBACK_HOSTS = Set.of("127.0.0.1", "localhost", "[::1]", "::1");

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

    /**
     * A token request with the client's authentication and, with a DPoP key, a proof (RFC 9449 §5); a
     * {@code use_dpop_nonce} answer with a new nonce is answered once by the same request with a fresh proof
     * that carries it (§8).
     */
    private TokenResponse token(URI endpoint, Map<String, String> form, Client client, String audience,
            Optional<Dpop> dpop) {
        OAuthHttp.Answer answer = null;
        Map<String, String> fields = form;
        for (int round = 0; round < 2; round++) {
            fields = authenticated(endpoint, form, client, audience);
            Map<String, String> headers = new LinkedHashMap<>();
            Optional<String> nonce = Optional.ofNullable(nonces.get(Dpop.origin(endpoint)));
            dpop.ifPresent(key -> headers.put(Dpop.HEADER, key.proof("POST", endpoint, Optional.empty(), nonce, clock)));
            answer = http.postForm(endpoint, fields, authorization(client), headers);
            Optional<String> given = answer.header(Dpop.NONCE_HEADER).filter(OAuthClient::usableNonce);
            given.ifPresent(value -> nonces.put(Dpop.origin(endpoint), value));
            if (answer.ok() || dpop.isEmpty() || !OAuthHttp.errorCode(answer).equals(Dpop.USE_DPOP_NONCE)
                    || given.isEmpty() || given.equals(nonce)) {
                break;
            }
            LOG.debug("MCP server \"{}\": the token endpoint {} asks for a DPoP nonce; asking again with it", serverName,
                    Urls.redact(endpoint));
        }
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

    /** The {@code Authorization} header of the client's authentication, for {@code client_secret_basic}. */
    private static Optional<String> authorization(Client client) {
        return client.method().equals("client_secret_basic")
                ? Optional.of(OAuthHttp.basic(client.id(), client.secret().orElse(""))) : Optional.empty();
    }

    /** The form with the client's authentication in it (a new client assertion each time: its jti is single-use). */
    private Map<String, String> authenticated(URI endpoint, Map<String, String> form, Client client, String audience) {
        Map<String, String> fields = new LinkedHashMap<>(form);
        switch (client.method()) {
            case "client_secret_basic" -> {
                // In the header.
            }
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
            default -> {
                // A public client names itself; a workload with no client id at all sends none (RFC 7523 §3.1).
                if (!client.id().isEmpty()) {
                    fields.put("client_id", client.id());
                }
            }
        }
        return fields;
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

    private Map<String, String> attributes(Discovery.AuthServer as, String resource, Client client, String grant,
            Optional<Dpop> dpop) {
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
        dpop.ifPresent(key -> attributes.put(DPOP_KEY, key.encoded()));
        if (client.registered()) {
            for (String name : REGISTRATION_ATTRIBUTES) {
                Optional.ofNullable(attributes.get(name)).ifPresent(value -> attributes.put(name + "@" + as.issuer(), value));
            }
        }
        return attributes;
    }

    /**
     * The registrations of the other authorization servers the previous credential kept, carried over to the
     * new one (the new one's own replace those of its issuer).
     */
    private static StoredCredential withKeptRegistrations(StoredCredential obtained, StoredCredential previous) {
        if (previous == null) {
            return obtained;
        }
        Map<String, String> kept = new LinkedHashMap<>();
        String issuer = obtained.attribute(StoredCredential.ISSUER).orElse("");
        previous.attributes().forEach((name, value) -> {
            int at = name.indexOf('@');
            if (at > 0 && REGISTRATION_ATTRIBUTES.contains(name.substring(0, at)) && !name.substring(at + 1).equals(issuer)
                    && !obtained.attributes().containsKey(name)) {
                kept.put(name, value);
            }
        });
        // A registration at the previous issuer from before registrations were kept by issuer.
        previous.attribute(StoredCredential.ISSUER).filter(old -> !old.equals(issuer)).ifPresent(old -> {
            Map<String, String> legacy = registration(previous, old);
            legacy.forEach((name, value) -> kept.putIfAbsent(name + "@" + old, value));
        });
        return kept.isEmpty() ? obtained : obtained.withAttributes(kept);
    }

    /**
     * The client registered at an issuer, as the credential keeps it: under {@code <attribute>@<issuer>}, or,
     * in a credential stored before registrations were kept by issuer, the plain attributes when the
     * credential's issuer is this one and it was obtained with a registered client.
     *
     * @return the registration's attributes by their plain names; empty when there is none for this issuer
     */
    static Map<String, String> registration(StoredCredential credential, String issuer) {
        Map<String, String> out = new LinkedHashMap<>();
        if (credential == null) {
            return out;
        }
        for (String name : REGISTRATION_ATTRIBUTES) {
            credential.attribute(name + "@" + issuer).ifPresent(value -> out.put(name, value));
        }
        if (out.isEmpty() && credential.attribute(StoredCredential.ISSUER).filter(issuer::equals).isPresent()
                && credential.attribute(StoredCredential.REDIRECT_URI).isPresent()
                && credential.attributes().keySet().stream().noneMatch(name -> name.contains("@"))) {
            for (String name : REGISTRATION_ATTRIBUTES) {
                credential.attribute(name).ifPresent(value -> out.put(name, value));
            }
        }
        return out;
    }

    /**
     * A pre-registered client belongs to the authorization server it was registered at (SEP-2352): with the
     * {@code issuer} option, another authorization server is refused; without it, so is a change of the
     * authorization server that last issued this credential with the same configured client. Either way the
     * user learns it, rather than the client's secret going to a server it was never meant for.
     */
    private void checkPreRegisteredIssuer(Discovery.AuthServer as, StoredCredential previous) {
        Optional<String> clientId = option("clientId");
        if (clientId.isEmpty()) {
            return;
        }
        Optional<String> bound = option("issuer");
        if (bound.isPresent()) {
            if (!bound.get().equals(as.issuer())) {
                throw new McpException("the authorization server of this server is now " + as.issuer() + ", but the "
                        + "pre-registered client (auth.clientId) is for " + bound.get() + " (auth.issuer); register "
                        + "mcp-host at " + as.issuer() + " and set auth.clientId and auth.issuer to that registration");
            }
            return;
        }
        if (previous != null && previous.attribute(StoredCredential.CLIENT_ID).equals(clientId)) {
            Optional<String> before = previous.attribute(StoredCredential.ISSUER);
            if (before.isPresent() && !before.get().equals(as.issuer())) {
                throw new McpException("the authorization server of this server changed from " + before.get() + " to "
                        + as.issuer() + "; the pre-registered client (auth.clientId) was used with " + before.get()
                        + " and is not sent to another one. If it is registered at " + as.issuer() + " too, set "
                        + "auth.issuer to " + as.issuer() + "; otherwise register mcp-host there and update auth.clientId");
            }
        }
    }

    // ------------------------------------------------------------------------------------------ DPoP

    /**
     * The DPoP key for a new credential, or none: with the {@code dpop} option {@code auto} (the default) when
     * the authorization server takes ES256 proofs ({@code dpop_signing_alg_values_supported}), {@code on}
     * always, {@code off} never. The key of the previous credential is kept when it came from the same issuer.
     */
    private Optional<Dpop> dpopFor(Discovery.AuthServer as, StoredCredential previous) {
        String mode = option("dpop").orElse("auto").toLowerCase(Locale.ROOT);
        boolean use = switch (mode) {
            case "auto" -> as.supportsDpopEs256();
            case "on", "true", "always" -> true;
            case "off", "false", "never" -> false;
            default -> throw new McpException("the auth option \"dpop\" is \"" + mode + "\"; use auto, on or off");
        };
        if (!use) {
            return Optional.empty();
        }
        if (previous != null && previous.attribute(StoredCredential.ISSUER).filter(as.issuer()::equals).isPresent()) {
            Dpop kept = key(previous);
            if (kept != null) {
                return Optional.of(kept);
            }
        }
        return Optional.of(Dpop.generate());
    }

    /** @return the DPoP key a credential is bound to, or null */
    private Dpop key(StoredCredential credential) {
        String text = credential.attribute(DPOP_KEY).orElse(null);
        if (text == null) {
            return null;
        }
        synchronized (lock) {
            if (!text.equals(currentKeyText)) {
                currentKey = Dpop.decode(text).orElse(null);
                currentKeyText = text;
                if (currentKey == null) {
                    LOG.warn("MCP server \"{}\": the DPoP key stored with the credential \"{}\" cannot be read; a new "
                            + "authorization will make a new one", serverName, credentialId);
                }
            }
            return currentKey;
        }
    }

    private static boolean isDpop(StoredCredential credential) {
        return credential.tokenType().equalsIgnoreCase(Dpop.SCHEME);
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

    /** {@code Bearer <token>}, or {@code DPoP <token>} for a DPoP-bound one (RFC 9449 §7.1). */
    private static String header(StoredCredential credential) {
        return (isDpop(credential) ? Dpop.SCHEME : "Bearer") + " " + credential.accessToken();
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
