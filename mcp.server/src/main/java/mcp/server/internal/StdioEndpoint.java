package mcp.server.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mcp.api.McpProtocolException;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcCodecException;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcResponse;
import mcp.api.jsonrpc.RequestId;
import mcp.protocol.RequestEnvelope;
import mcp.server.ServerEndpoint;

/**
 * The server over stdio: one client, newline-delimited JSON-RPC on the given streams. The era is the client's first
 * word: {@code initialize} starts a session of the handshake era for the connection; a request with the stateless
 * envelope is served statelessly (and so is every such request until an {@code initialize}).
 *
 * <p>Threads: one reader ({@code mcp-server-<name>-stdin}) reads and dispatches; answers are written by whoever has
 * them, one whole line at a time under the output's lock. A line longer than {@code ServerLimits.maxBodyBytes} is
 * skipped and answered with an error; the connection goes on.
 */
public final class StdioEndpoint implements ServerEndpoint {

    private final ServerCore core;
    private final InputStream in;
    private final OutputStream out;
    private final Map<RequestId, Runnable> cancellers = new ConcurrentHashMap<>();
    /** The client's requests not answered yet: their answers are still written after the client's input ended. */
    private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
    /** How long the answers of requests in flight are waited for once the client's input ended. */
    private static final Duration DRAIN = Duration.ofSeconds(10);
    private final CompletableFuture<Void> gone = new CompletableFuture<>();
    private final CountDownLatch ended = new CountDownLatch(1);
    private volatile HandshakeSession session;
    /** What the handler knows a stateless client of this connection by: the connection is the client. */
    private final String connection = ServerCore.newClientId();
    private final Thread reader;

    /** Messages that belong to no request: the connection's output, for as long as it is open. */
    private final Channel standalone = new Channel() {
        @Override
        public boolean send(JsonRpcMessage message) {
            return write(message);
        }

        @Override
        public boolean carriesRequests() {
            return true;
        }

        @Override
        public void finish(JsonRpcResponse response, int httpStatus) {
            write(response);
        }

        @Override
        public void abandon() {
        }

        @Override
        public CompletableFuture<Void> gone() {
            return gone;
        }
    };

    /**
     * @param core the server
     * @param in what the client writes
     * @param out what the client reads
     */
    public StdioEndpoint(ServerCore core, InputStream in, OutputStream out) {
        this.core = core;
        this.in = in;
        this.out = out;
        this.reader = new Thread(this::readLoop, "mcp-server-" + core.name + "-stdin");
        reader.setDaemon(true);
    }

    /** Starts reading. */
    public void start() {
        reader.start();
    }

    private void readLoop() {
        try {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            boolean skipping = false;
            byte[] buffer = new byte[64 * 1024];
            int n;
            while ((n = in.read(buffer)) >= 0) {
                int start = 0;
                for (int i = 0; i < n; i++) {
                    if (buffer[i] != '\n') {
                        continue;
                    }
                    if (!skipping) {
                        if (line.size() + i - start > core.limits.maxBodyBytes()) {
                            tooLong();
                        } else {
                            line.write(buffer, start, i - start);
                            dispatch(line.toByteArray());
                        }
                    }
                    line.reset();
                    skipping = false;
                    start = i + 1;
                }
                if (!skipping) {
                    line.write(buffer, start, n - start);
                    if (line.size() > core.limits.maxBodyBytes()) {
                        skipping = true;
                        line.reset();
                        tooLong();
                    }
                }
            }
        } catch (IOException e) {
            ServerCore.LOG.debug("MCP server \"{}\": stdin failed: {}", core.name, e.toString());
        } finally {
            drain();
            close();
        }
    }

