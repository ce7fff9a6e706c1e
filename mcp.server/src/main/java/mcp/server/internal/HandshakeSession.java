package mcp.server.internal;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import mcp.api.LogLevel;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.McpTimeoutException;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcResponse;
import mcp.api.jsonrpc.JsonRpcSuccess;
import mcp.api.jsonrpc.RequestId;
import tools.jackson.databind.JsonNode;

/**
 * One client of the handshake era, from its {@code initialize} on: the version and capabilities agreed, its log
 * level, its resource subscriptions, its requests in flight, and the requests of the server's own waiting for its
 * answer. Over stdio there is one per connection; over HTTP one per {@code Mcp-Session-Id}.
 *
 * <p>State: the maps are concurrent; {@link #standalone} (where messages that belong to no request go) is set by the
 * transport; the rest is fixed at {@code initialize} or volatile.
 */
final class HandshakeSession {

    final String id;
    /** What the handler knows the client by ({@link mcp.server.RequestContext#clientId()}): the session's id. */
    final String clientId;
    final String protocolVersion;
    final JsonNode clientCapabilities;
    final Optional<JsonNode> clientInfo;
    volatile LogLevel logLevel = LogLevel.INFO;
    volatile boolean initialized;
    volatile long lastActiveNanos = System.nanoTime();
    /** When it started here ({@link System#nanoTime()}), for {@code mcp.server.session.duration}. */
    final long startedNanos = System.nanoTime();
    /** Whether it was taken up from a sealed id that another replica (or this one, before) gave out. */
    volatile boolean adopted;
    /** Where messages that belong to no request go: the stdio output, or the open GET stream; {@code null}: none. */
    volatile Channel standalone;
    final Set<String> subscriptions = ConcurrentHashMap.newKeySet();
    final Map<RequestId, Call> calls = new ConcurrentHashMap<>();
    private final Map<RequestId, CompletableFuture<JsonNode>> awaiting = new ConcurrentHashMap<>();
    private final AtomicLong nextRequestId = new AtomicLong(1);
    /**
     * What the ids of the server's own requests start with when replicas share the session ({@code null}: plain
     * numbers): this instance's id, so that an answer that a balancer takes to another replica never completes a
     * request of that replica's with the same number.
     */
    private final String requestIdPrefix;
    private final ServerCore core;
    private volatile boolean closed;

    HandshakeSession(ServerCore core, String id, String protocolVersion, JsonNode clientCapabilities,
            Optional<JsonNode> clientInfo) {
        this.core = core;
        this.id = id;
        this.clientId = id != null ? id : ServerCore.newClientId();
        this.protocolVersion = protocolVersion;
        this.clientCapabilities = clientCapabilities;
        this.clientInfo = clientInfo;
        this.requestIdPrefix = core.sessionSeal.isPresent() ? core.inputs.instance + "-" : null;
    }

    void touch() {
        lastActiveNanos = System.nanoTime();
    }

    /** @return whether the session has been idle (no call in flight, nothing touched) for at least that long */
    boolean idleFor(Duration idle) {
        return calls.isEmpty() && awaiting.isEmpty() && System.nanoTime() - lastActiveNanos >= idle.toNanos();
    }

    boolean closed() {
        return closed;
    }

    /**
     * Sends a request of the server's own to the client, on the channel of the call that makes it, and waits (at
     * most {@code ServerLimits.inputWait}) for the answer.
     *
     * @return the client's result; fails with the client's error, on timeout, or when the session ends
     */
    CompletableFuture<JsonNode> request(String method, JsonNode params, Channel channel) {
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        if (closed) {
            answer.completeExceptionally(new McpException("the client's session ended"));
            return answer;
        }
        if (!core.inputs.reserve()) {
            answer.completeExceptionally(new McpProtocolException(JsonRpcError.INTERNAL_ERROR, "Server busy: "
                    + core.limits.maxPendingInputs() + " requests already wait for a client's input", null));
            return answer;
        }
        RequestId requestId = requestIdPrefix == null ? RequestId.of(nextRequestId.getAndIncrement())
                : RequestId.of(requestIdPrefix + nextRequestId.getAndIncrement());
        awaiting.put(requestId, answer);
        Duration wait = core.limits.inputWait();
        ScheduledFuture<?> timeout = core.threads.timer.schedule(() -> {
            if (answer.completeExceptionally(new McpTimeoutException("the client did not answer " + method
                    + " within " + wait.toMillis() + " ms", wait))) {
                sendCancelled(requestId, channel, "timed out");
            }
        }, wait.toMillis(), TimeUnit.MILLISECONDS);
        answer.whenComplete((value, error) -> {
            awaiting.remove(requestId);
            timeout.cancel(false);
            core.inputs.release();
        });
        if (!channel.send(new JsonRpcRequest(requestId, method, params))) {
            answer.completeExceptionally(new McpException("the request's stream to the client is closed"));
        }
        return answer;
    }

    private void sendCancelled(RequestId requestId, Channel channel, String reason) {
        JsonNode params = McpJson.object().put("reason", reason).set("requestId", ServerCore.idNode(requestId));
        channel.send(new JsonRpcNotification("notifications/cancelled", params));
    }

    /** @return whether the server waits for the client's answer of that id in this session */
    boolean awaits(RequestId requestId) {
        return requestId != null && awaiting.containsKey(requestId);
    }

    /** A response of the client to a request of the server's. */
    void onResponse(JsonRpcResponse response) {
        CompletableFuture<JsonNode> answer = response.id() == null ? null : awaiting.get(response.id());
        if (answer == null) {
            ServerCore.LOG.debug("MCP client answered a request the server is not waiting for: {}", response.id());
            return;
        }
        // Off the transport's thread: the handler waiting for it may go on at once, on this thread.
        core.threads.workers.execute(() -> {
            if (response instanceof JsonRpcSuccess success) {
                answer.complete(success.result());
            } else {
                JsonRpcError error = (JsonRpcError) response;
                answer.completeExceptionally(new McpProtocolException(error.code(), error.message(), error.data()));
            }
        });
    }

    /** Ends the session: calls in flight are cancelled, requests waiting for the client fail. */
    void close() {
        closed = true;
        calls.values().forEach(call -> call.cancel("the session ended"));
        awaiting.values().forEach(answer -> answer.completeExceptionally(new McpException("the client's session ended")));
        Channel stream = standalone;
        if (stream != null) {
            stream.abandon();
        }
    }
}
