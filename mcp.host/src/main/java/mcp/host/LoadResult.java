package mcp.host;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import mcp.config.DiscoveryResult;
import mcp.manager.BridgedTool;
import mcp.manager.McpManager;

/**
 * What {@link McpHost#load()} returns.
 *
 * @param tools the tools at the end of the startup gate (live, and deferred for slow servers), those meant for an
 *     app's view only included (MCP Apps: {@link mcp.api.ToolDefinition#visibleToModel()} false); the model's are
 *     those of {@link ToolSession#tools()}, which leaves them out
 * @param errors per-server errors by server name: invalid configs and failed connects. A hard failure
 *     of discovery itself gives no tools and the single entry {@code ".mcp.json"} (SPEC §3)
 * @param manager the manager that runs the servers
 * @param exaApiKeys the Exa API keys found in filtered-out Exa server configs
 * @param discovery what discovery found, including warnings and skipped servers
 */
public record LoadResult(List<BridgedTool> tools, Map<String, String> errors, McpManager manager,
        List<String> exaApiKeys, DiscoveryResult discovery) {

    /** Copies. */
    public LoadResult {
        tools = List.copyOf(tools);
        errors = Map.copyOf(errors);
        Objects.requireNonNull(manager, "manager");
        exaApiKeys = List.copyOf(exaApiKeys);
        Objects.requireNonNull(discovery, "discovery");
    }
}
