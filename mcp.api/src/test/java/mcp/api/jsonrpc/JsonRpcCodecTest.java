package mcp.api.jsonrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.JsonNodeFactory;

class JsonRpcCodecTest {

    private final JsonRpcCodec codec = JsonRpcCodec.standard();

    @Test
    void readsEachKindOfMessage() {
        assertEquals(new JsonRpcRequest(RequestId.of(7), "tools/list", null),
                codec.decode("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}"));
        assertEquals(new JsonRpcNotification("notifications/initialized", null),
                codec.decode("{\"method\":\"notifications/initialized\",\"jsonrpc\":\"2.0\"}"));
        JsonRpcMessage success = codec.decode("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{}}");
        assertEquals(RequestId.of("a"), ((JsonRpcSuccess) success).id());
        JsonRpcError error = (JsonRpcError) codec.decode(
                "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}");
        assertNull(error.id());
        assertEquals(JsonRpcError.PARSE_ERROR, error.code());
    }

    @Test
    void aNullResultIsKeptAsJsonNull() {
        JsonRpcSuccess success = (JsonRpcSuccess) codec.decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}");
        assertTrue(success.result().isNull());
        assertEquals("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}", codec.encodeToString(success));
    }

    @Test
    void rejectsWhatIsNotJsonRpc() {
        String[] bad = {
            "not json", "[]", "{}", "{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":1}",
            "{\"jsonrpc\":\"2.0\",\"id\":1}", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"error\":{\"code\":1}}",
            "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"x\"}", "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\"}",
            "{\"jsonrpc\":\"2.0\",\"method\":3}", "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"message\":\"no code\"}}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}} trailing",
            // Found by JsonRpcCodecFuzzTest: a code beyond 32 bits threw Jackson's JsonNodeException.
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":2147483648,\"message\":\"m\"}}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-711111111111111111111111111111}}",
        };
        for (String line : bad) {
            assertThrows(JsonRpcCodecException.class, () -> codec.decode(line), line);
        }
    }

    @Test
    void encodedMessagesHaveNoLineBreak() {
        JsonRpcMessage message = new JsonRpcRequest(RequestId.of("x\ny"), "m\n",
                JsonNodeFactory.instance.objectNode().put("text", "line1\nline2\r\n"));
        String encoded = codec.encodeToString(message);
        assertTrue(encoded.indexOf('\n') < 0 && encoded.indexOf('\r') < 0, encoded);
        assertEquals(message, codec.decode(encoded));
    }

    @Test
    void decodesASliceOfABuffer() {
        byte[] buffer = "xx{\"jsonrpc\":\"2.0\",\"method\":\"a\"}yy".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertInstanceOf(JsonRpcNotification.class, codec.decode(buffer, 2, buffer.length - 4));
    }
}
