package mcp.auth.internal;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import mcp.api.McpException;
import tools.jackson.databind.JsonNode;

/**
 * Finds who issues tokens for an MCP server (MCP authorization spec 2025-11-25, "Authorization
 * Server Discovery", with the 2025-03-26 fallbacks):
 * <ol>
 *   <li>the Protected Resource Metadata (RFC 9728): the {@code resource_metadata} URL of the
 *       challenge, else {@code /.well-known/oauth-protected-resource/<server path>}, else
 *       {@code /.well-known/oauth-protected-resource}; its {@code resource} must name this server;</li>
 *   <li>the authorization server's metadata (RFC 8414, then OpenID Connect discovery) at the
 *       well-known URLs in the spec's order, which differs for issuers with a path;</li>
 *   <li>without any PRM (a 2025-03-26 server): the metadata at the server's origin, else the
 *       default endpoints {@code /authorize}, {@code /token} and {@code /register} there.</li>
 * </ol>
 */
final class Discovery {

    private Discovery() {
    }

    /** What the resource server says about itself. */
    record ResourceMetadata(URI location, Optional<String> resource, List<String> authorizationServers,
            Optional<List<String>> scopesSupported) {
    }

    /** What the authorization server says about itself (or the 2025-03-26 defaults). */
    record AuthServer(String issuer, URI authorizationEndpoint, URI tokenEndpoint, Optional<URI> registrationEndpoint,
            Optional<List<String>> scopesSupported, List<String> tokenEndpointAuthMethods,
            Optional<List<String>> codeChallengeMethods, boolean clientIdMetadataDocumentSupported,
            Optional<List<String>> grantTypes, boolean fromMetadata, boolean issParameterSupported,
            Optional<List<String>> dpopSigningAlgs) {

        /** @return whether the server takes DPoP proofs signed with ES256 (RFC 9449 §5.1) */
        boolean supportsDpopEs256() {
            return dpopSigningAlgs.map(list -> list.contains(Jwt.ES256)).orElse(false);
        }

        boolean supportsScope(String scope) {
            return scopesSupported.map(list -> list.contains(scope)).orElse(false);
        }

        boolean supportsGrant(String grant) {
            return grantTypes.map(list -> list.contains(grant)).orElse(false);
        }
    }

    /**
     * @param http the exchanges
     * @param server the MCP server URL
     * @param challenge the 401's challenge
     * @return the PRM, or empty when the server publishes none (a 2025-03-26 server)
     * @throws McpException when the PRM names another resource, or cannot be read
     */
    static Optional<ResourceMetadata> resourceMetadata(OAuthHttp http, URI server, Challenge challenge) {
        List<URI> candidates = new ArrayList<>();
        challenge.resourceMetadata().ifPresent(url -> candidates.add(server.resolve(url)));
        String path = server.getRawPath() == null ? "" : stripTrailingSlash(server.getRawPath());
        if (!path.isEmpty()) {
            candidates.add(origin(server).resolve("/.well-known/oauth-protected-resource" + path));
        }
        candidates.add(origin(server).resolve("/.well-known/oauth-protected-resource"));
        for (URI candidate : candidates) {
            Optional<JsonNode> document = http.getJson(candidate);
            if (document.isEmpty()) {
                continue;
            }
            JsonNode json = document.get();
            Optional<String> resource = text(json, "resource");
            if (resource.isPresent() && !resourceMatches(resource.get(), server)) {
                throw new McpException("the protected resource metadata at " + Urls.redact(candidate)
                        + " is for the resource " + resource.get() + ", not for this server (" + Urls.redact(server)
                        + "); refusing to authorize");
            }
            return Optional.of(new ResourceMetadata(candidate, resource, strings(json, "authorization_servers")
                    .orElse(List.of()), strings(json, "scopes_supported")));
        }
        return Optional.empty();
    }

    /**
     * @param http the exchanges
     * @param issuer the authorization server (from the PRM)
     * @return its metadata
     * @throws McpException when none of the well-known URLs answers
     */
    static AuthServer authServer(OAuthHttp http, String issuer) {
        URI uri = URI.create(issuer);
        String path = uri.getRawPath() == null ? "" : stripTrailingSlash(uri.getRawPath());
        URI origin = origin(uri);
        List<URI> candidates = path.isEmpty()
                ? List.of(origin.resolve("/.well-known/oauth-authorization-server"),
                        origin.resolve("/.well-known/openid-configuration"))
                : List.of(origin.resolve("/.well-known/oauth-authorization-server" + path),
                        origin.resolve("/.well-known/openid-configuration" + path),
                        origin.resolve(path + "/.well-known/openid-configuration"));
        for (URI candidate : candidates) {
            Optional<JsonNode> document = http.getJson(candidate);
            if (document.isPresent()) {
                return fromMetadata(document.get(), issuer, candidate, true);
            }
        }
        throw new McpException("the authorization server " + Urls.redact(uri) + " publishes no metadata (tried "
                + candidates.stream().map(Urls::redact).toList() + ")");
    }

    /**
     * @param http the exchanges
     * @param location where a config says the authorization server's metadata is
     * @return that metadata, whose {@code issuer} is taken as it says (the config chose this server)
     * @throws McpException when it cannot be read
     */
    static AuthServer authServerAt(OAuthHttp http, URI location) {
        JsonNode document = http.getJson(location).orElseThrow(() -> new McpException(
                "the authorization server metadata at " + Urls.redact(location) + " (auth option authServerMetadataUrl) "
                        + "cannot be read"));
        return fromMetadata(document, stripTrailingSlash(origin(location).toString()), location, false);
    }

