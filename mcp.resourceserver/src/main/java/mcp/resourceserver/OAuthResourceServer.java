package mcp.resourceserver;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import mcp.resourceserver.internal.JwtResourceServer;
import mcp.server.HttpAuthenticator;

/**
 * An OAuth 2.1 resource server for the HTTP endpoint: every request must carry a JWT access token
 * ({@code Authorization: Bearer ...}) that the configured issuer signed, for this resource, unexpired, with the
 * required scopes. The issuer's keys come from its {@code jwks_uri} (read from its OpenID Connect or RFC 8414
 * metadata), are cached, and are fetched again when a token names a key id the cache does not know (the issuer rotated
 * its key), at most twice per {@link Settings#jwksMinRefresh()}.
 *
 * <p>A request without a token gets 401 with {@code WWW-Authenticate: Bearer resource_metadata="..."}; a token that
 * fails a check gets 401 with {@code error="invalid_token"}; a valid token without a required scope gets 403 with
 * {@code error="insufficient_scope"}. No answer and no log line carries the token. When the issuer's keys cannot be
 * fetched, the check throws, and the endpoint answers 503 (the token may well be valid).
 *
 * <p>The protected resource metadata (RFC 9728) is served at {@code /.well-known/oauth-protected-resource} followed
 * by the resource's path, and at the root form without it.
 */
public interface OAuthResourceServer extends HttpAuthenticator {

    /** The signature algorithms a token may use by default: asymmetric only, so a public key never verifies HMAC. */
    Set<String> DEFAULT_ALGORITHMS = Set.of("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384",
            "ES512");

    /** @return the settings it checks tokens with */
    Settings settings();

    /** @return where its protected resource metadata is served (the {@code resource_metadata} of its refusals) */
    URI metadataUri();

    /**
     * Reads the issuer's metadata and key set now, within the configured timeouts, so that a wrong issuer shows at
     * start rather than at the first request. Requests do the same on their own when this was not called or failed.
     *
     * @throws mcp.api.McpException saying what could not be fetched or did not match
     */
    void prefetch();

    /**
     * @param issuer the authorization server whose tokens are accepted: a token's {@code iss} must equal it
     * @param resource this endpoint's canonical URL (RFC 8707 resource indicator, as clients address it)
     * @return a builder with the defaults of {@link Settings}
     */
    static Builder builder(URI issuer, URI resource) {
        return new Builder(issuer, resource);
    }

