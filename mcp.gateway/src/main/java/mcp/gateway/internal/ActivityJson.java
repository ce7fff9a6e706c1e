package mcp.gateway.internal;

import java.util.Optional;
import mcp.api.McpJson;
import mcp.api.internal.Secrets;
import mcp.manager.ServerActivity;
import tools.jackson.databind.node.ObjectNode;

/**
 * A server's {@link ServerActivity} as the gateway's status answers give it (the shared gateway's status line,
 * {@code GET /status}): the counts, and the last errors masked, since they may quote the server.
 */
public final class ActivityJson {

    private ActivityJson() {
    }

    /**
     * @param activity the counts
     * @param withCallError whether the last failed call's error is given: it may quote a call of another client, so
     *     only to a caller who sees everything
     * @return the {@code activity} object
     */
    public static ObjectNode of(ServerActivity activity, boolean withCallError) {
        ObjectNode json = McpJson.object().put("calls", activity.calls()).put("failedCalls", activity.failedCalls())
                .put("toolErrors", activity.toolErrors()).put("callErrors", activity.callErrors())
                .put("drops", activity.drops()).put("reconnectAttempts", activity.reconnectAttempts())
                .put("reconnects", activity.reconnects());
        put(json, "lastError", activity.lastError());
        if (withCallError) {
            put(json, "lastCallError", activity.lastCallError());
        }
        return json;
    }

    private static void put(ObjectNode json, String field, Optional<ServerActivity.ErrorAt> error) {
        if (error.isEmpty()) {
            json.putNull(field);
        } else {
            json.putObject(field).put("message", Secrets.maskText(error.get().message()))
                    .put("at", error.get().at().toString());
        }
    }
}
