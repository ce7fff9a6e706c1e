package mcp.manager;

import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcNotification;

/**
 * Events of one client session. Called in order, on a session's own event thread (never on the
 * transport's reader), so a slow listener delays later events of that session but never the
 * protocol. The defaults do nothing.
 */
public interface ClientListener {

    /** The server sent {@code notifications/tools/list_changed}. */
    default void onToolsListChanged() {
    }

    /**
     * A server notification the client does not handle itself (not progress, not list_changed).
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
