package mcp.auth.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import mcp.api.McpException;
import mcp.api.McpTimeoutException;
import mcp.api.spi.AuthorizationUi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives the authorization redirect on 127.0.0.1: an HTTP server (the JDK's
 * {@code com.sun.net.httpserver}) on the preferred port when it is free, else on any free port,
 * answering {@value #PATH} only. The redirect URI is {@code http://127.0.0.1:<port>/callback}, or the one a
 * pre-registered client of another tool was registered with ({@code http://localhost:<port>/callback} for
 * Claude Code, {@code .../oauth/callback} for Gemini CLI): its host name and path then, on 127.0.0.1 (on
 * {@code ::1} for {@code [::1]}); a browser that resolves {@code localhost} to {@code ::1} first falls back
 * to 127.0.0.1 when nothing listens there.
 *
 * <p>The first {@code GET} of the path that carries {@code code} or {@code error} completes the wait
 * and is answered with a small page telling the user to close the window; later ones get the same
 * page and change nothing. Any other path is 404, a callback without either parameter 400.
 *
 * <p>One named daemon thread ({@code mcp-http-<server>-callback}) serves requests; {@link #close()}
 * stops the server at once and fails a wait still in progress. Nothing received is logged: the
 * parameters hold the authorization code.
 */
final class LoopbackReceiver implements AuthorizationUi.Receiver {

    /** The path the authorization server redirects to. */
    static final String PATH = "/callback";

    private static final Logger LOG = LoggerFactory.getLogger(LoopbackReceiver.class);

    private final String serverName;
    private final Consumer<URI> show;
    private final HttpServer server;
    private final ExecutorService executor;
    private final URI redirectUri;
    /** The path the redirect comes to. */
    private final String path;
    /** Completed once: by the first callback with {@code code} or {@code error}, or by {@link #close()}. */
    private final CompletableFuture<Map<String, String>> received = new CompletableFuture<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Starts listening.
     *
     * @param serverName the MCP server the authorization is for (thread name, messages)
     * @param preferredPort the port to use when free, or 0 for any
     * @param show what {@link #await} does with the authorization URL before it waits (print it, open
     *     a browser, follow it)
     * @throws McpException when no loopback port can be opened
     */
    LoopbackReceiver(String serverName, int preferredPort, Consumer<URI> show) {
        this(serverName, URI.create("http://127.0.0.1" + (preferredPort > 0 ? ":" + preferredPort : "") + PATH), show);
    }

    /**
     * Starts listening where a redirect URI says.
     *
     * @param serverName the MCP server the authorization is for (thread name, messages)
     * @param redirect an {@code http} URI of {@code 127.0.0.1}, {@code localhost} or {@code [::1]}: its port when
     *     free (any when it names none), its path
     * @param show what {@link #await} does with the authorization URL before it waits
     * @throws McpException when no loopback port can be opened
     * @throws IllegalArgumentException when the URI is not such a URI
     */
    LoopbackReceiver(String serverName, URI redirect, Consumer<URI> show) {
        this.serverName = Objects.requireNonNull(serverName, "serverName");
        this.show = Objects.requireNonNull(show, "show");
        String host = redirect.getHost() == null ? "" : redirect.getHost().toLowerCase(java.util.Locale.ROOT);
        boolean ipv6 = host.equals("[::1]") || host.equals("::1");
        if (!"http".equalsIgnoreCase(redirect.getScheme())
                || !(ipv6 || host.equals("127.0.0.1") || host.equals("localhost"))) {
            throw new IllegalArgumentException("not an http URI of a loopback host: " + redirect.getScheme() + "://"
                    + host);
        }
        int preferredPort = Math.max(redirect.getPort(), 0);
        if (preferredPort > 65535) {
            throw new IllegalArgumentException("port must be 0..65535: " + preferredPort);
        }
        this.path = redirect.getRawPath() == null || redirect.getRawPath().isEmpty() ? "/" : redirect.getPath();
        this.server = bind(serverName, preferredPort, ipv6);
        this.executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "mcp-http-" + serverName + "-callback");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
        try {
            this.redirectUri = new URI("http", null, redirect.getHost(), server.getAddress().getPort(), path, null, null);
        } catch (java.net.URISyntaxException e) {
            server.stop(0);
            executor.shutdownNow();
            throw new IllegalArgumentException("not a valid redirect URI", e);
        }
        LOG.debug("MCP server \"{}\": waiting for the authorization redirect on {}", serverName, redirectUri);
    }

    private static HttpServer bind(String serverName, int preferredPort, boolean ipv6) {
        InetAddress loopback;
        try {
            // A literal: no name lookup, and never ::1 unless the redirect URI names it.
            loopback = ipv6 ? InetAddress.getByAddress("::1", new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})
                    : InetAddress.getByAddress("127.0.0.1", new byte[] {127, 0, 0, 1});
        } catch (IOException e) {
            throw new IllegalStateException("127.0.0.1 is a valid address", e);
        }
        if (preferredPort != 0) {
            try {
                return HttpServer.create(new InetSocketAddress(loopback, preferredPort), 0);
            } catch (BindException e) {
                LOG.debug("MCP server \"{}\": port {} is taken, the redirect goes to another port", serverName,
                        preferredPort);
            } catch (IOException e) {
                LOG.debug("MCP server \"{}\": cannot listen on port {} ({}), the redirect goes to another port",
                        serverName, preferredPort, e.toString());
            }
        }
        try {
            return HttpServer.create(new InetSocketAddress(loopback, 0), 0);
        } catch (IOException e) {
            throw new McpException("Cannot listen on 127.0.0.1 for the authorization redirect of MCP server \""
                    + serverName + "\": " + e.getMessage(), e);
        }
    }

    /** @return the port the server listens on */
    int port() {
        return server.getAddress().getPort();
    }

    @Override
    public URI redirectUri() {
        return redirectUri;
    }

    @Override
    public Map<String, String> await(URI authorizationUrl, Duration timeout) {
        Objects.requireNonNull(authorizationUrl, "authorizationUrl");
        Objects.requireNonNull(timeout, "timeout");
        show.accept(authorizationUrl);
        return awaitRedirect(timeout);
    }

    /**
     * Waits for the callback without showing anything.
     *
     * @param timeout the bound
     * @return the callback's query parameters
     * @throws McpException when nothing came in time, or the receiver was closed
     */
    Map<String, String> awaitRedirect(Duration timeout) {
        try {
            return received.get(Math.max(0, timeout.toMillis()), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new McpTimeoutException("No authorization for MCP server \"" + serverName + "\" came back to "
                    + redirectUri + " within " + timeout.toSeconds() + " s", timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new McpException("Interrupted while waiting for the authorization of MCP server \"" + serverName
                    + "\"", e);
        } catch (ExecutionException | CancellationException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof McpException mcp) {
                throw mcp;
            }
            throw new McpException("Waiting for the authorization of MCP server \"" + serverName + "\" failed: "
                    + cause.getMessage(), cause);
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        try {
            URI uri = exchange.getRequestURI();
            if (!path.equals(uri.getPath())) {
                answer(exchange, 404, "Not found.");
                return;
            }
            if (!"GET".equals(exchange.getRequestMethod())) {
                exchange.getResponseHeaders().set("Allow", "GET");
                answer(exchange, 405, "Only GET is accepted here.");
                return;
            }
            Map<String, String> parameters = queryParameters(uri.getRawQuery());
            if (!parameters.containsKey("code") && !parameters.containsKey("error")) {
                answer(exchange, 400, "This is not an authorization response (no code, no error).");
                return;
            }
            boolean first = received.complete(parameters);
            if (first) {
                LOG.debug("MCP server \"{}\": the authorization redirect arrived", serverName);
            }
            String error = parameters.get("error");
            answer(exchange, 200, error == null
                    ? "mcp-host received the authorization for " + serverName + ". You can close this window."
                    : "The authorization for " + serverName + " was not granted (" + error
                            + "). You can close this window.");
        } finally {
            exchange.close();
        }
    }

    private static void answer(HttpExchange exchange, int status, String message) throws IOException {
        byte[] page = ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>mcp-host</title></head>"
                + "<body><p>" + escape(message) + "</p></body></html>\n").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(status, page.length);
        try (OutputStream body = exchange.getResponseBody()) {
            body.write(page);
        }
    }

    private static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '&' -> escaped.append("&amp;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&#39;");
                default -> escaped.append(c);
            }
        }
        return escaped.toString();
    }

    /**
     * @param rawQuery a URI's raw query, or {@code null}
     * @return its parameters, decoded (UTF-8); the first of a repeated name wins
     */
    static Map<String, String> queryParameters(String rawQuery) {
        Map<String, String> parameters = new LinkedHashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return parameters;
        }
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int equals = pair.indexOf('=');
            String name = decode(equals < 0 ? pair : pair.substring(0, equals));
            String value = equals < 0 ? "" : decode(pair.substring(equals + 1));
            parameters.putIfAbsent(name, value);
        }
        return parameters;
    }

    private static String decode(String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            // A malformed escape: keep the text as sent rather than fail the whole response.
            return text;
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        received.completeExceptionally(new McpException("The authorization receiver of MCP server \"" + serverName
                + "\" was closed"));
        server.stop(0);
        executor.shutdownNow();
    }
}
