package mcp.server;

import java.util.Map;
import mcp.api.PromptResult;

/** Fills in one prompt ({@link McpServer.Builder#prompt}). It runs on a server worker thread and may block. */
@FunctionalInterface
public interface PromptHandler {

    /**
     * @param arguments the arguments the client gave (its declared required arguments are checked before)
     * @param context the request's context
     * @return the messages
     * @throws Exception when it fails
     */
    PromptResult get(Map<String, String> arguments, RequestContext context) throws Exception;
}
