package mcp.manager;

import tools.jackson.databind.JsonNode;

/**
 * Answers one kind of server-to-client request (for example {@code sampling/createMessage} or
 * {@code elicitation/create}). Called on a pool thread, so it may block (to ask a person, say);
 * the client answers the server with the returned result, or with a JSON-RPC error when it throws
 * ({@link mcp.api.McpProtocolException} keeps its code; anything else becomes {@code -32603}).
 */
@FunctionalInterface
public interface ServerRequestHandler {

    /**
     * @param params the request's params, or {@code null} when absent
     * @return the result to send back
     * @throws Exception when the request cannot be served
     */
    JsonNode handle(JsonNode params) throws Exception;
}
