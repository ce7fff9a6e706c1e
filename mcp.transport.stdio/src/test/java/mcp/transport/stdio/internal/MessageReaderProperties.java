package mcp.transport.stdio.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import mcp.api.McpJson;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcSuccess;
import mcp.api.jsonrpc.RequestId;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.proptest.Cases;
import mcp.proptest.Gen;
import org.junit.jupiter.api.Test;

/**
 * Whatever bytes a server writes, the reader never throws, delivers every valid message intact and in
 * order, and counts every other non-blank line as skipped; however the stream is cut into reads.
 * {@link MessageReaderFuzzTest} feeds it what a fuzzer makes of the same streams.
 */
class MessageReaderProperties {

    /** One generated stdout line: its bytes (no {@code \n}) and the message it encodes, or null. */
    record Line(byte[] bytes, JsonRpcMessage message) {
        @Override
        public String toString() {
            return (message == null ? "garbage " : "message ") + MessageReader.excerpt(bytes, 0, bytes.length);
        }
    }

    /** What the reader must produce for a list of lines. */
    record Expected(List<JsonRpcMessage> messages, long skipped, MessageReader.End end) {
    }

    @Test
    void validMessagesArriveIntactAndInOrderAndGarbageIsCounted() {
        Cases.run(500, gen -> validMessagesArriveIntactAndInOrderAndGarbageIsCounted(lines(gen, 40), readSizes(gen),
                gen.bool()));
    }

    private static void validMessagesArriveIntactAndInOrderAndGarbageIsCounted(List<Line> lines,
            List<Integer> readSizes, boolean finalNewline) throws IOException {
        List<JsonRpcMessage> delivered = new ArrayList<>();
        MessageReader reader = new MessageReader("prop", new ChoppyStream(join(lines, finalNewline), readSizes),
                16L * 1024 * 1024, delivered::add);

        MessageReader.End end = reader.read();

        Expected expected = expected(lines, Integer.MAX_VALUE);
        assertEquals(MessageReader.End.EOF, end);
        assertEquals(expected.messages(), delivered);
        assertEquals(expected.skipped(), reader.skippedLines());
    }

    @Test
    void aLineOverTheLimitStopsReadingAfterTheMessagesBeforeIt() {
        Cases.run(500, gen -> aLineOverTheLimitStopsReadingAfterTheMessagesBeforeIt(lines(gen, 20), readSizes(gen),
                gen.ints(1, 200)));
    }

    private static void aLineOverTheLimitStopsReadingAfterTheMessagesBeforeIt(List<Line> lines,
            List<Integer> readSizes, int limit) throws IOException {
        List<JsonRpcMessage> delivered = new ArrayList<>();
        MessageReader reader = new MessageReader("prop", new ChoppyStream(join(lines, true), readSizes), limit,
                delivered::add);

        MessageReader.End end = reader.read();

        Expected expected = expected(lines, limit);
        assertEquals(expected.end(), end);
        assertEquals(expected.messages(), delivered);
        assertEquals(expected.skipped(), reader.skippedLines());
        assertEquals(true, reader.largestLineBuffer() <= Math.max(limit + 1, 8 * 1024));
    }

    /**
     * A sink that hands the reading over (as the stdio transport does when a delivery blocks) loses and
     * repeats nothing: the next {@code read()}, on another thread, goes on from the next line, even
     * when the line handed over at was buffered across reads or the read ended mid-line.
     */
    @Test
    void handingTheReadingOverAtAnyMessageLosesAndRepeatsNothing() {
        Cases.run(500, gen -> handingTheReadingOverAtAnyMessageLosesAndRepeatsNothing(lines(gen, 40), readSizes(gen),
                gen.bool(), gen.list(0, 40, () -> gen.weighted(2, 1) == 1)));
    }

    private static void handingTheReadingOverAtAnyMessageLosesAndRepeatsNothing(List<Line> lines,
            List<Integer> readSizes, boolean finalNewline, List<Boolean> handOffs) throws Exception {
        List<JsonRpcMessage> delivered = new CopyOnWriteArrayList<>();
        AtomicInteger count = new AtomicInteger();
        MessageReader reader = new MessageReader("prop", new ChoppyStream(join(lines, finalNewline), readSizes),
                16L * 1024 * 1024, message -> {
                    delivered.add(message);
                    int n = count.getAndIncrement();
                    return n >= handOffs.size() || !handOffs.get(n);
                });

        int readers = 0;
        MessageReader.End end;
        do {
            // Each read on a thread of its own: the hand-over must not depend on thread-local state.
            FutureTask<MessageReader.End> read = new FutureTask<>(reader::read);
            Thread thread = new Thread(read, "reader-" + readers++);
            thread.start();
            end = read.get(10, TimeUnit.SECONDS);
        } while (end == MessageReader.End.HANDED_OFF);

        Expected expected = expected(lines, Integer.MAX_VALUE);
        assertEquals(MessageReader.End.EOF, end);
        assertEquals(expected.messages(), delivered);
        assertEquals(expected.skipped(), reader.skippedLines());
        long handedOver = handOffs.stream().limit(expected.messages().size()).filter(b -> b).count();
        assertEquals(handedOver + 1, readers, "one more read per hand-over");
    }

