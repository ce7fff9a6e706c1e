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
 */
public record ServerLimits(long maxBodyBytes, int maxSessions, Duration sessionIdleTimeout, int maxConcurrentRequests,
        int maxStreams, int maxQueuedEvents, int replayEvents, int maxPendingInputs, Duration inputWait,
        long retryMillis, Duration ioTimeout) {

    /** The defaults. */
    public static final ServerLimits DEFAULT = new ServerLimits(4L << 20, 1_000, Duration.ofMinutes(30), 512, 1_000,
            1_000, 1_000, 1_000, Duration.ofMinutes(10), 1_000, Duration.ofSeconds(30));

    /** Validates. */
    public ServerLimits {
        Objects.requireNonNull(sessionIdleTimeout, "sessionIdleTimeout");
        Objects.requireNonNull(inputWait, "inputWait");
        Objects.requireNonNull(ioTimeout, "ioTimeout");
        if (maxBodyBytes < 1024 || maxSessions < 1 || maxConcurrentRequests < 1 || maxStreams < 1
                || maxQueuedEvents < 1 || replayEvents < 0 || maxPendingInputs < 0 || retryMillis < 0
                || sessionIdleTimeout.isNegative() || sessionIdleTimeout.isZero() || inputWait.isNegative()
                || inputWait.isZero() || ioTimeout.toMillis() < 100) {
            throw new IllegalArgumentException("server limits out of range: " + this);
        }
    }

    /**
     * @param bytes the largest body
     * @return a copy with that limit
     */
    public ServerLimits withMaxBodyBytes(long bytes) {
        return new ServerLimits(bytes, maxSessions, sessionIdleTimeout, maxConcurrentRequests, maxStreams,
                maxQueuedEvents, replayEvents, maxPendingInputs, inputWait, retryMillis, ioTimeout);
    }

    /**
     * @param sessions the most sessions
     * @param idle how long an idle session lives
     * @return a copy with those limits
     */
    public ServerLimits withSessions(int sessions, Duration idle) {
        return new ServerLimits(maxBodyBytes, sessions, idle, maxConcurrentRequests, maxStreams, maxQueuedEvents,
                replayEvents, maxPendingInputs, inputWait, retryMillis, ioTimeout);
    }

    /**
     * @param streams the most streams
     * @param queued the most events waiting for one stream
     * @return a copy with those limits
     */
    public ServerLimits withStreams(int streams, int queued) {
        return new ServerLimits(maxBodyBytes, maxSessions, sessionIdleTimeout, maxConcurrentRequests, streams, queued,
                replayEvents, maxPendingInputs, inputWait, retryMillis, ioTimeout);
    }

    /**
     * @param pending the most calls waiting for input
     * @param wait how long one waits
     * @return a copy with those limits
     */
    public ServerLimits withInputs(int pending, Duration wait) {
        return new ServerLimits(maxBodyBytes, maxSessions, sessionIdleTimeout, maxConcurrentRequests, maxStreams,
                maxQueuedEvents, replayEvents, pending, wait, retryMillis, ioTimeout);
    }

    /**
     * @param timeout how long an HTTP read or write may stall
     * @return a copy with that limit
     */
    public ServerLimits withIoTimeout(Duration timeout) {
        return new ServerLimits(maxBodyBytes, maxSessions, sessionIdleTimeout, maxConcurrentRequests, maxStreams,
                maxQueuedEvents, replayEvents, maxPendingInputs, inputWait, retryMillis, timeout);
    }

    /**
     * @param requests the most requests served at once
     * @return a copy with that limit
     */
    public ServerLimits withMaxConcurrentRequests(int requests) {
        return new ServerLimits(maxBodyBytes, maxSessions, sessionIdleTimeout, requests, maxStreams, maxQueuedEvents,
                replayEvents, maxPendingInputs, inputWait, retryMillis, ioTimeout);
    }
}
