package mcp.transport.stdio.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcNotification;
import org.junit.jupiter.api.Test;

/** Examples for {@link MessageReader}; the general claims are in {@link MessageReaderProperties}. */
class MessageReaderTest {

    private final List<JsonRpcMessage> delivered = new ArrayList<>();

    private MessageReader reader(InputStream in, long limit) {
        return new MessageReader("test", in, limit, delivered::add);
    }

    private static InputStream text(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void splitsOnNewlineStripsCarriageReturnAndIgnoresBlankLines() throws IOException {
        MessageReader reader = reader(text("{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\r\n\n  \r\n\t\n"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"b\"}"), 1000);
        assertEquals(MessageReader.End.EOF, reader.read());
        assertEquals(List.of(new JsonRpcNotification("a", null), new JsonRpcNotification("b", null)), delivered);
        assertEquals(0, reader.skippedLines());
    }

    @Test
    void aGarbageLineDoesNotCorruptTheNextMessage() throws IOException {
        // An unterminated string and an unclosed object: a streaming parser over the whole stream would
        // swallow the next line; per-line decoding does not.
        MessageReader reader = reader(text("{\"jsonrpc\":\"2.0\",\"method\":\"x\n{\"a\":[\n"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"ok\"}\n"), 1000);
        assertEquals(MessageReader.End.EOF, reader.read());
        assertEquals(List.of(new JsonRpcNotification("ok", null)), delivered);
        assertEquals(2, reader.skippedLines());
    }

    @Test
    void aLineOfExactlyTheLimitFitsAndOneByteMoreDoesNot() throws IOException {
        String message = "{\"jsonrpc\":\"2.0\",\"method\":\"m\"}";
        int limit = message.length();
        assertEquals(MessageReader.End.EOF, reader(text(message + "\r\n" + message + "\n"), limit).read());
        assertEquals(2, delivered.size());

        delivered.clear();
        String longer = "{\"jsonrpc\":\"2.0\",\"method\":\"mm\"}";
        assertEquals(MessageReader.End.TOO_LARGE, reader(text(message + "\n" + longer + "\n" + message + "\n"), limit).read());
        assertEquals(1, delivered.size(), "messages before the oversized one are delivered, none after");
    }

    @Test
    void aLineLongerThanTheLimitIsNotBufferedBeyondIt() throws IOException {
        int limit = 1024 * 1024;
        CountingEndlessStream endless = new CountingEndlessStream();
        MessageReader reader = reader(endless, limit);
        assertEquals(MessageReader.End.TOO_LARGE, reader.read());
        assertTrue(reader.largestLineBuffer() <= limit + 1, "buffer " + reader.largestLineBuffer());
        // Reading stopped within one chunk of crossing the limit.
        assertTrue(endless.served <= limit + 1 + MessageReader.CHUNK_BYTES, "read " + endless.served);
    }

    @Test
    void aHugeLimitDoesNotPreallocate() throws IOException {
        MessageReader reader = reader(text("{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n"), Long.MAX_VALUE);
        assertEquals(MessageReader.End.EOF, reader.read());
        assertEquals(1, delivered.size());
        assertEquals(0, reader.largestLineBuffer(), "a line inside one chunk is decoded in place");
    }

    @Test
    void aMessageSpanningManyChunksIsReassembled() throws IOException {
        StringBuilder big = new StringBuilder();
        while (big.length() < 3 * MessageReader.CHUNK_BYTES) {
            big.append("0123456789abcdef");
        }
        JsonRpcMessage message = new JsonRpcNotification("big", mcp.api.McpJson.object().put("s", big.toString()));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.writeBytes("garbage\n".getBytes(StandardCharsets.UTF_8));
        bytes.writeBytes(JsonRpcCodec.standard().encode(message));
        bytes.write('\n');
        MessageReader reader = reader(new ByteArrayInputStream(bytes.toByteArray()), 16L * 1024 * 1024);
        assertEquals(MessageReader.End.EOF, reader.read());
        assertEquals(List.of(message), delivered);
        assertEquals(1, reader.skippedLines());
    }

    @Test
    void excerptsArePrintableAndShort() {
        byte[] line = new byte[1000];
        java.util.Arrays.fill(line, (byte) 'x');
        line[0] = 0;
        line[1] = 27;
        String excerpt = MessageReader.excerpt(line, 0, line.length);
        assertTrue(excerpt.startsWith("??xxx"), excerpt);
        assertTrue(excerpt.endsWith("... (1000 bytes)"), excerpt);
        assertTrue(excerpt.length() < 200, excerpt);
    }

    /** An endless line of 'a' that counts what it served. */
    private static final class CountingEndlessStream extends InputStream {
        long served;

        @Override
        public int read() {
            served++;
            return 'a';
        }

        @Override
        public int read(byte[] b, int off, int len) {
            java.util.Arrays.fill(b, off, off + len, (byte) 'a');
            served += len;
            return len;
        }
    }
}
