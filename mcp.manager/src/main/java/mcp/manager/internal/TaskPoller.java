package mcp.manager.internal;

import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.McpTimeoutException;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.manager.CallOptions;
import mcp.manager.ProgressUpdate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool call the server answered with a task (the {@code io.modelcontextprotocol/tasks} extension of
 * 2026-07-28): its {@code tasks/get} polls at the server's {@code pollIntervalMs}, within the call's bounds
 * (measured from the call's start; a changed status, status message or {@code lastUpdatedAt} is progress), its
 * status reported as progress, the input it asks for answered with {@code tasks/update}, and its end: the
 * result of a {@code completed} task, the JSON-RPC error of a {@code failed} one. Ending it early (a cancel of
 * the call, a bound) sends {@code tasks/cancel}, never {@code notifications/cancelled}.
 *
 * <p>State: {@link #done} is set once, under this object's lock, by whoever ends the call first; a poll
 * answer that comes after it is dropped.
 */
final class TaskPoller {

    private static final Logger LOG = LoggerFactory.getLogger(TaskPoller.class);

    /** The wait between polls when the server suggests none. */
    static final long DEFAULT_POLL_MILLIS = 1_000;
    /** The shortest wait between polls, whatever the server suggests. */
    static final long MIN_POLL_MILLIS = 10;

    /** What the poller needs of its session. */
    interface Session {
        CompletableFuture<JsonNode> request(String method, JsonNode params, CallOptions options);

        /** Answers a task's {@code inputRequests} as the session answers the same server requests. */
        ObjectNode inputResponses(JsonNode inputRequests);
    }

    private final Session session;
    private final String server;
    private final String tool;
    private final CallOptions bounds;
    private final Duration requestTimeout;
    private final Executor events;
    private final CompletableFuture<JsonNode> outcome = new CompletableFuture<>();
    private final CallClock clock;
    /** Guarded by this. */
    private boolean done;
    private ScheduledFuture<?> nextPoll;
    private String taskId;
    /** Touched by one poll answer at a time (polls are sequential). */
    private final Set<String> answered = new HashSet<>();
    private String lastStatus;
    private String lastMessage;
    private String lastUpdated;
    private long reports;

    /**
     * @param bounds the call's options, with its timeout and cap present
     * @param startNanos when the call was sent
     * @param requestTimeout the bound of each poll, cancel and update request
     * @param events the session's event executor: status reports and the end run there in order
     */
    TaskPoller(Session session, String server, String tool, CallOptions bounds, long startNanos,
            Duration requestTimeout, Executor events) {
        this.session = session;
        this.server = server;
        this.tool = tool;
        this.bounds = bounds;
        this.requestTimeout = requestTimeout;
        this.events = events;
        this.clock = new CallClock(bounds, startNanos, System.nanoTime(), this::expire);
    }

    /** @return whether a {@code tools/call} result is a task handle ({@code resultType: "task"}) */
    static boolean isTask(JsonNode result) {
        return result != null && "task".equals(result.path("resultType").asString(""));
    }

    /**
     * Follows the task a {@code CreateTaskResult} names.
     *
     * @return completes with the task's {@code CallToolResult}, or fails as the call fails
     */
    CompletableFuture<JsonNode> follow(JsonNode created) {
        JsonNode id = created.get("taskId");
        if (id == null || !id.isString() || id.asString().isEmpty()) {
            outcome.completeExceptionally(new McpException(prefix() + "answered with a task without a taskId"));
            return outcome;
        }
        synchronized (this) {
            taskId = id.asString();
        }
        LOG.debug("MCP server \"{}\": tool \"{}\" runs as task {}", server, tool, taskId);
        clock.start();
        onTask(created);
        return outcome;
    }

    /** Ends the call with the reason its session closed: the task cannot be followed any more. */
    void closed(Throwable reason) {
        if (end()) {
            fail(reason);
        }
    }

    /** Ends the call as cancelled by the client, and cancels the task on the server. */
    void cancel() {
        if (end()) {
            outcome.cancel(false);
            sendCancel("cancelled by the client");
        }
    }

    private String prefix() {
        return "MCP server \"" + server + "\": tool \"" + AgentText.clean(tool, 64).text() + "\" ";
    }

    private void expire(CallClock.Expiry expiry) {
        if (end()) {
            String message = CallClock.message(server, tool, expiry, bounds.resetTimeoutOnProgress())
                    + "; its task " + taskId + " was cancelled (tasks/cancel)";
            LOG.debug("{}", message);
            fail(new McpTimeoutException(message, expiry.value(), expiry.bound()));
            sendCancel(expiry.bound().name().toLowerCase(java.util.Locale.ROOT));
        }
    }

    /** @return whether this call ended the task now (and not someone before it) */
    private synchronized boolean end() {
        if (done) {
            return false;
        }
        done = true;
        clock.stop();
        if (nextPoll != null) {
            nextPoll.cancel(false);
        }
        return true;
    }

    /** Ends with this failure, after the status reports already queued. */
    private void fail(Throwable failure) {
        events.execute(() -> ClientThreads.WORKERS.execute(() -> outcome.completeExceptionally(failure)));
    }

    private void failAndCancel(Throwable failure) {
        if (end()) {
            fail(failure);
            sendCancel("the client gave up on it: " + failure.getMessage());
        }
    }

    private void sendCancel(String why) {
        LOG.debug("MCP server \"{}\": cancelling task {} of tool \"{}\" ({})", server, taskId, tool, why);
        session.request("tasks/cancel", taskParams(), CallOptions.DEFAULT.withTimeout(requestTimeout))
                .whenComplete((ignored, error) -> {
                    if (error != null) {
                        LOG.debug("MCP server \"{}\": tasks/cancel of {} failed: {}", server, taskId,
                                ClientSession.unwrap(error).getMessage());
                    }
                });
    }

    private ObjectNode taskParams() {
        return McpJson.object().put("taskId", taskId);
    }

    private void poll() {
        synchronized (this) {
            if (done) {
                return;
            }
        }
        session.request("tasks/get", taskParams(), CallOptions.DEFAULT.withTimeout(requestTimeout))
                .whenComplete((task, error) -> {
                    if (error != null) {
                        Throwable cause = ClientSession.unwrap(error);
                        if (cause instanceof TransportClosedException) {
                            closed(cause);
                            return;
                        }
                        failAndCancel(new McpException(prefix() + "could not be followed: tasks/get of its task "
                                + taskId + " failed: " + cause.getMessage(), cause));
                    } else {
                        onTask(task);
                    }
                });
    }

    /** Takes the task's state: from the {@code CreateTaskResult}, a poll answer or a notification. */
    private void onTask(JsonNode task) {
        synchronized (this) {
            if (done) {
                return;
            }
        }
        String status = task.path("status").asString("");
        String message = task.path("statusMessage").isString() ? task.get("statusMessage").asString() : null;
        String updated = task.path("lastUpdatedAt").isString() ? task.get("lastUpdatedAt").asString() : null;
        boolean reported = !status.equals(lastStatus) || !Objects.equals(message, lastMessage);
        if (reported || !Objects.equals(updated, lastUpdated)) {
            if (lastStatus != null) {
                clock.activity();
            }
            lastUpdated = updated;
        }
        if (reported) {
            lastStatus = status;
            lastMessage = message;
            if (status.equals("working") || status.equals("input_required")) {
                report(status, message); // an end is the call's result, not its progress
            }
        }
        switch (status) {
            case "completed" -> {
                JsonNode result = task.get("result");
                if (result == null || !result.isObject()) {
                    failAndCancel(new McpException(prefix() + "completed its task " + taskId + " without a result"));
                } else if (end()) {
                    events.execute(() -> ClientThreads.WORKERS.execute(() -> outcome.complete(result)));
                }
            }
            case "failed" -> {
                if (end()) {
                    JsonNode error = task.path("error");
                    String text = error.path("message").isString() ? error.get("message").asString()
                            : message != null ? message : "task " + taskId + " failed";
                    fail(new McpProtocolException(error.path("code").asInt(JsonRpcError.INTERNAL_ERROR), text,
                            error.get("data")));
                }
            }
            case "cancelled" -> {
                if (end()) {
                    fail(new McpException(prefix() + "did not finish: the server cancelled its task " + taskId
                            + (message != null ? ": " + AgentText.clean(message, 500).text() : "")));
                }
            }
            case "input_required" -> answer(task.path("inputRequests"), task);
            case "working" -> schedule(task);
            default -> failAndCancel(new McpException(prefix() + "reported its task " + taskId
                    + " in a status mcp-host does not know: " + AgentText.clean(status, 100).text()));
        }
    }

    private void report(String status, String message) {
        Optional<Consumer<ProgressUpdate>> consumer = bounds.onProgress();
        if (consumer.isEmpty()) {
            return;
        }
        ProgressUpdate update = new ProgressUpdate(++reports, Optional.empty(),
                Optional.of(message != null ? message : status));
        events.execute(() -> consumer.get().accept(update));
    }

    /** Answers the input requests not answered yet with {@code tasks/update}, then polls on. */
    private void answer(JsonNode inputRequests, JsonNode task) {
        ObjectNode fresh = McpJson.object();
        if (inputRequests.isObject()) {
            for (String key : inputRequests.propertyNames()) {
                if (!answered.contains(key)) {
                    fresh.set(key, inputRequests.get(key));
                }
            }
        }
        if (fresh.isEmpty()) {
            schedule(task);
            return;
        }
        // The handlers may ask a person, and so block: never on the thread that read the poll's answer.
        CompletableFuture.supplyAsync(() -> session.inputResponses(fresh), ClientThreads.WORKERS)
                .thenCompose(responses -> {
                    answered.addAll(fresh.propertyNames());
                    ObjectNode params = taskParams();
                    params.set("inputResponses", responses);
                    return session.request("tasks/update", params, CallOptions.DEFAULT.withTimeout(requestTimeout));
                })
                .whenComplete((ignored, error) -> {
                    if (error != null) {
                        Throwable cause = ClientSession.unwrap(error);
                        failAndCancel(cause instanceof McpException && !(cause instanceof McpProtocolException)
                                ? cause : new McpException(prefix() + "could not answer the input its task " + taskId
                                        + " asked for: " + cause.getMessage(), cause));
                    } else {
                        schedule(task);
                    }
                });
    }

    private synchronized void schedule(JsonNode task) {
        if (done) {
            return;
        }
        JsonNode interval = task.get("pollIntervalMs");
        long millis = interval != null && interval.isIntegralNumber() && interval.canConvertToLong()
                ? Math.max(MIN_POLL_MILLIS, interval.longValue()) : DEFAULT_POLL_MILLIS;
        nextPoll = ClientThreads.TIMERS.schedule(() -> ClientThreads.WORKERS.execute(this::poll), millis,
                TimeUnit.MILLISECONDS);
    }
}
