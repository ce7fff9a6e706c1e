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
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Whatever bytes a server writes, the reader never throws, delivers every valid message intact and in
 * order, and counts every other non-blank line as skipped; however the stream is cut into reads.
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

    @Property(tries = 500)
    void validMessagesArriveIntactAndInOrderAndGarbageIsCounted(
            @ForAll("lines") @Size(max = 40) List<Line> lines,
            @ForAll("readSizes") List<Integer> readSizes,
            @ForAll boolean finalNewline) throws IOException {
        List<JsonRpcMessage> delivered = new ArrayList<>();
        MessageReader reader = new MessageReader("prop", new ChoppyStream(join(lines, finalNewline), readSizes),
                16L * 1024 * 1024, delivered::add);

        MessageReader.End end = reader.read();

        Expected expected = expected(lines, Integer.MAX_VALUE);
        assertEquals(MessageReader.End.EOF, end);
        assertEquals(expected.messages(), delivered);
        assertEquals(expected.skipped(), reader.skippedLines());
    }

    @Property(tries = 500)
    void aLineOverTheLimitStopsReadingAfterTheMessagesBeforeIt(
            @ForAll("lines") @Size(max = 20) List<Line> lines,
            @ForAll("readSizes") List<Integer> readSizes,
            @ForAll @IntRange(min = 1, max = 200) int limit) throws IOException {
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
    @Property(tries = 500)
    void handingTheReadingOverAtAnyMessageLosesAndRepeatsNothing(
            @ForAll("lines") @Size(max = 40) List<Line> lines,
            @ForAll("readSizes") List<Integer> readSizes,
            @ForAll boolean finalNewline,
            @ForAll("handOffs") List<Boolean> handOffs) throws Exception {
        List<JsonRpcMessage> delivered = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicInteger count = new java.util.concurrent.atomic.AtomicInteger();
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
            java.util.concurrent.FutureTask<MessageReader.End> read = new java.util.concurrent.FutureTask<>(reader::read);
            Thread thread = new Thread(read, "reader-" + readers++);
            thread.start();
            end = read.get(10, java.util.concurrent.TimeUnit.SECONDS);
        } while (end == MessageReader.End.HANDED_OFF);

        Expected expected = expected(lines, Integer.MAX_VALUE);
        assertEquals(MessageReader.End.EOF, end);
        assertEquals(expected.messages(), delivered);
        assertEquals(expected.skipped(), reader.skippedLines());
        long handedOver = handOffs.stream().limit(expected.messages().size()).filter(b -> b).count();
        assertEquals(handedOver + 1, readers, "one more read per hand-over");
    }

    // ---- the oracle: the framing rules, restated plainly ----

    private static Expected expected(List<Line> lines, int limit) {
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

    private static byte[] join(List<Line> lines, boolean finalNewline) {
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

    @Provide
    Arbitrary<List<Line>> lines() {
        Arbitrary<Line> line = Arbitraries.frequencyOf(
                Tuple.of(4, messages()),
                Tuple.of(2, randomBytes()),
                Tuple.of(2, randomText()),
                Tuple.of(2, nearMisses()),
                Tuple.of(1, Arbitraries.of("", " ", "\t", "\r", " \r").map(MessageReaderProperties::garbage)));
        return line.list();
    }

    @Provide
    Arbitrary<List<Boolean>> handOffs() {
        return Arbitraries.of(true, false, false).list().ofMaxSize(40);
    }

    @Provide
    Arbitrary<List<Integer>> readSizes() {
        // Short reads put line ends, carriage returns and UTF-8 sequences on read boundaries.
        return Arbitraries.integers().between(1, 97).list().ofMinSize(1).ofMaxSize(8);
    }

    private static Line garbage(String text) {
        return new Line(text.getBytes(StandardCharsets.UTF_8), null);
    }

    private static Arbitrary<Line> randomBytes() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(150).map(bytes -> {
            for (int i = 0; i < bytes.length; i++) {
                if (bytes[i] == '\n') {
                    bytes[i] = '{';
                }
            }
            return new Line(bytes, null);
        });
    }

    private static Arbitrary<Line> randomText() {
        return Arbitraries.strings().ofMaxLength(80).map(s -> garbage(s.replace('\n', ' ')));
    }

    private static Arbitrary<Line> nearMisses() {
        return Arbitraries.of(
                "{\"jsonrpc\":\"2.0\",\"method\":\"x\"",
                "{\"jsonrpc\":\"1.0\",\"method\":\"x\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1}",
                "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"x\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1,\"error\":{\"code\":1}}",
                "[{\"jsonrpc\":\"2.0\",\"method\":\"x\"}]",
                "\"jsonrpc\"",
                "null",
                "{\"a\":[[[[[[[[[[",
                "}{",
                "{\"jsonrpc\":\"2.0\",\"method\":\"x\"} trailing",
                "\uFEFF{\"jsonrpc\":\"2.0\",\"method\":\"bom\"}",
                "Debugger listening on ws://127.0.0.1:9229").map(MessageReaderProperties::garbage);
    }

    private static Arbitrary<Line> messages() {
        Arbitrary<String> text = Arbitraries.strings().ofMaxLength(30);
        Arbitrary<RequestId> id = Arbitraries.oneOf(
                Arbitraries.longs().map(RequestId::of),
                text.map(RequestId::of));
        Arbitrary<JsonRpcMessage> message = Arbitraries.oneOf(
                Combinators.combine(text, text).as((m, v) -> new JsonRpcNotification(m, McpJson.object().put("v", v))),
                Combinators.combine(id, text, text).as((i, m, v) -> new JsonRpcRequest(i, m, McpJson.object().put("v", v))),
                Combinators.combine(id, text).as((i, v) -> new JsonRpcSuccess(i, McpJson.object().put("v", v))),
                Combinators.combine(id, Arbitraries.integers(), text).as((i, c, m) -> new JsonRpcError(i, c, m, null)));
        return Combinators.combine(message, Arbitraries.of(false, true)).as((m, cr) -> {
            byte[] json = JsonRpcCodec.standard().encode(m);
            if (cr) {
                byte[] withCr = java.util.Arrays.copyOf(json, json.length + 1);
                withCr[json.length] = '\r';
                json = withCr;
            }
            return new Line(json, m);
        });
    }

    /** Serves a byte array in reads of the given sizes, in turn. */
    private static final class ChoppyStream extends InputStream {
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
