package mcp.server;

import java.time.Duration;
import java.util.Objects;

/**
 * What one client can make the server hold, and how long. Everything a client can fill is bounded here; the
 * defaults fit a gateway on a workstation.
 *
 * @param maxBodyBytes the largest HTTP request body, and the largest stdio line (default 4 MiB); over HTTP a larger
 *     one is answered 413
 * @param maxSessions the most sessions of the handshake era open at once (default 1,000); one more is refused with
 *     503 until one ends or expires
 * @param sessionIdleTimeout a session with no request and no open stream for this long ends (default 30 min)
 * @param maxConcurrentRequests the most requests being served at once, over all clients (default 512); one more is
 *     answered at once with an error
 * @param maxStreams the most event streams open at once, over all clients (default 1,000): response streams, GET
 *     streams and listen streams
 * @param maxQueuedEvents the most events waiting for one stream's client to read them (default 1,000): a client
 *     that reads no further loses that stream (it may resume it, handshake era), the others are not slowed
 * @param replayEvents the most events of a session kept for a client that resumes a stream (default 1,000)
 * @param maxPendingInputs the most calls waiting for a client's input at once (default 1,000): a stateless
 *     {@code input_required} round, or a server request of the handshake era
 * @param inputWait how long a call waits for the client's input (default 10 min): the retry of an
 *     {@code input_required} round, or the answer to a server request; then it is cancelled
 * @param retryMillis the reconnection time a resumable stream tells the client (default 1,000 ms)
 * @param ioTimeout how long an HTTP read or write may stall (default 30 s): a client that stops sending its body, or
 *     stops reading while the server writes to it, loses its connection then
 * @param maxTasks the most tasks held at once, over all clients, running or done (default 1,000): a new task makes
 *     room by dropping the oldest finished one; when every one still runs, the call is refused
 * @param maxTasksPerClient the most tasks of one client held at once (default 100), the same way: a session of the
 *     handshake era, a stdio connection, or an HTTP authorization of the stateless revision
 * @param taskTtl how long a task is held from its creation (default 1 h; a 2025-11-25 client may ask for less): then
 *     it is dropped, and cancelled if it still runs
 */
