package mcp.server.internal;

import java.util.Optional;
import java.util.function.Function;
import mcp.api.McpProtocolException;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcCodecException;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.RequestId;
import mcp.protocol.ErrorCodes;
import mcp.protocol.McpHeaders;
import mcp.protocol.Meta;
import mcp.protocol.ProtocolVersions;
import mcp.protocol.RequestEnvelope;
import mcp.protocol.ToolHeaders;
import tools.jackson.databind.JsonNode;

/**
 * What a POSTed body is, before any state is looked at: one JSON-RPC message, and which way it goes (a session's, the
 * start of one, or a stateless request whose envelope and headers agree), or why it is refused. A pure function of
 * the body and the headers, which the fuzz test feeds with anything.
 */
final class RequestParser {

    private RequestParser() {
    }

    /** What the body is. */
    sealed interface Parsed permits Refused, InSession, Initialize, Stateless, StatelessNotification {
    }

    /**
     * Refused as such: answered with this status and JSON-RPC error.
     *
     * @param status the HTTP status (400)
     * @param id the request's id when it could be read, else {@code null}
     * @param code the JSON-RPC error code
     * @param message what is wrong
     */
    record Refused(int status, RequestId id, int code, String message) implements Parsed {
    }

    /** @param message a message for the session its {@code Mcp-Session-Id} names */
    record InSession(JsonRpcMessage message) implements Parsed {
    }

    /** @param request an {@code initialize} that starts a handshake-era session */
    record Initialize(JsonRpcRequest request) implements Parsed {
    }

    /**
     * @param request a stateless request
     * @param envelope its envelope, read, and agreeing with the headers
     */
    record Stateless(JsonRpcRequest request, RequestEnvelope envelope) implements Parsed {
    }

    /** @param notification a notification without a session (accepted, and of no further use over HTTP) */
    record StatelessNotification(JsonRpcNotification notification) implements Parsed {
    }

    /**
     * @param body the POST's body
     * @param inSession whether the request names a session ({@code Mcp-Session-Id})
     * @param header the request's headers, by name
     * @param toolSchemas the input schemas of the tools, by name (for their {@code Mcp-Param-*} headers)
     * @return what the body is
     */
    static Parsed parse(byte[] body, boolean inSession, Function<String, Optional<String>> header,
            Function<String, Optional<JsonNode>> toolSchemas) {
        JsonRpcMessage message;
        try {
            message = JsonRpcCodec.standard().decode(body);
        } catch (JsonRpcCodecException e) {
            boolean parse = e.getMessage().startsWith("Invalid JSON");
            return new Refused(400, null, parse ? JsonRpcError.PARSE_ERROR : JsonRpcError.INVALID_REQUEST,
                    (parse ? "Parse error: " : "Invalid request: ") + e.getMessage());
        }
        if (inSession) {
            return new InSession(message);
        }
        if (message instanceof JsonRpcRequest request && ServerCore.isHandshake(request)) {
            return new Initialize(request);
        }
        JsonNode params = message instanceof JsonRpcRequest request ? request.params()
                : message instanceof JsonRpcNotification notification ? notification.params() : null;
        Optional<String> version = header.apply(McpHeaders.PROTOCOL_VERSION).map(String::trim);
        boolean handshakeClient = version.filter(ProtocolVersions.HANDSHAKE_VERSIONS::contains).isPresent()
                && Meta.protocolVersion(params).isEmpty();
        if (!handshakeClient && message instanceof JsonRpcNotification notification) {
            return new StatelessNotification(notification);
        }
        if (handshakeClient || !(message instanceof JsonRpcRequest)) {
            return new Refused(400, message instanceof JsonRpcRequest request ? request.id() : null,
                    JsonRpcError.INVALID_REQUEST, "Bad Request: no " + McpHeaders.SESSION_ID + "; send initialize "
                            + "first (or a request with the stateless envelope in params._meta)");
        }
        JsonRpcRequest request = (JsonRpcRequest) message;
        RequestEnvelope envelope;
        try {
            envelope = RequestEnvelope.read(request.params());
        } catch (McpProtocolException e) {
            return new Refused(400, request.id(), e.code(), e.serverMessage());
        }
        Optional<String> mismatch = headerMismatch(request, envelope, header);
        if (mismatch.isEmpty() && request.method().equals("tools/call")) {
            Optional<JsonNode> schema = McpHeaders.nameOf(request.method(), request.params()).flatMap(toolSchemas);
            if (schema.isPresent()) {
                mismatch = ToolHeaders.mismatch(schema.get(), request.params().path("arguments"), header);
            }
        }
        if (mismatch.isPresent()) {
            return new Refused(400, request.id(), ErrorCodes.HEADER_MISMATCH, "Header mismatch: " + mismatch.get());
        }
        return new Stateless(request, envelope);
    }

    /** The stateless revision's headers must say what the body says. */
    private static Optional<String> headerMismatch(JsonRpcRequest request, RequestEnvelope envelope,
            Function<String, Optional<String>> header) {
        Optional<String> version = header.apply(McpHeaders.PROTOCOL_VERSION).map(String::trim);
        if (!version.equals(Optional.of(envelope.protocolVersion()))) {
            return Optional.of(McpHeaders.PROTOCOL_VERSION + " is " + version.map(v -> "\"" + v + "\"").orElse("missing")
                    + " but params._meta says \"" + envelope.protocolVersion() + "\"");
        }
        Optional<String> method = header.apply(McpHeaders.METHOD).map(String::trim).flatMap(McpHeaders::decode);
        if (!method.equals(Optional.of(request.method()))) {
            return Optional.of(McpHeaders.METHOD + " is " + method.map(m -> "\"" + m + "\"").orElse("missing")
                    + " but the body's method is \"" + request.method() + "\"");
        }
        Optional<String> name = McpHeaders.nameOf(request.method(), request.params());
        if (name.isPresent()) {
            Optional<String> given = header.apply(McpHeaders.NAME).map(String::trim).flatMap(McpHeaders::decode);
            if (!given.equals(name)) {
                return Optional.of(McpHeaders.NAME + " is " + given.map(n -> "\"" + n + "\"").orElse("missing")
                        + " but the body names \"" + name.get() + "\"");
            }
        }
        return Optional.empty();
    }
}
