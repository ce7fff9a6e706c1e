package mcp.protocol;

import java.util.Optional;
import java.util.Set;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The rules of tasks that both sides read alike. Tasks exist in two shapes: the experimental utility of 2025-11-25
 * ({@code capabilities.tasks}, a {@code task} param that the client adds to {@code tools/call}, a
 * {@code CreateTaskResult} that nests the task under {@code task}, {@code ttl} and {@code pollInterval},
 * {@code tasks/get}, {@code tasks/result}, {@code tasks/list}, {@code tasks/cancel}), and the extension of
 * 2026-07-28 ({@value #EXTENSION}: declared per request in the client's capabilities, the server alone decides which
 * call becomes a task, a flat {@code CreateTaskResult} with {@code resultType: "task"}, {@code ttlMs} and
 * {@code pollIntervalMs}, {@code tasks/get} that inlines the result, {@code tasks/update} for input,
 * {@code tasks/cancel}; no {@code tasks/result} and no {@code tasks/list}).
 */
public final class TaskRules {

    /** The extension's identifier, under {@code capabilities.extensions} (2026-07-28). */
    public static final String EXTENSION = "io.modelcontextprotocol/tasks";
    /** The {@code resultType} of a result that is a task (2026-07-28). */
    public static final String RESULT_TYPE_TASK = "task";
    /** The {@code _meta} key that ties a message to its task (2025-11-25). */
    public static final String RELATED_TASK = "io.modelcontextprotocol/related-task";
    /** The statuses after which a task never changes. */
    public static final Set<String> TERMINAL = Set.of("completed", "failed", "cancelled");
    /** The methods about a task that exists (their {@code taskId} names it), in either shape. */
    public static final Set<String> TASK_METHODS = Set.of("tasks/get", "tasks/result", "tasks/cancel",
            "tasks/update");

    private TaskRules() {
    }

    /**
     * @param clientCapabilities a request's client capabilities (2026-07-28: its envelope's), or a server's (its
     *     {@code server/discover} answer's: then whether it may answer a call with a task)
     * @return whether they declare the extension
     */
    public static boolean declaresExtension(JsonNode clientCapabilities) {
        return clientCapabilities != null && clientCapabilities.path("extensions").path(EXTENSION).isObject();
    }

    /**
     * @param why what needed it
     * @return the error a 2026-07-28 server answers to a client that did not declare the extension and needs it:
     *     {@code -32021} with {@code data.requiredCapabilities.extensions} naming it
     */
    public static McpProtocolException missingExtension(String why) {
        ObjectNode data = McpJson.object();
        data.putObject("requiredCapabilities").putObject("extensions").putObject(EXTENSION);
        return new McpProtocolException(ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY, why + " needs the client "
                + "capability extensions[\"" + EXTENSION + "\"], which the client did not declare", data);
    }

    /**
     * @param params a 2025-11-25 {@code tools/call}'s params
     * @return its {@code task} param (the client asks for a task), when it has one
     */
    public static Optional<JsonNode> taskParam(JsonNode params) {
        JsonNode task = params == null ? null : params.get("task");
        return task != null && task.isObject() ? Optional.of(task) : Optional.empty();
    }

    /**
     * @param params a 2025-11-25 {@code tools/call}'s params
     * @return the {@code task.ttl} the client asks for, in milliseconds, when it gives a positive whole number
     */
    public static Optional<Long> requestedTtlMillis(JsonNode params) {
        return taskParam(params).map(task -> task.get("ttl"))
                .filter(ttl -> ttl != null && ttl.isIntegralNumber() && ttl.canConvertToLong() && ttl.longValue() > 0)
                .map(JsonNode::longValue);
    }
}
