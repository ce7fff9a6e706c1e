package mcp.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import mcp.api.internal.SystemBrowser;
import mcp.api.McpException;
import mcp.api.McpTimeoutException;
import mcp.api.spi.AuthorizationUi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code browser} and {@code headless} authorization UIs and the loopback receiver, against a stub
 * authorization endpoint on the JDK's HTTP server (127.0.0.1).
 */
class AuthorizationUiTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final List<AutoCloseable> closeLater = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable closeable : closeLater) {
            closeable.close();
        }
    }

    // ---- headless

    @Test
    void headlessTakesTheParametersFromTheRedirect() throws IOException {
        Stub stub = stub(exchange -> redirect(exchange, param(exchange, "redirect_uri") + "?code=c%2F1&state="
                + param(exchange, "state")));
        AuthorizationUi.Receiver receiver = open(new HeadlessAuthorizationUi(), 0);
        URI redirectUri = receiver.redirectUri();
        assertTrue(redirectUri.toString().matches("http://127\\.0\\.0\\.1:\\d+/callback"), redirectUri.toString());

        Map<String, String> parameters = receiver.await(stub.authorize(redirectUri, "s-42"), WAIT);

        assertEquals(Map.of("code", "c/1", "state", "s-42"), parameters);
        assertEquals(List.of("/authorize"), stub.paths);
    }

    @Test
    void headlessFollowsARedirectChain() throws IOException {
        Stub stub = stub(exchange -> switch (exchange.getRequestURI().getPath()) {
            case "/authorize" -> redirect(exchange, "/login?next=" + URLEncoder.encode(param(exchange, "redirect_uri"),
                    StandardCharsets.UTF_8));
            case "/login" -> redirect(exchange, "http://127.0.0.1:" + exchange.getLocalAddress().getPort()
                    + "/consent?next=" + URLEncoder.encode(param(exchange, "next"), StandardCharsets.UTF_8));
            case "/consent" -> redirect(exchange, param(exchange, "next") + "?code=abc");
            default -> status(exchange, 404, "no");
        });
        AuthorizationUi.Receiver receiver = open(new HeadlessAuthorizationUi(), 0);

        Map<String, String> parameters = receiver.await(stub.authorize(receiver.redirectUri(), "s"), WAIT);

        assertEquals(Map.of("code", "abc"), parameters);
        assertEquals(List.of("/authorize", "/login", "/consent"), stub.paths);
    }

    @Test
    void headlessGivesUpAfterFiveRedirects() throws IOException {
        Stub stub = stub(exchange -> redirect(exchange, "/loop"));
        AuthorizationUi.Receiver receiver = open(new HeadlessAuthorizationUi(), 0);

        McpException error = assertThrows(McpException.class,
                () -> receiver.await(stub.authorize(receiver.redirectUri(), "s"), WAIT));

        assertTrue(error.getMessage().contains("more than 5 times"), error.getMessage());
        assertEquals(1 + HeadlessAuthorizationUi.MAX_REDIRECTS, stub.paths.size(), stub.paths.toString());
    }

    @Test
    void headlessReturnsTheErrorParameter() throws IOException {
        Stub stub = stub(exchange -> redirect(exchange, param(exchange, "redirect_uri")
                + "?error=access_denied&error_description=The+user+said+no&state=" + param(exchange, "state")));
        AuthorizationUi.Receiver receiver = open(new HeadlessAuthorizationUi(), 0);

        Map<String, String> parameters = receiver.await(stub.authorize(receiver.redirectUri(), "s-1"), WAIT);

        assertEquals(Map.of("error", "access_denied", "error_description", "The user said no", "state", "s-1"),
                parameters);
    }

    @Test
    void headlessFailsOnAnswersThatAreNotRedirects() throws IOException {
        Stub stub = stub(exchange -> status(exchange, 200, "<html>\n<body>Please log in</body></html>"));
        AuthorizationUi.Receiver receiver = open(new HeadlessAuthorizationUi(), 0);

        McpException error = assertThrows(McpException.class,
                () -> receiver.await(stub.authorize(receiver.redirectUri(), "secret-state"), WAIT));

        assertTrue(error.getMessage().contains("answered HTTP 200"), error.getMessage());
        assertTrue(error.getMessage().contains("<html> <body>Please log in</body></html>"), error.getMessage());
        assertTrue(error.getMessage().contains("\"srv\""), error.getMessage());
        assertTrue(!error.getMessage().contains("secret-state"), "no query in messages: " + error.getMessage());

        stub.handler = exchange -> status(exchange, 500, "x".repeat(1000));
        McpException serverError = assertThrows(McpException.class,
                () -> receiver.await(stub.authorize(receiver.redirectUri(), "s"), WAIT));
        assertTrue(serverError.getMessage().contains("answered HTTP 500 instead of redirecting back to mcp-host; body: " + "x".repeat(200) + "…"),
                serverError.getMessage());
    }

    @Test
    void headlessIsBoundedByTheTimeout() throws IOException {
        Stub stub = stub(exchange -> {
            try {
                Thread.sleep(20_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        });
        AuthorizationUi.Receiver receiver = open(new HeadlessAuthorizationUi(), 0);
        long start = System.nanoTime();

        assertThrows(McpTimeoutException.class,
                () -> receiver.await(stub.authorize(receiver.redirectUri(), "s"), Duration.ofMillis(300)));

        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "bounded by the timeout");
    }

    // ---- browser and the loopback receiver

    @Test
    void browserPrintsTheUrlAndTheLoopbackReceivesTheCallback() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CompletableFuture<HttpResponse<String>> page = new CompletableFuture<>();
        HttpClient browser = HttpClient.newHttpClient();
        AuthorizationUi ui = new BrowserAuthorizationUi(new PrintStream(err, true, StandardCharsets.UTF_8), url -> {
            // The "browser": the user approves, the authorization server redirects back.
            URI redirect = URI.create(LoopbackReceiver.queryParameters(url.getRawQuery()).get("redirect_uri")
                    + "?code=the-code&state=st");
            browser.sendAsync(HttpRequest.newBuilder(redirect).GET().build(), HttpResponse.BodyHandlers.ofString())
                    .whenComplete((response, error) -> {
                        if (error != null) {
                            page.completeExceptionally(error);
                        } else {
                            page.complete(response);
                        }
                    });
        });
        AuthorizationUi.Receiver receiver = open(ui, 0);
        URI authorize = URI.create("https://as.example/authorize?redirect_uri="
                + URLEncoder.encode(receiver.redirectUri().toString(), StandardCharsets.UTF_8));

        Map<String, String> parameters = receiver.await(authorize, WAIT);

        assertEquals(Map.of("code", "the-code", "state", "st"), parameters);
        assertEquals("Open this URL to authorize mcp-host for srv: " + authorize + System.lineSeparator(),
                err.toString(StandardCharsets.UTF_8));
        HttpResponse<String> response = page.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(200, response.statusCode());
        assertTrue(response.body().contains("You can close this window"), response.body());
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/html"));
    }

    @Test
    void theLoopbackIgnoresOtherRequestsAndTakesTheFirstCallback() throws Exception {
        LoopbackReceiver receiver = loopback(0);
        HttpClient client = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + receiver.port();

        assertEquals(404, get(client, base + "/favicon.ico").statusCode());
        assertEquals(400, get(client, base + "/callback?state=x").statusCode());
        assertThrows(McpTimeoutException.class, () -> receiver.awaitRedirect(Duration.ofMillis(50)));

        HttpResponse<String> denied = get(client, base + "/callback?error=access_denied&error_description=%3Cb%3E");
        assertEquals(200, denied.statusCode());
        assertTrue(denied.body().contains("not granted (access_denied). You can close this window."), denied.body());
        assertEquals(200, get(client, base + "/callback?code=late").statusCode());

        assertEquals(Map.of("error", "access_denied", "error_description", "<b>"), receiver.awaitRedirect(WAIT));
    }

    @Test
    void awaitIsBoundedAndCloseEndsItAtOnce() throws Exception {
        LoopbackReceiver receiver = loopback(0);
        long start = System.nanoTime();
        McpTimeoutException timeout = assertThrows(McpTimeoutException.class,
                () -> receiver.await(URI.create("https://as.example/authorize"), Duration.ofMillis(200)));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis >= 150 && millis < 10_000, millis + " ms");
        assertTrue(timeout.getMessage().contains("\"srv\""), timeout.getMessage());

        CompletableFuture<Map<String, String>> waiting = CompletableFuture.supplyAsync(
                () -> receiver.awaitRedirect(Duration.ofMinutes(5)));
        Thread.sleep(100);
        receiver.close();
        Exception closed = assertThrows(Exception.class, () -> waiting.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        assertTrue(closed.getCause() instanceof McpException, String.valueOf(closed.getCause()));
        assertTrue(closed.getCause().getMessage().contains("was closed"), closed.getCause().getMessage());
        assertThrows(IOException.class, () -> get(HttpClient.newHttpClient(),
                "http://127.0.0.1:" + receiver.port() + "/callback?code=x"), "the server is stopped");
    }

    @Test
    void thePreferredPortIsUsedWhenFree() {
        LoopbackReceiver first = loopback(0);
        int port = first.port();
        first.close();

        LoopbackReceiver again = loopback(port);
        assertEquals(port, again.port());
        assertEquals(URI.create("http://127.0.0.1:" + port + "/callback"), again.redirectUri());

        LoopbackReceiver taken = loopback(port);
        assertNotEquals(port, taken.port(), "a taken port falls back to a free one");
    }

    @Test
    void theBrowserCommandFitsThePlatform() {
        URI url = URI.create("https://as.example/authorize?a=1&b=2");
        assertEquals(List.of("xdg-open", url.toString()), SystemBrowser.command("Linux", Map.of("DISPLAY", ":0"), url));
        assertEquals(List.of("xdg-open", url.toString()),
                SystemBrowser.command("FreeBSD", Map.of("WAYLAND_DISPLAY", "wayland-0"), url));
        assertEquals(List.of(), SystemBrowser.command("Linux", Map.of(), url), "no display: no browser");
        assertEquals(List.of("open", url.toString()), SystemBrowser.command("Mac OS X", Map.of(), url));
        assertEquals(List.of("rundll32", "url.dll,FileProtocolHandler", url.toString()),
                SystemBrowser.command("Windows 11", Map.of(), url));
    }

    // ---- registration

    @Test
    void serviceLoaderFindsBothUisAndTheDescriptorAgreesWithTheServicesFile() throws IOException {
        Module self = getClass().getModule();
        if (self.isNamed()) {
            self.addUses(AuthorizationUi.class);
        }
        Set<String> ids = ServiceLoader.load(AuthorizationUi.class).stream().map(ServiceLoader.Provider::get)
                .map(AuthorizationUi::id).collect(Collectors.toSet());
        assertEquals(Set.of("browser", "headless"), ids);

        Set<String> expected = Set.of(BrowserAuthorizationUi.class.getName(), HeadlessAuthorizationUi.class.getName());
        Set<String> listed = Files.readAllLines(Path.of("src/main/resources/META-INF/services/"
                + AuthorizationUi.class.getName())).stream().map(line -> line.replaceAll("#.*", "").trim())
                .filter(line -> !line.isEmpty()).collect(Collectors.toSet());
        String source = Files.readString(Path.of("src/main/java/module-info.java"))
                .replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//.*", "");
        Matcher m = Pattern.compile("provides\\s+" + Pattern.quote(AuthorizationUi.class.getName())
                + "\\s+with\\s+([^;]+);").matcher(source);
        assertTrue(m.find(), "no provides clause for AuthorizationUi");
        Set<String> declared = Pattern.compile("\\s*,\\s*").splitAsStream(m.group(1).trim()).collect(Collectors.toSet());
        assertEquals(expected, declared);
        assertEquals(expected, listed);
    }

    // ---- fixtures

    private AuthorizationUi.Receiver open(AuthorizationUi ui, int port) {
        AuthorizationUi.Receiver receiver = ui.open("srv", port);
        closeLater.add(receiver);
        return receiver;
    }

    private LoopbackReceiver loopback(int port) {
        LoopbackReceiver receiver = new LoopbackReceiver("srv", port, url -> { });
        closeLater.add(receiver);
        return receiver;
    }

    private static HttpResponse<String> get(HttpClient client, String url) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(WAIT).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Answers one request of the stub. */
    @FunctionalInterface
    interface Answer {
        Void handle(HttpExchange exchange) throws IOException;
    }

    private static String param(HttpExchange exchange, String name) {
        return LoopbackReceiver.queryParameters(exchange.getRequestURI().getRawQuery()).get(name);
    }

    private static Void redirect(HttpExchange exchange, String location) throws IOException {
        exchange.getResponseHeaders().set("Location", location);
        exchange.sendResponseHeaders(302, -1);
        return null;
    }

    private static Void status(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/html");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
        return null;
    }

    private Stub stub(Answer handler) throws IOException {
        Stub stub = new Stub(handler);
        closeLater.add(stub);
        return stub;
    }

    /** A stub authorization server on 127.0.0.1 that records the paths it was asked for. */
    static final class Stub implements AutoCloseable {
        final HttpServer server;
        final List<String> paths = new CopyOnWriteArrayList<>();
        volatile Answer handler;

        Stub(Answer handler) throws IOException {
            this.handler = handler;
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool(r -> {
                Thread thread = new Thread(r, "test-authorization-server");
                thread.setDaemon(true);
                return thread;
            }));
            server.createContext("/", exchange -> {
                paths.add(exchange.getRequestURI().getPath());
                try {
                    this.handler.handle(exchange);
                } finally {
                    exchange.close();
                }
            });
            server.start();
        }

        URI authorize(URI redirectUri, String state) {
            Function<String, String> encode = value -> URLEncoder.encode(value, StandardCharsets.UTF_8);
            return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/authorize?response_type=code"
                    + "&client_id=c&redirect_uri=" + encode.apply(redirectUri.toString()) + "&state=" + encode.apply(state));
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }
}
