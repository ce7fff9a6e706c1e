package mcp.server.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link HttpBackend} on the JDK's {@code com.sun.net.httpserver}. Each exchange is served by one thread of a bounded
 * pool, which does all of its I/O: whoever answers (a worker, the timer) only queues, and the exchange's thread writes,
 * so a client that reads slowly holds its own thread and nobody else's.
 */
final class JdkHttpBackend implements HttpBackend {

    private final HttpServer server;
    private final ThreadPoolExecutor executor;
    private volatile boolean closed;

    private JdkHttpBackend(HttpServer server, ThreadPoolExecutor executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * @param address where to listen
     * @param handler what handles every request
     * @param threads the most exchanges served at once (more wait for a thread)
     * @param name for the threads' names
     * @return the backend, listening
     * @throws IOException if the address cannot be bound
     */
    static JdkHttpBackend start(InetSocketAddress address, Handler handler, int threads, String name)
            throws IOException {
        HttpServer server = HttpServer.create(address, 256);
        AtomicInteger count = new AtomicInteger();
        ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), runnable -> {
                    Thread thread = new Thread(runnable, "mcp-server-" + name + "-http-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        executor.allowCoreThreadTimeOut(true);
        server.setExecutor(executor);
        JdkHttpBackend backend = new JdkHttpBackend(server, executor);
        server.createContext("/", exchange -> backend.serve(exchange, handler));
        server.start();
        return backend;
    }

    private void serve(HttpExchange http, Handler handler) {
        JdkExchange exchange = new JdkExchange(http);
        try {
            handler.handle(exchange);
            exchange.run();
        } catch (RuntimeException e) {
            ServerCore.LOG.debug("MCP HTTP exchange failed", e);
        } finally {
            http.close();
        }
    }

    @Override
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        closed = true;
        server.stop(0);
        executor.shutdownNow();
    }

    /** An exchange: what its answerers queue, its own thread does. */
    private final class JdkExchange implements Exchange {
        private final HttpExchange http;
        /** The response: a complete one, or the start of a stream; set once. */
        private final BlockingQueue<Object> start = new ArrayBlockingQueue<>(1);

        JdkExchange(HttpExchange http) {
            this.http = http;
        }

        @Override
        public String method() {
            return http.getRequestMethod();
        }

        @Override
        public String path() {
            return http.getRequestURI().getPath();
        }

        @Override
        public Optional<String> header(String name) {
            return Optional.ofNullable(http.getRequestHeaders().getFirst(name));
        }

        @Override
        public long contentLength() {
            String length = http.getRequestHeaders().getFirst("Content-Length");
            try {
                return length == null ? -1 : Long.parseLong(length.trim());
            } catch (NumberFormatException e) {
                return -1;
            }
        }

        @Override
        public byte[] body(long limit) throws IOException {
            try (InputStream in = http.getRequestBody()) {
                byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, limit + 1));
                return bytes.length > limit ? null : bytes;
            }
        }

        @Override
        public void respond(int status, Map<String, String> headers, byte[] body) {
            start.offer(new Complete(status, headers, body));
        }

        @Override
        public Stream stream(int status, Map<String, String> headers, int maxQueued) {
            JdkStream stream = new JdkStream(status, headers, maxQueued);
            if (!start.offer(stream)) {
                stream.closed.complete(null);
            }
            return stream;
        }

        /** Waits for the answer and writes it: the thread of this exchange, until it ends. */
        void run() {
            Object answer = null;
            try {
                while (answer == null && !closed) {
                    answer = start.poll(1, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                if (answer instanceof Complete complete) {
                    complete.headers().forEach((key, value) -> http.getResponseHeaders().set(key, value));
                    http.sendResponseHeaders(complete.status(), complete.body().length == 0 ? -1 : complete.body().length);
                    if (complete.body().length > 0) {
                        try (OutputStream out = http.getResponseBody()) {
                            out.write(complete.body());
                        }
                    }
                } else if (answer instanceof JdkStream stream) {
                    stream.run();
                }
            } catch (IOException e) {
                ServerCore.LOG.debug("MCP HTTP response failed: {}", e.toString());
                if (answer instanceof JdkStream stream) {
                    stream.closed.complete(null);
                }
            }
        }

        private record Complete(int status, Map<String, String> headers, byte[] body) {
        }

        private final class JdkStream implements Stream {
            private final int status;
            private final Map<String, String> headers;
            private final BlockingQueue<byte[]> queue;
            private final CompletableFuture<Void> closed = new CompletableFuture<>();
            private volatile boolean ending;

            JdkStream(int status, Map<String, String> headers, int maxQueued) {
                this.status = status;
                this.headers = headers;
                this.queue = new ArrayBlockingQueue<>(maxQueued);
            }

            @Override
            public boolean write(byte[] chunk) {
                if (ending || closed.isDone()) {
                    return false;
                }
                if (!queue.offer(chunk)) {
                    // The client reads no further: its stream ends, nobody else waits for it.
                    ServerCore.LOG.debug("MCP HTTP stream closed: its client left {} events unread", queue.size());
                    ending = true;
                    closed.complete(null);
                    return false;
                }
                return true;
            }

            @Override
            public void close() {
                ending = true;
            }

            @Override
            public CompletableFuture<Void> closed() {
                return closed;
            }

            void run() throws IOException {
                headers.forEach((key, value) -> http.getResponseHeaders().set(key, value));
                http.sendResponseHeaders(status, 0);
                try (OutputStream out = http.getResponseBody()) {
                    while (!closed.isDone() && !JdkHttpBackend.this.closed) {
                        byte[] chunk = queue.poll(250, TimeUnit.MILLISECONDS);
                        if (chunk == null) {
                            if (ending) {
                                break;
                            }
                            continue;
                        }
                        out.write(chunk);
                        for (byte[] more = queue.poll(); more != null; more = queue.poll()) {
                            out.write(more);
                        }
                        out.flush();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    closed.complete(null);
                }
            }
        }
    }
}
