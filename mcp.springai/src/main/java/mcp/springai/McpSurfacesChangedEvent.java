package mcp.springai;

import java.util.List;
import mcp.manager.McpManager;
import mcp.manager.SurfaceSlice;
import org.springframework.context.ApplicationEvent;

/**
 * The resources, resource templates or prompts of a server changed: it connected, listed them again after a list
 * change, went deferred while reconnecting, or went away ({@link mcp.manager.ManagerListener#onSurfacesChanged}).
 */
public final class McpSurfacesChangedEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    private final String serverName;
    private final transient List<SurfaceSlice> surfaces;

    /**
     * @param manager the host's manager
     * @param serverName the server whose surface changed, or {@code *} when several changed at once
     * @param surfaces every server's surface now
     */
    public McpSurfacesChangedEvent(McpManager manager, String serverName, List<SurfaceSlice> surfaces) {
        super(manager);
        this.serverName = serverName;
        this.surfaces = List.copyOf(surfaces);
    }

    /** @return the server whose surface changed, or {@code *} when several changed at once */
    public String serverName() {
        return serverName;
    }

    /** @return every server's surface now */
    public List<SurfaceSlice> surfaces() {
        return surfaces;
    }
}