public record ServerLimits(long maxBodyBytes, int maxSessions, Duration sessionIdleTimeout, int maxConcurrentRequests,
        int maxStreams, int maxQueuedEvents, int replayEvents, int maxPendingInputs, Duration inputWait,
        long retryMillis, Duration ioTimeout, int maxTasks, int maxTasksPerClient, Duration taskTtl) {

    /** The defaults. */
    public static final ServerLimits DEFAULT = new ServerLimits(4L << 20, 1_000, Duration.ofMinutes(30), 512, 1_000,
            1_000, 1_000, 1_000, Duration.ofMinutes(10), 1_000, Duration.ofSeconds(30), 1_000, 100, Duration.ofHours(1));

    /** The limits with the default bounds of tasks. */
    public ServerLimits(long maxBodyBytes, int maxSessions, Duration sessionIdleTimeout, int maxConcurrentRequests,
            int maxStreams, int maxQueuedEvents, int replayEvents, int maxPendingInputs, Duration inputWait,
            long retryMillis, Duration ioTimeout) {
        this(maxBodyBytes, maxSessions, sessionIdleTimeout, maxConcurrentRequests, maxStreams, maxQueuedEvents,
                replayEvents, maxPendingInputs, inputWait, retryMillis, ioTimeout, 1_000, 100, Duration.ofHours(1));
    }

    /** Validates. */
    public ServerLimits {
        Objects.requireNonNull(sessionIdleTimeout, "sessionIdleTimeout");
        Objects.requireNonNull(inputWait, "inputWait");
        Objects.requireNonNull(ioTimeout, "ioTimeout");
        Objects.requireNonNull(taskTtl, "taskTtl");
        if (maxBodyBytes < 1024 || maxSessions < 1 || maxConcurrentRequests < 1 || maxStreams < 1
                || maxQueuedEvents < 1 || replayEvents < 0 || maxPendingInputs < 0 || retryMillis < 0
                || sessionIdleTimeout.isNegative() || sessionIdleTimeout.isZero() || inputWait.isNegative()
                || inputWait.isZero() || ioTimeout.toMillis() < 100 || maxTasks < 1 || maxTasksPerClient < 1
                || taskTtl.toMillis() < 1) {
            throw new IllegalArgumentException("server limits out of range: " + this);
        }
    }

    /**
     * @param bytes the largest body
     * @return a copy with that limit
     */
    public ServerLimits withMaxBodyBytes(long bytes) {
        return new ServerLimits(bytes, maxSessions, sessionIdleTimeout, maxConcurrentRequests, maxStreams,
                maxQueuedEvents, replayEvents, maxPendingInputs, inputWait, retryMillis, ioTimeout, maxTasks,
                maxTasksPerClient, taskTtl);
    }

    /**
     * @param sessions the most sessions
     * @param idle how long an idle session lives
     * @return a copy with those limits
     */
    public ServerLimits withSessions(int sessions, Duration idle) {
        return new ServerLimits(maxBodyBytes, sessions, idle, maxConcurrentRequests, maxStreams, maxQueuedEvents,
                replayEvents, maxPendingInputs, inputWait, retryMillis, ioTimeout, maxTasks,
                maxTasksPerClient, taskTtl);
    }

    /**
     * @param streams the most streams
     * @param queued the most events waiting for one stream
     * @return a copy with those limits
     */
    public ServerLimits withStreams(int streams, int queued) {
        return new ServerLimits(maxBodyBytes, maxSessions, sessionIdleTimeout, maxConcurrentRequests, streams, queued,
                replayEvents, maxPendingInputs, inputWait, retryMillis, ioTimeout, maxTasks,
                maxTasksPerClient, taskTtl);
    }

    /**
     * @param pending the most calls waiting for input
     * @param wait how long one waits
     * @return a copy with those limits
     */
    public ServerLimits withInputs(int pending, Duration wait) {
        return new ServerLimits(maxBodyBytes, maxSessions, sessionIdleTimeout, maxConcurrentRequests, maxStreams,
                maxQueuedEvents, replayEvents, pending, wait, retryMillis, ioTimeout, maxTasks,
                maxTasksPerClient, taskTtl);
    }

    /**
     * @param timeout how long an HTTP read or write may stall
     * @return a copy with that limit
     */
    public ServerLimits withIoTimeout(Duration timeout) {
        return new ServerLimits(maxBodyBytes, maxSessions, sessionIdleTimeout, maxConcurrentRequests, maxStreams,
                maxQueuedEvents, replayEvents, maxPendingInputs, inputWait, retryMillis, timeout, maxTasks,
                maxTasksPerClient, taskTtl);
    }

    /**
     * @param requests the most requests served at once
     * @return a copy with that limit
     */
    public ServerLimits withMaxConcurrentRequests(int requests) {
        return new ServerLimits(maxBodyBytes, maxSessions, sessionIdleTimeout, requests, maxStreams, maxQueuedEvents,
                replayEvents, maxPendingInputs, inputWait, retryMillis, ioTimeout, maxTasks,
                maxTasksPerClient, taskTtl);
    }

    /**
     * @param max the most tasks held at once
     * @param perClient the most of one client
     * @param ttl how long one is held from its creation
     * @return a copy with those limits
     */
    public ServerLimits withTasks(int max, int perClient, Duration ttl) {
        return new ServerLimits(maxBodyBytes, maxSessions, sessionIdleTimeout, maxConcurrentRequests, maxStreams,
                maxQueuedEvents, replayEvents, maxPendingInputs, inputWait, retryMillis, ioTimeout, max, perClient, ttl);
    }
}
