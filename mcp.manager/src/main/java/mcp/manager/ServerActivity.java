package mcp.manager;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Optional;
import mcp.api.McpJson;
import mcp.api.internal.Secrets;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What one server did since the manager started, for status pages and probes ({@link McpManager#activity(String)}):
 * counts that only grow, kept across its connections, reconnects and reloads, and its last errors. A snapshot: the
 * counts are read one after the other while calls go on, so they may be a call apart.
 *
 * <p>What counts: a tool call ({@code tools/call}) when it is sent to one of the server's sessions, by an agent of
 * this host or through a gateway; a call that waited for a connection that never came was not sent, and is not
 * counted. A call that was sent ends as a result, a result with {@code isError: true} ({@link #toolErrors()}), a
 * failure ({@link #callErrors()}: a JSON-RPC error, a timeout, the connection closing under it, a result that cannot
 * be read), or a cancellation by its caller (neither). Calls still running are in {@link #calls()} only.
 *
 * @param calls the tool calls sent
 * @param toolErrors the calls the tool answered with an error result ({@code isError: true}): the tool's own verdict,
 *     the server worked
 * @param callErrors the calls that failed without a result: a JSON-RPC error, a timeout, the connection closing (a
 *     call that reached nobody because its connection had just closed too: the host's agent sends it again on the
 *     next connection, where it counts as a call of its own)
 * @param drops how often a connection closed by itself (the server exited, the stream broke), not by the host
 * @param reconnectAttempts the reconnect attempts that ended, connected or failed (the retries of a first connect
 *     are not reconnects and are not counted)
 * @param reconnects the reconnect attempts that connected
 * @param lastError the last time the server itself failed: a connect or reconnect attempt, or a dropped connection
 * @param lastCallError the last call that failed without a result ({@link #callErrors()})
 */
public record ServerActivity(long calls, long toolErrors, long callErrors, long drops, long reconnectAttempts,
        long reconnects, Optional<ErrorAt> lastError, Optional<ErrorAt> lastCallError) {

    /** Nothing yet. */
    public static final ServerActivity NONE = new ServerActivity(0, 0, 0, 0, 0, 0, Optional.empty(), Optional.empty());

    /** Validates. */
    public ServerActivity {
        if (calls < 0 || toolErrors < 0 || callErrors < 0 || drops < 0 || reconnectAttempts < 0 || reconnects < 0) {
            throw new IllegalArgumentException("a count is negative");
        }
        Objects.requireNonNull(lastError, "lastError");
        Objects.requireNonNull(lastCallError, "lastCallError");
    }

    /** @return the calls that failed either way: {@link #toolErrors()} plus {@link #callErrors()} */
    public long failedCalls() {
        return toolErrors + callErrors;
    }

    /**
     * @return e.g. {@code 12 calls, 1 failed, 2 reconnects}: the calls, then what went wrong when something did; empty
     *     when nothing happened
     */
    public String summary() {
        StringBuilder text = new StringBuilder();
        if (calls > 0) {
            text.append(calls).append(calls == 1 ? " call" : " calls");
            if (failedCalls() > 0) {
                text.append(", ").append(failedCalls()).append(" failed");
            }
        }
        if (reconnects > 0) {
            if (text.length() > 0) {
                text.append(", ");
            }
            text.append(reconnects).append(reconnects == 1 ? " reconnect" : " reconnects");
        }
        return text.toString();
    }

    /**
     * The form the status answers give ({@code mcp-host status --json}, the shared gateway's status, {@code GET
     * /status}): the counts, and the last errors masked, since they may quote the server.
     *
     * @param withCallError whether the last failed call's error is given: it may quote a call of another client, so
     *     only to a caller who sees everything
     * @return {@code {"calls": ..., "failedCalls": ..., ..., "lastError": {"message", "at"} or null, ...}}
     */
    public ObjectNode toJson(boolean withCallError) {
        ObjectNode json = McpJson.object().put("calls", calls).put("failedCalls", failedCalls())
                .put("toolErrors", toolErrors).put("callErrors", callErrors).put("drops", drops)
                .put("reconnectAttempts", reconnectAttempts).put("reconnects", reconnects);
        putError(json, "lastError", lastError);
        if (withCallError) {
            putError(json, "lastCallError", lastCallError);
        }
        return json;
    }

    /**
     * Reads what {@link #toJson} wrote (as another process, such as the shared gateway, gave it).
     *
     * @param json the {@code activity} object, or {@code null}
     * @return the counts, or empty when there are none (an older gateway gives none)
     */
    public static Optional<ServerActivity> fromJson(JsonNode json) {
        if (json == null || !json.isObject()) {
            return Optional.empty();
        }
        return Optional.of(new ServerActivity(count(json, "calls"), count(json, "toolErrors"),
                count(json, "callErrors"), count(json, "drops"), count(json, "reconnectAttempts"),
                count(json, "reconnects"), errorAt(json.get("lastError")), errorAt(json.get("lastCallError"))));
    }

    private static void putError(ObjectNode json, String field, Optional<ErrorAt> error) {
        if (error.isEmpty()) {
            json.putNull(field);
        } else {
            json.putObject(field).put("message", Secrets.maskText(error.get().message()))
                    .put("at", error.get().at().toString());
        }
    }

    private static long count(JsonNode json, String field) {
        return Math.max(0, json.path(field).asLong(0));
    }

    private static Optional<ErrorAt> errorAt(JsonNode json) {
        if (json == null || !json.isObject() || !json.path("message").isString()) {
            return Optional.empty();
        }
        Instant at;
        try {
            at = Instant.parse(json.path("at").asString(""));
        } catch (DateTimeParseException e) {
            at = Instant.EPOCH;
        }
        return Optional.of(new ErrorAt(json.get("message").asString(), at));
    }

    /**
     * An error and when it happened.
     *
     * @param message what happened, as {@link ServerStatus#error()} says it: it may quote the server (its stderr, its
     *     error message), so mask it ({@code Secrets.maskText}) before showing it to anyone but the user
     * @param at when
     */
    public record ErrorAt(String message, Instant at) {
        /** Validates. */
        public ErrorAt {
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(at, "at");
        }
    }
}
