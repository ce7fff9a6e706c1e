package mcp.host;

import java.util.concurrent.CompletableFuture;
import mcp.api.CallPolicy;
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

    /**
     * @return whether to call it without asking, ask the user first, or not at all: for an MCP tool, what the tool
     *     owning its server's config decided ({@link mcp.manager.BridgedTool#callPolicy()}; a tool it denies is not in
     *     the session); {@link CallPolicy#DEFAULT} for the application's own tools unless they say otherwise. The
     *     embedder enforces it before {@link #call}
     */
    default CallPolicy callPolicy() {
        return CallPolicy.DEFAULT;
    }

    /** @return whether this tool is an MCP tool managed by the session (refreshes replace those) */
    default boolean isMcp() {
        return false;
    }
}
