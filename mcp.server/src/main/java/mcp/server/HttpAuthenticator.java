package mcp.server;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * Decides who may use the HTTP endpoint, and who they are: an OAuth resource server that validates access tokens,
 * for example. It runs on every request, after the {@code Host}/{@code Origin} checks and before anything of MCP is
 * read; a request it refuses gets its status and headers (401 with {@code WWW-Authenticate}, 403 for a scope the
 * request lacks) and a JSON-RPC error, and is never seen by a handler. A request it allows carries its {@link Caller}
 * to the handler ({@link RequestContext#caller()}), and a handshake-era session stays bound to the subject that
 * opened it.
 *
 * <p>Implementations must be thread-safe, must not block long (a key fetch is bounded and cached), and must never put
 * a credential in a message, a header or a log.
 */
public interface HttpAuthenticator {

    /**
     * @param method the HTTP method
     * @param path the request's path
     * @param header the request's headers by name (case-insensitive)
     * @return whether the request may go on, and as whom
     */
    Outcome authenticate(String method, String path, Function<String, Optional<String>> header);

    /**
     * Documents served without authentication beside the endpoint, such as the protected resource metadata of
     * RFC 9728 ({@code /.well-known/oauth-protected-resource...}) that a client reads to find the authorization
     * server.
     *
     * @param path a GET request's path
     * @return the JSON document at that path, or empty (404)
     */
    default Optional<JsonNode> document(String path) {
        return Optional.empty();
    }

    /** What {@link #authenticate} decided. */
    sealed interface Outcome permits Allowed, Refused {
    }

    /**
     * The request goes on as this caller.
     *
     * @param caller who sent it
     */
    record Allowed(Caller caller) implements Outcome {
        /** Checks. */
        public Allowed {
            Objects.requireNonNull(caller, "caller");
        }
    }

    /**
     * The request is answered with this and goes no further.
     *
     * @param status the HTTP status (401, 403, ...)
     * @param message what the JSON-RPC error says: no credential in it
     * @param headers headers of the answer ({@code WWW-Authenticate}, ...)
     */
    record Refused(int status, String message, Map<String, String> headers) implements Outcome {
        /** Checks and copies. */
        public Refused {
            if (status < 400 || status > 599) {
                throw new IllegalArgumentException("a refusal's status is 4xx or 5xx: " + status);
            }
            Objects.requireNonNull(message, "message");
            headers = Map.copyOf(headers);
        }
    }
}
