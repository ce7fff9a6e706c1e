package mcp.bench.http.jdk;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * The minimal Streamable HTTP endpoint on {@code com.sun.net.httpserver}, as a gateway would write it on Java 17:
 * a fixed pool of handler threads, {@code TCP_NODELAY} on, the request body read with a bound.
 *
 * <ul>
 *   <li>{@code POST /mcp}: a JSON-RPC request, answered {@code application/json}, or with {@code ?reply=sse} as a
 *       {@code text/event-stream} of one {@code message} event. Methods {@code bench/push} (params {@code stream},
 *       {@code seq}: one event onto that GET stream, written before the reply) and {@code bench/flood} (params
 *       {@code stream}, {@code bytes}, {@code event}: a thread of its own writes that many bytes of events of that
 *       size onto the stream, as fast as the stream takes them); anything else gets a result of one text item.
 *       A body over {@code --max-body} bytes is answered 413.</li>
 *   <li>{@code GET /mcp?stream=NAME}: a long-lived SSE stream; the handler returns and the exchange stays open for
 *       the pushes, which other threads write.</li>
 *   <li>{@code GET /stats}: the open streams and each flood's progress, as JSON.</li>
 * </ul>
 *
 * <p>Command line: {@code [--port P] [--threads N] [--idle-timeout-ms MS] [--max-body BYTES] [--nodelay true|false]
 * [--write-timeout-ms MS]} (the last: an app-level watchdog that closes a stream whose write is blocked that long);
 * prints {@code READY <port>} once it listens on 127.0.0.1, and runs until killed.
 */
public final class JdkServer {

    private final Map<String, Stream> streams = new ConcurrentHashMap<>();
    private final Map<String, Wire.Flood> floods = new ConcurrentHashMap<>();
    private final int maxBody;

    private JdkServer(int maxBody) {
        this.maxBody = maxBody;
    }

