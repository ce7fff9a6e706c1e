package mcp.gateway;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import mcp.api.ToolDefinition;
import mcp.server.RequestContext;
import tools.jackson.databind.JsonNode;

/**
 * A tool of the gateway's own, beside its servers' tools: listed while it has something to offer, called by its name
 * (which wins over a server's tool of the same name).
 */
public interface OwnTool {

    /** @return the tool as clients see it, or empty while it has nothing to offer (it is then neither listed nor found) */
    Optional<ToolDefinition> definition();

    /**
     * @param arguments the call's arguments (an object)
     * @param context the calling client's request
     * @return the {@code tools/call} result
     */
    CompletableFuture<JsonNode> call(JsonNode arguments, RequestContext context);
}
