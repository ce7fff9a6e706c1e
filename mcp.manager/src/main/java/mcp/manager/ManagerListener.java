package mcp.manager;

import java.util.List;
import mcp.api.ToolChanges;

/**
 * Events of a {@link McpManager}. Called in order on the manager's event thread, never under its
 * lock, so a listener may call the manager. The defaults do nothing.
 */
public interface ManagerListener {

    /**
     * A server's status changed.
     *
     * @param serverName the server
     * @param status its new status
     */
    default void onStatusChange(String serverName, ServerStatus status) {
    }

    /**
     * The manager's tool set changed (a server connected, listed new tools, or went away).
     *
     * @param serverName the server whose tools changed, or {@code *} when several changed at once
     *     ({@link McpManager#disconnectAll()}, cached tools of several slow servers at the startup gate)
     * @param tools every tool of the manager now
     */
    default void onToolsChanged(String serverName, List<BridgedTool> tools) {
    }

    /**
     * The resources, resource templates or prompts of a server changed (it connected, listed them again after a
     * list change, went deferred while reconnecting, or went away).
     *
     * @param serverName the server whose surface changed, or {@code *} when several changed at once
     * @param surfaces every server's surface now ({@link McpManager#surfaces()})
     */
    default void onSurfacesChanged(String serverName, List<SurfaceSlice> surfaces) {
    }

    /**
     * A resource subscribed to with {@link McpManager#subscribeResource} changed (or its server reconnected, so a
     * change may have been missed): read it again.
     *
     * @param serverName the server
     * @param uri the resource's URI
     */
    default void onResourceUpdated(String serverName, String uri) {
    }

    /**
     * A server's listing differs from its pinned tool definitions (see {@link McpManager#toolChanges(String)}):
     * tools changed and withheld, new, removed or renamed, or its instructions changed. Sent for every such
     * listing, after {@link #onToolsChanged} of the same listing.
     *
     * @param changes what differs, and what is withheld
     */
    default void onToolChanges(ToolChanges changes) {
    }
}
