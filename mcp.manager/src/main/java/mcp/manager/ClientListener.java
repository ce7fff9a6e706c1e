package mcp.manager;

import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcNotification;

/**
 * Events of one client session. Called in order, on a session's own event thread (never on the
 * transport's reader), so a slow listener delays later events of that session but never the
 * protocol. The defaults do nothing.
 */
public interface ClientListener {

    /**
     * The server sent {@code notifications/tools/list_changed} (or a listen stream was opened again, so a change may
     * have been missed). Many before the listener took the first are one.
     */
    default void onToolsListChanged() {
    }

    /**
     * The server sent {@code notifications/prompts/list_changed} (or a listen stream was opened again). Many before
     * the listener took the first are one.
     */
    default void onPromptsListChanged() {
    }

    /**
     * The server sent {@code notifications/resources/list_changed} (or a listen stream was opened again). Many before
     * the listener took the first are one.
     */
    default void onResourcesListChanged() {
    }

    /**
     * The server sent {@code notifications/resources/updated}: a resource subscribed to with
     * {@link McpClient#subscribeResource} changed and may be read again. In the 2025 era the URI may also be a
     * sub-resource of a subscribed one, as that revision allows. After a listen stream of the 2026-07-28 era was
     * opened again, every subscribed URI is reported, since an update may have been missed. Many for one URI before
     * the listener took the first are one.
     *
     * @param uri the resource's URI
     */
    default void onResourceUpdated(String uri) {
    }

    /**
     * A server notification the client does not handle itself (not progress, not a list change, not a resource
     * update).
     *
     * @param notification the notification
     */
    default void onNotification(JsonRpcNotification notification) {
    }

    /**
     * The session's transport closed; every request in flight has failed with this reason.
     *
     * @param reason why
     */
    default void onClose(TransportClosedException reason) {
    }
}
