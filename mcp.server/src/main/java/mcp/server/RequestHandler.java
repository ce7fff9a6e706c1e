package mcp.server;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import tools.jackson.databind.JsonNode;

/**
 * Answers a client's requests: the low-level interface of the server side, which a gateway implements to pass
 * requests on, and which {@link McpServer.Builder}'s typed declarations (tools, resources, prompts, completions)
 * implement for everyone else.
 *
 * <p>The server keeps the protocol: the handshake or {@code server/discover}, sessions, {@code ping},
 * {@code logging/setLevel}, subscriptions and listen streams, cancellation, the envelope of the stateless revision,
 * result types and caching hints. A handler sees the requests that are about its features ({@code tools/*},
 * {@code resources/*} but subscriptions, {@code prompts/*}, {@code completion/complete}) and any method the server
 * does not know (answer it with {@code -32601} by failing with an {@link mcp.api.McpProtocolException}), with a
 * {@link RequestContext} that hides the era.
 *
 * <p>Threads: {@link #handle} is called on a server worker thread, and may block (a blocked handler holds that one
 * thread); the future it returns may complete on any thread. A handler that never blocks in {@link #handle} says so
 * ({@link #blocks()}), and is called on the thread that read the request instead.
 */
public interface RequestHandler {

    /** @return what it serves; called once, when the server is built */
    Capabilities capabilities();

    /**
     * Answers one request.
     *
     * @param request the request
     * @param context the request's context: the client, progress, logs, cancellation, and what to ask the client
     * @return the result object ({@code resultType} and caching hints are added by the server where the era needs
     *     them, unless the result states its own); fails with an {@link mcp.api.McpProtocolException} to answer with
     *     that JSON-RPC error, and with anything else to answer {@code -32603}. A rate limit
     *     ({@link mcp.protocol.ErrorCodes#rateLimited}) is answered over HTTP with status 429 and {@code Retry-After}
     *     in either era, the JSON-RPC error with its {@code retryAfterMs} in the body
     */
    CompletableFuture<JsonNode> handle(Request request, RequestContext context);

    /**
     * Whether {@link #handle} may block. When it may (the default), every request is handed to a server worker thread
     * first. A handler whose {@code handle} only starts asynchronous work and returns (a gateway that passes requests
     * on) answers {@code false}: it is then called on the thread that read the request (the stdio reader, an HTTP
     * server thread), which saves a thread hand-off per request, and must never wait there, or it holds up the
     * reading of other requests, among them the client answers that it would wait for. It is read once, when the
     * server is built.
     *
     * @return whether {@code handle} may block
     */
    default boolean blocks() {
        return true;
    }

    /**
     * The resources some client is subscribed to changed ({@code resources/subscribe} and {@code unsubscribe} of the
     * handshake era, the {@code resourceSubscriptions} of listen streams of the stateless one, sessions that ended):
     * a gateway subscribes upstream to what it is told here. Called on the thread that changed them, with the whole
     * set; the default does nothing.
     *
     * @param uris every URI at least one client is subscribed to now
     */
    default void subscriptionsChanged(Set<String> uris) {
    }

    /**
     * Whether a caller may hear of changes to a resource it subscribes to ({@code resources/subscribe} of the
     * handshake era, a listen stream's {@code resourceSubscriptions} of the stateless one). A subscription it may not
     * have is answered as any other (a server takes a subscription to any URI, so the answer tells nothing), and never
     * hears an update, nor reaches {@link #subscriptionsChanged}. Called on the thread that reads the request: keep it
     * cheap. The default allows every subscription.
     *
     * @param uri the resource's URI
     * @param caller who subscribes
     * @return whether the subscription counts
     */
    default boolean maySubscribe(String uri, Caller caller) {
        return true;
    }

    /**
     * A client that had a {@link RequestContext#clientId()} is gone (its session ended or expired, its stdio
     * connection closed): what the handler kept for it can go. Called once per client that ends; the default does
     * nothing.
     *
     * @param clientId the client's id
     */
    default void clientEnded(String clientId) {
    }

    /**
     * The input schema of a tool, when the handler knows it: over HTTP in the stateless revision the server checks
     * a {@code tools/call}'s {@code Mcp-Param-*} headers against the arguments its {@code x-mcp-header}
     * annotations name ({@code -32020} when they disagree). The default knows none, and nothing is checked.
     *
     * @param name a tool's name
     * @return its input schema
     */
    default Optional<JsonNode> toolInputSchema(String name) {
        return Optional.empty();
    }

    /**
     * {@link #toolInputSchema(String)} as one caller sees the tools: a handler that shows each caller its own tools
     * answers empty for a tool outside that caller's view, so that the header check tells nothing of it. The default
     * asks {@link #toolInputSchema(String)}.
     *
     * @param name a tool's name
     * @param caller who calls it
     * @return its input schema, when the caller may see it
     */
    default Optional<JsonNode> toolInputSchema(String name, Caller caller) {
        return toolInputSchema(name);
    }

    /**
     * What {@code GET /status} of the HTTP endpoint adds, for scripts and probes, to what the server says of itself
     * (its name, version, uptime and sessions): a gateway's servers, their states and counts. The endpoint is behind
     * the same checks as the MCP endpoint ({@code Host}, {@code Origin}, the bearer token or the
     * {@link HttpAuthenticator}), so the caller is known: answer only what that caller may see, and nothing that
     * belongs to another client. Called on an HTTP server thread: keep it cheap, never block. The default adds
     * nothing.
     *
     * @param caller who asks
     * @return fields to add to the answer (an object; a field named {@code server} is the server's own and is
     *     replaced), or empty
     */
    default Optional<JsonNode> status(Caller caller) {
        return Optional.empty();
    }

    /**
     * Whether a tool may run as a task, when the handler declares {@link Capabilities#tasks()}: the server then holds
     * the task of a call the client wants as one (it calls {@link #handle} as for a plain call, and keeps its status,
     * result, time to live and cancellation), and writes the answer as each tool's {@code execution.taskSupport} in
     * {@code tools/list}. Called on every {@code tools/call} and for every listed tool: keep it cheap. The default
     * runs no tool as a task.
     *
     * @param name a tool's name
     * @return its task support
     */
    default TaskSupport taskSupport(String name) {
        return TaskSupport.FORBIDDEN;
    }

    /**
     * Whether a tool that may run as a task gathers input before it becomes one. A call of a 2026-07-28 client that
     * takes tasks is then not a task from its first request: it starts as a plain call, whose questions are
     * {@code input_required} rounds, and becomes a task when its handler calls {@link RequestContext#runAsTask}; a
     * {@link TaskSupport#REQUIRED} tool that ends before that is answered with a task already complete. The default,
     * {@code false}: such a call is a task from its first request, and its questions are the task's. A client of the
     * handshake era says itself whether a call is a task, so this changes nothing there. Called on every
     * {@code tools/call}: keep it cheap.
     *
     * @param name a tool's name
     * @return whether its task waits for its handler
     */
    default boolean deferTask(String name) {
        return false;
    }
}
