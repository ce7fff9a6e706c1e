package mcp.transport.stdio.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import mcp.api.McpException;
import mcp.api.TransportClosedException;
import mcp.api.internal.Secrets;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcResponse;
import mcp.api.jsonrpc.RequestId;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportRequest;
import mcp.transport.stdio.StdioTransports;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A transport over a child process's stdin and stdout, one JSON-RPC message per line.
 *
 * <p>Threads, all daemons named {@code mcp-stdio-<server>-<role>}:
 * <ul>
 *   <li>{@code stdout} (from {@link #start}): reads messages and hands them to the listener; when a
 *       delivery has been in the listener for a while ({@link DeliveryWatchdog}), a new {@code stdout}
 *       thread takes over the reading, and the old one ends once its delivery returns;</li>
 *   <li>{@code stderr} (from creation): drains stderr into the tail and the DEBUG log;</li>
 *   <li>{@code stdin} (from creation): writes queued messages, flushing when the queue runs empty, and
 *       closes stdin when a close asks for it;</li>
 *   <li>{@code exit} and {@code close} (short-lived): close the transport when the process exits or
 *       stdout ends, so that the detecting thread is never blocked by the teardown.</li>
 * </ul>
 *
 * <p>State: {@code state} moves OPEN → CLOSING → CLOSED, only under {@code lock}; the thread that
 * moves it to CLOSING owns the close (computes the reason, ends the process tree, calls
 * {@link Listener#onClose} once). Messages are queued under the same lock, so once CLOSING is set no
 * message enters the queue and the writer can fail whatever is left. Deliveries to the listener
 * happen only while OPEN and are counted in {@code deliveries}: the closer waits (bounded) until
 * none but its own is in progress, so that no message is delivered after the close has started.
 *
 * <p>A listener may block: {@code delivery} is even while the reading thread reads and odd while it
 * delivers, and moves on by one at each change. Only the reading thread makes it odd; it makes it
 * even again with a compare-and-set after the listener returns. The watchdog, seeing the same odd
 * value twice a tick apart, makes it even itself (the same compare-and-set, so exactly one of the two
 * wins) and starts a new reading thread, which goes on from the next line; the old thread sees its
 * compare-and-set fail and stops reading. Deliveries then overlap, but each starts in stream order.
 *
 * <p>Writing on the caller's thread: handing every message to the {@code stdin} thread costs a
 * thread wake-up per message, the largest part of a call's latency after the server itself. So
 * {@link #send} writes a small message itself when it can do so without blocking and without
 * reordering: when it gets {@code writeLock} at once, no accepted message is still unwritten
 * ({@code queued} is zero), and the pipe provably has room. The proof: a server reads its stdin in
 * order, so a response to request <i>k</i> shows that every byte up to the end of <i>k</i> was read;
 * the bytes written minus the bytes so proven read ({@code writtenBytes - consumedBytes}) bound what
 * the pipe holds, and a direct write keeps that under {@link #DIRECT_WRITE_BUDGET}, far below the
 * 64 KiB of a Linux pipe. Otherwise the message is queued for the {@code stdin} thread as before,
 * which alone may block on a full pipe. Every write to the stream, and its close, happens under
 * {@code writeLock}.
 */
public final class StdioTransport implements Transport {

    private static final Logger LOG = LoggerFactory.getLogger(StdioTransport.class);

    /** Under load the writer flushes at least this often, so that futures complete steadily. */
    private static final int MAX_BATCH_MESSAGES = 256;
    private static final int MAX_BATCH_BYTES = 256 * 1024;

    /** After the process exited, how long to wait for the last stderr bytes to reach the tail. */
    private static final Duration STDERR_END_WAIT = Duration.ofMillis(500);

    /** Tells the writer to close stdin; always the last element ever queued. */
    private static final Outgoing STOP = new Outgoing(new byte[0], null, null);

    /**
     * The most bytes the pipe may provably hold after a write on the caller's thread (see the class
     * comment); larger messages, or a pipe that may be fuller, go through the {@code stdin} thread.
     */
    static final int DIRECT_WRITE_BUDGET = 8 * 1024;

    /** Requests whose end offset is remembered; beyond it the record starts over (a proof is only lost). */
    private static final int MAX_TRACKED_REQUESTS = 4096;

    private enum State { OPEN, CLOSING, CLOSED }

    private record Outgoing(byte[] bytes, RequestId requestId, CompletableFuture<Void> written) {
    }

    private final String serverName;
    private final Process process;
    private final ProcessTree tree;
    /** Whether the server leads a session of its own ({@link Sessions}), registered with the {@link Watchdog}. */
    private final boolean ownSession;
    /**
     * Whether the server has answered any request: until then it is still in its handshake, with no
     * session to end gracefully, and a close terminates it at once.
     */
    private volatile boolean answered;
    private final long maxMessageBytes;
    private final Duration closeStep;
    private final StderrTail stderr = new StderrTail(StdioTransports.STDERR_TAIL_LINES,
            StdioTransports.STDERR_LINE_MAX_CHARS, StdioTransports.STDERR_TAIL_MAX_CHARS);
    private final MessageReader reader;
    private final BlockingQueue<Outgoing> outbox = new LinkedBlockingQueue<>();

    /** Held for every write to stdin and for its close, by the {@code stdin} thread or a direct sender. */
    private final ReentrantLock writeLock = new ReentrantLock();
    /** Messages accepted into {@code outbox} and not yet written; a direct write needs zero. */
    private final AtomicInteger queued = new AtomicInteger();
    /** Bytes written to stdin so far; guarded by {@code writeLock}. */
    private long writtenBytes;
    /** Bytes of stdin the server has provably read (see the class comment). */
    private final AtomicLong consumedBytes = new AtomicLong();
    /** Stream offset just after each request written and not yet answered. */
    private final ConcurrentHashMap<RequestId, Long> requestEnds = new ConcurrentHashMap<>();

    /** The thread reading stdout now; another takes over when a delivery blocks. */
    private volatile ReaderThread stdoutThread;
    private final Thread stderrThread;
    private final Thread stdinThread;
    private final CountDownLatch stdoutDone = new CountDownLatch(1);
    private final CountDownLatch stderrDone = new CountDownLatch(1);

    /** Guards {@code state} transitions, {@code started}, and queueing into {@code outbox}. */
    private final Object lock = new Object();
    private volatile State state = State.OPEN;
    private boolean started;

    /** Even while the reading thread reads, odd while it delivers (see the class comment). */
    private final AtomicLong delivery = new AtomicLong();
    /** The value of {@code delivery} at the watchdog's last look; the watchdog's alone. */
    private long deliveryLastSeen;
    /** Deliveries in the listener now, on any thread (more than one once a blocked one was left behind). */
    private final AtomicInteger deliveries = new AtomicInteger();
    /** Notified when a delivery ends after the close has begun. */
    private final Object deliveriesDone = new Object();
    private volatile Listener listener;
    /** The reason, once the closer knows it; sends that fail meanwhile say "closing". */
    private volatile String closeReason;
    /** Set when CLOSED; what {@link Listener#onClose} receives. */
    private volatile TransportClosedException closedBy;
    private final AtomicBoolean closeDelivered = new AtomicBoolean();
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();
    /** Run once the process tree has ended, before {@code terminated} completes. */
    private final Runnable afterEnd;
    /** The thread running the close, so that a nested {@link #close()} from it does not wait for itself. */
    private volatile Thread closer;

    /**
     * Wraps a started process: starts draining stderr and the writer, and registers the transport
     * with the JVM-wide safety net. Reading stdout starts with {@link #start}.
     *
     * @param request the server name and limits
     * @param process the server process, just started
     * @param ownSession whether the process leads a session and process group of its own
     *     ({@link Sessions}): its members are then part of its tree, and the {@link Watchdog} ends the
     *     group if this JVM dies
     */
    StdioTransport(TransportRequest request, Process process, boolean ownSession) {
        this(request, process, ownSession, () -> { });
    }

    /**
     * As {@link #StdioTransport(TransportRequest, Process, boolean)}, with what to do once the process tree has
     * ended (a sandbox's files on the host to remove).
     */
    StdioTransport(TransportRequest request, Process process, boolean ownSession, Runnable afterEnd) {
        this.afterEnd = afterEnd;
        this.serverName = request.serverName();
        this.process = process;
        this.ownSession = ownSession;
        if (ownSession) {
            Watchdog.register(process.pid());
        }
        this.tree = new ProcessTree(serverName, process, ownSession);
        this.maxMessageBytes = request.maxMessageBytes();
        this.closeStep = request.closeStepTimeout();
        this.reader = new MessageReader(serverName, process.getInputStream(), maxMessageBytes, this::deliver);
        this.stdoutThread = new ReaderThread();
        this.stderrThread = newThread("stderr", this::drainStderr);
        this.stdinThread = newThread("stdin", this::writeLoop);
        stderrThread.start();
        stdinThread.start();
        // Registered before the exit callback, whose close is what unregisters it.
        LiveTransports.add(this);
        process.onExit().thenRun(this::onProcessExit);
    }

    @Override
    public void start(Listener listener) {
        Objects.requireNonNull(listener, "listener");
        synchronized (lock) {
            if (started) {
                throw new IllegalStateException("transport of MCP server \"" + serverName + "\" already started");
            }
            started = true;
            this.listener = listener;
        }
        stdoutThread.start();
        // Closed before start (the process died at once): the listener still hears about it, once.
        deliverCloseIfReady();
    }

    @Override
    public CompletableFuture<Void> send(JsonRpcMessage message) {
        Objects.requireNonNull(message, "message");
        byte[] bytes;
        try {
            bytes = JsonRpcCodec.standard().encode(message);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(
                    new McpException("Cannot encode a message for MCP server \"" + serverName + "\": " + e.getMessage(), e));
        }
        RequestId requestId = message instanceof JsonRpcRequest request ? request.id() : null;
        if (bytes.length < DIRECT_WRITE_BUDGET && writeLock.tryLock()) {
            try {
                if (state == State.OPEN && queued.get() == 0
                        && writtenBytes - consumedBytes.get() + bytes.length + 1 <= DIRECT_WRITE_BUDGET) {
                    OutputStream out = process.getOutputStream();
                    written(requestId, bytes.length + 1);
                    out.write(bytes);
                    out.write('\n');
                    out.flush();
                    return CompletableFuture.completedFuture(null);
                }
            } catch (IOException e) {
                String detail = String.valueOf(e.getMessage());
                closeFromPeer(() -> peerEndReason("writing to the server's stdin failed: " + detail));
                CompletableFuture<Void> failed = new CompletableFuture<>();
                failWithCloseReason(failed, e);
                return failed;
            } finally {
                writeLock.unlock();
            }
        }
        Outgoing outgoing = new Outgoing(bytes, requestId, new CompletableFuture<>());
        synchronized (lock) {
            if (state != State.OPEN) {
                return CompletableFuture.failedFuture(closedException(null));
            }
            queued.incrementAndGet();
            outbox.add(outgoing);
        }
        return outgoing.written();
    }

    /** Counts bytes about to be written and remembers where a request ends; under {@code writeLock}. */
    private void written(RequestId requestId, int length) {
        writtenBytes += length;
        if (requestId != null) {
            if (requestEnds.size() >= MAX_TRACKED_REQUESTS) {
                requestEnds.clear();
            }
            requestEnds.put(requestId, writtenBytes);
        }
    }

    /** A delivery that blocks is left behind by a new reading thread ({@link DeliveryWatchdog}). */
    /** Newline-delimited messages carry the stateless revision as they are: nothing to add on this transport. */
    @Override
    public boolean carriesModernEra() {
        return true;
    }

    @Override
    public boolean listenerMayBlock() {
        return true;
    }

    /** A delivery about to block, on this transport's reading thread: a new one reads on now. */
    @Override
    public void listenerBlocking() {
        ReaderThread thread = deliveringThread();
        if (thread != null) {
            handOver(thread.delivery, "the listener is about to block");
        }
    }

    @Override
    public String diagnostics() {
        // A server may echo its arguments (a bad option): secret-looking values are masked.
        String tail = Secrets.maskText(stderr.tail());
        return tail.isEmpty() ? "" : "stderr: " + tail;
    }

    @Override
    public void close() {
        if (beginClose()) {
            finishClose(() -> "closed by client");
        } else {
            awaitTermination();
        }
    }

    /** @return how many stdout lines were skipped because they were not JSON-RPC messages */
    public long skippedLines() {
        return reader.skippedLines();
    }

    /** @return the pid of the server process */
    public long pid() {
        return process.pid();
    }

    /** @return the thread reading stdout now, for tests */
    Thread readingThread() {
        return stdoutThread;
    }

    /** @return the server process, for tests */
    Process process() {
        return process;
    }

    /** @return whether no close has started yet */
    public boolean isOpen() {
        return state == State.OPEN;
    }

    /** @return the largest stdout line buffer allocated so far, in bytes, for tests of the memory bound */
    int largestLineBuffer() {
        return reader.largestLineBuffer();
    }

    /** @return the pids of the recorded descendants still running (no new snapshot), for tests */
    Set<Long> knownDescendantPids() {
        return tree.liveDescendantPids();
    }

    /** Records the current descendants now, from a scan of the process table for this transport alone. */
    void snapshotTree() {
        if (state == State.OPEN) {
            tree.snapshot();
        }
    }

    /**
     * Records the current descendants; called periodically by {@link LiveTransports}.
     *
     * @param table the process table read once for every transport
     */
    void snapshotTree(List<Sessions.Stat> table) {
        if (state == State.OPEN) {
            tree.snapshot(table);
        }
    }

    /** Kills the whole tree without waiting; JVM shutdown only. */
    void killTreeNow() {
        tree.snapshot();
        tree.killNow();
    }

    // ---- inbound ----

    private void readLoop() {
        MessageReader.End end = null;
        try {
            end = reader.read();
            if (end == MessageReader.End.HANDED_OFF) {
                return;
            }
            if (end == MessageReader.End.TOO_LARGE) {
                closeFromPeer(() -> "message from server exceeds the limit of " + maxMessageBytes + " bytes");
                // Keep the pipe moving so that a server blocked writing the rest can notice stdin closing.
                reader.discardRest();
            } else {
                closeFromPeer(() -> peerEndReason("the server closed its stdout"));
            }
        } catch (IOException e) {
            if (state == State.OPEN) {
                String detail = String.valueOf(e.getMessage());
                closeFromPeer(() -> peerEndReason("reading the server's stdout failed: " + detail));
            }
        } catch (RuntimeException | Error e) {
            LOG.error("MCP server \"{}\": the stdout reader failed", serverName, e);
            closeFromPeer(() -> withStderr("the stdout reader failed: " + e));
        } finally {
            if (end != MessageReader.End.HANDED_OFF) {
                stdoutDone.countDown();
            }
        }
    }

    /**
     * Hands one message to the listener, on the reading thread.
     *
     * @return whether this thread goes on reading: false when the watchdog gave the reading to a new
     *     thread meanwhile
     */
    private boolean deliver(JsonRpcMessage message) {
        if (message instanceof JsonRpcResponse response) {
            answered = true;
        }
        if (message instanceof JsonRpcResponse response && response.id() != null) {
            // The server read the request it answers, and so everything written before it.
            Long end = requestEnds.remove(response.id());
            if (end != null) {
                consumedBytes.accumulateAndGet(end, Math::max);
            }
        }
        // Only the reading thread makes it odd, so a plain increment is enough; the watchdog only ever
        // moves an odd value on.
        long started = delivery.incrementAndGet();
        DeliveryWatchdog.deliveryStarted();
        ReaderThread self = (ReaderThread) Thread.currentThread();
        self.delivery = started;
        deliveries.incrementAndGet();
        boolean stillReading;
        try {
            if (state == State.OPEN) {
                listener.onMessage(message);
            }
        } catch (RuntimeException e) {
            // A listener bug must not stop the reader: later messages (and the close) still arrive.
            LOG.warn("MCP server \"{}\": the transport listener failed on a message", serverName, e);
        } finally {
            self.delivery = 0;
            if (deliveries.decrementAndGet() <= 1 && state != State.OPEN) {
                synchronized (deliveriesDone) {
                    deliveriesDone.notifyAll();
                }
            }
            // Also when an Error leaves the listener: then the reader fails as before, and no new one starts.
            stillReading = delivery.compareAndSet(started, started + 1);
        }
        return stillReading;
    }

    /**
     * The watchdog's look at this transport: a delivery that was already in the listener at the last
     * look, and still is, has the reading go on on a new thread.
     *
     * @return whether the transport delivered anything since the last look
     */
    boolean checkDelivery() {
        long last = deliveryLastSeen;
        long now = delivery.get();
        deliveryLastSeen = now;
        if (now != last) {
            return true;
        }
        if ((now & 1) == 0) {
            return false;
        }
        handOver(now, "a message has been in the listener for over " + DeliveryWatchdog.TICK_MILLIS + " ms");
        return true;
    }

    /**
     * Starts a new reading thread if the delivery {@code started} is still the one in progress (the
     * compare-and-set of the class comment); the delivering thread then stops reading when it returns.
     */
    private void handOver(long started, String why) {
        if (delivery.compareAndSet(started, started + 1)) {
            LOG.debug("MCP server \"{}\": {}; reading on a new thread", serverName, why);
            ReaderThread next = new ReaderThread();
            stdoutThread = next;
            next.start();
        }
    }

    private void drainStderr() {
        try {
            stderr.drain(process.getErrorStream(), line -> LOG.debug("MCP server \"{}\" stderr: {}", serverName,
                    Secrets.maskText(line)));
        } catch (IOException e) {
            LOG.debug("MCP server \"{}\": reading stderr ended: {}", serverName, e.getMessage());
        } catch (RuntimeException | Error e) {
            LOG.warn("MCP server \"{}\": the stderr reader failed", serverName, e);
        } finally {
            stderrDone.countDown();
        }
    }

    // ---- outbound ----

    private void writeLoop() {
        OutputStream out = process.getOutputStream();
        List<Outgoing> batch = new ArrayList<>();
        try {
            boolean stop = false;
            while (!stop) {
                // Bounded poll rather than take(): STOP always arrives, but the loop also ends on its own
                // once the transport is closed.
                Outgoing next = outbox.poll(1, TimeUnit.SECONDS);
                if (next == null) {
                    if (state == State.CLOSED) {
                        break;
                    }
                    continue;
                }
                int batchBytes = 0;
                writeLock.lock();
                try {
                    // Write what is queued, flushing when the queue runs empty or the batch is full.
                    while (next != null) {
                        if (next == STOP) {
                            stop = true;
                            break;
                        }
                        // In the batch before the write: if the write fails, its future fails with the rest.
                        batch.add(next);
                        queued.decrementAndGet();
                        written(next.requestId(), next.bytes().length + 1);
                        out.write(next.bytes());
                        out.write('\n');
                        batchBytes += next.bytes().length + 1;
                        if (batch.size() >= MAX_BATCH_MESSAGES || batchBytes >= MAX_BATCH_BYTES) {
                            break;
                        }
                        next = outbox.poll();
                    }
                    out.flush();
                } finally {
                    writeLock.unlock();
                }
                batch.forEach(o -> o.written().complete(null));
                batch.clear();
            }
        } catch (IOException e) {
            String detail = String.valueOf(e.getMessage());
            // Close first: from then on nothing enters the queue, so draining it below is final.
            closeFromPeer(() -> peerEndReason("writing to the server's stdin failed: " + detail));
            batch.forEach(o -> failWithCloseReason(o.written(), e));
        } catch (InterruptedException | RuntimeException | Error e) {
            LOG.error("MCP server \"{}\": the stdin writer failed", serverName, e);
            closeFromPeer(() -> withStderr("the stdin writer failed: " + e));
            TransportClosedException failure = closedException(e);
            batch.forEach(o -> o.written().completeExceptionally(failure));
        } finally {
            writeLock.lock();
            try {
                closeQuietly(out);
            } finally {
                writeLock.unlock();
            }
            Outgoing left;
            while ((left = outbox.poll()) != null) {
                if (left != STOP) {
                    left.written().completeExceptionally(closedException(null));
                }
            }
        }
    }

    /** Step one of a close: end the server's input after the messages already accepted. */
    private void closeStdin() {
        outbox.add(STOP);
        if (Thread.currentThread() == stdinThread || !stdinThread.isAlive()) {
            // Either the writer itself is closing (from a callback of a write future) or there is no
            // writer any more: close the stream here (under the write lock) rather than wait for STOP.
            writeLock.lock();
            try {
                closeQuietly(process.getOutputStream());
            } finally {
                writeLock.unlock();
            }
        }
    }

    // ---- closing ----

    private void onProcessExit() {
        LOG.debug("MCP server \"{}\" (pid {}) exited with code {}", serverName, process.pid(), process.exitValue());
        if (state != State.OPEN) {
            return;
        }
        newThread("exit", () -> {
            // Normally stdout ends with the process and the reader closes with the exit code; its last
            // messages may still be in the pipe, so give it the first word. stdout stays open only when a
            // descendant inherited it: then close from here, which ends that descendant too.
            Waits.await(stdoutDone, StdioTransports.EXIT_CODE_WAIT);
            if (beginClose()) {
                finishClose(() -> peerEndReason("process exited"));
            }
        }).start();
    }

    /** Closes because the server went away or misbehaved; the teardown runs on a thread of its own. */
    private void closeFromPeer(Supplier<String> reason) {
        if (beginClose()) {
            newThread("close", () -> finishClose(reason)).start();
        }
    }

    /** Moves OPEN to CLOSING; true for the one caller that then owns the close. */
    private boolean beginClose() {
        synchronized (lock) {
            if (state != State.OPEN) {
                return false;
            }
            state = State.CLOSING;
        }
        // Before anything else can end the root, record its descendants: once it dies they are
        // reparented and cannot be found from it any more.
        tree.snapshot();
        return true;
    }

    private void finishClose(Supplier<String> reasonSupplier) {
        closer = Thread.currentThread();
        String reason = "closed";
        boolean ended = false;
        try {
            awaitDeliveriesStopped();
            try {
                reason = reasonSupplier.get();
            } catch (RuntimeException e) {
                reason = "closed (" + e + ")";
            }
            closeReason = reason;
            LOG.debug("MCP server \"{}\": closing transport: {}", serverName, reason);
            boolean graceful = answered;
            if (!graceful) {
                LOG.debug("MCP server \"{}\": still in its handshake, terminating it at once", serverName);
            }
            ended = tree.end(this::closeStdin, closeStep, graceful);
        } catch (RuntimeException | Error e) {
            LOG.warn("MCP server \"{}\": ending the process tree failed", serverName, e);
            tree.snapshot();
            tree.killNow();
        } finally {
            // A group with a process still alive after SIGKILL stays with the watchdog, for one more try.
            if (ownSession && ended) {
                Watchdog.unregister(process.pid());
            }
            LiveTransports.remove(this);
            try {
                afterEnd.run();
            } catch (RuntimeException e) {
                LOG.debug("MCP server \"{}\": cleaning up after it failed", serverName, e);
            }
            TransportClosedException closed = new TransportClosedException(reason);
            synchronized (lock) {
                closedBy = closed;
                state = State.CLOSED;
            }
            terminated.complete(null);
            LOG.debug("MCP server \"{}\": transport closed: {}", serverName, reason);
            deliverCloseIfReady();
        }
    }

    /**
     * Waits (bounded) for the deliveries in progress, but the calling thread's own (a listener that
     * closes), so that none is in the listener once the close goes on; none starts after CLOSING.
     */
    private void awaitDeliveriesStopped() {
        int own = deliveringThread() != null ? 1 : 0;
        long deadline = System.nanoTime() + closeStep.toNanos();
        boolean interrupted = false;
        synchronized (deliveriesDone) {
            while (deliveries.get() > own) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    LOG.warn("MCP server \"{}\": the transport listener is still busy with a message after {} ms; "
                            + "closing anyway", serverName, closeStep.toMillis());
                    break;
                }
                try {
                    deliveriesDone.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return the calling thread if it is one of this transport's, inside a delivery to the listener, else null */
    private ReaderThread deliveringThread() {
        return Thread.currentThread() instanceof ReaderThread thread && thread.owner() == this && thread.delivery != 0
                ? thread : null;
    }

    private void deliverCloseIfReady() {
        Listener target = listener;
        TransportClosedException closed = closedBy;
        if (target != null && closed != null && closeDelivered.compareAndSet(false, true)) {
            try {
                target.onClose(closed);
            } catch (RuntimeException e) {
                LOG.warn("MCP server \"{}\": the transport listener failed on close", serverName, e);
            }
        }
    }

    /**
     * A second {@link #close()} returns once the first has finished (bounded), so that "after close
     * the tree is gone" holds for every caller; except on the transport's own threads and inside the
     * close itself, which would wait for themselves.
     */
    private void awaitTermination() {
        Thread current = Thread.currentThread();
        if (current == closer || current == stderrThread || current == stdinThread
                || current instanceof ReaderThread reading && reading.owner() == this) {
            return;
        }
        Duration bound = closeStep.multipliedBy(4).plus(StdioTransports.EXIT_CODE_WAIT).plus(STDERR_END_WAIT)
                .plusSeconds(1);
        try {
            terminated.get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.debug("MCP server \"{}\": close still in progress after {} ms", serverName, bound.toMillis());
        }
    }

    /**
     * The reason when the server went away: the exit code if the process exits soon, else what was
     * observed; plus the stderr tail.
     */
    private String peerEndReason(String observed) {
        boolean exited = Waits.waitFor(process, StdioTransports.EXIT_CODE_WAIT);
        if (exited) {
            // The process is gone, so stderr ends now (unless a descendant holds it): let the last
            // lines, usually the explanation, reach the tail.
            Waits.await(stderrDone, STDERR_END_WAIT);
            return withStderr("process exited with code " + process.exitValue());
        }
        return withStderr(observed);
    }

    private String withStderr(String base) {
        String tail = Secrets.maskText(stderr.tail(StdioTransports.STDERR_REASON_LINES));
        return tail.isEmpty() ? base : base + "; stderr: " + tail;
    }

    /**
     * Fails a send that found the server's stdin closed once the close is done, with its reason: the server's exit
     * code and stderr tail (what the user needs), rather than the pipe's "Stream closed" (the close is bounded).
     */
    private void failWithCloseReason(CompletableFuture<Void> send, IOException error) {
        terminated.whenComplete((v, e) -> send.completeExceptionally(closedException(error)));
    }

    private TransportClosedException closedException(Throwable cause) {
        TransportClosedException closed = closedBy;
        String reason = closed != null ? closed.reason() : closeReason;
        return new TransportClosedException(reason != null ? reason : "transport is closing", cause);
    }

    /**
     * A thread that reads stdout. Its field is its own: while it is in the listener, {@code delivery} is
     * the (odd, so non-zero) value of the transport's {@code delivery} it started; zero otherwise.
     */
    private final class ReaderThread extends Thread {
        long delivery;

        ReaderThread() {
            super("mcp-stdio-" + serverName + "-stdout");
            setDaemon(true);
        }

        StdioTransport owner() {
            return StdioTransport.this;
        }

        @Override
        public void run() {
            readLoop();
        }
    }

    private Thread newThread(String role, Runnable body) {
        Thread thread = new Thread(body, "mcp-stdio-" + serverName + "-" + role);
        thread.setDaemon(true);
        return thread;
    }

    private static void closeQuietly(OutputStream out) {
        try {
            out.close();
        } catch (IOException e) {
            // Broken pipe on the final flush: the server is gone, which is what closing wants.
        }
    }

    @Override
    public String toString() {
        return "StdioTransport[server=" + serverName + ", pid=" + process.pid() + ", state=" + state + "]";
    }
}
