package mcp.api.jsonrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Whatever bytes arrive, the codec either reads one message or fails with its own exception; and what it
 * reads, it writes back so that it reads the same again (through bytes and through trees).
 *
 * <p>{@code mvn verify} replays the inputs under {@code JsonRpcCodecFuzzTestInputs/} (seeds and past
 * findings); {@code JAZZER_FUZZ=1} fuzzes (docs/testing.md).
 */
class JsonRpcCodecFuzzTest {

    private final JsonRpcCodec codec = JsonRpcCodec.standard();

    @FuzzTest(maxDuration = "5m")
    void anyBytesAreOneMessageThatRoundTripsOrTheCodecsError(byte[] bytes) {
        JsonRpcMessage message;
        try {
            message = codec.decode(bytes);
        } catch (JsonRpcCodecException e) {
            return;
        }
        assertEquals(message, codec.decode(codec.encode(message)));
        assertEquals(message, codec.fromTree(codec.toTree(message)));
    }
}