    /**
     * Starts the server; see the class comment.
     *
     * @param args the command line
     * @throws IOException if it cannot listen
     */
    public static void main(String[] args) throws IOException {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i], args[i + 1]);
        }
        int threads = Integer.parseInt(options.getOrDefault("--threads", "32"));
        long idleMs = Long.parseLong(options.getOrDefault("--idle-timeout-ms", "30000"));
        // Read once, when the server classes initialize: an idle keep-alive connection is closed after this many
        // seconds. Nagle's algorithm is on by default here; every gateway would turn it off.
        System.setProperty("sun.net.httpserver.idleInterval", String.valueOf(Math.max(1, idleMs / 1000)));
        System.setProperty("sun.net.httpserver.nodelay", options.getOrDefault("--nodelay", "true"));
        JdkServer app = new JdkServer(Integer.parseInt(options.getOrDefault("--max-body", String.valueOf(Wire.DEFAULT_MAX_BODY))));
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"),
                Integer.parseInt(options.getOrDefault("--port", "0"))), 1024);
        AtomicInteger count = new AtomicInteger();
        server.setExecutor(new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread thread = new Thread(r, "jdk-http-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }));
        long writeTimeoutMs = Long.parseLong(options.getOrDefault("--write-timeout-ms", "0"));
        if (writeTimeoutMs > 0) {
            app.watchWrites(writeTimeoutMs);
        }
        server.createContext("/mcp", app::mcp);
        server.createContext("/stats", app::stats);
        server.start();
        System.out.println("READY " + server.getAddress().getPort());
        System.out.flush();
    }

    /**
     * The library has no write timeout: a thread of the app's own closes the exchange of a stream whose write has
     * been blocked longer than the bound, which fails the blocked write.
     */
    private void watchWrites(long timeoutMs) {
        Thread watchdog = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(Math.max(50, timeoutMs / 10));
                } catch (InterruptedException e) {
                    return;
                }
                long now = System.nanoTime();
                for (Stream stream : streams.values()) {
                    long since = stream.writingSince;
                    if (since != 0 && now - since > timeoutMs * 1_000_000) {
                        stream.close();
                    }
                }
            }
        }, "jdk-http-write-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    private void mcp(HttpExchange exchange) {
        try {
            switch (exchange.getRequestMethod()) {
                case "POST" -> post(exchange);
                case "GET" -> get(exchange);
                default -> {
                    exchange.sendResponseHeaders(405, -1);
                    exchange.close();
                }
            }
        } catch (IOException | RuntimeException e) {
            exchange.close();
        }
    }

    private void post(HttpExchange exchange) throws IOException {
        String declared = exchange.getRequestHeaders().getFirst("Content-Length");
        if (declared != null && Long.parseLong(declared) > maxBody) {
            tooLarge(exchange);
            return;
        }
        // The library has no body limit of its own: read at most one byte past ours.
        byte[] body = exchange.getRequestBody().readNBytes(maxBody + 1);
        if (body.length > maxBody) {
            tooLarge(exchange);
            return;
        }
        String request = new String(body, StandardCharsets.UTF_8);
        String method = Wire.field(request, "method");
        byte[] reply;
        if ("bench/push".equals(method)) {
            Stream stream = streams.get(String.valueOf(Wire.field(request, "stream")));
            boolean pushed = stream != null && stream.tryWrite(Wire.pushEvent(Wire.field(request, "seq")));
            reply = Wire.reply(request, pushed ? "pushed" : "no stream");
        } else if ("bench/flood".equals(method)) {
            reply = Wire.reply(request, flood(request) ? "flooding" : "no stream");
        } else {
            reply = Wire.reply(request, "ok");
        }
        if ("reply=sse".equals(exchange.getRequestURI().getRawQuery())) {
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.getResponseHeaders().set("Cache-Control", "no-store");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(Wire.event(reply));
            }
        } else {
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, reply.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(reply);
            }
        }
    }

    private static void tooLarge(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().set("Connection", "close");
        exchange.sendResponseHeaders(413, -1);
        exchange.close();
    }

    private void get(HttpExchange exchange) throws IOException {
        String query = exchange.getRequestURI().getRawQuery();
        String name = query != null && query.startsWith("stream=") ? query.substring(7) : "default";
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(200, 0);
        Stream stream = new Stream(exchange, exchange.getResponseBody());
        stream.write(": open\n\n".getBytes(StandardCharsets.UTF_8));
        Stream old = streams.put(name, stream);
        if (old != null) {
            old.close();
        }
        // The handler returns; the exchange stays open until a write fails or the stream is replaced.
    }

    private boolean flood(String request) {
        String name = String.valueOf(Wire.field(request, "stream"));
        Stream stream = streams.get(name);
        if (stream == null) {
            return false;
        }
        Wire.Flood flood = new Wire.Flood(Long.parseLong(Wire.field(request, "bytes")));
        byte[] event = Wire.floodEvent(Integer.parseInt(Wire.field(request, "event")));
        floods.put(name, flood);
        Thread thread = new Thread(() -> {
            Throwable failure = null;
            try {
                while (flood.written.get() < flood.target) {
                    stream.write(event);
                    flood.wrote(event.length);
                }
            } catch (IOException | RuntimeException e) {
                failure = e;
                streams.remove(name, stream);
                stream.close();
            }
            flood.ended(failure);
        }, "flood-" + name);
        thread.setDaemon(true);
        thread.start();
        return true;
    }

    private void stats(HttpExchange exchange) {
        try {
            String floodJson = floods.entrySet().stream().map(e -> "\"" + e.getKey() + "\":" + e.getValue().json())
                    .collect(Collectors.joining(",", "{", "}"));
            byte[] body = ("{\"streams\":" + streams.size() + ",\"floods\":" + floodJson + "}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        } catch (IOException e) {
            exchange.close();
        }
    }

    /** One open GET stream: its writes are one at a time, each flushed so that the event leaves at once. */
    private static final class Stream {
        private final HttpExchange exchange;
        private final OutputStream body;

        Stream(HttpExchange exchange, OutputStream body) {
            this.exchange = exchange;
            this.body = body;
        }

        /** When the write in progress began (System.nanoTime), 0 when none is. */
        volatile long writingSince;

        synchronized void write(byte[] bytes) throws IOException {
            writingSince = System.nanoTime();
            try {
                body.write(bytes);
                body.flush();
            } finally {
                writingSince = 0;
            }
        }

        boolean tryWrite(byte[] bytes) {
            try {
                write(bytes);
                return true;
            } catch (IOException e) {
                close();
                return false;
            }
        }

        void close() {
            exchange.close();
        }
    }
}