    /**
     * An authorization server of which a config names the endpoints: no metadata, so nothing else is known
     * (no registration endpoint, no PKCE methods, no issuer parameter).
     */
    static AuthServer configured(URI authorizationEndpoint, URI tokenEndpoint, String issuer) {
        return new AuthServer(issuer, authorizationEndpoint, tokenEndpoint, Optional.empty(), Optional.empty(),
                List.of(), Optional.empty(), false, Optional.empty(), false, false, Optional.empty());
    }

    /**
     * The 2025-03-26 way: the authorization server is the MCP server's origin; its metadata there, else
     * the default endpoints.
     */
    static AuthServer legacyAuthServer(OAuthHttp http, URI server) {
        URI origin = origin(server);
        URI candidate = origin.resolve("/.well-known/oauth-authorization-server");
        Optional<JsonNode> document = http.getJson(candidate);
        if (document.isPresent()) {
            return fromMetadata(document.get(), origin.toString(), candidate, false);
        }
        return new AuthServer(stripTrailingSlash(origin.toString()), origin.resolve("/authorize"),
                origin.resolve("/token"), Optional.of(origin.resolve("/register")), Optional.empty(), List.of(),
                Optional.empty(), false, Optional.empty(), false, false, Optional.empty());
    }

    /**
     * @param exactIssuer whether the metadata's {@code issuer} must be the one its well-known URL was made from,
     *     character for character (RFC 8414, section 3.3): metadata of another issuer is refused, so that no one
     *     can pass their authorization server off as the one the resource named
     */
    private static AuthServer fromMetadata(JsonNode json, String expectedIssuer, URI location, boolean exactIssuer) {
        String issuer = text(json, "issuer").orElse(expectedIssuer);
        if (exactIssuer && !issuer.equals(expectedIssuer)) {
            throw new McpException("the authorization server metadata at " + Urls.redact(location) + " names the issuer "
                    + issuer + ", not " + expectedIssuer + " whose metadata it should be; refused");
        }
        URI authorization = endpoint(json, "authorization_endpoint", location, true);
        URI token = endpoint(json, "token_endpoint", location, true);
        Optional<URI> registration = Optional.ofNullable(endpoint(json, "registration_endpoint", location, false));
        return new AuthServer(issuer, authorization, token, registration, strings(json, "scopes_supported"),
                strings(json, "token_endpoint_auth_methods_supported").orElse(List.of()),
                strings(json, "code_challenge_methods_supported"),
                json.path("client_id_metadata_document_supported").asBoolean(false),
                strings(json, "grant_types_supported"), true,
                json.path("authorization_response_iss_parameter_supported").asBoolean(false),
                strings(json, "dpop_signing_alg_values_supported"));
    }

    private static URI endpoint(JsonNode json, String name, URI location, boolean required) {
        Optional<String> value = text(json, name);
        if (value.isEmpty()) {
            if (required) {
                throw new McpException("the authorization server metadata at " + Urls.redact(location) + " has no \""
                        + name + "\"");
            }
            return null;
        }
        URI uri = location.resolve(value.get());
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("https") && !scheme.equals("http")) {
            throw new McpException("the authorization server metadata at " + Urls.redact(location) + " gives \""
                    + name + "\" with an unusable scheme");
        }
        return uri;
    }

    /**
     * Whether a PRM's {@code resource} names the server: the same origin, and the server's path equal
     * to the resource's path or below it.
     */
    static boolean resourceMatches(String resource, URI server) {
        URI declared;
        try {
            declared = URI.create(resource.trim());
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (declared.getScheme() == null || declared.getHost() == null
                || !declared.getScheme().equalsIgnoreCase(server.getScheme())
                || !declared.getHost().equalsIgnoreCase(server.getHost())
                || port(declared) != port(server)) {
            return false;
        }
        String declaredPath = stripTrailingSlash(declared.getRawPath() == null ? "" : declared.getRawPath());
        String serverPath = stripTrailingSlash(server.getRawPath() == null ? "" : server.getRawPath());
        return serverPath.equals(declaredPath) || serverPath.startsWith(declaredPath + "/");
    }

    /** The resource indicator for a server (RFC 8707; MCP "canonical server URI"): no fragment, no query. */
    static String canonical(URI server) {
        return Urls.canonical(server);
    }

    static URI origin(URI uri) {
        return URI.create(uri.getScheme() + "://" + uri.getRawAuthority() + "/");
    }

    private static int port(URI uri) {
        if (uri.getPort() >= 0) {
            return uri.getPort();
        }
        return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }

    private static String stripTrailingSlash(String path) {
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    static Optional<String> text(JsonNode json, String name) {
        JsonNode value = json.get(name);
        return value != null && value.isString() && !value.stringValue().isBlank()
                ? Optional.of(value.stringValue()) : Optional.empty();
    }

    static Optional<List<String>> strings(JsonNode json, String name) {
        JsonNode value = json.get(name);
        if (value == null || !value.isArray()) {
            return Optional.empty();
        }
        List<String> out = new ArrayList<>();
        value.forEach(item -> {
            if (item.isString()) {
                out.add(item.stringValue());
            }
        });
        return Optional.of(List.copyOf(out));
    }
}
