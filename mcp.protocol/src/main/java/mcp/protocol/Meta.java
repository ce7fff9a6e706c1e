package mcp.protocol;

import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * The {@code _meta} keys MCP reserves, with the small readers both sides need. The stateless revision's request
 * envelope as a whole is {@link RequestEnvelope}.
 */
public final class Meta {

    /** The member of params and results that holds the metadata. */
    public static final String KEY = "_meta";
    /** Request: the protocol version of a stateless request. */
    public static final String PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
    /** Request: the client's capabilities, on every stateless request. */
    public static final String CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
    /** Request: the client's name and version ({@code Implementation}), which a client should send. */
    public static final String CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
    /**
     * Request: the least severe log message the client wants while the request runs. The stateless revision has no
     * {@code logging/setLevel}: without this key a server sends no log message for the request.
     */
    public static final String LOG_LEVEL = "io.modelcontextprotocol/logLevel";
    /** Result: the server's name and version ({@code Implementation}), by which a server identifies itself. */
    public static final String SERVER_INFO = "io.modelcontextprotocol/serverInfo";
    /**
     * Notification and {@code subscriptions/listen} result: the listen request a notification belongs to (the id of
     * that request, as a JSON-RPC id).
     */
    public static final String SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
    /** Request: the token the sender's progress notifications for the request carry. */
    public static final String PROGRESS_TOKEN = "progressToken";

    private Meta() {
    }

    /**
     * @param params a message's params, or {@code null}
     * @return its {@code _meta} when that is an object
     */
    public static Optional<JsonNode> of(JsonNode params) {
        JsonNode meta = params == null ? null : params.get(KEY);
        return meta != null && meta.isObject() ? Optional.of(meta) : Optional.empty();
    }

    /**
     * The protocol version a message's envelope names: what marks a message of the stateless revision.
     *
     * @param params a message's params, or {@code null}
     * @return {@code _meta[io.modelcontextprotocol/protocolVersion]} when it is a string
     */
    public static Optional<String> protocolVersion(JsonNode params) {
        return of(params).map(meta -> meta.get(PROTOCOL_VERSION)).filter(JsonNode::isString).map(JsonNode::asString);
    }

    /**
     * @param params a request's params, or {@code null}
     * @return its {@code _meta.progressToken} (a string or an integer), when it has a usable one
     */
    public static Optional<JsonNode> progressToken(JsonNode params) {
        return of(params).map(meta -> meta.get(PROGRESS_TOKEN))
                .filter(token -> token.isString() || token.isIntegralNumber() && token.canConvertToLong());
    }

    /**
     * @param params a notification's params, or {@code null}
     * @return the subscription it is tagged with, as text (a number in decimal), or empty
     */
    public static Optional<String> subscriptionId(JsonNode params) {
        JsonNode id = of(params).map(meta -> meta.get(SUBSCRIPTION_ID)).orElse(null);
        if (id == null || id.isNull()) {
            return Optional.empty();
        }
        return Optional.of(id.isIntegralNumber() && id.canConvertToLong() ? Long.toString(id.longValue())
                : id.isString() ? id.asString() : id.toString());
    }
}
