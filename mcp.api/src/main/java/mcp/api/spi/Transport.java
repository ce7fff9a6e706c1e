package mcp.api.spi;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import mcp.api.McpException;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.RequestId;

/**
 * A bidirectional channel of JSON-RPC messages to one server. A transport moves messages and
 * reports its own end; it knows nothing of MCP methods (the client protocol lives above it), except
 * where its own protocol is defined by them: an HTTP transport recognises {@code initialize} (the
 * session starts with its reply) and {@code notifications/initialized}, and asks the listener to
 * initialize again when the server forgets the session ({@link Listener#onSessionExpired}).
 *
 * <p>Life cycle: {@link TransportProvider#open} returns a transport, the client calls
 * {@link #start(Listener)} once, then {@link #send} any number of times from any thread, and finally
 * {@link #close()}. The transport calls {@link Listener#onClose} exactly once, whether the close was
 * asked for or the peer went away, and delivers no message after it.
 */
public interface Transport extends AutoCloseable {

    /**
     * Starts delivering inbound messages. Called once, before the first {@link #send}.
     *
     * @param listener receives messages and the close event; called from the transport's own
     *     thread(s), so it must not block for long unless {@link #listenerMayBlock()}
     */
    void start(Listener listener);

    /**
     * Sends one message. Never blocks for long: a transport queues or writes asynchronously.
     *
     * @param message the message
     * @return completes when the message was handed to the peer (written to the pipe, accepted by
     *     the server); fails with a {@link mcp.api.McpException} if it could not be, e.g. a
     *     {@link TransportClosedException} after close
     */
    CompletableFuture<Void> send(JsonRpcMessage message);

    /**
     * Tells the transport the protocol version agreed in {@code initialize}; HTTP transports send
     * it as a header. The default does nothing.
     *
     * @param version the negotiated MCP protocol version
     */
    default void protocolVersion(String version) {
    }

    /**
     * Whether this transport carries the stateless 2026-07-28 revision (every request on its own, its
     * metadata inline). A client probes the server's era only over a transport that does; over the others it
     * speaks the 2025 handshake. The default is {@code false}.
     *
     * @return whether requests of the 2026-07-28 revision may be sent over this transport
     */
    default boolean carriesModernEra() {
        return false;
    }

    /**
     * Whether {@link Listener#onMessage} may block without holding up this transport for more than a
     * moment. A transport that says so keeps reading and delivering while a listener call blocks (the
     * {@code stdio} transport moves its reading to a new thread after 10 to 20 ms; deliveries then
     * overlap, each still starting in the order received). Its listener may then run code that can
     * block, such as a future's continuations, right on the delivering thread, which saves a thread
     * hand-off per message. The default is {@code false}: listener calls must return quickly.
     *
     * @return whether the listener may block in {@link Listener#onMessage}
     */
    default boolean listenerMayBlock() {
        return false;
    }

    /**
     * Says that the listener, called by this transport on the calling thread, is about to block there
     * (it waits for another response, say): a transport whose listener may block reads on on another
     * thread at once instead of after its usual delay. Does nothing when called from any other thread,
     * and by default.
     */
    default void listenerBlocking() {
    }

    /**
     * The session the server gave this connection, for telemetry's {@code mcp.session.id}: Streamable HTTP's
     * {@code Mcp-Session-Id} in the 2025 era. It names the session, it does not authorize anything (a server binds it
     * to the caller's credentials). The default is empty, as for a transport without sessions (stdio) or before the
     * server gave one.
     *
     * @return the session id, if the server gave one
     */
    default Optional<String> sessionId() {
        return Optional.empty();
    }

    /**
     * What the transport knows that helps explain a failure, such as the last lines a child
     * process wrote to stderr. Never contains secrets.
     *
     * @return diagnostic text, possibly empty
     */
    default String diagnostics() {
        return "";
    }

    /**
     * Closes the transport and releases everything it holds (for stdio: ends the whole process
     * tree). Idempotent, bounded in time, and safe to call from any thread, including a listener.
     */
    @Override
    void close();

    /** Receives what a transport delivers. */
    interface Listener {

        /**
         * One inbound message, in the order received.
         *
         * @param message the message
         */
        void onMessage(JsonRpcMessage message);

        /**
         * One inbound message that came in the course of one of the client's requests: on that request's own
         * stream (Streamable HTTP answers a POST with an SSE stream, on which the server may ask the client
         * something while it works on the request). Such a server request belongs to that request's caller. A
         * transport that cannot tell (stdio, a GET stream) calls {@link #onMessage(JsonRpcMessage)}. The default
         * does just that.
         *
         * @param message the message
         * @param during the id of the client's request whose stream carried it
         */
        default void onMessage(JsonRpcMessage message, RequestId during) {
            onMessage(message);
        }

        /**
         * The transport has closed; called exactly once.
         *
         * @param reason why (exit code and stderr tail, HTTP status, "closed by client", ...)
         */
        void onClose(TransportClosedException reason);

        /**
         * The server has forgotten the session this transport was in (Streamable HTTP: HTTP 404 to a
         * request that carried the session id), and the transport can start a new one. It has dropped
         * the old session and holds back every message except an {@code initialize} request and
         * {@code notifications/initialized}. The listener runs the initialize handshake again over this
         * same transport and completes the returned stage once {@code notifications/initialized} has
         * been sent; the transport then re-sends the requests the server refused (they were not
         * processed) and releases the held messages. If the stage fails, the transport closes with
         * the reason.
         *
         * <p>A transport calls this at most once per lost session, from one of its own threads,
         * without holding back deliveries (the handshake's reply must get through); it must return
         * quickly. Transports without sessions (stdio) never call it.
         *
         * <p>The default cannot initialize again: it returns a failed stage, so the transport closes.
         *
         * @param reason what happened, e.g. {@code the server ended the session (POST <url> answered HTTP 404 ...)}
         * @return completes when the new session is initialized
         */
        default CompletionStage<Void> onSessionExpired(String reason) {
            return CompletableFuture.failedFuture(new McpException(reason + "; this client cannot initialize a new session"));
        }
    }
}
