package mcp.transport.stdio.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import mcp.api.McpJson;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.transport.stdio.internal.MessageReaderProperties.ChoppyStream;
import mcp.transport.stdio.internal.MessageReaderProperties.Expected;
import mcp.transport.stdio.internal.MessageReaderProperties.Line;

/**
 * Whatever a server writes to stdout, cut into whatever reads and handed over at whatever messages, the
 * reader never throws, delivers exactly what the framing rules say (every line that is one message, in
 * order; every other non-blank line counted as skipped), and a message after the garbage arrives intact.
 *
 * <p>{@code mvn verify} replays the inputs under {@code MessageReaderFuzzTestInputs/}; {@code JAZZER_FUZZ=1}
 * fuzzes (docs/testing.md).
 */
class MessageReaderFuzzTest {

    private static final JsonRpcMessage AFTER = new JsonRpcNotification("after/garbage", McpJson.object().put("ok", true));

    @FuzzTest(maxDuration = "5m")
    void garbageNeverCorruptsTheMessagesAroundIt(FuzzedDataProvider data) throws IOException {
        List<Integer> readSizes = new ArrayList<>();
        for (int i = data.consumeInt(1, 8); i > 0; i--) {
            readSizes.add(data.consumeInt(1, 97));
        }
        long handOffs = data.consumeLong();
        boolean finalNewline = data.consumeBoolean();
        byte[] stdout = data.consumeRemainingAsBytes();

        // The oracle's lines: the fuzzer's bytes split at '\n', then one known message.
        List<Line> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= stdout.length; i++) {
            if (i == stdout.length || stdout[i] == '\n') {
                lines.add(new Line(java.util.Arrays.copyOfRange(stdout, start, i), null));
                start = i + 1;
            }
        }
        lines.add(new Line(JsonRpcCodec.standard().encode(AFTER), AFTER));

        List<JsonRpcMessage> delivered = new ArrayList<>();
        MessageReader reader = new MessageReader("fuzz", new ChoppyStream(MessageReaderProperties.join(lines, finalNewline),
                readSizes), 16L * 1024 * 1024, message -> {
                    delivered.add(message);
                    // Hand the reading over at the messages the fuzzer's bits choose; the next read goes on.
                    return (handOffs >>> (delivered.size() % 64) & 1) == 0;
                });
        MessageReader.End end;
        do {
            end = reader.read();
        } while (end == MessageReader.End.HANDED_OFF);

        Expected expected = MessageReaderProperties.expected(lines, Integer.MAX_VALUE);
        assertEquals(MessageReader.End.EOF, end);
        assertEquals(expected.messages(), delivered);
        assertEquals(expected.skipped(), reader.skippedLines());
        assertEquals(AFTER, delivered.get(delivered.size() - 1));
    }
}
