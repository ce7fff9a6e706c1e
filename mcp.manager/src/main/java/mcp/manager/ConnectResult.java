package mcp.manager;

import java.util.List;
import java.util.Map;

/**
 * What {@link McpManager#connectServers} returns once the startup gate has closed.
 *
 * @param tools every tool of the manager at that moment: live tools of connected servers and
 *     deferred tools of servers still connecting whose tools the cache held
 * @param errors why each server of this call that failed did, by server name; every message names
 *     the server and the cause
 */
public record ConnectResult(List<BridgedTool> tools, Map<String, String> errors) {
    /** Copies. */
    public ConnectResult {
        tools = List.copyOf(tools);
        errors = Map.copyOf(errors);
    }
}
