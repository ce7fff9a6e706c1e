package mcp.springai;

import mcp.manager.McpManager;
import mcp.manager.ServerStatus;
import org.springframework.context.ApplicationEvent;

/**
 * A server's status changed: connecting, connected (also after the startup gate, or after a reconnect), failed,
 * reconnecting, disconnected ({@link mcp.manager.ManagerListener#onStatusChange}); also published for every server
 * when {@link McpApplicationEvents} starts, with its status then.
 */
public final class McpServerStatusEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    private final String serverName;
    private final transient ServerStatus status;

    /**
     * @param manager the host's manager
     * @param serverName the server
     * @param status its new status
     */
    public McpServerStatusEvent(McpManager manager, String serverName, ServerStatus status) {
        super(manager);
        this.serverName = serverName;
        this.status = status;
    }

    /** @return the server */
    public String serverName() {
        return serverName;
    }

    /** @return its new status */
    public ServerStatus status() {
        return status;
    }
}
