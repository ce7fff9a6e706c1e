package mcp.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP front on a free port of 127.0.0.1 that lets through only requests with {@code Authorization: Bearer TOKEN}
 * (401 with {@code WWW-Authenticate: Bearer} otherwise, as a token-guarded MCP endpoint answers) and streams the others
 * to an upstream MCP endpoint, without the token: what a client must do to reach a gateway that requires one. It
 * keeps every refused request, so a test can tell that a client sent its header on every request (a refused GET
 * stream or DELETE may not fail the client).
 */
final class TokenFront implements AutoCloseable {

    /** Not forwarded either way: hop-by-hop headers, those the JDK's client sets itself, and the client's token. */
    private static final Set<String> NOT_FORWARDED = Set.of("authorization", "connection", "content-length", "expect",
            "host", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade", "proxy-connection", "date");

    private final URI upstream;
    private final String token;
    private final HttpServer server;
    private final ExecutorService threads;
    private final HttpClient client;
    private final AtomicInteger forwarded = new AtomicInteger();
    private final List<String> refused = new CopyOnWriteArrayList<>();

    /** Listens on a free port of 127.0.0.1, path {@code /mcp}, in front of {@code upstream}. */
    TokenFront(URI upstream, String token) throws IOException {
        this.upstream = upstream;
        this.token = token;
        AtomicInteger count = new AtomicInteger();
        // Streams stay open as long as a client reads them: a thread each.
        threads = Executors.newCachedThreadPool(r -> {
            Thread thread = new Thread(r, "token-front-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10))
                .executor(threads).build();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.setExecutor(threads);
        server.createContext("/mcp", this::handle);
        server.start();
    }

    /** @return the endpoint clients use */
    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/mcp");
    }

    /** @return the header a client must send */
    Map<String, String> header() {
        return Map.of("Authorization", "Bearer " + token);
    }

    /** @return the requests let through so far */
    int forwarded() {
        return forwarded.get();
    }

    /** @return each refused request so far: method, path and user agent */
    List<String> refused() {
        return List.copyOf(refused);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try {
            forward(exchange);
        } finally {
            exchange.close();
        }
    }

    private void forward(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        if (!("Bearer " + token).equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
            refused.add(method + " " + exchange.getRequestURI() + " "
                    + exchange.getRequestHeaders().getFirst("User-Agent"));
            exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            byte[] body = "{\"error\":\"invalid_token\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(401, body.length);
            exchange.getResponseBody().write(body);
            return;
        }
        forwarded.incrementAndGet();
        byte[] body = exchange.getRequestBody().readAllBytes();
        HttpRequest.Builder request = HttpRequest.newBuilder(upstream.resolve(exchange.getRequestURI().getRawPath()
                + (exchange.getRequestURI().getRawQuery() == null ? "" : "?" + exchange.getRequestURI().getRawQuery())))
                .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        exchange.getRequestHeaders().forEach((name, values) -> {
            if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(value -> request.header(name, value));
            }
        });
        HttpResponse<InputStream> response;
        try {
            response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            exchange.sendResponseHeaders(502, -1);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exchange.sendResponseHeaders(502, -1);
            return;
        }
        response.headers().map().forEach((name, values) -> {
            if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
                exchange.getResponseHeaders().put(name, values);
            }
        });
        // Chunked, flushed as it comes: an SSE stream reaches the client event by event.
        try (InputStream in = response.body(); OutputStream out = exchange.getResponseBody()) {
            boolean empty = response.statusCode() == 204 || response.statusCode() == 304;
            exchange.sendResponseHeaders(response.statusCode(), empty ? -1 : 0);
            if (!empty) {
                byte[] buffer = new byte[8192];
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
