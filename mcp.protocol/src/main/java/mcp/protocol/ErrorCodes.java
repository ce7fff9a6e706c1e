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
    /**
     * The client sent more requests than it may: {@code data.retryAfterMs} says when to try again. No revision defines
     * a code for it, and 2026-07-28 reserves -32020 to -32099 for its own codes and asks for new ones outside
     * JSON-RPC's reserved range: 429 mirrors the HTTP status it travels with, and is as valid in the older
     * revisions (plain JSON-RPC leaves that range to applications).
     */
    public static final int RATE_LIMITED = 429;
    /** The {@code data} member of a {@link #RATE_LIMITED} error that says how long to wait, in milliseconds. */
    public static final String RETRY_AFTER_MS = "retryAfterMs";

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
     * @param message what was limited (no credential in it)
     * @param retryAfter how long the client should wait before it tries again
     * @param scope what the limit is about ({@code client}, {@code tool}, ...), or {@code null}
     * @return the error a server answers: {@link #RATE_LIMITED}, with {@code data.retryAfterMs} (at least 1)
     */
    public static McpProtocolException rateLimited(String message, java.time.Duration retryAfter, String scope) {
        ObjectNode data = McpJson.object().put(RETRY_AFTER_MS, Math.max(1, retryAfter.toMillis()));
        if (scope != null) {
            data.put("scope", scope);
        }
        return new McpProtocolException(RATE_LIMITED, message, data);
    }

    /**
     * @param code an error's code
     * @param data its {@code data} member, or {@code null}
     * @return how long a {@link #RATE_LIMITED} error asks the client to wait, or empty for any other error
     */
    public static Optional<java.time.Duration> retryAfter(int code, JsonNode data) {
        if (code != RATE_LIMITED) {
            return Optional.empty();
        }
        JsonNode ms = data == null ? null : data.get(RETRY_AFTER_MS);
        return Optional.of(java.time.Duration.ofMillis(ms != null && ms.canConvertToLong() ? Math.max(1, ms.asLong())
                : 1_000));
    }

    /**
     * The HTTP status a server answers an error with in the stateless revision: 404 for a method it does not have,
     * 400 for a request it refuses as such (bad params, envelope, headers, version, capabilities), 429 for a request
     * over the client's rate limit (in either era), 200 for an error of the request's processing (the HTTP exchange
     * itself was fine).
     *
     * @param code a JSON-RPC error code
     * @return the HTTP status
     */
    public static int httpStatus(int code) {
        return switch (code) {
            case mcp.api.jsonrpc.JsonRpcError.METHOD_NOT_FOUND -> 404;
            case mcp.api.jsonrpc.JsonRpcError.PARSE_ERROR, mcp.api.jsonrpc.JsonRpcError.INVALID_REQUEST,
                    HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION -> 400;
            case RATE_LIMITED -> 429;
            default -> 200;
        };
    }
}
