package mcp.server.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * {@link HttpBackend} on Jetty 12.1's core API (no servlets): asynchronous writes, a bounded thread pool, and the
 * connector's idle timeout, which ends a stalled upload and a write to a client that stopped reading. Chosen over the
 * JDK's {@code com.sun.net.httpserver}, which on Java 17 has no read or write timeout, so a stalled client holds a
 * thread for ever (measured: the project's HTTP-CHOICE note of the bench).
 *
 * <p>Writes of a stream are chained: one in flight at a time, the chunks queued meanwhile written together when it
 * completes; whoever queues never waits.
 */
final class JettyHttpBackend implements HttpBackend {

    private final Server server;
    private final ServerConnector connector;

    private JettyHttpBackend(Server server, ServerConnector connector) {
        this.server = server;
        this.connector = connector;
    }

    /**
     * @param address where to listen
     * @param handler what handles every request
     * @param threads the most threads of the pool
     * @param idleTimeoutMillis how long a read or a write may stall before the connection is closed
     * @param name for the threads' names
     * @return the backend, listening
     * @throws IOException if the address cannot be bound
     */
    static JettyHttpBackend start(InetSocketAddress address, Handler handlerOfOurs, int threads, long idleTimeoutMillis,
            String name) throws IOException {
        QueuedThreadPool pool = new QueuedThreadPool(Math.max(8, threads), 4);
        pool.setName("mcp-server-" + name + "-http");
        pool.setDaemon(true);
        Server server = new Server(pool);
        HttpConfiguration config = new HttpConfiguration();
        config.setSendServerVersion(false);
        config.setSendXPoweredBy(false);
        ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(config));
        connector.setHost(address.getHostString());
        connector.setPort(address.getPort());
        connector.setIdleTimeout(idleTimeoutMillis);
        connector.setAcceptQueueSize(256);
        server.addConnector(connector);
        JettyHttpBackend backend = new JettyHttpBackend(server, connector);
        server.setHandler(new org.eclipse.jetty.server.Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                handlerOfOurs.handle(backend.new JettyExchange(request, response, callback));
                return true;
            }
        });
        try {
            server.start();
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("cannot start the HTTP server on " + address + ": " + e.getMessage(), e);
        }
        return backend;
    }

    @Override
    public int port() {
        return connector.getLocalPort();
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            ServerCore.LOG.debug("MCP HTTP server did not stop cleanly: {}", e.toString());
        }
    }

    private final class JettyExchange implements Exchange {
        private final Request request;
        private final Response response;
        private final Callback callback;
        private final AtomicBoolean answered = new AtomicBoolean();
        /** Whether the request's body was read whole; {@code false}: some of it may still be on the wire. */
        private volatile boolean bodyRead;

        JettyExchange(Request request, Response response, Callback callback) {
            this.request = request;
            this.response = response;
            this.callback = callback;
        }

        @Override
        public String method() {
            return request.getMethod();
        }

        @Override
        public String path() {
            return request.getHttpURI().getPath();
        }

        @Override
        public Optional<String> header(String name) {
            return Optional.ofNullable(request.getHeaders().get(name));
        }

        @Override
        public long contentLength() {
            return request.getLength();
        }

        @Override
        public CompletableFuture<byte[]> body(long limit) {
            // Bounded twice: by the limit, and by the idle timeout, which fails a stalled upload's read.
            return Content.Source.asByteArrayAsync(request, (int) Math.min(Integer.MAX_VALUE - 8, limit))
                    .handle((bytes, failure) -> {
                        Throwable cause = failure instanceof java.util.concurrent.CompletionException
                                && failure.getCause() != null ? failure.getCause() : failure;
                        if (cause == null) {
                            bodyRead = true;
                            return bytes;
                        }
                        if (cause instanceof IllegalStateException) {
                            return null; // longer than the limit
                        }
                        throw new java.util.concurrent.CompletionException(cause);
                    });
        }

        @Override
        public void respond(int status, Map<String, String> headers, byte[] body) {
            if (!answered.compareAndSet(false, true)) {
                return;
            }
            response.setStatus(status);
            headers.forEach((key, value) -> response.getHeaders().put(key, value));
            response.getHeaders().put("Content-Length", Long.toString(body.length));
            if (!bodyRead && request.getLength() != 0) {
                // Answered before its body was read whole (a missing token, a bad Origin, a body over the limit): the
                // connection cannot be kept with a body left unread, and saying so keeps a client from sending its
                // next request on it.
                response.getHeaders().put("Connection", "close");
            }
            response.write(true, ByteBuffer.wrap(body), callback);
        }

        @Override
        public Stream stream(int status, Map<String, String> headers, int maxQueued, long maxQueuedBytes) {
            JettyStream stream = new JettyStream(maxQueued, maxQueuedBytes);
            if (!answered.compareAndSet(false, true)) {
                stream.closed.complete(null);
                return stream;
            }
            response.setStatus(status);
            headers.forEach((key, value) -> response.getHeaders().put(key, value));
            return stream;
        }

        /** A streamed response; {@code this} guards the queue and the flags. */
        private final class JettyStream implements Stream {
            private final int maxQueued;
            private final long maxQueuedBytes;
            private long queuedBytes;
            private final Deque<byte[]> queue = new ArrayDeque<>();
            private final CompletableFuture<Void> closed = new CompletableFuture<>();
            private boolean writing;
            private boolean ending;

            JettyStream(int maxQueued, long maxQueuedBytes) {
                this.maxQueued = maxQueued;
                this.maxQueuedBytes = maxQueuedBytes;
            }

            @Override
            public boolean write(byte[] chunk) {
                synchronized (this) {
                    if (ending || closed.isDone()) {
                        return false;
                    }
                    if (queue.size() >= maxQueued || !queue.isEmpty() && queuedBytes + chunk.length > maxQueuedBytes) {
                        // The client reads no further: its stream ends, nobody else waits for it.
                        ServerCore.LOG.debug("MCP HTTP stream closed: its client left {} events unread", queue.size());
                        ending = true;
                        queue.clear();
                        fail(new IOException("the client does not read its event stream"));
                        return false;
                    }
                    queue.add(chunk);
                    queuedBytes += chunk.length;
                    if (writing) {
                        return true;
                    }
                    writing = true;
                }
                flush();
                return true;
            }

            private void flush() {
                ByteBuffer buffer;
                boolean last;
                synchronized (this) {
                    if (queue.isEmpty()) {
                        writing = ending;
                        if (!ending) {
                            return;
                        }
                        buffer = null;
                        last = true;
                    } else {
                        int size = queue.stream().mapToInt(chunk -> chunk.length).sum();
                        buffer = ByteBuffer.allocate(size);
                        queue.forEach(buffer::put);
                        buffer.flip();
                        queue.clear();
                        queuedBytes = 0;
                        last = false;
                    }
                }
                if (last) {
                    response.write(true, null, Callback.from(() -> {
                        closed.complete(null);
                        callback.succeeded();
                    }, this::fail));
                } else {
                    response.write(false, buffer, Callback.from(this::flush, this::fail));
                }
            }

            private void fail(Throwable failure) {
                if (closed.complete(null)) {
                    callback.failed(failure);
                }
            }

            @Override
            public void close() {
                synchronized (this) {
                    if (ending || closed.isDone()) {
                        return;
                    }
                    ending = true;
                    if (writing) {
                        return; // the write in flight ends the stream when the queue is empty
                    }
                    writing = true;
                }
                flush();
            }

            @Override
            public CompletableFuture<Void> closed() {
                return closed;
            }
        }
    }
}
