package mcp.server.internal;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import mcp.protocol.SseFrames;

/**
 * The event streams of one handshake-era session over HTTP, kept so that a client whose stream broke can resume it
 * ({@code GET} with {@code Last-Event-ID}): every event gets an id {@code <stream>.<sequence>} and stays in a ring of
 * the session's last {@code ServerLimits.replayEvents} events, and of {@link #MAX_BYTES} at most. A stream whose client is gone goes on collecting
 * events (its call goes on: in this era a broken stream is no cancellation) until the client resumes it.
 *
 * <p>State: everything is guarded by {@code this}, writes to a live stream included, so that a resumed stream gets
 * the replayed events before any new one.
 */
final class Replay {

    private record Event(Record stream, long sequence, byte[] bytes) {
    }

    /** One event stream of the session. */
    final class Record {
        final String id;
        private long sequence;
        private HttpBackend.Stream live;
        private boolean finished;

        Record(String id) {
            this.id = id;
        }

        /** @return the id of the next event (for a priming event, which holds no data) */
        String nextId() {
            synchronized (Replay.this) {
                return id + "." + (++sequence);
            }
        }

        /** Adds an event and writes it to the live stream, if any. */
        void emit(String json) {
            synchronized (Replay.this) {
                long seq = ++sequence;
                byte[] bytes = SseFrames.event(id + "." + seq, json);
                if (capacity > 0) {
                    ring.addLast(new Event(this, seq, bytes));
                    Replay.this.bytes += bytes.length;
                    while (ring.size() > capacity || ring.size() > 1 && Replay.this.bytes > maxBytes) {
                        Replay.this.bytes -= ring.removeFirst().bytes().length;
                    }
                }
                if (live != null && !live.write(bytes)) {
                    live = null;
                }
            }
        }

        /** Attaches the stream the events go to now ({@code null}: none, the client is away). */
        void attach(HttpBackend.Stream stream) {
            synchronized (Replay.this) {
                live = stream;
            }
        }

        /** The stream got its last event (the request's answer): a resumed one ends after the replay. */
        void finish() {
            synchronized (Replay.this) {
                finished = true;
                if (live != null) {
                    live.close();
                    live = null;
                }
            }
        }

        /** The client's stream broke: the events wait for a resume. */
        void detach(HttpBackend.Stream stream) {
            synchronized (Replay.this) {
                if (live == stream) {
                    live = null;
                }
            }
        }
    }

    /** The most bytes of events a session keeps for resumption (beside {@code ServerLimits.replayEvents}). */
    static final long MAX_BYTES = 4L << 20;

    private final int capacity;
    private final long maxBytes;
    private long bytes;
    private final Deque<Event> ring = new ArrayDeque<>();
    private final Map<String, Record> records = new LinkedHashMap<>();
    private final AtomicLong nextStream = new AtomicLong();
    /** The most streams remembered; the oldest finished ones go first. */
    private static final int MAX_RECORDS = 256;

    /**
     * @param capacity the most events kept
     * @param maxBytes the most bytes of events kept (the last event is kept whatever its size)
     */
    Replay(int capacity, long maxBytes) {
        this(capacity, maxBytes, null);
    }

    /**
     * @param capacity the most events kept
     * @param maxBytes the most bytes of events kept (the last event is kept whatever its size)
     * @param instance this server instance's id, when replicas share the session ({@code null}: none): stream ids
     *     then name the instance, so that another replica never takes a stream of this one for one of its own, and say
     *     whether they are a GET stream ({@code g}) or a request's ({@code r})
     */
    Replay(int capacity, long maxBytes, String instance) {
        this.capacity = capacity;
        this.maxBytes = maxBytes;
        this.instance = instance;
    }

    private final String instance;

    /** @return a new stream of the session, for a request's answer */
    synchronized Record open() {
        return open(false);
    }

    /**
     * @param standalone whether it is the session's GET stream
     * @return a new stream of the session
     */
    synchronized Record open(boolean standalone) {
        String number = Long.toString(nextStream.incrementAndGet(), 36);
        Record record = new Record(instance == null ? number : instance + "-" + (standalone ? "g" : "r") + number);
        records.put(record.id, record);
        if (records.size() > MAX_RECORDS) {
            for (Iterator<Record> it = records.values().iterator(); it.hasNext() && records.size() > MAX_RECORDS;) {
                Record old = it.next();
                if (old.finished || old.live == null) {
                    it.remove();
                }
            }
        }
        return record;
    }

    /**
     * Resumes a stream: writes its events after the given one to the new stream, which becomes its live stream (or
     * is closed at once when the stream is finished).
     *
     * @param lastEventId the {@code Last-Event-ID} the client sent
     * @param stream the new stream
     * @return whether the id names a stream of this session
     */
    synchronized boolean resume(String lastEventId, HttpBackend.Stream stream) {
        int dot = lastEventId.lastIndexOf('.');
        Record record = dot < 0 ? null : records.get(lastEventId.substring(0, dot));
        long after;
        try {
            after = dot < 0 ? -1 : Long.parseLong(lastEventId.substring(dot + 1));
        } catch (NumberFormatException e) {
            after = -1;
        }
        if (record == null || after < 0) {
            return false;
        }
        for (Event event : ring) {
            if (event.stream() == record && event.sequence() > after) {
                stream.write(event.bytes());
            }
        }
        if (record.finished) {
            stream.close();
        } else {
            if (record.live != null) {
                record.live.close();
            }
            record.live = stream;
        }
        return true;
    }

    /**
     * @return whether a stream closed on purpose is sure to be resumed here: events are kept (not with
     *     {@code replayEvents} 0) and no replica shares the session (the reconnection might reach one that lacks it)
     */
    boolean resumable() {
        return capacity > 0 && instance == null;
    }

    /** @return whether the event id names a GET stream (of replicas sharing the session: see the constructor) */
    static boolean standalone(String lastEventId) {
        int dot = lastEventId.lastIndexOf('.');
        int dash = lastEventId.lastIndexOf('-', dot < 0 ? lastEventId.length() : dot);
        return dash >= 0 && dash + 1 < lastEventId.length() && lastEventId.charAt(dash + 1) == 'g';
    }

    /** @return whether the event id names a stream of this session that is kept here */
    synchronized boolean knows(String lastEventId) {
        int dot = lastEventId.lastIndexOf('.');
        return dot > 0 && records.containsKey(lastEventId.substring(0, dot));
    }

    /** @return the record of a stream id */
    synchronized Optional<Record> find(String streamId) {
        return Optional.ofNullable(records.get(streamId));
    }
}
