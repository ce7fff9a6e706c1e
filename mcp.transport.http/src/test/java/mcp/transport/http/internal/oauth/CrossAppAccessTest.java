package mcp.transport.http.internal.oauth;

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
import java.security.KeyPair;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
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
 * Both steps of Cross-App Access against an identity provider and an authorization server on 127.0.0.1
 * that check what the conformance scenario {@code auth/cross-app-access-complete-flow} checks.
 */
class CrossAppAccessTest {

    private static final String ID_TOKEN = "eyJhbGciOiJFUzI1NiJ9.id-token-of-the-user.c2lnbmF0dXJl";
    private static final String IDP_CLIENT = "conformance-test-idp-client";
    private static final String CLIENT_ID = "conformance-test-xaa-client";
    private static final String CLIENT_SECRET = "conformance-test-xaa-secret";
    private static final String RESOURCE = "http://localhost:3000/mcp";
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final KeyPair IDP_KEY = JwtTest.generate("EC", new ECGenParameterSpec("secp256r1"));

    private Server server;
    private HttpClient http;

    @BeforeEach
    void start() throws IOException {
        server = new Server();
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void completeFlowPassesTheScenarioChecks() throws Exception {
        String issuer = server.url("");
        server.handle("/idp/token", exchange -> {
            Map<String, String> form = form(exchange);
            List<String> problems = new java.util.ArrayList<>();
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
            Map<String, Object> claims = new LinkedHashMap<>();
            claims.put("iss", server.url("/idp"));
            claims.put("sub", "demo-user@example.com");
            claims.put("aud", form.get("audience"));
            claims.put("resource", form.get("resource"));
            claims.put("client_id", CLIENT_ID);
            String idJag = Jwt.sign(Map.of("alg", "ES256", "typ", "oauth-id-jag+jwt"), claims, IDP_KEY.getPrivate());
            json(exchange, 200, "{\"access_token\":\"" + idJag + "\",\"issued_token_type\":"
                    + "\"urn:ietf:params:oauth:token-type:id-jag\",\"token_type\":\"N_A\"}");
        });
        server.handle("/token", exchange -> {
            Map<String, String> form = form(exchange);
            String[] basic = basic(exchange);
            if (basic == null || !basic[0].equals(CLIENT_ID) || !basic[1].equals(CLIENT_SECRET)) {
                json(exchange, 401, "{\"error\":\"invalid_client\",\"error_description\":\"Invalid client credentials\"}");
                return;
            }
            List<String> problems = new java.util.ArrayList<>();
            expect(problems, form, "grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer");
            String[] parts = form.getOrDefault("assertion", "..").split("\\.");
            String header = new String(Base64.getUrlDecoder().decode(parts[0]), StandardCharsets.UTF_8);
            String claims = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
            if (!header.contains("\"typ\":\"oauth-id-jag+jwt\"") || !claims.contains("\"client_id\":\"" + basic[0] + "\"")
                    || !claims.contains("\"aud\":\"" + issuer + "\"") || !claims.contains("\"resource\":\"" + RESOURCE + "\"")) {
                problems.add("ID-JAG " + header + claims);
            }
            if (!problems.isEmpty()) {
                json(exchange, 400, "{\"error\":\"invalid_grant\",\"error_description\":\"" + problems + "\"}");
                return;
            }
            json(exchange, 200, "{\"access_token\":\"test-token-1\",\"token_type\":\"Bearer\",\"expires_in\":3600,"
                    + "\"scope\":\"" + form.getOrDefault("scope", "") + "\"}");
        });

        String idJag = CrossAppAccess.requestIdJag(http, server.uri("/idp/token"), CrossAppAccess.Client.of(IDP_CLIENT),
                ID_TOKEN, issuer, RESOURCE, Optional.of("mcp:read mcp:write"), TIMEOUT);
        CrossAppAccess.TokenResponse token = CrossAppAccess.requestAccessToken(http, server.uri("/token"),
                CrossAppAccess.Client.of(CLIENT_ID, CLIENT_SECRET), idJag, Optional.of("mcp:read"), TIMEOUT);

        assertEquals("test-token-1", token.accessToken());
        assertEquals("Bearer", token.tokenType());
        assertEquals(Optional.of(Duration.ofHours(1)), token.expiresIn());
        assertEquals(Optional.of("mcp:read"), token.scope());
        assertEquals(Optional.empty(), token.refreshToken());
        Recorded first = server.next();
        assertEquals("application/x-www-form-urlencoded", first.contentType());
        Recorded second = server.next();
        assertEquals("Basic " + Base64.getEncoder().encodeToString((CLIENT_ID + ":" + CLIENT_SECRET)
                .getBytes(StandardCharsets.UTF_8)), second.authorization());
        assertEquals(idJag, second.form().get("assertion"));
        assertEquals(CLIENT_ID, second.form().get("client_id"));
        assertFalse(token.toString().contains("test-token-1"), token.toString());
    }

    @Test
    void scopeIsLeftOutWhenAbsentAndIdpSecretGoesInBasic() throws Exception {
        server.handle("/idp/token", exchange -> json(exchange, 200, "{\"access_token\":\"jag\","
                + "\"issued_token_type\":\"urn:ietf:params:oauth:token-type:id-jag\",\"token_type\":\"N_A\"}"));
        String secret = "s3cr et:+%/é";

        CrossAppAccess.requestIdJag(http, server.uri("/idp/token"), CrossAppAccess.Client.of(IDP_CLIENT, secret),
                ID_TOKEN, "https://as.example", RESOURCE, Optional.empty(), TIMEOUT);

        Recorded request = server.next();
        assertFalse(request.form().containsKey("scope"), request.body());
        assertFalse(request.body().contains("client_secret"), request.body());
        assertEquals(IDP_CLIENT, request.form().get("client_id"));
        String pair = new String(Base64.getDecoder().decode(request.authorization().substring("Basic ".length())),
                StandardCharsets.UTF_8);
        assertFalse(pair.contains("+"), "a space is %20 so that decodeURIComponent reads it: " + pair);
        int colon = pair.indexOf(':');
        assertEquals(IDP_CLIENT, URLDecoder.decode(pair.substring(0, colon), StandardCharsets.UTF_8));
        assertEquals(secret, URLDecoder.decode(pair.substring(colon + 1), StandardCharsets.UTF_8));
    }

    @Test
    void idpRefusalNamesEndpointStatusAndOAuthErrorButNoToken() {
        server.handle("/idp/token", exchange -> json(exchange, 400,
                "{\"error\":\"invalid_grant\",\"error_description\":\"Invalid ID token " + ID_TOKEN + "\"}"));
        URI endpoint = server.uri("/idp/token?api_key=query-secret");

        McpException e = assertThrows(McpException.class, () -> CrossAppAccess.requestIdJag(http, endpoint,
                CrossAppAccess.Client.of(IDP_CLIENT, "idp-secret-value"), ID_TOKEN, "https://as.example", RESOURCE,
                Optional.empty(), TIMEOUT));

        String message = e.getMessage();
        assertTrue(message.contains(server.url("/idp/token") + "?..."), message);
        assertTrue(message.contains("HTTP 400"), message);
        assertTrue(message.contains("error \"invalid_grant\": Invalid ID token <redacted>"), message);
        assertLeaksNothing(e, ID_TOKEN, "query-secret", "idp-secret-value");
    }

    @Test
    void authorizationServerRefusalHintsAtTheCredentials() {
        server.handle("/token", exchange -> json(exchange, 401,
                "{\"error\":\"invalid_client\",\"error_description\":\"Invalid client credentials\"}"));

        McpException e = assertThrows(McpException.class, () -> CrossAppAccess.requestAccessToken(http,
                server.uri("/token"), CrossAppAccess.Client.of(CLIENT_ID, CLIENT_SECRET), "the.id-jag.value",
                Optional.empty(), TIMEOUT));

        assertTrue(e.getMessage().startsWith("The JWT bearer grant (ID-JAG for access token) at the authorization server "
                + server.url("/token") + " failed: HTTP 401, error \"invalid_client\": Invalid client credentials; "
                + "check the client id and secret"), e.getMessage());
        assertLeaksNothing(e, CLIENT_SECRET, "the.id-jag.value");
    }

    @Test
    void answersThatAreNotTokenResponsesAreErrors() {
        server.handle("/html", exchange -> {
            byte[] body = ("<html>" + ID_TOKEN + "</html>").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html");
            exchange.sendResponseHeaders(500, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.handle("/ok-html", exchange -> {
            exchange.getResponseHeaders().set("Content-Type", "text/html");
            exchange.sendResponseHeaders(200, -1);
        });
        server.handle("/no-token", exchange -> json(exchange, 200, "{\"token_type\":\"Bearer\"}"));
        server.handle("/no-type", exchange -> json(exchange, 200, "{\"access_token\":\"at-value\"}"));
        server.handle("/wrong-type", exchange -> json(exchange, 200,
                "{\"access_token\":\"at-value\",\"issued_token_type\":\"urn:ietf:params:oauth:token-type:access_token\"}"));
        server.handle("/big", exchange -> {
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                byte[] chunk = new byte[64 * 1024];
                java.util.Arrays.fill(chunk, (byte) ' ');
                for (int i = 0; i < 20; i++) {
                    out.write(chunk);
                }
            }
        });

        assertTrue(idJagError("/html").contains("HTTP 500 (no OAuth error in the body)"));
        assertTrue(idJagError("/ok-html").contains("HTTP 200 but the body is not a JSON object (Content-Type: text/html)"));
        assertTrue(idJagError("/no-token").contains("answered without \"access_token\""));
        assertTrue(idJagError("/wrong-type").contains("issued a token of type "
                + "\"urn:ietf:params:oauth:token-type:access_token\", not an ID-JAG"));
        assertTrue(idJagError("/big").contains("the response is larger than 1048576 bytes"));
        McpException noType = assertThrows(McpException.class, () -> CrossAppAccess.requestAccessToken(http,
                server.uri("/no-type"), CrossAppAccess.Client.of(CLIENT_ID), "jag", Optional.empty(), TIMEOUT));
        assertTrue(noType.getMessage().contains("answered without \"token_type\""), noType.getMessage());
        assertLeaksNothing(noType, "at-value");
    }

    @Test
    void optionalFieldsAreReadLeniently() throws Exception {
        server.handle("/token", exchange -> json(exchange, 200, "{\"access_token\":\"at\",\"token_type\":\"bearer\","
                + "\"expires_in\":\"120\",\"refresh_token\":\"rt-value\"}"));

        CrossAppAccess.TokenResponse token = CrossAppAccess.requestAccessToken(http, server.uri("/token"),
                CrossAppAccess.Client.of(CLIENT_ID), "jag", Optional.empty(), TIMEOUT);

        assertEquals(Optional.of(Duration.ofSeconds(120)), token.expiresIn());
        assertEquals(Optional.of("rt-value"), token.refreshToken());
        assertEquals(Optional.empty(), token.scope());
        assertNull(server.next().authorization(), "a public client sends no Authorization header");
        assertFalse(token.toString().contains("rt-value"), token.toString());
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
        try {
            McpException e = assertThrows(McpException.class, () -> CrossAppAccess.requestIdJag(http,
                    server.uri("/idp/token"), CrossAppAccess.Client.of(IDP_CLIENT), ID_TOKEN, "https://as.example",
                    RESOURCE, Optional.empty(), Duration.ofMillis(300)));
            assertTrue(e.getMessage().matches(".*failed: no (complete )?response within 300 ms"), e.getMessage());
        } finally {
            release.countDown();
        }
    }

    @Test
    void anUnreachableServerIsNamed() throws IOException {
        URI closed;
        try (Server other = new Server()) {
            closed = other.uri("/token");
        }
        McpException e = assertThrows(McpException.class, () -> CrossAppAccess.requestAccessToken(http, closed,
                CrossAppAccess.Client.of(CLIENT_ID, CLIENT_SECRET), "jag", Optional.empty(), TIMEOUT));
        assertTrue(e.getMessage().startsWith("The JWT bearer grant (ID-JAG for access token) at the authorization server "
                + closed + " failed: "), e.getMessage());
        assertLeaksNothing(e, CLIENT_SECRET);
    }

    @Test
    void clientToStringHidesTheSecret() {
        assertEquals("Client[id=c, secret=<redacted>]", CrossAppAccess.Client.of("c", "hunter2").toString());
        assertEquals("Client[id=c, secret=none]", CrossAppAccess.Client.of("c").toString());
        assertEquals("Client[id=c, secret=none]", CrossAppAccess.Client.of("c", "").toString());
    }

    private String idJagError(String path) {
        McpException e = assertThrows(McpException.class, () -> CrossAppAccess.requestIdJag(http, server.uri(path),
                CrossAppAccess.Client.of(IDP_CLIENT), ID_TOKEN, "https://as.example", RESOURCE, Optional.empty(), TIMEOUT));
        assertLeaksNothing(e, ID_TOKEN, "at-value");
        return e.getMessage();
    }

    private static void assertLeaksNothing(Throwable error, String... secrets) {
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

    /** @return {id, secret} of a Basic header, percent-decoded as the conformance suite does */
    private static String[] basic(HttpExchange exchange) {
        String header = exchange.getRequestHeaders().getFirst("Authorization");
        if (header == null || !header.startsWith("Basic ")) {
            return null;
        }
        String pair = new String(Base64.getDecoder().decode(header.substring(6)), StandardCharsets.UTF_8);
        int colon = pair.indexOf(':');
        return new String[] {URLDecoder.decode(pair.substring(0, colon), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(colon + 1), StandardCharsets.UTF_8)};
    }

    private static void json(HttpExchange exchange, int status, String json) throws IOException {
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
    private static final class Server implements AutoCloseable {
        private final HttpServer http;
        private final ExecutorService pool = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "test-oauth-server");
            thread.setDaemon(true);
            return thread;
        });
        private final Map<String, Handler> handlers = new java.util.concurrent.ConcurrentHashMap<>();
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