    /**
     * What a token is checked against.
     *
     * @param issuer the issuer a token's {@code iss} must equal (compared as a string)
     * @param resource this endpoint's canonical URL, the {@code resource} of the metadata
     * @param audience the value a token's {@code aud} must contain (default: {@code resource})
     * @param requiredScopes scopes every token must have (default: none)
     * @param scopesSupported the scopes the metadata advertises (default: the required ones)
     * @param groupsClaim the claim the caller's groups are read from (default {@code groups}; a dotted name such as
     *     {@code realm_access.roles} reads a nested one)
     * @param algorithms the JWS algorithms accepted (default {@link #DEFAULT_ALGORITHMS}; never {@code none} or HMAC)
     * @param clockSkew how far the clocks of issuer and resource may differ for {@code exp} and {@code nbf}
     *     (default 30 s)
     * @param jwksUri where the issuer's keys are, instead of its metadata's {@code jwks_uri} (default: from the
     *     metadata)
     * @param httpTimeout the bound of each connect and each read of the issuer's documents (default 5 s)
     * @param jwksCacheTtl how long a fetched key set is used before it is fetched again (default 5 minutes)
     * @param jwksMinRefresh the window in which an unknown key id causes at most two fetches (default 30 s; shorter than
 *     {@code jwksCacheTtl}; zero: no limit)
     */
    record Settings(URI issuer, URI resource, String audience, Set<String> requiredScopes, Set<String> scopesSupported,
            String groupsClaim, Set<String> algorithms, Duration clockSkew, Optional<URI> jwksUri,
            Duration httpTimeout, Duration jwksCacheTtl, Duration jwksMinRefresh) {

        /** Validates and copies. */
        public Settings {
            Objects.requireNonNull(issuer, "issuer");
            Objects.requireNonNull(resource, "resource");
            Objects.requireNonNull(audience, "audience");
            requireHttp("the issuer", issuer);
            requireHttp("the resource", resource);
            if (resource.getRawFragment() != null) {
                throw new IllegalArgumentException("the resource URL has no fragment: " + resource);
            }
            if (audience.isBlank()) {
                throw new IllegalArgumentException("the audience is blank");
            }
            requiredScopes = Set.copyOf(new LinkedHashSet<>(requiredScopes));
            scopesSupported = Set.copyOf(new LinkedHashSet<>(scopesSupported));
            for (String scope : requiredScopes) {
                if (scope.isBlank() || scope.contains(" ") || scope.contains("\"") || scope.contains("\\")) {
                    throw new IllegalArgumentException("a scope is one word without quotes: \"" + scope + "\"");
                }
            }
            Objects.requireNonNull(groupsClaim, "groupsClaim");
            if (groupsClaim.isBlank()) {
                throw new IllegalArgumentException("the groups claim is blank");
            }
            Set<String> upper = new LinkedHashSet<>();
            for (String algorithm : algorithms) {
                String name = algorithm.trim().toUpperCase(Locale.ROOT);
                if (!DEFAULT_ALGORITHMS.contains(name)) {
                    throw new IllegalArgumentException("the algorithm " + algorithm + " is not accepted for access "
                            + "tokens: one of " + List.copyOf(new java.util.TreeSet<>(DEFAULT_ALGORITHMS))
                            + " (none and HMAC never: a public key must not verify a shared-secret signature)");
                }
                upper.add(name);
            }
            if (upper.isEmpty()) {
                throw new IllegalArgumentException("no signature algorithm is accepted");
            }
            algorithms = Set.copyOf(upper);
            requireBetween("the clock skew", clockSkew, Duration.ZERO, Duration.ofMinutes(10));
            Objects.requireNonNull(jwksUri, "jwksUri");
            jwksUri.ifPresent(uri -> requireHttp("the JWKS URI", uri));
            requireBetween("the HTTP timeout", httpTimeout, Duration.ofMillis(1), Duration.ofMinutes(1));
            requireBetween("the key cache's time to live", jwksCacheTtl, Duration.ofSeconds(1), Duration.ofDays(1));
            requireBetween("the key refresh interval", jwksMinRefresh, Duration.ZERO, jwksCacheTtl);
            if (!jwksMinRefresh.isZero() && jwksMinRefresh.compareTo(jwksCacheTtl) >= 0) {
                throw new IllegalArgumentException("the key refresh interval (" + jwksMinRefresh + ") must be shorter "
                        + "than the key cache's time to live (" + jwksCacheTtl + ")");
            }
        }

        private static void requireHttp(String what, URI uri) {
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("https") || scheme.equals("http")) || uri.getHost() == null) {
                throw new IllegalArgumentException(what + " is an http(s) URL: " + uri);
            }
        }

        private static void requireBetween(String what, Duration value, Duration min, Duration max) {
            Objects.requireNonNull(value, what);
            if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
                throw new IllegalArgumentException(what + " is between " + min + " and " + max + ": " + value);
            }
        }
    }

    /** Builds an {@link OAuthResourceServer}; the defaults are those of {@link Settings}. */
    final class Builder {
        private final URI issuer;
        private final URI resource;
        private String audience;
        private Set<String> requiredScopes = Set.of();
        private Set<String> scopesSupported;
        private String groupsClaim = "groups";
        private Set<String> algorithms = DEFAULT_ALGORITHMS;
        private Duration clockSkew = Duration.ofSeconds(30);
        private Optional<URI> jwksUri = Optional.empty();
        private Duration httpTimeout = Duration.ofSeconds(5);
        private Duration jwksCacheTtl = Duration.ofMinutes(5);
        private Duration jwksMinRefresh = Duration.ofSeconds(30);

        private Builder(URI issuer, URI resource) {
            this.issuer = Objects.requireNonNull(issuer, "issuer");
            this.resource = Objects.requireNonNull(resource, "resource");
        }

        /** @param value what a token's {@code aud} must contain; default: the resource URL @return this */
        public Builder audience(String value) {
            this.audience = Objects.requireNonNull(value, "audience");
            return this;
        }

        /** @param value scopes every token must have @return this */
        public Builder requiredScopes(Set<String> value) {
            this.requiredScopes = Set.copyOf(value);
            return this;
        }

        /** @param value the scopes the metadata advertises; default: the required ones @return this */
        public Builder scopesSupported(Set<String> value) {
            this.scopesSupported = Set.copyOf(value);
            return this;
        }

        /** @param value the claim the caller's groups are read from @return this */
        public Builder groupsClaim(String value) {
            this.groupsClaim = Objects.requireNonNull(value, "groupsClaim");
            return this;
        }

        /** @param value the JWS algorithms accepted @return this */
        public Builder algorithms(Set<String> value) {
            this.algorithms = Set.copyOf(value);
            return this;
        }

        /** @param value the clock skew allowed for {@code exp} and {@code nbf} @return this */
        public Builder clockSkew(Duration value) {
            this.clockSkew = value;
            return this;
        }

        /** @param value where the issuer's keys are, instead of its metadata's {@code jwks_uri} @return this */
        public Builder jwksUri(URI value) {
            this.jwksUri = Optional.of(value);
            return this;
        }

        /** @param value the bound of each connect and read of the issuer's documents @return this */
        public Builder httpTimeout(Duration value) {
            this.httpTimeout = value;
            return this;
        }

        /** @param value how long a fetched key set is used @return this */
        public Builder jwksCacheTtl(Duration value) {
            this.jwksCacheTtl = value;
            return this;
        }

        /** @param value the window of at most two key fetches caused by unknown key ids @return this */
        public Builder jwksMinRefresh(Duration value) {
            this.jwksMinRefresh = value;
            return this;
        }

        /** @return the settings this builder holds, validated */
        public Settings settings() {
            return new Settings(issuer, resource, audience == null ? resource.toString() : audience, requiredScopes,
                    scopesSupported == null ? requiredScopes : scopesSupported, groupsClaim, algorithms, clockSkew,
                    jwksUri, httpTimeout, jwksCacheTtl, jwksMinRefresh);
        }

        /**
         * @return the resource server; nothing is fetched yet
         * @throws IllegalArgumentException for a setting that cannot work
         */
        public OAuthResourceServer build() {
            return new JwtResourceServer(settings());
        }
    }
}
