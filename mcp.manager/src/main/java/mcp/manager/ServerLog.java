package mcp.manager;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log messages of one server ({@code notifications/message}): the last {@link #capacity()} of them in
 * memory, and, when it came from {@link ServerLogFiles#open}, each also appended to that server's log file.
 * A client session appends to it ({@link McpClient#serverLog()}); {@link McpManager#serverLog(String)} keeps
 * one per server name, so that it outlives a reconnect.
 *
 * <p>Thread-safe. The ring is guarded by its own lock; listeners are called after an entry is in the ring
 * and in the file, in the order of the entries, on the thread that appended (a session's event thread),
 * outside the lock: a slow listener delays that session's later events, never the protocol.
 */
public final class ServerLog {

    /** The default number of entries kept in memory. */
    public static final int DEFAULT_CAPACITY = 1_000;
    /** The most characters of one entry's text; more is cut with an ellipsis. */
    public static final int MAX_TEXT = 8_192;

    private static final Logger LOG = LoggerFactory.getLogger(ServerLog.class);

    private final String serverName;
    private final int capacity;
    private final Consumer<ServerLogEntry> sink;
    /** Guarded by itself; never more than {@link #capacity} entries, oldest first. */
    private final ArrayDeque<ServerLogEntry> ring = new ArrayDeque<>();
    private final List<Consumer<ServerLogEntry>> listeners = new CopyOnWriteArrayList<>();

    /**
     * A log kept in memory only.
     *
     * @param serverName the server whose log it is
     * @param capacity the most entries kept, at least 1
     */
    public ServerLog(String serverName, int capacity) {
        this(serverName, capacity, entry -> { });
    }

    ServerLog(String serverName, int capacity, Consumer<ServerLogEntry> sink) {
        this.serverName = Objects.requireNonNull(serverName, "serverName");
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1");
        }
        this.capacity = capacity;
        this.sink = sink;
    }

    /** @return the server whose log it is */
    public String serverName() {
        return serverName;
    }

    /** @return the most entries kept in memory */
    public int capacity() {
        return capacity;
    }

    /**
     * Keeps an entry (the oldest one leaves when the ring is full), writes it to the file if there is one
     * (a failure there is warned about once and never thrown), and tells the listeners.
     *
     * @param entry the entry
     */
    public void append(ServerLogEntry entry) {
        Objects.requireNonNull(entry, "entry");
        synchronized (ring) {
            if (ring.size() == capacity) {
                ring.removeFirst();
            }
            ring.addLast(entry);
        }
        sink.accept(entry);
        for (Consumer<ServerLogEntry> listener : listeners) {
            try {
                listener.accept(entry);
            } catch (RuntimeException e) {
                LOG.warn("A listener of MCP server \"{}\"'s log failed: {}", serverName, e.toString());
            }
        }
    }

    /** @return the entries kept now, oldest first (a copy) */
    public List<ServerLogEntry> entries() {
        synchronized (ring) {
            return List.copyOf(ring);
        }
    }

    /**
     * @param listener called with every entry appended from now on, until the subscription is closed
     * @return the subscription
     */
    public Subscription listen(Consumer<ServerLogEntry> listener) {
        Objects.requireNonNull(listener, "listener");
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** A listener's registration; closing it twice is harmless. */
    @FunctionalInterface
    public interface Subscription extends AutoCloseable {
        /** Stops the listener's calls. */
        @Override
        void close();
    }
}
