package mcp.manager;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import mcp.api.CallPolicy;
import mcp.api.SourceMetadata;
import mcp.api.ToolDefinition;
import tools.jackson.databind.JsonNode;

/** A tool of a connected server. Its call goes to the server's current connection (waiting, within the call's
 * timeout, while the server reconnects). */
public final class McpTool extends AbstractBridgedTool implements BridgedTool {

    McpTool(McpManager manager, String name, String serverName, ToolDefinition definition,
            Optional<SourceMetadata> source, CallPolicy callPolicy) {
        super(manager, name, serverName, definition, source, callPolicy);
    }

    @Override
    public boolean deferred() {
        return false;
    }

    @Override
    public CompletableFuture<ToolOutput> call(JsonNode arguments, CallOptions options) {
        return callWhenConnected(false, arguments, options);
    }
}
