package mcp.manager;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import mcp.api.CallPolicy;
import mcp.api.SourceMetadata;
import mcp.api.ToolDefinition;
import tools.jackson.databind.JsonNode;

/**
 * A tool known from the tool cache while its server is still connecting. Its call waits for the
 * connection (bounded by the server's connect timeout), then calls; also the last tools of a server that is
 * reconnecting, whose calls wait for the reconnect within their own timeout and then run.
 */
public final class DeferredMcpTool extends AbstractBridgedTool implements BridgedTool {

    DeferredMcpTool(McpManager manager, String name, String serverName, ToolDefinition definition,
            Optional<SourceMetadata> source, CallPolicy callPolicy) {
        super(manager, name, serverName, definition, source, callPolicy);
    }

    @Override
    public boolean deferred() {
        return true;
    }

    @Override
    public CompletableFuture<ToolOutput> call(JsonNode arguments, CallOptions options) {
        return callWhenConnected(true, arguments, options);
    }
}