    // ---- the oracle: the framing rules, restated plainly ----

    static Expected expected(List<Line> lines, int limit) {
        List<JsonRpcMessage> messages = new ArrayList<>();
        long skipped = 0;
        for (Line line : lines) {
            byte[] b = line.bytes();
            int length = b.length > 0 && b[b.length - 1] == '\r' ? b.length - 1 : b.length;
            if (length > limit) {
                return new Expected(messages, skipped, MessageReader.End.TOO_LARGE);
            }
            if (line.message() != null) {
                messages.add(line.message());
                continue;
            }
            boolean blank = true;
            for (int i = 0; i < length; i++) {
                blank &= b[i] == ' ' || b[i] == '\t' || b[i] == '\r';
            }
            if (blank) {
                continue;
            }
            try {
                // A random line that happens to be a message still counts as one.
                messages.add(JsonRpcCodec.standard().decode(b, 0, length));
            } catch (RuntimeException e) {
                skipped++;
            }
        }
        return new Expected(messages, skipped, MessageReader.End.EOF);
    }

    static byte[] join(List<Line> lines, boolean finalNewline) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < lines.size(); i++) {
            out.writeBytes(lines.get(i).bytes());
            if (i < lines.size() - 1 || finalNewline) {
                out.write('\n');
            }
        }
        return out.toByteArray();
    }

    // ---- generators ----

    /** Up to {@code max} lines: messages, random bytes and text, near misses and blank lines. */
    static List<Line> lines(Gen gen, int max) {
        return gen.list(0, max, () -> switch (gen.weighted(4, 2, 2, 2, 1)) {
            case 0 -> message(gen);
            case 1 -> randomBytes(gen);
            case 2 -> garbage(gen.string(0, 80).replace('\n', ' '));
            case 3 -> garbage(gen.pick(NEAR_MISSES));
            default -> garbage(gen.pick("", " ", "\t", "\r", " \r"));
        });
    }

    /** Short reads put line ends, carriage returns and UTF-8 sequences on read boundaries. */
    static List<Integer> readSizes(Gen gen) {
        return gen.list(1, 8, () -> gen.ints(1, 97));
    }

    private static Line garbage(String text) {
        return new Line(text.getBytes(StandardCharsets.UTF_8), null);
    }

    private static Line randomBytes(Gen gen) {
        byte[] bytes = gen.bytes(0, 150);
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                bytes[i] = '{';
            }
        }
        return new Line(bytes, null);
    }

    private static final List<String> NEAR_MISSES = List.of(
            "{\"jsonrpc\":\"2.0\",\"method\":\"x\"",
            "{\"jsonrpc\":\"1.0\",\"method\":\"x\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":1}",
            "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"x\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"error\":{\"code\":1}}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":99999999999}}",
            "[{\"jsonrpc\":\"2.0\",\"method\":\"x\"}]",
            "\"jsonrpc\"",
            "null",
            "{\"a\":[[[[[[[[[[",
            "}{",
            "{\"jsonrpc\":\"2.0\",\"method\":\"x\"} trailing",
            "\uFEFF{\"jsonrpc\":\"2.0\",\"method\":\"bom\"}",
            "Debugger listening on ws://127.0.0.1:9229");

    private static Line message(Gen gen) {
        RequestId id = gen.bool() ? RequestId.of(gen.anyLong()) : RequestId.of(gen.string(0, 30));
        JsonRpcMessage message = switch (gen.weighted(1, 1, 1, 1)) {
            case 0 -> new JsonRpcNotification(gen.string(0, 30), McpJson.object().put("v", gen.string(0, 30)));
            case 1 -> new JsonRpcRequest(id, gen.string(0, 30), McpJson.object().put("v", gen.string(0, 30)));
            case 2 -> new JsonRpcSuccess(id, McpJson.object().put("v", gen.string(0, 30)));
            default -> new JsonRpcError(id, gen.anyInt(), gen.string(0, 30), null);
        };
        byte[] json = JsonRpcCodec.standard().encode(message);
        if (gen.bool()) {
            byte[] withCr = java.util.Arrays.copyOf(json, json.length + 1);
            withCr[json.length] = '\r';
            json = withCr;
        }
        return new Line(json, message);
    }

    /** Serves a byte array in reads of the given sizes, in turn. */
    static final class ChoppyStream extends InputStream {
        private final byte[] data;
        private final List<Integer> sizes;
        private int position;
        private int turn;

        ChoppyStream(byte[] data, List<Integer> sizes) {
            this.data = data;
            this.sizes = sizes;
        }

        @Override
        public int read() {
            return position < data.length ? data[position++] & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (position >= data.length) {
                return -1;
            }
            int n = Math.min(Math.min(len, sizes.get(turn++ % sizes.size())), data.length - position);
            System.arraycopy(data, position, b, off, n);
            position += n;
            return n;
        }
    }
}
