package mcp.server;

import mcp.api.ToolResult;
import tools.jackson.databind.JsonNode;

/**
 * Runs one tool ({@link McpServer.Builder#tool}). It runs on a server worker thread and may block, on
 * {@link RequestContext#ask} too. A failure with an {@link mcp.api.McpProtocolException} is answered as that
 * JSON-RPC error; any other failure is the tool's error result ({@code isError}, its message as text), which the
 * model can read.
 */
@FunctionalInterface
public interface ToolHandler {

    /**
     * @param arguments the call's {@code arguments} (an empty object when it had none)
     * @param context the request's context
     * @return the result
     * @throws Exception when the tool fails
     */
    ToolResult call(JsonNode arguments, RequestContext context) throws Exception;
}
