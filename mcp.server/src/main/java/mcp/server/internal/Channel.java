package mcp.server.internal;

import java.util.concurrent.CompletableFuture;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcResponse;
import mcp.server.Caller;

/**
 * Where the messages about one request go: its notifications and the server's own requests of the handshake era
 * while it runs, then its answer. Over stdio that is the one output of the connection; over HTTP the response to the
 * POST that carried the request (JSON when the answer comes first, an event stream once anything else does).
 */
interface Channel {

    /**
     * Sends a notification or a server request about the request. Never blocks on a slow client: a message the
     * channel cannot take any more is dropped (and the channel may close).
     *
     * @param message the message
     * @return whether the channel took it
     */
    boolean send(JsonRpcMessage message);

    /** @return whether {@link #send} can carry requests of the server's own (a JSON-only HTTP response cannot) */
    boolean carriesRequests();

    /**
     * Answers the request; the channel takes nothing after it. A second call does nothing.
     *
     * @param response the response
     * @param httpStatus the HTTP status of an answer that has not started an event stream yet (ignored otherwise)
     */
    void finish(JsonRpcResponse response, int httpStatus);

    /**
     * Answers the request with headers of its own, where the transport has headers ({@code Retry-After} of a 429).
     *
     * @param response the response
     * @param httpStatus the HTTP status of an answer that has not started an event stream yet (ignored otherwise)
     * @param headers the answer's headers (ignored where there are none, or once an event stream started)
     */
    default void finish(JsonRpcResponse response, int httpStatus, java.util.Map<String, String> headers) {
        finish(response, httpStatus);
    }

    /**
     * Ends the channel without an answer: a cancelled request of the handshake era gets none.
     */
    void abandon();

    /**
     * Closes the event stream the request's messages go on, where the client can resume it and lose nothing (a
     * handshake-era session over HTTP that keeps events): it reconnects with {@code Last-Event-ID} and gets what was
     * sent since, the answer included. The request goes on.
     *
     * @return whether the stream was closed (then, or before); {@code false} where it cannot be resumed
     */
    default boolean closeStream() {
        return false;
    }

    /** @return who sent the request this channel answers ({@link Caller#LOCAL} but over authenticated HTTP) */
    default Caller caller() {
        return Caller.LOCAL;
    }

    /** @return completes when the client can no longer get what is sent (its connection or stream closed) */
    CompletableFuture<Void> gone();
}
