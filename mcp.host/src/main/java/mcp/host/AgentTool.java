package mcp.host;

import java.util.concurrent.CompletableFuture;
import mcp.manager.ToolOutput;
import tools.jackson.databind.JsonNode;

/**
 * A tool in a {@link ToolSession}: one of the application's own, or a wrapped MCP tool. An
 * application implements this for its own tools.
 */
public interface AgentTool {

    /** @return the unique name the model calls it by */
    String name();

    /** @return a short label for people */
    String label();

    /** @return what the tool does, for the model */
    String description();

    /** @return the JSON Schema of its arguments */
    JsonNode inputSchema();

    /** @return where the tool comes from, e.g. {@code app} or {@code mcp:github via Claude Code} */
    String origin();

    /**
     * @param arguments the arguments, or {@code null}
     * @return the output; a failure is an output with {@code isError}, a cancellation stays one
     */
    CompletableFuture<ToolOutput> call(JsonNode arguments);

    /** @return whether this tool is an MCP tool managed by the session (refreshes replace those) */
    default boolean isMcp() {
        return false;
    }
}
