package mcp.api.jsonrpc;

import mcp.api.McpException;

/** Input that is not a JSON-RPC 2.0 message: invalid JSON, or JSON of the wrong shape. */
public class JsonRpcCodecException extends McpException {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong with the input */
    public JsonRpcCodecException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong with the input
     * @param cause the parser's failure
     */
    public JsonRpcCodecException(String message, Throwable cause) {
        super(message, cause);
    }
}
