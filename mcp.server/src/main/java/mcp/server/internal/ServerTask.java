package mcp.server.internal;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import mcp.api.McpTimeoutException;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcResponse;
import mcp.api.jsonrpc.JsonRpcSuccess;
import mcp.api.jsonrpc.RequestId;
import mcp.protocol.Era;
import mcp.protocol.Meta;
import mcp.protocol.ResultType;
import mcp.protocol.TaskRules;
import mcp.server.InputRequest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One tool call that the server runs as a task: its {@link Call} runs as any call does, with a {@link #channel()}
 * that keeps its answer here instead of sending it, and what the task says about it ({@code tasks/get}).
 *
 * <p>Status: {@code working}, {@code input_required} while an ask of its handler waits for the client, then one of
 * {@link TaskRules#TERMINAL}, which never changes again (a cancel that comes after the end changes nothing, an end
 * that comes after a cancel is dropped).
 *
 * <p>Input: in the stateless revision the open asks are the task's {@code inputRequests}, answered by key with
 * {@code tasks/update} (a part at a time if the client likes). In the handshake era they are requests of the
 * server's own, tagged with {@value TaskRules#RELATED_TASK}, sent on the stream of a {@code tasks/result} that waits
 * for the task, else on the session's own stream (stdio, or an open GET stream); with neither they wait for the
 * client's next {@code tasks/result}.
 *
 * <p>State: everything mutable is guarded by {@code this}; {@link #done} completes once, when the status becomes
 * terminal.
 */
final class ServerTask {

    /** The wait between polls the server suggests. */
    static final long POLL_INTERVAL_MILLIS = 500;

    /** An ask of the handler not answered yet. */
    private static final class Ask {
        final String key;
        final InputRequest request;
        final CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        boolean sent;

        Ask(String key, InputRequest request) {
            this.key = key;
            this.request = request;
        }
    }

    final String id;
    /** Whose task it is: the session, the stdio connection, or the HTTP authorization (stateless). */
    final Object owner;
    final Era era;
    final Instant created;
    final long ttlMillis;
    final CompletableFuture<Void> done = new CompletableFuture<>();
    private final ServerCore core;
    private final HandshakeSession session;
    private final Channel channel = new TaskChannel();
    private Call call;
    private String status = "working";
    private String statusMessage;
    private Instant updated;
    private JsonNode result;
    private JsonRpcError error;
    private final Map<String, Ask> asks = new LinkedHashMap<>();
    /** The {@code tasks/result} requests waiting for this task (handshake era): where its asks go. */
    private final List<Channel> carriers = new ArrayList<>();
    ScheduledFuture<?> expiry;

    ServerTask(ServerCore core, String id, Object owner, Era era, HandshakeSession session, long ttlMillis) {
        this.core = core;
        this.id = id;
        this.owner = owner;
        this.era = era;
        this.session = session;
        this.ttlMillis = ttlMillis;
        this.created = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        this.updated = created;
    }

    /** @return the channel of the task's call: its answer ends the task */
    Channel channel() {
        return channel;
    }

    synchronized void attach(Call taskCall) {
        this.call = taskCall;
    }

    synchronized String status() {
        return status;
    }

    synchronized boolean terminal() {
        return TaskRules.TERMINAL.contains(status);
    }

    /** Moves to a status, unless the task has ended; the caller holds the lock. */
    private boolean move(String newStatus, String message) {
        if (TaskRules.TERMINAL.contains(status)) {
            return false;
        }
        status = newStatus;
        statusMessage = message;
        updated = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        return true;
    }

    private void ended() {
        List<Ask> open;
        synchronized (this) {
            open = new ArrayList<>(asks.values());
            asks.clear();
        }
        open.forEach(ask -> ask.answer.cancel(false));
        done.complete(null);
    }

    /** The handler's progress: its message (or how far it is) becomes the status message of a working task. */
    void progressed(double progress, double total, String message) {
        synchronized (this) {
            if (status.equals("working")) {
                move("working", message != null ? message : total >= 0 ? format(progress) + " of " + format(total)
                        : format(progress));
            }
        }
    }

    private static String format(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value)
                : Double.toString(value);
    }

    /**
     * Cancels the task: its status is {@code cancelled} before this returns, then its call is cancelled.
     *
     * @return whether it was still running
     */
    boolean cancel(String why) {
        Call running;
        synchronized (this) {
            if (!move("cancelled", why)) {
                return false;
            }
            running = call;
        }
        ended();
        if (running != null) {
            running.cancel(why);
        }
        return true;
    }

    /** The call's answer: a result, or a JSON-RPC error. */
    private void finished(JsonRpcResponse response) {
        synchronized (this) {
            if (response instanceof JsonRpcSuccess success) {
                JsonNode value = success.result();
                boolean toolError = value.path("isError").asBoolean(false);
                // 2025-11-25 counts a tool's error result as failed (its result is still what tasks/result answers);
                // the extension keeps failed for protocol errors: a tool's error result is completed there.
                String message = toolError ? "Tool execution failed: " + firstText(value) : null;
                if (!move(toolError && era == Era.HANDSHAKE ? "failed" : "completed", message)) {
                    return;
                }
                result = value;
            } else {
                JsonRpcError failure = (JsonRpcError) response;
                if (!move("failed", failure.message())) {
                    return;
                }
                error = failure;
            }
        }
        ended();
    }

    private static String firstText(JsonNode result) {
        for (JsonNode item : result.path("content")) {
            if (item.path("type").asString("").equals("text")) {
                return item.path("text").asString("");
            }
        }
        return "the tool reported an error";
    }

    // ------------------------------------------------------------------------------------------ input

    /**
     * One round of input the task's handler asks for: the task is {@code input_required} until every key is answered.
     * Each ask waits at most {@code ServerLimits.inputWait}.
     */
    CompletableFuture<Map<String, JsonNode>> ask(Map<String, InputRequest> requests) {
        Map<String, CompletableFuture<JsonNode>> answers = new LinkedHashMap<>();
        synchronized (this) {
            if (TaskRules.TERMINAL.contains(status)) {
                return CompletableFuture.failedFuture(new CancellationException("the task ended"));
            }
            requests.forEach((key, request) -> {
                Ask ask = new Ask(key, request);
                Ask earlier = asks.putIfAbsent(key, ask);
                answers.put(key, (earlier != null ? earlier : ask).answer);
            });
            move("input_required", "waiting for the client's input");
        }
        long wait = core.limits.inputWait().toMillis();
        ScheduledFuture<?> timeout = core.threads.timer.schedule(() -> answers.values().forEach(answer ->
                answer.completeExceptionally(new McpTimeoutException("the client did not answer the task's input "
                        + "request within " + wait + " ms", core.limits.inputWait()))), wait, TimeUnit.MILLISECONDS);
        answers.forEach((key, answer) -> answer.whenComplete((value, failure) -> answered(key)));
        if (era == Era.HANDSHAKE) {
            deliver();
        }
        CompletableFuture<Map<String, JsonNode>> all = CompletableFuture.allOf(answers.values()
                .toArray(CompletableFuture[]::new)).thenApply(ignored -> {
                    Map<String, JsonNode> values = new HashMap<>();
                    answers.forEach((key, answer) -> values.put(key, answer.join()));
                    return values;
                });
        all.whenComplete((value, failure) -> timeout.cancel(false));
        return all;
    }

    /** A key was answered (or failed): back to working once none is open. */
    private void answered(String key) {
        synchronized (this) {
            Ask ask = asks.get(key);
            if (ask != null && ask.answer.isDone()) {
                asks.remove(key);
            }
            if (asks.isEmpty() && status.equals("input_required")) {
                move("working", null);
            }
        }
    }

    /**
     * {@code tasks/update} (stateless revision): the answers complete the open asks of their keys; keys the task does
     * not wait for are ignored.
     */
    void update(JsonNode inputResponses) {
        List<Runnable> completions = new ArrayList<>();
        synchronized (this) {
            for (String key : inputResponses.propertyNames()) {
                // Out of inputRequests at once: a tasks/get right after the ack shows only what is still open.
                Ask ask = asks.remove(key);
                if (ask != null) {
                    JsonNode answer = inputResponses.get(key);
                    completions.add(() -> ask.answer.complete(answer));
                }
            }
            if (asks.isEmpty() && status.equals("input_required")) {
                move("working", null);
            }
        }
        // Off the transport's thread: the handler waiting for the answers goes on at once, on the completing thread.
        completions.forEach(core.threads.workers::execute);
    }

    /** A {@code tasks/result} waits for this task: its stream carries the task's requests meanwhile. */
    void addCarrier(Channel carrier) {
        synchronized (this) {
            carriers.add(carrier);
        }
        carrier.gone().thenRun(() -> removeCarrier(carrier));
        deliver();
    }

    void removeCarrier(Channel carrier) {
        synchronized (this) {
            carriers.remove(carrier);
        }
    }

    /** Sends the asks not sent yet as requests of the server's own (handshake era), if a stream can carry them. */
    private void deliver() {
        Channel carrier;
        List<Ask> unsent = new ArrayList<>();
        synchronized (this) {
            carrier = null;
            for (int i = carriers.size() - 1; i >= 0 && carrier == null; i--) {
                if (carriers.get(i).carriesRequests()) {
                    carrier = carriers.get(i);
                }
            }
            if (carrier == null) {
                carrier = session == null ? null : session.standalone;
            }
            if (carrier == null) {
                return;
            }
            for (Ask ask : asks.values()) {
                if (!ask.sent && !ask.answer.isDone()) {
                    ask.sent = true;
                    unsent.add(ask);
                }
            }
        }
        for (Ask ask : unsent) {
            ObjectNode params = ask.request.params() instanceof ObjectNode object ? object.deepCopy()
                    : McpJson.object();
            relate(params);
            session.request(ask.request.method(), params, carrier).whenComplete((value, failure) -> {
                if (failure != null) {
                    ask.answer.completeExceptionally(failure);
                } else {
                    ask.answer.complete(value);
                }
            });
        }
    }

    /** Tags a message's params with the task they belong to (handshake era). */
    private void relate(ObjectNode params) {
        JsonNode meta = params.get(Meta.KEY);
        ObjectNode object = meta instanceof ObjectNode existing ? existing : params.putObject(Meta.KEY);
        object.putObject(TaskRules.RELATED_TASK).put("taskId", id);
    }

    // ------------------------------------------------------------------------------------------ what clients read

    /** @return the {@code CreateTaskResult} of the era */
    synchronized ObjectNode createResult() {
        if (era == Era.HANDSHAKE) {
            ObjectNode result = McpJson.object();
            result.set("task", json(false));
            return result;
        }
        return json(false).put(ResultType.KEY, TaskRules.RESULT_TYPE_TASK);
    }

    /**
     * @param detailed whether to inline the result, error or input requests (the stateless revision's
     *     {@code tasks/get})
     * @return the task as the era writes it
     */
    synchronized ObjectNode json(boolean detailed) {
        ObjectNode json = McpJson.object().put("taskId", id).put("status", status);
        if (statusMessage != null) {
            json.put("statusMessage", statusMessage);
        }
        json.put("createdAt", created.toString()).put("lastUpdatedAt", updated.toString());
        json.put(era == Era.HANDSHAKE ? "ttl" : "ttlMs", ttlMillis);
        json.put(era == Era.HANDSHAKE ? "pollInterval" : "pollIntervalMs", POLL_INTERVAL_MILLIS);
        if (detailed) {
            switch (status) {
                case "completed" -> json.set("result", result);
                case "failed" -> {
                    if (error != null) {
                        ObjectNode inlined = json.putObject("error").put("code", error.code())
                                .put("message", error.message());
                        if (error.data() != null) {
                            inlined.set("data", error.data());
                        }
                    } else {
                        json.set("result", result);
                    }
                }
                case "input_required" -> {
                    ObjectNode requests = json.putObject("inputRequests");
                    asks.forEach((key, ask) -> requests.set(key, ask.request.toJson()));
                }
                default -> {
                }
            }
        }
        return json;
    }

    /** @return what {@code tasks/result} answers for this ended task (handshake era) */
    synchronized JsonRpcResponse resultResponse(RequestId requestId) {
        if (error != null) {
            return new JsonRpcError(requestId, error.code(), error.message(), error.data());
        }
        if (result == null) {
            return new JsonRpcError(requestId, JsonRpcError.INTERNAL_ERROR, "Task " + id + " was cancelled"
                    + (statusMessage == null ? "" : ": " + statusMessage) + "; it has no result", null);
        }
        ObjectNode answer = McpJson.object();
        answer.setAll((ObjectNode) result);
        JsonNode meta = answer.get(Meta.KEY);
        ObjectNode object = meta instanceof ObjectNode existing ? existing.deepCopy() : McpJson.object();
        object.putObject(TaskRules.RELATED_TASK).put("taskId", id);
        answer.set(Meta.KEY, object);
        return new JsonRpcSuccess(requestId, answer);
    }

    /**
     * Where the task's call sends: its answer ends the task; its notifications and requests (handshake era) go where
     * the task's asks go, tagged with the task, and are dropped in the stateless revision, where nothing but polling
     * reaches the client.
     */
    private final class TaskChannel implements Channel {
        @Override
        public boolean send(JsonRpcMessage message) {
            if (era != Era.HANDSHAKE || session == null) {
                return false;
            }
            Channel carrier;
            synchronized (ServerTask.this) {
                carrier = carriers.isEmpty() ? session.standalone : carriers.get(carriers.size() - 1);
            }
            if (carrier == null) {
                return false;
            }
            if (message instanceof JsonRpcNotification notification) {
                ObjectNode params = notification.params() instanceof ObjectNode object ? object.deepCopy()
                        : McpJson.object();
                relate(params);
                return carrier.send(new JsonRpcNotification(notification.method(), params));
            }
            if (message instanceof JsonRpcRequest request) {
                return carrier.send(request);
            }
            return false;
        }

        @Override
        public boolean carriesRequests() {
            return era == Era.HANDSHAKE && session != null;
        }

        @Override
        public void finish(JsonRpcResponse response, int httpStatus) {
            finished(response);
        }

        @Override
        public void abandon() {
            cancel("cancelled");
        }

        @Override
        public CompletableFuture<Void> gone() {
            return new CompletableFuture<>();
        }
    }
}
