package mcp.protocol;

import java.util.Objects;
import java.util.Optional;
import mcp.api.LogLevel;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.jsonrpc.JsonRpcError;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code _meta} envelope every request of the stateless revision carries in place of a handshake: the protocol
 * version, the client's capabilities and, as a client should send it, its identity; optionally the least severe log
 * message it wants while the request runs. A client {@linkplain #applyTo puts it on} each request; a server
 * {@linkplain #read reads and checks} it on each.
 *
 * @param protocolVersion the protocol version of the request
 * @param clientCapabilities the client's capabilities (a {@code ClientCapabilities} object)
 * @param clientInfo the client's {@code Implementation} ({@code name}, {@code version}), when given
 * @param logLevel the least severe log message wanted; empty: none at all
 */
public record RequestEnvelope(String protocolVersion, JsonNode clientCapabilities, Optional<JsonNode> clientInfo,
        Optional<LogLevel> logLevel) {

    /** Validates. */
    public RequestEnvelope {
        Objects.requireNonNull(protocolVersion, "protocolVersion");
        Objects.requireNonNull(clientCapabilities, "clientCapabilities");
        Objects.requireNonNull(clientInfo, "clientInfo");
        Objects.requireNonNull(logLevel, "logLevel");
        if (!clientCapabilities.isObject()) {
            throw new IllegalArgumentException("clientCapabilities must be an object");
        }
    }

    /**
     * Reads the envelope of a request and checks what the revision requires of it. The version is not checked
     * against the versions the reader speaks: that is {@link ErrorCodes#unsupportedProtocolVersion}'s answer, after
     * this one.
     *
     * @param params the request's params, or {@code null}
     * @return the envelope
     * @throws McpProtocolException {@code -32602} naming what is missing or malformed (over HTTP answered with 400)
     */
    public static RequestEnvelope read(JsonNode params) {
        JsonNode meta = params == null || !params.isObject() ? null : params.get(Meta.KEY);
        if (meta == null || !meta.isObject()) {
            throw invalid("the request has no _meta; a request of the stateless revision carries "
                    + Meta.PROTOCOL_VERSION + " and " + Meta.CLIENT_CAPABILITIES + " in params._meta");
        }
        JsonNode version = meta.get(Meta.PROTOCOL_VERSION);
        if (version == null || !version.isString() || version.asString().isEmpty()) {
            throw invalid("params._meta has no " + Meta.PROTOCOL_VERSION + " (a string)");
        }
        JsonNode capabilities = meta.get(Meta.CLIENT_CAPABILITIES);
        if (capabilities == null || !capabilities.isObject()) {
            throw invalid("params._meta has no " + Meta.CLIENT_CAPABILITIES + " (an object)");
        }
        // clientInfo is a SHOULD: a malformed one is as good as none, never a reason to refuse the request.
        JsonNode info = meta.get(Meta.CLIENT_INFO);
        Optional<JsonNode> clientInfo = info != null && info.isObject() && info.path("name").isString()
                ? Optional.of(info) : Optional.empty();
        JsonNode level = meta.get(Meta.LOG_LEVEL);
        Optional<LogLevel> logLevel = Optional.empty();
        if (level != null && !level.isNull()) {
            logLevel = level.isString() ? LogLevel.parse(level.asString()) : Optional.empty();
            if (logLevel.isEmpty()) {
                throw invalid("params._meta." + Meta.LOG_LEVEL + " is not a log level: " + level);
            }
        }
        return new RequestEnvelope(version.asString(), capabilities, clientInfo, logLevel);
    }

    private static McpProtocolException invalid(String why) {
        return new McpProtocolException(JsonRpcError.INVALID_PARAMS, "Invalid params: " + why, null);
    }

    /**
     * @param capability a top-level client capability ({@code sampling}, {@code elicitation}, {@code roots}, ...)
     * @return whether the client declared it
     */
    public boolean declares(String capability) {
        return clientCapabilities.path(capability).isObject();
    }

    /**
     * Puts this envelope on a request's params. The params are copied one level deep ({@code _meta} too), so the
     * caller's stay as they were; the envelope's nodes are shared, not copied, and must not be changed afterwards. A
     * {@code _meta} key the params have already is kept, but for the version, capabilities and identity, which are
     * this envelope's; a log level the params name wins over this one's.
     *
     * @param params the request's params, or {@code null}
     * @return the params with the envelope
     */
    public ObjectNode applyTo(JsonNode params) {
        ObjectNode copy = McpJson.object();
        if (params != null && params.isObject()) {
            copy.setAll((ObjectNode) params);
        }
        ObjectNode meta = McpJson.object();
        JsonNode given = copy.get(Meta.KEY);
        if (given != null && given.isObject()) {
            meta.setAll((ObjectNode) given);
        }
        meta.put(Meta.PROTOCOL_VERSION, protocolVersion);
        meta.set(Meta.CLIENT_CAPABILITIES, clientCapabilities);
        clientInfo.ifPresent(info -> meta.set(Meta.CLIENT_INFO, info));
        if (!meta.has(Meta.LOG_LEVEL)) {
            logLevel.ifPresent(level -> meta.put(Meta.LOG_LEVEL, level.wire()));
        }
        copy.set(Meta.KEY, meta);
        return copy;
    }
}
