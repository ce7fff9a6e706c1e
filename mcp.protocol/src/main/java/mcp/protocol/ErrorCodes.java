package mcp.protocol;

import java.util.List;
import java.util.Optional;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The error codes MCP adds to JSON-RPC's own (those are {@link mcp.api.jsonrpc.JsonRpcError}'s constants), with the
 * {@code data} each carries, and the HTTP status a server answers them with.
 */
public final class ErrorCodes {

    /** 2026-07-28: a header of the request does not match its body, or a required header is missing or malformed. */
    public static final int HEADER_MISMATCH = -32020;
    /**
     * 2026-07-28: serving the request needs a capability the client did not declare; {@code data.requiredCapabilities}
     * is a {@code ClientCapabilities} object naming it.
     */
    public static final int MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
    /**
     * 2026-07-28: the server does not speak the request's protocol version; {@code data} has {@code requested} and
     * {@code supported} (the versions it speaks).
     */
    public static final int UNSUPPORTED_PROTOCOL_VERSION = -32022;
    /**
     * Before 2026-07-28: a resource that does not exist. The stateless revision answers
     * {@link mcp.api.jsonrpc.JsonRpcError#INVALID_PARAMS} with {@code data.uri} instead.
     */
    public static final int RESOURCE_NOT_FOUND = -32002;
    /** A request that needs the user to complete an elicitation in URL mode first. */
    public static final int URL_ELICITATION_REQUIRED = -32042;

    private ErrorCodes() {
    }

    /**
     * @param requested the version the client asked for
     * @param supported the versions the server speaks
     * @return the error a server answers
     */
    public static McpProtocolException unsupportedProtocolVersion(String requested, List<String> supported) {
        ObjectNode data = McpJson.object().put("requested", requested);
        supported.forEach(data.putArray("supported")::add);
        return new McpProtocolException(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version: " + requested
                + " (supported: " + String.join(", ", supported) + ")", data);
    }

    /**
     * @param error an error a server answered
     * @return the {@code supported} list of an {@link #UNSUPPORTED_PROTOCOL_VERSION} error (an empty array when it
     *     names none), or empty for any other error
     */
    public static Optional<JsonNode> supportedVersions(McpProtocolException error) {
        if (error.code() != UNSUPPORTED_PROTOCOL_VERSION) {
            return Optional.empty();
        }
        return Optional.of(error.data().map(data -> data.path("supported")).filter(JsonNode::isArray)
                .orElseGet(McpJson.mapper()::createArrayNode));
    }

    /**
     * @param capability the client capability the request needs ({@code sampling}, {@code elicitation},
     *     {@code roots})
     * @param why what needed it, for the message
     * @return the error a server answers
     */
    public static McpProtocolException missingClientCapability(String capability, String why) {
        ObjectNode data = McpJson.object();
        data.putObject("requiredCapabilities").putObject(capability);
        return new McpProtocolException(MISSING_REQUIRED_CLIENT_CAPABILITY, why + " needs the client capability \""
                + capability + "\", which the client did not declare", data);
    }

    /**
     * The error for a {@code resources/read} of a URI the server has no resource for, as the era spells it: the
     * stateless revision answers {@link mcp.api.jsonrpc.JsonRpcError#INVALID_PARAMS}, the handshake era
     * {@link #RESOURCE_NOT_FOUND}; both with the URI in {@code data.uri}.
     *
     * @param uri the URI asked for
     * @param era the era of the request
     * @return the error a server answers
     */
    public static McpProtocolException resourceNotFound(String uri, Era era) {
        return new McpProtocolException(era == Era.STATELESS ? mcp.api.jsonrpc.JsonRpcError.INVALID_PARAMS
                : RESOURCE_NOT_FOUND, "Resource not found: " + uri, McpJson.object().put("uri", uri));
    }

    /**
     * The HTTP status a server answers an error with in the stateless revision: 404 for a method it does not have,
     * 400 for a request it refuses as such (bad params, envelope, headers, version, capabilities), 200 for an error
     * of the request's processing (the HTTP exchange itself was fine).
     *
     * @param code a JSON-RPC error code
     * @return the HTTP status
     */
    public static int httpStatus(int code) {
        return switch (code) {
            case mcp.api.jsonrpc.JsonRpcError.METHOD_NOT_FOUND -> 404;
            case mcp.api.jsonrpc.JsonRpcError.PARSE_ERROR, mcp.api.jsonrpc.JsonRpcError.INVALID_REQUEST,
                    HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION -> 400;
            default -> 200;
        };
    }
}
