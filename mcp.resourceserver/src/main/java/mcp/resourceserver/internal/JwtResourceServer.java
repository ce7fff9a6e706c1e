package mcp.resourceserver.internal;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.JWKMatcher;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.JWKSetCacheRefreshEvaluator;
import com.nimbusds.jose.jwk.source.JWKSetSource;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.jwk.source.RateLimitReachedException;
import com.nimbusds.jose.jwk.source.URLBasedJWKSetSource;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.text.ParseException;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.resourceserver.OAuthResourceServer;
import mcp.server.Caller;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The resource server on Nimbus JOSE+JWT: its {@link DefaultJWTProcessor} checks the JOSE header's type, the
 * algorithm (only those configured) and the signature with a key from the issuer's JWK set; Nimbus's remote JWK
 * source fetches that set (bounded connect and read, bounded size), caches it, fetches it again when a token names an
 * unknown key id, and limits those fetches. The claims are checked here, so that each refusal says what failed.
 *
 * <p>Thread-safety: the key source is made once, under {@link #lock}, when the issuer's {@code jwks_uri} is first
 * known; after that everything is read-only or Nimbus's (thread-safe).
 */
public final class JwtResourceServer implements OAuthResourceServer {

    private static final Logger LOG = LoggerFactory.getLogger(OAuthResourceServer.class);
    /** The root of the protected resource metadata's well-known paths (RFC 9728, section 3). */
    static final String WELL_KNOWN = "/.well-known/oauth-protected-resource";
    /** After a failed metadata fetch, requests fail at once for this long instead of each asking the issuer again. */
    private static final long RETRY_AFTER_FAILURE_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** The most a key set may weigh: real ones are a few kilobytes. */
    private static final int MAX_JWKS_BYTES = 256 * 1024;
    /** The token types accepted: RFC 9068's, and the plain JWT or none that most providers still issue. */
    private static final Set<JOSEObjectType> TYPES = new LinkedHashSet<>(java.util.Arrays.asList(JOSEObjectType.JWT,
            new JOSEObjectType("at+jwt"), new JOSEObjectType("application/at+jwt"), null));

    /** At most one warning per this long about keys that cannot be fetched, however many requests fail on it. */
    private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final Settings settings;
    private final URI metadataUri;
    /** When the key set was last fetched ({@link System#nanoTime()}); none yet: a time far enough in the past. */
    private final AtomicLong fetched = new AtomicLong(System.nanoTime() - TimeUnit.DAYS.toNanos(1));
    /** When the last warning about the keys was logged. */
    private final AtomicLong warned = new AtomicLong(System.nanoTime() - TimeUnit.DAYS.toNanos(1));
    private final Set<String> documentPaths;
    private final ObjectNode metadata;
    private final IssuerDocuments documents;
    private final Object lock = new Object();
    /** Set once the key source exists; then never changes. */
    private volatile Keys keys;
    /** Guarded by {@link #lock}: when the issuer's metadata last failed, and why. */
    private long failedAt;
    private String failure;

    /** The key source and the processor over it. */
    private record Keys(JWKSource<SecurityContext> source, DefaultJWTProcessor<SecurityContext> processor) {
    }

    /** @param settings what tokens are checked against */
    public JwtResourceServer(Settings settings) {
        this.settings = settings;
        URI resource = settings.resource();
        String path = resource.getRawPath() == null ? "" : resource.getRawPath();
        path = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        String origin = resource.getScheme() + "://" + resource.getRawAuthority();
        this.metadataUri = URI.create(origin + WELL_KNOWN + path);
        this.documentPaths = Set.of(WELL_KNOWN + path, WELL_KNOWN);
        ObjectNode document = McpJson.object();
        document.put("resource", resource.toString());
        document.putArray("authorization_servers").add(settings.issuer().toString());
        ArrayNode scopes = document.putArray("scopes_supported");
        new TreeSet<>(settings.scopesSupported()).forEach(scopes::add);
        document.putArray("bearer_methods_supported").add("header");
        this.metadata = document;
        this.documents = new IssuerDocuments(settings.httpTimeout());
    }

    @Override
    public Settings settings() {
        return settings;
    }

    @Override
    public URI metadataUri() {
        return metadataUri;
    }

    @Override
    public Optional<JsonNode> document(String path) {
        return documentPaths.contains(path) ? Optional.of(metadata.deepCopy()) : Optional.empty();
    }

    @Override
    public void prefetch() {
        Keys current = keys();
        try {
            current.source().get(new JWKSelector(new JWKMatcher.Builder().build()), null);
        } catch (KeySourceException e) {
            throw new McpException("the issuer's keys could not be fetched: " + e.getMessage(), e);
        }
    }

    @Override
    public Outcome authenticate(String method, String path, Function<String, Optional<String>> header) {
        Optional<String> authorization = header.apply("Authorization");
        String token = authorization.filter(value -> value.regionMatches(true, 0, "Bearer ", 0, 7))
                .map(value -> value.substring(7).trim()).orElse("");
        if (token.isEmpty()) {
            return new Refused(401, "Unauthorized: this endpoint needs an OAuth access token (Authorization: Bearer); "
                    + "how to get one: " + metadataUri, challenge(Map.of()));
        }
        DefaultJWTProcessor<SecurityContext> processor = keys().processor();
        JWTClaimsSet claims;
        try {
            claims = processor.process(token, null);
        } catch (RuntimeException e) {
            // Nimbus's parsers throw unchecked exceptions on some malformed headers (a JSON null where an object
            // belongs): still the sender's malformed token, not a fault of the server.
            LOG.debug("OAuth: token refused: {}", e.toString());
            return invalid("the token is not a signed JWT");
        } catch (ParseException e) {
            return invalid("the token is not a signed JWT");
        } catch (RateLimitReachedException e) {
            if (keysAreFresh()) {
                // The set was fetched a moment ago and has no such key: the token's key is not the issuer's.
                return invalid("the token is signed with a key the issuer does not publish");
            }
            // No fresh set to judge by (the issuer is down and its keys expired): the token may be good.
            throw new IllegalStateException("the issuer's keys could not be fetched", e);
        } catch (KeySourceException e) {
            // Nimbus's message names the URL and the failure, never the token. Once per window, not per request.
            long now = System.nanoTime();
            long last = warned.get();
            if (now - last > WARN_EVERY_NANOS && warned.compareAndSet(last, now)) {
                LOG.warn("OAuth: the issuer's keys could not be fetched: {}", e.getMessage());
            }
            throw new IllegalStateException("the issuer's keys could not be fetched", e);
        } catch (BadJOSEException | JOSEException e) {
            // What the header said (its type, its algorithm) may be the sender's text: the log, not the answer.
            LOG.debug("OAuth: token refused: {}", e.getMessage());
            if (e instanceof BadJOSEException && String.valueOf(e.getMessage()).contains("no matching key")) {
                // Nimbus's words when no published key fits the token's algorithm and key id, after a fetch.
                return invalid("the token's algorithm is not accepted, or it is signed with a key the issuer does "
                        + "not publish");
            }
            return invalid("the token's type, algorithm, key or signature is not accepted");
        }
        Optional<String> problem = problem(claims);
        if (problem.isPresent()) {
            return invalid(problem.get());
        }
        JsonNode all = McpJson.mapper().valueToTree(claims.toJSONObject());
        Set<String> scopes = scopes(all);
        Set<String> missing = new TreeSet<>(settings.requiredScopes());
        missing.removeAll(scopes);
        if (!missing.isEmpty()) {
            Map<String, String> parameters = new LinkedHashMap<>();
            parameters.put("error", "insufficient_scope");
            parameters.put("error_description", "the token lacks the scope " + String.join(" ", missing));
            return new Refused(403, "Forbidden: the token lacks the scope " + String.join(" ", missing),
                    challenge(parameters));
        }
        Optional<String> client = text(all.path("client_id")).or(() -> text(all.path("azp")));
        Optional<String> subject = text(all.path("sub")).or(() -> client);
        if (subject.isEmpty()) {
            return invalid("the token names no subject");
        }
        return new Allowed(new Caller(subject.get(), client, groups(all), scopes, all));
    }

    /** @return what is wrong with the claims, or empty */
    private Optional<String> problem(JWTClaimsSet claims) {
        if (!settings.issuer().toString().equals(claims.getIssuer())) {
            return Optional.of("the token is not from the issuer this resource trusts");
        }
        List<String> audience = claims.getAudience();
        if (audience == null || !audience.contains(settings.audience())) {
            return Optional.of("the token is not for this resource (its audience)");
        }
        long now = System.currentTimeMillis();
        long skew = settings.clockSkew().toMillis();
        Date expiry = claims.getExpirationTime();
        if (expiry == null) {
            return Optional.of("the token has no expiry");
        }
        if (now > expiry.getTime() + skew) {
            return Optional.of("the token has expired");
        }
        Date notBefore = claims.getNotBeforeTime();
        if (notBefore != null && now + skew < notBefore.getTime()) {
            return Optional.of("the token is not valid yet");
        }
        return Optional.empty();
    }

    private Refused invalid(String description) {
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("error", "invalid_token");
        parameters.put("error_description", description);
        return new Refused(401, "Unauthorized: " + description, challenge(parameters));
    }

    /** The {@code WWW-Authenticate} header: the error, where the metadata is, and the scopes a token needs. */
    private Map<String, String> challenge(Map<String, String> error) {
        Map<String, String> parameters = new LinkedHashMap<>(error);
        parameters.put("resource_metadata", metadataUri.toString());
        if (!settings.requiredScopes().isEmpty()) {
            parameters.put("scope", String.join(" ", new TreeSet<>(settings.requiredScopes())));
        }
        // Every value is ours (no text of the request), and none holds a quote or a backslash.
        String value = parameters.entrySet().stream().map(entry -> entry.getKey() + "=\"" + entry.getValue() + "\"")
                .collect(Collectors.joining(", ", "Bearer ", ""));
        return Map.of("WWW-Authenticate", value);
    }

    private static Set<String> scopes(JsonNode claims) {
        Set<String> scopes = new LinkedHashSet<>();
        words(claims.path("scope"), scopes);
        words(claims.path("scp"), scopes);
        return scopes;
    }

    private Set<String> groups(JsonNode claims) {
        JsonNode node = claims;
        for (String part : settings.groupsClaim().split("\\.")) {
            node = node.path(part);
        }
        Set<String> groups = new LinkedHashSet<>();
        words(node, groups);
        return groups;
    }

    /** A claim of words: an array of strings, or one string of words apart by spaces or commas. */
    private static void words(JsonNode node, Set<String> into) {
        if (node.isArray()) {
            for (JsonNode item : node) {
                if (item.isString() && !item.asString().isBlank()) {
                    into.add(item.asString());
                }
            }
        } else if (node.isString()) {
            for (String word : node.asString().split("[\\s,]+")) {
                if (!word.isEmpty()) {
                    into.add(word);
                }
            }
        }
    }

    private static Optional<String> text(JsonNode node) {
        return node.isString() && !node.asString().isBlank() ? Optional.of(node.asString()) : Optional.empty();
    }

    /** The key source, made the first time the issuer's {@code jwks_uri} is known. */
    private Keys keys() {
        Keys current = keys;
        if (current != null) {
            return current;
        }
        synchronized (lock) {
            if (keys != null) {
                return keys;
            }
            if (failure != null && System.nanoTime() - failedAt < RETRY_AFTER_FAILURE_NANOS) {
                throw new McpException(failure);
            }
            URI jwksUri;
            try {
                jwksUri = settings.jwksUri().orElseGet(() -> documents.jwksUri(settings.issuer()));
            } catch (McpException e) {
                failure = e.getMessage();
                failedAt = System.nanoTime();
                LOG.warn("OAuth: {}", failure);
                throw e;
            }
            JWKSource<SecurityContext> source = source(jwksUri);
            Keys made = new Keys(source, processor(source));
            keys = made;
            LOG.debug("OAuth: the keys of {} are read from {}", settings.issuer(), jwksUri);
            return made;
        }
    }

    private JWKSource<SecurityContext> source(URI jwksUri) {
        URL url;
        try {
            url = jwksUri.toURL();
        } catch (MalformedURLException | IllegalArgumentException e) {
            throw new McpException("the JWKS URI is not a URL: " + jwksUri, e);
        }
        int timeout = (int) settings.httpTimeout().toMillis();
        JWKSetSource<SecurityContext> remote = new URLBasedJWKSetSource<>(url,
                new DefaultResourceRetriever(timeout, timeout, MAX_JWKS_BYTES));
        JWKSetSource<SecurityContext> recorded = new JWKSetSource<>() {
            @Override
            public JWKSet getJWKSet(JWKSetCacheRefreshEvaluator evaluator, long now, SecurityContext context)
                    throws KeySourceException {
                JWKSet set = remote.getJWKSet(evaluator, now, context);
                fetched.set(System.nanoTime());
                return set;
            }

            @Override
            public void close() throws java.io.IOException {
                remote.close();
            }
        };
        JWKSourceBuilder<SecurityContext> builder = JWKSourceBuilder.<SecurityContext>create(recorded)
                // A thread that waits for another's fetch waits no longer than that fetch may take.
                .cache(settings.jwksCacheTtl().toMillis(), 2L * timeout + 1000)
                .refreshAheadCache(false)
                .retrying(false)
                .outageTolerant(false);
        builder = settings.jwksMinRefresh().isZero() ? builder.rateLimited(false)
                : builder.rateLimited(settings.jwksMinRefresh().toMillis());
        return builder.build();
    }

    /** @return whether the key set was fetched within its time to live: what it lacks, the issuer does not publish */
    private boolean keysAreFresh() {
        return System.nanoTime() - fetched.get() < settings.jwksCacheTtl().toNanos();
    }

    private DefaultJWTProcessor<SecurityContext> processor(JWKSource<SecurityContext> source) {
        DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
        processor.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(TYPES));
        Set<JWSAlgorithm> algorithms = settings.algorithms().stream().map(JWSAlgorithm::parse)
                .collect(Collectors.toUnmodifiableSet());
        processor.setJWSKeySelector(new JWSVerificationKeySelector<>(algorithms, source));
        // The claims are checked by problem(), each failure with its own description.
        processor.setJWTClaimsSetVerifier((claims, context) -> { });
        return processor;
    }
}
