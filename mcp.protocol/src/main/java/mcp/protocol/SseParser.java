package mcp.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * An incremental parser of a {@code text/event-stream} body (the WHATWG "server-sent events"
 * format), fed with bytes as they arrive.
 *
 * <p>Lines end with CRLF, LF or CR (a CR at the end of one chunk and an LF at the start of the next
 * are one line end); a leading UTF-8 BOM is dropped; lines starting with {@code :} are comments;
 * {@code data} lines are joined with LF; {@code id} sets the last event id (unless it holds a NUL),
 * which stays until the next {@code id}; {@code retry} with only ASCII digits sets the reconnection
 * time; a blank line dispatches the event, unless its data is empty (a "priming" event, which still
 * sets the last event id). An event not ended by a blank line when the stream ends is dropped.
 *
 * <p>Memory is bounded: a line longer than the limit, or an event whose data exceeds the limit,
 * throws {@link TooLargeException} and the parser must not be fed again. Not thread-safe: one stream's
 * subscriber feeds it (reactive streams deliver one chunk at a time).
 *
 * <p>Both sides of MCP read with it: the client its server's streams, and the server's tests what the server
 * wrote with {@link SseFrames}, so the two agree on one reading of the format.
 */
public final class SseParser {

    /** Receives dispatched events, on the feeding thread. */
    @FunctionalInterface
    public interface Sink {
        /** @param event one event with non-empty data */
        void onEvent(SseEvent event);
    }

    /** A line or an event's data outgrew the limit. */
    public static final class TooLargeException extends Exception {
        private static final long serialVersionUID = 1L;

        TooLargeException(long limit) {
            super("message from server exceeds the limit of " + limit + " bytes");
        }
    }

    /** Field names and the other small parts of a line fit in this many bytes beyond the limit. */
    private static final int LINE_SLACK = 64;

    private final long limit;
    private final Sink sink;

    private byte[] line = new byte[256];
    private int lineLength;
    private boolean lastWasCr;
    private boolean bomChecked;

    private byte[] data = new byte[0];
    private int dataLength;
    private boolean hasData;
    private String eventType;
    private String lastEventId;
    private long retryMillis = -1;

    /**
     * @param limit the largest event data, in bytes
     * @param sink receives the events
     */
    public SseParser(long limit, Sink sink) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive");
        }
        this.limit = Math.min(limit, Integer.MAX_VALUE - 2L * LINE_SLACK);
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    /** @return the last event id seen (from an {@code id} field), or {@code null} */
    public String lastEventId() {
        return lastEventId;
    }

    /** @return the reconnection time the server asked for, in milliseconds, or -1 */
    public long retryMillis() {
        return retryMillis;
    }

    /**
     * Feeds bytes; dispatches every event they complete.
     *
     * @param buffer the next bytes of the stream; consumed
     * @throws TooLargeException if a line or an event is larger than the limit
     */
    public void feed(ByteBuffer buffer) throws TooLargeException {
        while (buffer.hasRemaining()) {
            byte b = buffer.get();
            if (lastWasCr) {
                lastWasCr = false;
                if (b == '\n') {
                    continue;
                }
            }
            if (b == '\r') {
                lastWasCr = true;
                endLine();
            } else if (b == '\n') {
                endLine();
            } else {
                append(b);
            }
        }
    }

    /**
     * Feeds bytes.
     *
     * @param bytes the next bytes of the stream
     * @throws TooLargeException if a line or an event is larger than the limit
     */
    public void feed(byte[] bytes) throws TooLargeException {
        feed(ByteBuffer.wrap(bytes));
    }

    private void append(byte b) throws TooLargeException {
        if (lineLength == line.length) {
            if (lineLength >= limit + LINE_SLACK) {
                throw new TooLargeException(limit);
            }
            line = Arrays.copyOf(line, (int) Math.min((long) line.length * 2, limit + LINE_SLACK + 1));
        }
        line[lineLength++] = b;
    }

    private void endLine() throws TooLargeException {
        int start = 0;
        if (!bomChecked) {
            bomChecked = true;
            if (lineLength >= 3 && (line[0] & 0xff) == 0xEF && (line[1] & 0xff) == 0xBB && (line[2] & 0xff) == 0xBF) {
                start = 3;
            }
        }
        int length = lineLength - start;
        lineLength = 0;
        if (line.length > 64 * 1024) {
            // Do not keep a huge line buffer alive after one huge line.
            byte[] previous = line;
            line = new byte[256];
            processLine(previous, start, length);
            return;
        }
        processLine(line, start, length);
    }

    private void processLine(byte[] buf, int start, int length) throws TooLargeException {
        if (length == 0) {
            dispatch();
            return;
        }
        if (buf[start] == ':') {
            return;
        }
        int colon = -1;
        for (int i = start; i < start + length; i++) {
            if (buf[i] == ':') {
                colon = i;
                break;
            }
        }
        String field;
        int valueStart;
        int valueEnd = start + length;
        if (colon < 0) {
            field = new String(buf, start, length, StandardCharsets.UTF_8);
            valueStart = valueEnd;
        } else {
            field = new String(buf, start, colon - start, StandardCharsets.UTF_8);
            valueStart = colon + 1;
            if (valueStart < valueEnd && buf[valueStart] == ' ') {
                valueStart++;
            }
        }
        switch (field) {
            case "data" -> appendData(buf, valueStart, valueEnd - valueStart);
            case "event" -> eventType = new String(buf, valueStart, valueEnd - valueStart, StandardCharsets.UTF_8);
            case "id" -> {
                String id = new String(buf, valueStart, valueEnd - valueStart, StandardCharsets.UTF_8);
                if (id.indexOf('\0') < 0) {
                    lastEventId = id;
                }
            }
            case "retry" -> {
                if (valueEnd > valueStart && valueEnd - valueStart <= 12 && allDigits(buf, valueStart, valueEnd)) {
                    retryMillis = Long.parseLong(new String(buf, valueStart, valueEnd - valueStart,
                            StandardCharsets.US_ASCII));
                }
            }
            default -> {
                // unknown fields are ignored
            }
        }
    }

    private static boolean allDigits(byte[] buf, int from, int to) {
        for (int i = from; i < to; i++) {
            if (buf[i] < '0' || buf[i] > '9') {
                return false;
            }
        }
        return true;
    }

    private void appendData(byte[] buf, int offset, int length) throws TooLargeException {
        long needed = (long) dataLength + (hasData ? 1 : 0) + length;
        if (needed > limit) {
            throw new TooLargeException(limit);
        }
        if (needed > data.length) {
            long capacity = Math.max(256, data.length);
            while (capacity < needed) {
                capacity *= 2;
            }
            data = Arrays.copyOf(data, (int) Math.min(capacity, limit));
        }
        if (hasData) {
            data[dataLength++] = '\n';
        }
        System.arraycopy(buf, offset, data, dataLength, length);
        dataLength += length;
        hasData = true;
    }

    private void dispatch() {
        boolean any = dataLength > 0;
        byte[] payload = any ? Arrays.copyOf(data, dataLength) : null;
        String type = eventType == null || eventType.isEmpty() ? "message" : eventType;
        dataLength = 0;
        hasData = false;
        eventType = null;
        if (data.length > 64 * 1024) {
            data = new byte[0];
        }
        if (any) {
            sink.onEvent(new SseEvent(type, payload, lastEventId));
        }
    }
}
