package mcp.api;

import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * A JSON-RPC error answered by an MCP server. The message reads {@code MCP error <code>: <message>}.
 */
public class McpProtocolException extends McpException {
    private static final long serialVersionUID = 1L;

    private final int code;
    private final String serverMessage;
    private final transient JsonNode data;

    /**
     * @param code the JSON-RPC error code
     * @param serverMessage the server's message
     * @param data the error's {@code data} member, or {@code null} when absent
     */
    public McpProtocolException(int code, String serverMessage, JsonNode data) {
        super("MCP error " + code + ": " + serverMessage);
        this.code = code;
        this.serverMessage = serverMessage;
        this.data = data;
    }

    /** @return the JSON-RPC error code */
    public int code() {
        return code;
    }

    /** @return the message as the server wrote it */
    public String serverMessage() {
        return serverMessage;
    }

    /** @return the error's {@code data} member, when the server sent one */
    public Optional<JsonNode> data() {
        return Optional.ofNullable(data);
    }
}
