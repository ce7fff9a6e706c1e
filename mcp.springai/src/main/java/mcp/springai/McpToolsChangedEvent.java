package mcp.springai;

import java.util.List;
import mcp.host.AgentTool;
import mcp.host.ToolSession;
import org.springframework.context.ApplicationEvent;

/**
 * The session's tool set changed: a server arrived after the startup gate, a server's tools changed or it went away,
 * a reload, a search that loaded tools. {@link McpToolCallbackProvider} already follows it; listen to it to show the
 * change or to rebuild what was made of the old set.
 */
public final class McpToolsChangedEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    private final transient List<AgentTool> tools;

    /**
     * @param session the session whose tools changed
     * @param tools its tool set now ({@link ToolSession#tools()})
     */
    public McpToolsChangedEvent(ToolSession session, List<AgentTool> tools) {
        super(session);
        this.tools = List.copyOf(tools);
    }

    /** @return the session's tool set now */
    public List<AgentTool> tools() {
        return tools;
    }

    /** @return the session whose tools changed */
    public ToolSession session() {
        return (ToolSession) getSource();
    }
}
