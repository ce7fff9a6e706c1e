package mcp.server;

import java.util.Map;
import mcp.api.CompletionResult;

/**
 * Completes the arguments of one prompt or resource template ({@link McpServer.Builder#completion}). It runs on a
 * server worker thread and may block.
 */
@FunctionalInterface
public interface CompletionHandler {

    /**
     * @param argument the argument's name
     * @param value what the user typed so far
     * @param resolved the other arguments already known ({@code context.arguments}), by name
     * @param context the request's context
     * @return the values, best first (at most 100)
     * @throws Exception when it fails
     */
    CompletionResult complete(String argument, String value, Map<String, String> resolved, RequestContext context)
            throws Exception;
}
