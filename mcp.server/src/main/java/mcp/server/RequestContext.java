package mcp.server;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import mcp.api.LogLevel;
import mcp.api.McpJson;
import mcp.protocol.Era;
import tools.jackson.databind.JsonNode;

/**
 * One request being served, as its handler sees it, the same in both eras: who the client is and what it declared,
 * progress and log messages for it, its cancellation, and the input a handler asks of the client.
 *
 * <p><b>Asking the client.</b> {@link #ask(Map)} asks for one round of input (sampling, elicitation, roots): in the
 * handshake era each is a request of the server's own to the client, sent during the call and answered on its own;
 * in the stateless revision the round becomes the {@code inputRequests} of an {@code input_required} result, with a
 * {@code requestState} that names this call (HMAC-protected with a key the server holds), and the client's retry
 * with the {@code inputResponses} completes the futures. The call itself stays pending in the server between the
 * rounds (bounded in number and time: {@link ServerLimits#maxPendingInputs()}, {@link ServerLimits#inputWait()}), so
 * a handler never runs twice and may hold anything, an upstream call included. A request whose answers the client
 * sent already (the same keys, in a retry without state) has them at once. A round for a capability the client did
 * not declare fails with {@code -32021} (missing required client capability).
 */
public interface RequestContext {

    /** @return the era of the request */
    Era era();

    /** @return the protocol version of the request (agreed in the handshake, or the envelope's) */
    String protocolVersion();

    /** @return the client's capabilities ({@code ClientCapabilities}) */
    JsonNode clientCapabilities();

    /**
     * @param capability a top-level client capability ({@code sampling}, {@code elicitation}, {@code roots}, ...)
     * @return whether the client declared it
     */
    default boolean declares(String capability) {
        return clientCapabilities().path(capability).isObject();
    }

    /** @return the client's {@code Implementation} ({@code name}, {@code version}), when it gave one */
    Optional<JsonNode> clientInfo();

    /** @return the session of a handshake-era client over HTTP ({@code Mcp-Session-Id}); empty otherwise */
    Optional<String> sessionId();

    /**
     * What tells this client apart from the others for as long as it is connected, so that a handler may keep
     * something per client (and tell it alone of a change: {@link McpServer#toolsChanged(String)}): the handshake-era
     * session (over HTTP its {@code Mcp-Session-Id}, over stdio the connection's), or, in the stateless revision, the
     * stdio connection. A stateless client over HTTP has none: nothing in that revision tells one client's requests
     * from another's. {@link RequestHandler#clientEnded} says when a client is gone.
     *
     * @return the client's id, or empty
     */
    default Optional<String> clientId() {
        return Optional.empty();
    }

    /**
     * Who sent the request, as the HTTP endpoint's {@link HttpAuthenticator} established it; {@link Caller#LOCAL} over
     * stdio and over HTTP without an authenticator. A handler that serves several people decides on it what each may
     * see and call.
     *
     * @return the caller
     */
    default Caller caller() {
        return Caller.LOCAL;
    }

    /** @return the request's {@code _meta} as the client sent it (an empty object when it sent none) */
    JsonNode meta();

    /**
     * Tells the client how far the request is, when it asked for progress ({@code _meta.progressToken}); does
     * nothing otherwise, or after the request ended.
     *
     * @param progress how far, increasing with every call
     * @param total the total, or a negative number when unknown
     * @param message what is being done, or {@code null}
     */
    void progress(double progress, double total, String message);

    /**
     * Sends a log message about the request ({@code notifications/message}), when the client wants messages of that
     * level: in the handshake era as {@code logging/setLevel} set it (default: {@code info} and above), in the
     * stateless revision as the request's {@code _meta} asks (none at all when it does not).
     *
     * @param level the level
     * @param logger the logger's name, or {@code null}
     * @param data the message: any JSON value
     */
    void log(LogLevel level, String logger, JsonNode data);

    /**
     * @param level the level
     * @param text the message
     */
    default void log(LogLevel level, String text) {
        log(level, null, McpJson.mapper().getNodeFactory().stringNode(text));
    }

    /** @return whether the client cancelled the request, or it ended otherwise (closed session, expired input) */
    boolean cancelled();

    /** @return completes when the request is cancelled; never completes for a request that ends normally */
    CompletableFuture<Void> cancellation();

    /**
     * Asks the client for one round of input; see the class comment.
     *
     * @param requests the requests, by a key of the handler's choosing (the {@code inputRequests} keys of the
     *     stateless revision: stable across the retries of one call)
     * @return the answers by key ({@code CreateMessageResult}, {@code ElicitResult}, {@code ListRootsResult}); fails
     *     with an {@link mcp.api.McpProtocolException} when the client refused one or cannot answer
     */
    CompletableFuture<Map<String, JsonNode>> ask(Map<String, InputRequest> requests);

    /**
     * @param key the request's key
     * @param request what to ask
     * @return the answer
     */
    default CompletableFuture<JsonNode> ask(String key, InputRequest request) {
        return ask(Map.of(key, request)).thenApply(answers -> answers.get(key));
    }

    /**
     * @param params an {@code ElicitRequestParams}
     * @return the client's {@code ElicitResult}
     */
    default CompletableFuture<JsonNode> elicit(JsonNode params) {
        return ask(nextKey("elicitation"), InputRequest.elicitation(params));
    }

    /**
     * @param params a {@code CreateMessageRequestParams}
     * @return the client's {@code CreateMessageResult}
     */
    default CompletableFuture<JsonNode> sample(JsonNode params) {
        return ask(nextKey("sampling"), InputRequest.sampling(params));
    }

    /** @return the client's {@code ListRootsResult} */
    default CompletableFuture<JsonNode> roots() {
        return ask(nextKey("roots"), InputRequest.roots());
    }

    /**
     * @param prefix what the key is about
     * @return a key no earlier ask of this call used, the same in every run of a handler that asks in the same order
     */
    String nextKey(String prefix);

    /**
     * Closes the event stream that carries this call's messages to the client, as a server may to free a connection
     * while the call runs long (2025-11-25 over Streamable HTTP): the client reconnects after the stream's retry delay
     * with {@code Last-Event-ID} and gets every message sent since, the answer included. The call goes on.
     *
     * @return whether the stream was closed; {@code false} where the client could not resume it (stdio, the
     *     2026-07-28 revision, a session that keeps no events, replicas, a call that runs as a task or has ended)
     */
    default boolean closeStream() {
        return false;
    }

    /**
     * Lets the rest of this call run as a task, for a tool whose task the server defers
     * ({@link RequestHandler#deferTask}): where the client takes tasks (2026-07-28 with the tasks extension) and the
     * call is not one yet, it becomes one now. The request that waits for the call's answer (the first, or the retry
     * that brought the last input) is answered with the task, and what the handler does from here on, its result and
     * its questions, is the task's. The input gathered before stays the handler's, as it is.
     *
     * @return whether the call runs as a task now; {@code false} where it cannot become one (a client without
     *     tasks, a tool that defers no task, a call waiting for its client's input, the server's bound on tasks), and
     *     it goes on as a plain call
     */
    default boolean runAsTask() {
        return false;
    }
}