    /**
     * The client ended its input (the stdio way to end a server): the answers of its requests in flight still go
     * out, for at most {@link #DRAIN}; then the rest are cancelled.
     */
    private void drain() {
        long deadline = System.nanoTime() + DRAIN.toNanos();
        while (inFlight.get() > 0 && !gone.isDone() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void tooLong() {
        write(new JsonRpcError(null, JsonRpcError.INVALID_REQUEST, "Invalid request: a message is longer than "
                + core.limits.maxBodyBytes() + " bytes", null));
    }

    private void dispatch(byte[] bytes) {
        int length = bytes.length;
        while (length > 0 && (bytes[length - 1] == '\r' || bytes[length - 1] == ' ' || bytes[length - 1] == '\t')) {
            length--;
        }
        if (length == 0) {
            return;
        }
        JsonRpcMessage message;
        try {
            message = JsonRpcCodec.standard().decode(bytes, 0, length);
        } catch (JsonRpcCodecException e) {
            boolean parse = e.getMessage().startsWith("Invalid JSON");
            write(new JsonRpcError(null, parse ? JsonRpcError.PARSE_ERROR : JsonRpcError.INVALID_REQUEST,
                    (parse ? "Parse error: " : "Invalid request: ") + e.getMessage(), null));
            return;
        }
        HandshakeSession current = session;
        if (message instanceof JsonRpcRequest request && core.draining() && ServerCore.isNew(request)) {
            // Shutting down: what is in flight finishes (answers and notifications still come in), nothing new starts.
            McpProtocolException refusal = ServerCore.shuttingDown();
            write(new JsonRpcError(request.id(), refusal.code(), refusal.serverMessage(), null));
        } else if (message instanceof JsonRpcRequest request) {
            if (current == null && ServerCore.isHandshake(request)) {
                core.initialize(null, request, channel(request.id()), started -> {
                    started.standalone = standalone;
                    session = started;
                });
            } else if (current != null) {
                core.handshakeRequest(current, request, channel(request.id()));
            } else {
                RequestEnvelope envelope;
                try {
                    envelope = RequestEnvelope.read(request.params());
                } catch (McpProtocolException e) {
                    write(new JsonRpcError(request.id(), e.code(), e.serverMessage(), e.data().orElse(null)));
                    return;
                }
                core.statelessRequest(request, envelope, channel(request.id()), cancellers, this, connection);
            }
        } else if (message instanceof JsonRpcNotification notification) {
            if (current != null) {
                core.handshakeNotification(current, notification);
            } else {
                core.statelessNotification(notification, cancellers);
            }
        } else if (current != null) {
            current.onResponse((JsonRpcResponse) message);
        }
    }

    /** The channel of one request: the connection's output, until the request is answered. */
    private Channel channel(RequestId id) {
        inFlight.incrementAndGet();
        return new Channel() {
            private final java.util.concurrent.atomic.AtomicBoolean finished =
                    new java.util.concurrent.atomic.AtomicBoolean();

            @Override
            public boolean send(JsonRpcMessage message) {
                return !finished.get() && write(message);
            }

            @Override
            public boolean carriesRequests() {
                return true;
            }

            @Override
            public void finish(JsonRpcResponse response, int httpStatus) {
                if (finished.compareAndSet(false, true)) {
                    cancellers.remove(id);
                    write(response);
                    inFlight.decrementAndGet();
                }
            }

            @Override
            public void abandon() {
                if (finished.compareAndSet(false, true)) {
                    cancellers.remove(id);
                    inFlight.decrementAndGet();
                }
            }

            @Override
            public CompletableFuture<Void> gone() {
                return gone;
            }
        };
    }

    private boolean write(JsonRpcMessage message) {
        if (gone.isDone()) {
            return false;
        }
        byte[] bytes = JsonRpcCodec.standard().encode(message);
        synchronized (out) {
            try {
                out.write(bytes);
                out.write('\n');
                out.flush();
                return true;
            } catch (IOException e) {
                ServerCore.LOG.debug("MCP server \"{}\": stdout failed: {}", core.name, e.toString());
            }
        }
        close();
        return false;
    }

    @Override
    public boolean awaitClosed(Duration timeout) throws InterruptedException {
        return ended.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        if (!gone.complete(null)) {
            return;
        }
        HandshakeSession current = session;
        if (current != null) {
            core.endSession(current);
        }
        cancellers.values().forEach(Runnable::run);
        cancellers.clear();
        // A stateless client's tasks are this connection's: nobody else can reach them once it is gone.
        core.tasks.dropOwner(this);
        core.clientEnded(connection);
        try {
            in.close();
        } catch (IOException e) {
            ServerCore.LOG.debug("MCP server \"{}\": closing stdin failed: {}", core.name, e.toString());
        }
        ended.countDown();
    }
}
