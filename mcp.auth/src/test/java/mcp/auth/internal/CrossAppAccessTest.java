package mcp.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import mcp.api.McpException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The first step of Cross-App Access (ID token for ID-JAG) against an identity provider on 127.0.0.1 that
 * checks what the conformance scenario {@code auth/cross-app-access-complete-flow} checks. The second step is
 * an ordinary token request of {@link OAuthClient}; the bounds and the scrubbing are {@link OAuthHttpTest}'s.
 */
class CrossAppAccessTest {

    private static final String ID_TOKEN = "eyJhbGciOiJFUzI1NiJ9.id-token-of-the-user.c2lnbmF0dXJl";
    private static final String IDP_CLIENT = "conformance-test-idp-client";
    private static final String RESOURCE = "http://localhost:3000/mcp";
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private Server server;
    private OAuthHttp http;

    @BeforeEach
    void start() throws IOException {
        server = new Server();
        http = new OAuthHttp(HttpClient.newHttpClient(), TIMEOUT, "test");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void theIdpReceivesTheTokenExchangeTheScenarioChecks() throws Exception {
        String issuer = server.url("");
        server.handle("/idp/token", exchange -> {
            Map<String, String> form = form(exchange);
            List<String> problems = new ArrayList<>();
            expect(problems, form, "grant_type", "urn:ietf:params:oauth:grant-type:token-exchange");
            expect(problems, form, "requested_token_type", "urn:ietf:params:oauth:token-type:id-jag");
            expect(problems, form, "subject_token", ID_TOKEN);
            expect(problems, form, "subject_token_type", "urn:ietf:params:oauth:token-type:id_token");
            expect(problems, form, "audience", issuer);
            expect(problems, form, "resource", RESOURCE);
            expect(problems, form, "scope", "mcp:read mcp:write");
            expect(problems, form, "client_id", IDP_CLIENT);
            if (exchange.getRequestHeaders().getFirst("Authorization") != null) {
                problems.add("Authorization header without a secret");
            }
            if (!problems.isEmpty()) {
                json(exchange, 400, "{\"error\":\"invalid_request\",\"error_description\":\"" + problems + "\"}");
                return;
            }
            json(exchange, 200, "{\"access_token\":\"the.id-jag.value\",\"issued_token_type\":"
                    + "\"urn:ietf:params:oauth:token-type:id-jag\",\"token_type\":\"N_A\"}");
        });

        String idJag = CrossAppAccess.requestIdJag(http, server.uri("/idp/token"), IDP_CLIENT, Optional.empty(),
                ID_TOKEN, issuer, RESOURCE, Optional.of("mcp:read mcp:write"));

        assertEquals("the.id-jag.value", idJag);
        Recorded request = server.next();
        assertEquals("application/x-www-form-urlencoded", request.contentType());
        assertNull(request.authorization());
    }

    @Test
    void scopeIsLeftOutWhenAbsentAndIdpSecretGoesInBasic() throws Exception {
        server.handle("/idp/token", exchange -> json(exchange, 200, "{\"access_token\":\"jag\","
                + "\"issued_token_type\":\"urn:ietf:params:oauth:token-type:id-jag\",\"token_type\":\"N_A\"}"));
        String secret = "s3cr et:+%/\u00e9";

        CrossAppAccess.requestIdJag(http, server.uri("/idp/token"), IDP_CLIENT, Optional.of(secret), ID_TOKEN,
                "https://as.example", RESOURCE, Optional.empty());

        Recorded request = server.next();
        assertFalse(request.form().containsKey("scope"), request.body());
        assertFalse(request.body().contains("client_secret"), request.body());
        assertEquals(IDP_CLIENT, request.form().get("client_id"));
        String pair = new String(Base64.getDecoder().decode(request.authorization().substring("Basic ".length())),
                StandardCharsets.UTF_8);
        int colon = pair.indexOf(':');
        assertEquals(IDP_CLIENT, URLDecoder.decode(pair.substring(0, colon), StandardCharsets.UTF_8));
        assertEquals(secret, URLDecoder.decode(pair.substring(colon + 1), StandardCharsets.UTF_8));
    }

    @Test
    void idpRefusalNamesEndpointStatusAndOAuthErrorButNoToken() {
        server.handle("/idp/token", exchange -> json(exchange, 400,
                "{\"error\":\"invalid_grant\",\"error_description\":\"Invalid ID token " + ID_TOKEN
                        + " for client idp-secret-value\"}"));
        URI endpoint = server.uri("/idp/token?api_key=query-secret");

        McpException e = assertThrows(McpException.class, () -> CrossAppAccess.requestIdJag(http, endpoint,
                IDP_CLIENT, Optional.of("idp-secret-value"), ID_TOKEN, "https://as.example", RESOURCE,
                Optional.empty()));

        String message = e.getMessage();
        assertTrue(message.startsWith("the token exchange (ID token for ID-JAG) at the identity provider "
                + server.url("/idp/token") + "?... failed: HTTP 400"), message);
        assertTrue(message.contains("error invalid_grant: Invalid ID token <redacted> for client <redacted>"), message);
        assertLeaksNothing(e, ID_TOKEN, "query-secret", "idp-secret-value");
    }

    @Test
    void aRefusedClientIsToldToCheckItsCredentials() {
        server.handle("/idp/token", exchange -> json(exchange, 401,
                "{\"error\":\"invalid_client\",\"error_description\":\"Invalid client credentials\"}"));

        McpException e = assertThrows(McpException.class, () -> CrossAppAccess.requestIdJag(http,
                server.uri("/idp/token"), IDP_CLIENT, Optional.of("idp-secret-value"), ID_TOKEN, "https://as.example",
                RESOURCE, Optional.empty()));

        assertTrue(e.getMessage().endsWith("failed: HTTP 401, error invalid_client: Invalid client credentials; "
                + "check the client id and secret registered for this server"), e.getMessage());
        assertLeaksNothing(e, ID_TOKEN, "idp-secret-value");
    }

    @Test
    void answersThatAreNotIdJagsAreErrors() {
        server.handle("/html", exchange -> {
            byte[] body = ("<html>" + ID_TOKEN + "</html>").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html");
            exchange.sendResponseHeaders(500, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.handle("/ok-html", exchange -> {
            byte[] body = ("<html>" + ID_TOKEN + "</html>").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.handle("/no-token", exchange -> json(exchange, 200, "{\"token_type\":\"Bearer\"}"));
        server.handle("/wrong-type", exchange -> json(exchange, 200,
                "{\"access_token\":\"at-value\",\"issued_token_type\":\"urn:ietf:params:oauth:token-type:access_token\"}"));
        server.handle("/big", exchange -> {
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                byte[] chunk = new byte[64 * 1024];
                Arrays.fill(chunk, (byte) ' ');
                for (int i = 0; i < 20; i++) {
                    out.write(chunk);
                }
            }
        });

        assertTrue(idJagError("/html").endsWith("failed: HTTP 500"));
        assertTrue(idJagError("/ok-html").contains("did not answer with valid JSON"));
        assertTrue(idJagError("/no-token").contains("answered without \"access_token\""));
        assertTrue(idJagError("/wrong-type").contains("issued a token of type "
                + "\"urn:ietf:params:oauth:token-type:access_token\", not an ID-JAG"));
        assertTrue(idJagError("/big").contains("the response is larger than " + OAuthHttp.MAX_BODY + " bytes"));
    }

    @Test
    void aServerThatNeverAnswersTimesOut() {
        CountDownLatch release = new CountDownLatch(1);
        server.handle("/idp/token", exchange -> {
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        OAuthHttp impatient = new OAuthHttp(HttpClient.newHttpClient(), Duration.ofMillis(300), "test");
        try {
            McpException e = assertThrows(McpException.class, () -> CrossAppAccess.requestIdJag(impatient,
                    server.uri("/idp/token"), IDP_CLIENT, Optional.empty(), ID_TOKEN, "https://as.example", RESOURCE,
                    Optional.empty()));
            assertTrue(e.getMessage().startsWith("the token exchange (ID token for ID-JAG) at the identity provider: "
                    + "POST " + server.url("/idp/token") + " failed: no "), e.getMessage());
            assertTrue(e.getMessage().matches(".*failed: no (complete )?response within 300 ms"), e.getMessage());
        } finally {
            release.countDown();
        }
    }

    @Test
    void anUnreachableServerIsNamed() throws IOException {
        URI closed;
        try (Server other = new Server()) {
            closed = other.uri("/idp/token");
        }
        McpException e = assertThrows(McpException.class, () -> CrossAppAccess.requestIdJag(http, closed, IDP_CLIENT,
                Optional.of("idp-secret-value"), ID_TOKEN, "https://as.example", RESOURCE, Optional.empty()));
        assertTrue(e.getMessage().startsWith("the token exchange (ID token for ID-JAG) at the identity provider: POST "
                + closed + " failed: "), e.getMessage());
        assertLeaksNothing(e, ID_TOKEN, "idp-secret-value");
    }

    private String idJagError(String path) {
        McpException e = assertThrows(McpException.class, () -> CrossAppAccess.requestIdJag(http, server.uri(path),
                IDP_CLIENT, Optional.empty(), ID_TOKEN, "https://as.example", RESOURCE, Optional.empty()));
        assertLeaksNothing(e, ID_TOKEN, "at-value");
        return e.getMessage();
    }

    static void assertLeaksNothing(Throwable error, String... secrets) {
        StringWriter trace = new StringWriter();
        error.printStackTrace(new PrintWriter(trace));
        for (String secret : secrets) {
            assertFalse(trace.toString().contains(secret), "the error holds a secret: " + trace);
        }
    }

    private static void expect(List<String> problems, Map<String, String> form, String name, String value) {
        if (!value.equals(form.get(name))) {
            problems.add(name + " expected " + value + ", got " + form.get(name));
        }
    }

    private static Map<String, String> form(HttpExchange exchange) {
        return Recorded.parseForm(exchange.getAttribute("body").toString());
    }

    static void json(HttpExchange exchange, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** One request as received. */
    record Recorded(String path, String contentType, String authorization, String body) {
        Map<String, String> form() {
            return parseForm(body);
        }

        static Map<String, String> parseForm(String body) {
            Map<String, String> form = new LinkedHashMap<>();
            for (String field : body.split("&")) {
                if (!field.isEmpty()) {
                    int equals = field.indexOf('=');
                    form.put(URLDecoder.decode(field.substring(0, equals), StandardCharsets.UTF_8),
                            URLDecoder.decode(field.substring(equals + 1), StandardCharsets.UTF_8));
                }
            }
            return form;
        }
    }

    /** A handler that may throw. */
    @FunctionalInterface
    interface Handler {
        void handle(HttpExchange exchange) throws IOException;
    }

    /** The JDK's HTTP server on 127.0.0.1, port 0, recording every request; handlers by exact path. */
    static final class Server implements AutoCloseable {
        private final HttpServer http;
        private final ExecutorService pool = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "test-oauth-server");
            thread.setDaemon(true);
            return thread;
        });
        private final Map<String, Handler> handlers = new ConcurrentHashMap<>();
        private final BlockingQueue<Recorded> requests = new LinkedBlockingQueue<>();

        Server() throws IOException {
            http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
            http.setExecutor(pool);
            http.createContext("/", this::dispatch);
            http.start();
        }

        void handle(String path, Handler handler) {
            handlers.put(path, handler);
        }

        URI uri(String pathAndQuery) {
            return URI.create(url(pathAndQuery));
        }

        String url(String pathAndQuery) {
            return "http://127.0.0.1:" + http.getAddress().getPort() + pathAndQuery;
        }

        Recorded next() throws InterruptedException {
            Recorded recorded = requests.poll(5, TimeUnit.SECONDS);
            if (recorded == null) {
                throw new AssertionError("no request within 5 s");
            }
            return recorded;
        }

        private void dispatch(HttpExchange exchange) throws IOException {
            try (exchange) {
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                exchange.setAttribute("body", body);
                requests.add(new Recorded(exchange.getRequestURI().getPath(),
                        exchange.getRequestHeaders().getFirst("Content-Type"),
                        exchange.getRequestHeaders().getFirst("Authorization"), body));
                Handler handler = handlers.get(exchange.getRequestURI().getPath());
                if (handler == null || !exchange.getRequestMethod().equals("POST")) {
                    exchange.sendResponseHeaders(404, -1);
                    return;
                }
                handler.handle(exchange);
            } catch (IOException | RuntimeException e) {
                // The client went away (a timeout test): nothing to answer.
            }
        }

        @Override
        public void close() {
            http.stop(0);
            pool.shutdownNow();
        }
    }
}
