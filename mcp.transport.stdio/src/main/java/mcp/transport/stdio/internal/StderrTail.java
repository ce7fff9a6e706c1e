package mcp.transport.stdio.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;

/**
 * The last lines a server wrote to stderr, bounded in lines, in characters per line and in
 * characters in all, so that a chatty or hostile server cannot grow the host's memory.
 *
 * <p>Thread-safe: one thread {@linkplain #drain drains} the stream while others read the tail.
 * Invariant (under {@code this}): {@code lines.size() <= maxLines} and {@code chars} is the sum of
 * the lengths of {@code lines} and at most {@code maxChars}.
 */
final class StderrTail {

    private final int maxLines;
    private final int maxLineChars;
    private final int maxChars;
    private final Deque<String> lines = new ArrayDeque<>();
    private int chars;

    /**
     * @param maxLines how many lines to keep
     * @param maxLineChars longer lines are cut to this many characters
     * @param maxChars the most characters kept in all
     */
    StderrTail(int maxLines, int maxLineChars, int maxChars) {
        if (maxLines <= 0 || maxLineChars <= 0 || maxChars < maxLineChars) {
            throw new IllegalArgumentException("bad bounds");
        }
        this.maxLines = maxLines;
        this.maxLineChars = maxLineChars;
        this.maxChars = maxChars;
    }

    /**
     * Reads the stream to its end, adding each line to the tail and handing it to {@code each}.
     * Only the first bytes of a long line are kept (enough for {@code maxLineChars} characters);
     * the rest of it is read and dropped.
     *
     * @param in the server's stderr
     * @param each called with every line (already cut), on this thread
     * @throws IOException if the stream fails
     */
    void drain(InputStream in, Consumer<String> each) throws IOException {
        // Four bytes per character covers any UTF-8 text of maxLineChars characters.
        byte[] pending = new byte[maxLineChars * 4];
        int length = 0;
        byte[] chunk = new byte[8 * 1024];
        int n;
        while ((n = in.read(chunk, 0, chunk.length)) != -1) {
            for (int i = 0; i < n; i++) {
                byte b = chunk[i];
                if (b == '\n') {
                    each.accept(add(pending, length));
                    length = 0;
                } else if (length < pending.length) {
                    pending[length++] = b;
                }
            }
        }
        if (length > 0) {
            each.accept(add(pending, length));
        }
    }

    private String add(byte[] bytes, int length) {
        if (length > 0 && bytes[length - 1] == '\r') {
            length--;
        }
        String line = new String(bytes, 0, length, StandardCharsets.UTF_8);
        add(line);
        return line.length() > maxLineChars ? line.substring(0, maxLineChars) : line;
    }

    /**
     * Adds one line, cut to {@code maxLineChars}, dropping the oldest lines as needed. Blank lines
     * are not kept.
     *
     * @param line a line without terminator
     */
    synchronized void add(String line) {
        if (line.isBlank()) {
            return; // blank lines would only push real ones out of the tail
        }
        String kept = line.length() > maxLineChars ? line.substring(0, maxLineChars) : line;
        lines.addLast(kept);
        chars += kept.length();
        while (lines.size() > maxLines || chars > maxChars) {
            chars -= lines.removeFirst().length();
        }
    }

    /** @return the whole tail, lines joined by {@code \n}; empty when nothing was written */
    synchronized String tail() {
        return String.join("\n", lines);
    }

    /**
     * @param count how many of the newest lines
     * @return those lines joined by {@code \n}; empty when nothing was written
     */
    synchronized String tail(int count) {
        List<String> all = new ArrayList<>(lines);
        return String.join("\n", all.subList(Math.max(0, all.size() - count), all.size()));
    }

    /** @return whether any line was kept */
    synchronized boolean isEmpty() {
        return lines.isEmpty();
    }
}
