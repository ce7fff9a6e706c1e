package mcp.server;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How the server serves Streamable HTTP. Secure by default: it listens on the loopback address only, accepts only
 * requests whose {@code Host} (and {@code Origin}, when a browser sends one) name that address (what DNS rebinding
 * would change: 403 otherwise), and, with a bearer token set, only requests that carry it (401 otherwise).
 *
 * @param bindAddress the address to listen on (default {@code 127.0.0.1})
 * @param port the port (default 0: any free one; {@link HttpEndpoint#uri()} says which)
 * @param path the endpoint's path (default {@code /mcp})
 * @param allowedHosts the {@code Host} values accepted besides the defaults ({@code localhost}, {@code 127.0.0.1},
 *     {@code [::1]}, each with the port, and the bind address with the port); e.g. a name a proxy forwards
 * @param allowedOrigins the {@code Origin} values accepted besides those of the accepted hosts
 *     ({@code http://<host>})
 * @param bearerToken the token every request must carry ({@code Authorization: Bearer ...}); empty: none
 * @param authenticator what decides who may use the endpoint and who they are (an OAuth resource server, ...);
 *     empty: everyone who passes the token check is {@link Caller#LOCAL}. At most one of a token and an authenticator.
 */
public record HttpOptions(String bindAddress, int port, String path, List<String> allowedHosts,
        List<String> allowedOrigins, Optional<String> bearerToken, Optional<HttpAuthenticator> authenticator) {

    /** Loopback, any port, {@code /mcp}, no token. */
    public static final HttpOptions LOOPBACK = new HttpOptions("127.0.0.1", 0, "/mcp", List.of(), List.of(),
            Optional.empty(), Optional.empty());

    /** Validates and copies. */
    public HttpOptions {
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(path, "path");
        allowedHosts = List.copyOf(allowedHosts);
        allowedOrigins = List.copyOf(allowedOrigins);
        Objects.requireNonNull(bearerToken, "bearerToken");
        if (port < 0 || port > 65535 || !path.startsWith("/")) {
            throw new IllegalArgumentException("bad port or path: " + port + " " + path);
        }
        if (bearerToken.isPresent() && bearerToken.get().isBlank()) {
            throw new IllegalArgumentException("the bearer token is blank");
        }
        Objects.requireNonNull(authenticator, "authenticator");
        if (bearerToken.isPresent() && authenticator.isPresent()) {
            throw new IllegalArgumentException("a bearer token or an authenticator, not both");
        }
    }

    /**
     * Options without an authenticator.
     *
     * @param bindAddress the address to listen on
     * @param port the port
     * @param path the endpoint's path
     * @param allowedHosts more {@code Host} values to accept
     * @param allowedOrigins more {@code Origin} values to accept
     * @param bearerToken the token every request must carry; empty: none
     */
    public HttpOptions(String bindAddress, int port, String path, List<String> allowedHosts,
            List<String> allowedOrigins, Optional<String> bearerToken) {
        this(bindAddress, port, path, allowedHosts, allowedOrigins, bearerToken, Optional.empty());
    }

    /**
     * @param value what decides who may use the endpoint, and who they are
     * @return a copy that asks it on every request (and no longer requires the bearer token)
     */
    public HttpOptions withAuthenticator(HttpAuthenticator value) {
        return new HttpOptions(bindAddress, port, path, allowedHosts, allowedOrigins, Optional.empty(),
                Optional.of(value));
    }

    /**
     * @param newPort the port
     * @return a copy on that port
     */
    public HttpOptions withPort(int newPort) {
        return new HttpOptions(bindAddress, newPort, path, allowedHosts, allowedOrigins, bearerToken, authenticator);
    }

    /**
     * @param address the address to listen on: anything but a loopback address exposes the server to the network
     * @return a copy on that address
     */
    public HttpOptions withBindAddress(String address) {
        return new HttpOptions(address, port, path, allowedHosts, allowedOrigins, bearerToken, authenticator);
    }

    /**
     * @param token the token every request must carry
     * @return a copy that requires it
     */
    public HttpOptions withBearerToken(String token) {
        return new HttpOptions(bindAddress, port, path, allowedHosts, allowedOrigins, Optional.of(token), Optional.empty());
    }

    /**
     * @param hosts more {@code Host} values to accept
     * @param origins more {@code Origin} values to accept
     * @return a copy that accepts them
     */
    public HttpOptions withAllowed(List<String> hosts, List<String> origins) {
        return new HttpOptions(bindAddress, port, path, hosts, origins, bearerToken, authenticator);
    }
}
