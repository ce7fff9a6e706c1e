package mcp.manager;

import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Who a call is made for, when it is not the session's own user: a host that calls tools for several people at once
 * (a gateway, a multi-user agent) passes each call's caller ({@link CallOptions#withCaller}), and what the server asks
 * while it works on that call reaches that caller and no other.
 *
 * <p>A server's question belongs to a call when it is an input request of the call's own result (the 2026-07-28
 * era), when it comes on the call's own stream (Streamable HTTP), or when the call is the only one in flight whose
 * caller can take it; while calls of two or more callers are in flight and the transport cannot say which it belongs
 * to (stdio in the 2025 era), it is refused with an error that says so, and reaches no caller. The session's own
 * handlers answer what no call claims.
 *
 * <p>Methods are called on the session's worker threads and may block while the caller's user thinks; an
 * implementation bounds its own waits.
 */
public interface Caller {

    /**
     * @return the capabilities to declare for this call's requests where the era declares them per request
     *     (2026-07-28: {@code _meta}), so that the server asks only what the caller can answer; empty: the
     *     session's. In the 2025 era the session declared its capabilities once, at the handshake.
     */
    Optional<ObjectNode> capabilities();

    /**
     * Answers one round of a multi round-trip request (2026-07-28), as a whole and under the server's own keys.
     *
     * @param inputRequests the round's {@code inputRequests}, by the server's keys
     * @return the {@code inputResponses}, by the same keys
     * @throws Exception when the caller cannot answer; the call fails with it (an
     *     {@link mcp.api.McpProtocolException} keeps its code)
     */
    ObjectNode answer(ObjectNode inputRequests) throws Exception;

    /**
     * Answers one request of the server during the call (2025 era: {@link ClientOptions#SAMPLING_METHOD},
     * {@link ClientOptions#ELICITATION_METHOD}, {@code roots/list}).
     *
     * @param method the request's method
     * @param params its params, or {@code null}
     * @return the result
     * @throws Exception when the caller cannot answer; the server hears the error (an
     *     {@link mcp.api.McpProtocolException} keeps its code)
     */
    JsonNode ask(String method, JsonNode params) throws Exception;

    /**
     * A log message of the server that belongs to the call ({@code notifications/message} params); the server's log
     * keeps it too. Default: nothing.
     *
     * @param params the message
     */
    default void log(JsonNode params) {
    }

    /**
     * The server made the call a task of its own (2026-07-28: it answered with a task), which the session follows to
     * its end as it does for every call: a caller that serves clients of its own may now tell its client the same.
     * Called once, on the session's thread: do not block. Default: nothing.
     */
    default void taskStarted() {
    }

    /**
     * @param method a server request's method
     * @return whether this caller answers it; the session's handlers answer the rest (default: sampling, elicitation
     *     and {@code roots/list})
     */
    default boolean answers(String method) {
        return method.equals(ClientOptions.SAMPLING_METHOD) || method.equals(ClientOptions.ELICITATION_METHOD)
                || method.equals("roots/list");
    }
}
