package mcp.cli.internal;

import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import mcp.resourceserver.OAuthResourceServer;
import picocli.CommandLine.Option;

/**
 * The OAuth resource server options of {@code serve --http}: each one also read from an {@code MCP_HOST_OAUTH_*}
 * environment variable, so that every replica of a gateway is configured from its environment alone. An option given
 * on the command line wins over its variable. Without an issuer, serve keeps its own bearer token.
 */
final class ServeOAuth {

    static final String ISSUER = "MCP_HOST_OAUTH_ISSUER";
    static final String AUDIENCE = "MCP_HOST_OAUTH_AUDIENCE";
    static final String SCOPES = "MCP_HOST_OAUTH_SCOPES";
    static final String GROUPS_CLAIM = "MCP_HOST_OAUTH_GROUPS_CLAIM";
    static final String JWKS_URI = "MCP_HOST_OAUTH_JWKS_URI";
    static final String ALGORITHMS = "MCP_HOST_OAUTH_ALGORITHMS";
    static final String CLOCK_SKEW = "MCP_HOST_OAUTH_CLOCK_SKEW";
    static final String JWKS_REFRESH = "MCP_HOST_OAUTH_JWKS_MIN_REFRESH";

    @Option(names = "--oauth-issuer", paramLabel = "URL", description = "With --http: accept OAuth access tokens"
            + " (JWTs) of this issuer instead of serve's own token; its metadata gives the keys (env "
            + ISSUER + ").")
    String issuer;

    @Option(names = "--oauth-audience", paramLabel = "URI", description = "This gateway's canonical URL, which a"
            + " token's aud must contain and the metadata names as the resource (default: http://ADDRESS:PORT/mcp"
            + " as served; set it behind a proxy or load balancer; env " + AUDIENCE + ").")
    String audience;

    @Option(names = "--oauth-scopes", split = ",", paramLabel = "SCOPE", description = "Scopes every token must"
            + " have; a token without one is refused with 403 (env " + SCOPES + ", comma-separated).")
    List<String> scopes;

    @Option(names = "--oauth-groups-claim", paramLabel = "NAME", description = "The claim a caller's groups are read"
            + " from (default groups; a dotted name reads a nested claim, e.g. realm_access.roles; env "
            + GROUPS_CLAIM + ").")
    String groupsClaim;

    @Option(names = "--oauth-jwks-uri", paramLabel = "URL", description = "Where the issuer's keys are, instead of"
            + " the jwks_uri of its metadata (env " + JWKS_URI + ").")
    String jwksUri;

    @Option(names = "--oauth-algorithms", split = ",", paramLabel = "ALG", description = "The signature algorithms"
            + " accepted (default RS256,RS384,RS512,PS256,PS384,PS512,ES256,ES384,ES512; never none or HMAC; env "
            + ALGORITHMS + ").")
    List<String> algorithms;

    @Option(names = "--oauth-clock-skew", paramLabel = "SECONDS", description = "How far the issuer's clock may be"
            + " off for exp and nbf (default 30; env " + CLOCK_SKEW + ").")
    Long clockSkew;

    @Option(names = "--oauth-jwks-min-refresh", paramLabel = "SECONDS", description = "The window in which tokens"
            + " naming unknown key ids make at most two fetches of the issuer's keys (default 30; env " + JWKS_REFRESH
            + ").")
    Long jwksMinRefresh;

    /** @return whether any OAuth option was given on the command line (they are all --http ones) */
    boolean anyOption() {
        return issuer != null || audience != null || scopes != null || groupsClaim != null || jwksUri != null
                || algorithms != null || clockSkew != null || jwksMinRefresh != null;
    }

    /**
     * @param env the process environment
     * @return the issuer, from the option or the environment; empty: OAuth is off
     */
    Optional<String> issuer(Map<String, String> env) {
        return value(issuer, env, ISSUER);
    }

    /**
     * @param env the process environment
     * @return whether the audience is given (option or variable), so that the served URL need not be
     */
    boolean audienceGiven(Map<String, String> env) {
        return value(audience, env, AUDIENCE).isPresent();
    }

    /**
     * @param env the process environment
     * @param served the URL the endpoint is served at
     * @return the resource server the options and environment describe
     * @throws CliException for a value that cannot work
     */
    OAuthResourceServer build(Map<String, String> env, URI served) {
        URI issuerUri = uri("--oauth-issuer", issuer(env).orElseThrow());
        URI resource = value(audience, env, AUDIENCE).map(text -> uri("--oauth-audience", text)).orElse(served);
        OAuthResourceServer.Builder builder = OAuthResourceServer.builder(issuerUri, resource);
        list(scopes, env, SCOPES).ifPresent(values -> builder.requiredScopes(values));
        value(groupsClaim, env, GROUPS_CLAIM).ifPresent(builder::groupsClaim);
        value(jwksUri, env, JWKS_URI).ifPresent(text -> builder.jwksUri(uri("--oauth-jwks-uri", text)));
        list(algorithms, env, ALGORITHMS).ifPresent(builder::algorithms);
        seconds(clockSkew, env, CLOCK_SKEW, "--oauth-clock-skew").ifPresent(builder::clockSkew);
        seconds(jwksMinRefresh, env, JWKS_REFRESH, "--oauth-jwks-min-refresh").ifPresent(builder::jwksMinRefresh);
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw CliException.usage("OAuth: " + e.getMessage());
        }
    }

    private static Optional<String> value(String option, Map<String, String> env, String variable) {
        if (option != null) {
            return Optional.of(option.trim()).filter(text -> !text.isEmpty());
        }
        return Optional.ofNullable(env.get(variable)).map(String::trim).filter(text -> !text.isEmpty());
    }

    private static Optional<Set<String>> list(List<String> option, Map<String, String> env, String variable) {
        Optional<List<String>> words = option != null ? Optional.of(option)
                : Optional.ofNullable(env.get(variable)).map(text -> Arrays.asList(text.split(",")));
        return words.map(values -> {
            Set<String> set = new LinkedHashSet<>();
            values.stream().map(String::trim).filter(text -> !text.isEmpty()).forEach(set::add);
            return set;
        });
    }

    private static Optional<Duration> seconds(Long option, Map<String, String> env, String variable, String name) {
        Function<Long, Duration> check = value -> {
            if (value < 0) {
                throw CliException.usage(name + " is a number of seconds, 0 or more; not " + value);
            }
            return Duration.ofSeconds(value);
        };
        if (option != null) {
            return Optional.of(check.apply(option));
        }
        String text = env.get(variable);
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(check.apply(Long.parseLong(text.trim())));
        } catch (NumberFormatException e) {
            throw CliException.usage(variable + " is a number of seconds; not \"" + text + "\"");
        }
    }

    private static URI uri(String name, String text) {
        try {
            URI uri = URI.create(text);
            if (uri.getScheme() == null || uri.getHost() == null) {
                throw CliException.usage(name + " is an http(s) URL; not \"" + text + "\"");
            }
            return uri;
        } catch (IllegalArgumentException e) {
            throw CliException.usage(name + " is an http(s) URL; not \"" + text + "\"");
        }
    }
}
