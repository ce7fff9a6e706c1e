package mcp.api.jsonrpc;

import java.nio.charset.StandardCharsets;
import mcp.api.McpJson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads and writes JSON-RPC 2.0 messages. Stateless and thread-safe; one shared instance is
 * {@link #standard()}.
 *
 * <p>Reading is lenient where the protocol allows it (members in any order, unknown members ignored,
 * {@code params} of any JSON type) and strict about the shape that decides what a message is:
 * {@code jsonrpc} must be {@code "2.0"}, an id must be a string or an integral number, a response
 * must carry exactly one of {@code result} and {@code error}.
 */
public final class JsonRpcCodec {

    private static final JsonRpcCodec STANDARD = new JsonRpcCodec(McpJson.mapper());

    private final JsonMapper mapper;

    private JsonRpcCodec(JsonMapper mapper) {
        this.mapper = mapper;
    }

    /** @return the shared codec on {@link McpJson#mapper()} */
    public static JsonRpcCodec standard() {
        return STANDARD;
    }

    /**
     * @param json one message as UTF-8 bytes
     * @return the message
     * @throws JsonRpcCodecException if the bytes are not one JSON-RPC message
     */
    public JsonRpcMessage decode(byte[] json) {
        return decode(json, 0, json.length);
    }

    /**
     * @param json a buffer holding one message as UTF-8 bytes
     * @param offset where the message starts
     * @param length its length in bytes
     * @return the message
     * @throws JsonRpcCodecException if the bytes are not one JSON-RPC message
     */
    public JsonRpcMessage decode(byte[] json, int offset, int length) {
        JsonNode tree;
        try {
            tree = mapper.readTree(json, offset, length);
        } catch (JacksonException e) {
            throw new JsonRpcCodecException("Invalid JSON: " + e.getOriginalMessage(), e);
        }
        return fromTree(tree);
    }

    /**
     * @param json one message
     * @return the message
     * @throws JsonRpcCodecException if the text is not one JSON-RPC message
     */
    public JsonRpcMessage decode(String json) {
        return decode(json.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @param tree one message as a JSON tree
     * @return the message
     * @throws JsonRpcCodecException if the tree is not a JSON-RPC message
     */
    public JsonRpcMessage fromTree(JsonNode tree) {
        if (tree == null || !tree.isObject()) {
            throw new JsonRpcCodecException("Not a JSON-RPC message: expected a JSON object");
        }
        JsonNode version = tree.get("jsonrpc");
        if (version == null || !"2.0".equals(version.asString(null))) {
            throw new JsonRpcCodecException("Not a JSON-RPC 2.0 message: \"jsonrpc\" must be \"2.0\"");
        }
        JsonNode method = tree.get("method");
        JsonNode idNode = tree.get("id");
        if (method != null) {
            if (!method.isString()) {
                throw new JsonRpcCodecException("Invalid JSON-RPC message: \"method\" must be a string");
            }
            JsonNode params = tree.get("params");
            if (idNode == null) {
                return new JsonRpcNotification(method.asString(), params);
            }
            return new JsonRpcRequest(readId(idNode, false), method.asString(), params);
        }
        JsonNode result = tree.get("result");
        JsonNode error = tree.get("error");
        if (idNode == null) {
            throw new JsonRpcCodecException("Invalid JSON-RPC message: neither \"method\" nor \"id\"");
        }
        if ((result == null) == (error == null)) {
            throw new JsonRpcCodecException("Invalid JSON-RPC response: it must have exactly one of \"result\" and \"error\"");
        }
        if (result != null) {
            return new JsonRpcSuccess(readId(idNode, false), result);
        }
        if (!error.isObject() || !error.path("code").isIntegralNumber() || !error.get("code").canConvertToInt()) {
            throw new JsonRpcCodecException(
                    "Invalid JSON-RPC error: \"error\" must be an object with a 32-bit integer \"code\"");
        }
        JsonNode data = error.get("data");
        return new JsonRpcError(readId(idNode, true), error.get("code").asInt(), error.path("message").asString(""),
                data);
    }

    private static RequestId readId(JsonNode id, boolean nullAllowed) {
        if (id.isString()) {
            return RequestId.of(id.asString());
        }
        if (id.isIntegralNumber() && id.canConvertToLong()) {
            return RequestId.of(id.asLong());
        }
        if (nullAllowed && id.isNull()) {
            return null;
        }
        throw new JsonRpcCodecException("Invalid JSON-RPC id: must be a string or an integer, got " + id);
    }

    /**
     * @param message a message
     * @return its JSON tree
     */
    public ObjectNode toTree(JsonRpcMessage message) {
        ObjectNode json = McpJson.object().put("jsonrpc", "2.0");
        if (message instanceof JsonRpcRequest request) {
            putId(json, request.id());
            json.put("method", request.method());
            if (request.params() != null) {
                json.set("params", request.params());
            }
        } else if (message instanceof JsonRpcNotification notification) {
            json.put("method", notification.method());
            if (notification.params() != null) {
                json.set("params", notification.params());
            }
        } else if (message instanceof JsonRpcSuccess success) {
            putId(json, success.id());
            json.set("result", success.result());
        } else if (message instanceof JsonRpcError error) {
            putId(json, error.id());
            ObjectNode body = json.putObject("error").put("code", error.code()).put("message", error.message());
            if (error.data() != null) {
                body.set("data", error.data());
            }
        }
        return json;
    }

    private static void putId(ObjectNode json, RequestId id) {
        if (id == null) {
            json.putNull("id");
        } else if (id instanceof RequestId.NumberId number) {
            json.put("id", number.value());
        } else {
            json.put("id", ((RequestId.StringId) id).value());
        }
    }

    /**
     * @param message a message
     * @return its compact JSON as UTF-8 bytes, without a line terminator (JSON escapes any newline
     *     inside strings, so the output never contains one)
     */
    public byte[] encode(JsonRpcMessage message) {
        return mapper.writeValueAsBytes(toTree(message));
    }

    /**
     * @param message a message
     * @return its compact JSON text
     */
    public String encodeToString(JsonRpcMessage message) {
        return mapper.writeValueAsString(toTree(message));
    }
}
