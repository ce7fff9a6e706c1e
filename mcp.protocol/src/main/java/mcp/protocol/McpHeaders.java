package mcp.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * The HTTP headers of MCP's Streamable HTTP transport, and the encoding of the values the stateless revision puts
 * in headers.
 */
public final class McpHeaders {

    /** Handshake era: the session a server gave in its answer to {@code initialize}, on every later request. */
    public static final String SESSION_ID = "Mcp-Session-Id";
    /** The protocol version of the request: after {@code initialize} in the handshake era, always in the stateless one. */
    public static final String PROTOCOL_VERSION = "MCP-Protocol-Version";
    /** Stateless revision: the JSON-RPC method of the request or notification. */
    public static final String METHOD = "Mcp-Method";
    /** Stateless revision: the name or URI the request acts on ({@link McpMethods#NAME_PARAM}). */
    public static final String NAME = "Mcp-Name";
    /** Stateless revision: the prefix of the headers that mirror the tool arguments marked {@code x-mcp-header}. */
    public static final String PARAM_PREFIX = "Mcp-Param-";
    /** The server-sent event id after which a resumed stream goes on. */
    public static final String LAST_EVENT_ID = "Last-Event-ID";
    /** What a client accepts: a JSON body or an event stream. */
    public static final String ACCEPT_BOTH = "application/json, text/event-stream";
    /** The content type of JSON-RPC bodies. */
    public static final String JSON = "application/json";
    /** The content type of event streams. */
    public static final String EVENT_STREAM = "text/event-stream";

    private static final String BASE64_PREFIX = "=?base64?";
    private static final String BASE64_SUFFIX = "?=";

    private McpHeaders() {
    }

    /**
     * A value as a header of the stateless revision: as it is when it is printable ASCII (0x20 to 0x7E) without
     * leading or trailing spaces and does not itself look like the sentinel; otherwise
     * {@code =?base64?<Base64 of its UTF-8>?=}. A safe value is never encoded: servers compare it raw.
     *
     * @param value the value
     * @return the header value
     */
    public static String encode(String value) {
        boolean safe = !value.isEmpty() && value.charAt(0) != ' ' && value.charAt(value.length() - 1) != ' '
                && !(value.startsWith(BASE64_PREFIX) && value.endsWith(BASE64_SUFFIX));
        for (int i = 0; safe && i < value.length(); i++) {
            char c = value.charAt(i);
            safe = c >= 0x20 && c <= 0x7E;
        }
        return safe ? value : BASE64_PREFIX + Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8))
                + BASE64_SUFFIX;
    }

    /**
     * Reads a header value of the stateless revision back ({@link #encode}'s inverse).
     *
     * @param header the header value as received
     * @return the value, or empty when it claims the Base64 form and is not valid, padded Base64 of UTF-8
     */
    public static Optional<String> decode(String header) {
        if (!(header.startsWith(BASE64_PREFIX) && header.endsWith(BASE64_SUFFIX)
                && header.length() >= BASE64_PREFIX.length() + BASE64_SUFFIX.length())) {
            return Optional.of(header);
        }
        String encoded = header.substring(BASE64_PREFIX.length(), header.length() - BASE64_SUFFIX.length());
        if (encoded.length() % 4 != 0) {
            return Optional.empty(); // the JDK's decoder forgives missing padding; the header's form does not
        }
        try {
            byte[] bytes = Base64.getDecoder().decode(encoded);
            java.nio.charset.CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder();
            return Optional.of(decoder.decode(java.nio.ByteBuffer.wrap(bytes)).toString());
        } catch (IllegalArgumentException | java.nio.charset.CharacterCodingException e) {
            return Optional.empty();
        }
    }

    /**
     * The {@link #NAME} header a request carries in the stateless revision.
     *
     * @param method the request's method
     * @param params its params, or {@code null}
     * @return the name or URI it acts on, when the method has one and the params name it as a string
     */
    public static Optional<String> nameOf(String method, JsonNode params) {
        String param = McpMethods.NAME_PARAM.get(method);
        JsonNode name = param == null || params == null ? null : params.get(param);
        return name != null && name.isString() ? Optional.of(name.asString()) : Optional.empty();
    }

    /**
     * A session id as the handshake era requires it: visible ASCII (0x21 to 0x7E) only, and not empty.
     *
     * @param sessionId a session id
     * @return whether it is one
     */
    public static boolean validSessionId(String sessionId) {
        if (sessionId == null || sessionId.isEmpty()) {
            return false;
        }
        for (int i = 0; i < sessionId.length(); i++) {
            char c = sessionId.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                return false;
            }
        }
        return true;
    }
}
