package mcp.transport.stdio.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.transport.stdio.StdioTransports;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits a byte stream into newline-delimited JSON-RPC messages.
 *
 * <p>Kept apart from the process handling so that it can be tested in-process on any bytes. For
 * every input it either delivers messages or skips lines; it never throws for what the bytes hold
 * (only an {@link IOException} of the stream itself leaves {@link #read()}). A line that is not a
 * JSON-RPC message is skipped without touching the next one, because every line is decoded on its
 * own.
 *
 * <p>Memory is bounded by the limit: the line buffer grows by doubling up to {@code limit + 1}
 * bytes (the extra byte is a possible {@code \r} before the {@code \n}) and reading stops as soon
 * as a line crosses it. Not thread-safe: one thread at a time reads; another may take over while the
 * sink runs, once the sink has told the first to stop (see {@link End#HANDED_OFF}); the hand-over must
 * be a happens-before edge. {@link #skippedLines()} may be read from any thread.
 */
final class MessageReader {

    /** Why {@link #read()} returned. */
    enum End {
        /** The stream ended. */
        EOF,
        /** A line was longer than the limit; the rest of the stream was not read. */
        TOO_LARGE,
        /**
         * The sink returned {@code false}: the calling thread stops reading, and another thread goes on
         * with {@link #read()} (from the next line; nothing is lost or delivered twice).
         */
        HANDED_OFF
    }

    /** Receives the decoded messages. */
    @FunctionalInterface
    interface Sink {
        /**
         * @param message the next message
         * @return whether the calling thread goes on reading; {@code false} hands reading over (see
         *     {@link End#HANDED_OFF})
         */
        boolean accept(JsonRpcMessage message);
    }

    private static final Logger LOG = LoggerFactory.getLogger(MessageReader.class);

    /** Read size: large enough that a typical message is decoded straight from it, without a copy. */
    static final int CHUNK_BYTES = 64 * 1024;

    /** The line buffer starts this small and doubles as needed. */
    private static final int INITIAL_LINE_BYTES = 8 * 1024;

    /** A line buffer grown past this is dropped after its line, so one huge message does not pin memory. */
    private static final int RETAINED_LINE_BYTES = 1024 * 1024;

    /** Java arrays cannot be much larger than this. */
    private static final int MAX_ARRAY_BYTES = Integer.MAX_VALUE - 16;

    private static final int EXCERPT_CHARS = 120;

    private final String serverName;
    private final InputStream in;
    private final int limit;
    private final Sink sink;
    private final JsonRpcCodec codec = JsonRpcCodec.standard();
    private final AtomicLong skipped = new AtomicLong();

    private final byte[] chunk = new byte[CHUNK_BYTES];
    /** The next byte of {@code chunk} to look at, and the end of what the last read put there. */
    private int position;
    private int filled;
    /** Bytes of the current line not yet ended by {@code \n}; {@code null} until needed. */
    private byte[] line;
    private int lineLength;
    /** The largest line buffer ever allocated, for tests of the memory bound. */
    private volatile int largestLineBuffer;

    /**
     * @param serverName for log messages
     * @param in the server's stdout
     * @param maxMessageBytes the largest message accepted, in bytes (without the line terminator)
     * @param sink receives every decoded message, in order, on the reading thread, and says whether
     *     that thread goes on reading
     */
    MessageReader(String serverName, InputStream in, long maxMessageBytes, Sink sink) {
        this.serverName = Objects.requireNonNull(serverName, "serverName");
        this.in = Objects.requireNonNull(in, "in");
        this.sink = Objects.requireNonNull(sink, "sink");
        if (maxMessageBytes <= 0) {
            throw new IllegalArgumentException("maxMessageBytes must be positive");
        }
        this.limit = (int) Math.min(maxMessageBytes, MAX_ARRAY_BYTES - 1);
    }

    /**
     * Reads until the stream ends or a line is too large, delivering every message on the way.
     *
     * @return why reading stopped
     * @throws IOException if the stream fails
     */
    End read() throws IOException {
        while (true) {
            if (position == filled) {
                int n = in.read(chunk, 0, chunk.length);
                if (n == -1) {
                    break;
                }
                position = 0;
                filled = n;
            }
            int newline = position;
            while (newline < filled && chunk[newline] != '\n') {
                newline++;
            }
            if (newline == filled) {
                // No line ends in the rest of the chunk: keep it for the next read.
                boolean fits = append(position, filled - position);
                position = filled;
                if (!fits) {
                    return End.TOO_LARGE;
                }
                continue;
            }
            int start = position;
            position = newline + 1;
            End stop;
            if (lineLength == 0) {
                // The whole line is in the chunk: decode it in place.
                stop = completeLine(chunk, start, newline - start, false);
            } else {
                stop = append(start, newline - start) ? completeLine(line, 0, lineLength, true) : End.TOO_LARGE;
            }
            if (stop != null) {
                return stop;
            }
        }
        // A last line without a terminator still counts: a server may exit right after writing it.
        if (lineLength > 0) {
            End stop = completeLine(line, 0, lineLength, true);
            if (stop != null) {
                return stop;
            }
        }
        return End.EOF;
    }

    /**
     * Reads and discards the rest of the stream, so that a server blocked on a full pipe can go on
     * to notice that it is being closed.
     *
     * @throws IOException if the stream fails
     */
    void discardRest() throws IOException {
        while (in.read(chunk, 0, chunk.length) != -1) {
            // discard
        }
    }

    /** @return how many non-blank lines were not JSON-RPC messages */
    long skippedLines() {
        return skipped.get();
    }

    /** @return the largest line buffer this reader ever allocated, in bytes */
    int largestLineBuffer() {
        return largestLineBuffer;
    }

    /** @return the effective limit in bytes */
    int limit() {
        return limit;
    }

    /** Adds bytes of the chunk to the pending line; false once the line can no longer fit the limit. */
    private boolean append(int offset, int length) {
        // limit + 1 leaves room for a '\r' that completeLine strips.
        long needed = (long) lineLength + length;
        if (needed > (long) limit + 1) {
            lineLength = 0;
            line = null;
            return false;
        }
        if (line == null || needed > line.length) {
            long capacity = line == null ? INITIAL_LINE_BYTES : line.length;
            while (capacity < needed) {
                capacity *= 2;
            }
            byte[] grown = new byte[(int) Math.min(capacity, (long) limit + 1)];
            if (lineLength > 0) {
                System.arraycopy(line, 0, grown, 0, lineLength);
            }
            line = grown;
            largestLineBuffer = Math.max(largestLineBuffer, grown.length);
        }
        System.arraycopy(chunk, offset, line, lineLength, length);
        lineLength += length;
        return true;
    }

    private void endBufferedLine() {
        lineLength = 0;
        if (line != null && line.length > RETAINED_LINE_BYTES) {
            line = null;
        }
    }

    /**
     * Decodes one line without its {@code \n} and hands its message to the sink. Everything this thread
     * knows of the stream is in the fields before the sink runs (the line buffer is released first when
     * {@code buffered}), so that another thread can go on reading while it does.
     *
     * @return {@code null} to read on; else why reading stops ({@link End#TOO_LARGE}, {@link End#HANDED_OFF})
     */
    private End completeLine(byte[] buf, int offset, int length, boolean buffered) {
        if (length > 0 && buf[offset + length - 1] == '\r') {
            length--;
        }
        if (length > limit) {
            return End.TOO_LARGE;
        }
        JsonRpcMessage message = decodeLine(buf, offset, length);
        if (buffered) {
            endBufferedLine();
        }
        return message == null || sink.accept(message) ? null : End.HANDED_OFF;
    }

    /**
     * Decodes one line without its line terminator.
     *
     * @return the message, or {@code null} for a blank or skipped line
     */
    private JsonRpcMessage decodeLine(byte[] buf, int offset, int length) {
        if (isBlank(buf, offset, length)) {
            return null;
        }
        try {
            return codec.decode(buf, offset, length);
        } catch (RuntimeException e) {
            // Not only JsonRpcCodecException: whatever the bytes are, the line is skipped, never fatal.
            skip(buf, offset, length, e);
            return null;
        }
    }

    private void skip(byte[] buf, int offset, int length, RuntimeException error) {
        long count = skipped.incrementAndGet();
        if (count <= StdioTransports.SKIPPED_LINES_WARNED) {
            LOG.warn("MCP server \"{}\" wrote a stdout line that is not a JSON-RPC message; skipped ({}): {}{}",
                    serverName, shorten(error.getMessage()), excerpt(buf, offset, length),
                    count == StdioTransports.SKIPPED_LINES_WARNED ? " (further skipped lines are logged at DEBUG)" : "");
        } else if (LOG.isDebugEnabled()) {
            LOG.debug("MCP server \"{}\" wrote a stdout line that is not a JSON-RPC message; skipped (#{}): {}",
                    serverName, count, excerpt(buf, offset, length));
        }
    }

    private static boolean isBlank(byte[] buf, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            byte b = buf[i];
            if (b != ' ' && b != '\t' && b != '\r') {
                return false;
            }
        }
        return true;
    }

    /** A short, printable rendering of a line for a log message. */
    static String excerpt(byte[] buf, int offset, int length) {
        int take = Math.min(length, EXCERPT_CHARS * 4);
        String text = new String(buf, offset, take, StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(Math.min(text.length(), EXCERPT_CHARS) + 16);
        int chars = 0;
        for (int i = 0; i < text.length() && chars < EXCERPT_CHARS; i++, chars++) {
            char c = text.charAt(i);
            out.append(Character.isISOControl(c) ? '?' : c);
        }
        if (chars < text.length() || take < length) {
            out.append("... (").append(length).append(" bytes)");
        }
        return out.toString();
    }

    private static String shorten(String message) {
        if (message == null) {
            return "no detail";
        }
        String oneLine = message.replace('\n', ' ').replace('\r', ' ');
        return oneLine.length() <= EXCERPT_CHARS ? oneLine : oneLine.substring(0, EXCERPT_CHARS) + "...";
    }
}
