package mcp.transport.http.internal;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.api.McpJson;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcMessage;
import tools.jackson.databind.JsonNode;

/**
 * An HTTP server for tests, on the JDK's {@code com.sun.net.httpserver}, bound to 127.0.0.1 on a free
 * port. Every request is recorded; a {@link Handler} answers it (and may misbehave: hold the answer,
 * drip it, drop a stream). Handlers run on a pool of their own, so one that blocks holds up no other.
 */
final class TestHttpServer implements AutoCloseable {

    /** Answers one request. */
    @FunctionalInterface
    interface Handler {
        void handle(Call call) throws Exception;
    }

    /** One request as received. */
    record Recorded(String method, String path, String query, Headers headers, byte[] body, long nanos) {
        String header(String name) {
            return headers.getFirst(name);
        }

        JsonNode json() {
            return McpJson.mapper().readTree(body);
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final HttpServer server;
    private final ExecutorService pool;
    private final CountDownLatch stopping = new CountDownLatch(1);
    final BlockingQueue<Recorded> requests = new LinkedBlockingQueue<>();
    final List<Recorded> all = java.util.Collections.synchronizedList(new ArrayList<>());
    private volatile Handler handler;

    private TestHttpServer(Handler handler) throws IOException {
        this.handler = handler;
        AtomicInteger threads = new AtomicInteger();
        this.pool = Executors.newCachedThreadPool(r -> {
            Thread thread = new Thread(r, "test-http-server-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.setExecutor(pool);
        server.createContext("/", this::dispatch);
        server.start();
    }

    static TestHttpServer start(Handler handler) throws IOException {
        return new TestHttpServer(handler);
    }

    void handler(Handler value) {
        this.handler = value;
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    String url(String path) {
        return uri(path).toString();
    }

    private void dispatch(HttpExchange exchange) throws IOException {
        byte[] body = exchange.getRequestBody().readAllBytes();
        Recorded recorded = new Recorded(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                exchange.getRequestURI().getRawQuery(), exchange.getRequestHeaders(), body, System.nanoTime());
        requests.add(recorded);
        all.add(recorded);
        Call call = new Call(exchange, recorded);
        try {
            handler.handle(call);
        } catch (Exception e) {
            // A test server whose client went away: nothing to do.
        } finally {
            exchange.close();
        }
    }

    /** @return the next request, waited for at most {@code timeout} */
    Recorded next(Duration timeout) throws InterruptedException {
        Recorded recorded = requests.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (recorded == null) {
            throw new AssertionError("no request within " + timeout.toMillis() + " ms");
        }
        return recorded;
    }

    /** @return the next request of this method, skipping others */
    Recorded next(String method, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            Recorded recorded = requests.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
            if (recorded == null) {
                throw new AssertionError("no " + method + " request within " + timeout.toMillis() + " ms");
            }
            if (recorded.method().equals(method)) {
                return recorded;
            }
        }
    }

    /** Blocks a handler until the server stops (a server that never answers). */
    void hang() throws InterruptedException {
        stopping.await(60, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        stopping.countDown();
        server.stop(0);
        pool.shutdownNow();
    }

    /** One request being answered. */
    static final class Call {
        final HttpExchange exchange;
        final Recorded request;

        Call(HttpExchange exchange, Recorded request) {
            this.exchange = exchange;
            this.request = request;
        }

        String method() {
            return request.method();
        }

        String header(String name) {
            return request.header(name);
        }

        /** @return the JSON-RPC message of a POST */
        JsonRpcMessage message() {
            return JsonRpcCodec.standard().decode(request.body());
        }

        JsonNode json() {
            return request.json();
        }

        void json(int status, String json, Map<String, String> headers) throws IOException {
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            headers.forEach(exchange.getResponseHeaders()::set);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }

        void json(String json) throws IOException {
            json(200, json, Map.of());
        }

        void status(int status, String body, Map<String, String> headers) throws IOException {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            headers.forEach(exchange.getResponseHeaders()::set);
            if (!headers.containsKey("Content-Type") && bytes.length > 0) {
                exchange.getResponseHeaders().set("Content-Type", "text/plain");
            }
            exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
            if (bytes.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        }

        void status(int status) throws IOException {
            status(status, "", Map.of());
        }

        /** Starts an SSE response; the stream ends when the handler returns (or {@link Sse#close()}). */
        Sse sse(Map<String, String> headers) throws IOException {
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.getResponseHeaders().set("Cache-Control", "no-cache");
            headers.forEach(exchange.getResponseHeaders()::set);
            exchange.sendResponseHeaders(200, 0);
            return new Sse(exchange.getResponseBody());
        }
    }

    /** Writes server-sent events. */
    static final class Sse {
        private final OutputStream out;

        Sse(OutputStream out) {
            this.out = out;
        }

        Sse raw(String text) throws IOException {
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.flush();
            return this;
        }

        Sse event(String id, String data) throws IOException {
            StringBuilder event = new StringBuilder("event: message\n");
            if (id != null) {
                event.append("id: ").append(id).append('\n');
            }
            event.append("data: ").append(data).append("\n\n");
            return raw(event.toString());
        }

        Sse event(String data) throws IOException {
            return event(null, data);
        }

        Sse priming(String id, Long retryMillis) throws IOException {
            return raw("id: " + id + "\n" + (retryMillis == null ? "" : "retry: " + retryMillis + "\n") + "data: \n\n");
        }

        void close() throws IOException {
            out.close();
        }
    }
}
