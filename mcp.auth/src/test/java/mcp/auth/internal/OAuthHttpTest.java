package mcp.auth.internal;

import static mcp.auth.internal.CrossAppAccessTest.assertLeaksNothing;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mcp.api.McpException;
import mcp.auth.internal.CrossAppAccessTest.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The bounds of {@link OAuthHttp}'s exchanges and what its messages and headers hold, against 127.0.0.1. */
class OAuthHttpTest {

    private static final Duration TIMEOUT = Duration.ofMillis(300);

    private final CountDownLatch release = new CountDownLatch(1);
    private Server server;
    private OAuthHttp http;

    @BeforeEach
    void start() throws IOException {
        server = new Server();
        http = new OAuthHttp(HttpClient.newHttpClient(), TIMEOUT, "test");
    }

    @AfterEach
    void stop() {
        release.countDown();
        server.close();
    }

    @Test
    void aBodyUpToTheLimitIsReadAndALargerOneRefused() {
        server.handle("/full", exchange -> respond(exchange, OAuthHttp.MAX_BODY));
        server.handle("/over", exchange -> respond(exchange, OAuthHttp.MAX_BODY + 1));

        OAuthHttp.Answer full = http.postForm(server.uri("/full"), Map.of(), Optional.empty());
        McpException e = assertThrows(McpException.class, () -> http.postForm(server.uri("/over"), Map.of(),
                Optional.empty()));

        assertEquals(OAuthHttp.MAX_BODY, full.body().length());
        assertEquals("{\"padding\":\"", full.body().substring(0, 12));
        assertEquals("POST " + server.url("/over") + " failed: the response is larger than " + OAuthHttp.MAX_BODY
                + " bytes", e.getMessage());
    }

    @Test
    void headersThenADrippingBodyEndAtTheTimeout() {
        server.handle("/drip", exchange -> {
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write('{');
                out.flush();
                while (!release.await(50, TimeUnit.MILLISECONDS)) {
                    out.write(' ');
                    out.flush();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        McpException e = assertThrows(McpException.class, () -> http.postForm(server.uri("/drip"), Map.of(),
                Optional.empty()));

        assertEquals("POST " + server.url("/drip") + " failed: no complete response within 300 ms", e.getMessage());
    }

    @Test
    void headersThenABodyThatNeverEndsEndAtTheTimeout() {
        server.handle("/stall", exchange -> {
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write('{');
                out.flush();
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        McpException e = assertThrows(McpException.class, () -> http.postForm(server.uri("/stall"), Map.of(),
                Optional.empty()));

        assertEquals("POST " + server.url("/stall") + " failed: no complete response within 300 ms", e.getMessage());
    }

    @Test
    void echoedSecretsAreCutOutOfTheOAuthError() {
        String secret = "client secret+value";
        String code = "the-authorization-code";
        String body = "{\"error\":\"invalid_grant " + code + "\",\"error_description\":\"code " + code
                + "\\nsent with " + OAuthHttp.encode(secret) + " and " + secret + " by abc\"}";

        String message = OAuthHttp.oauthError(new OAuthHttp.Answer(400, body), List.of(secret, code, "abc"));

        assertEquals("HTTP 400, error invalid_grant <redacted>: code <redacted> sent with <redacted> and <redacted> "
                + "by abc", message);
        assertLeaksNothing(new McpException(message), secret, OAuthHttp.encode(secret), code);
    }

    @Test
    void aRefusedClientIsToldToCheckItsCredentials() {
        String hint = "; check the client id and secret registered for this server";
        assertEquals("HTTP 401" + hint, OAuthHttp.oauthError(new OAuthHttp.Answer(401, "<html>nope</html>")));
        assertEquals("HTTP 400, error invalid_client" + hint,
                OAuthHttp.oauthError(new OAuthHttp.Answer(400, "{\"error\":\"invalid_client\"}"), List.of()));
        assertEquals("HTTP 400, error invalid_grant",
                OAuthHttp.oauthError(new OAuthHttp.Answer(400, "{\"error\":\"invalid_grant\"}")));
    }

    @Test
    void basicEncodesASpaceAsPercent20AndAColonInTheId() {
        String id = "client:one";
        String secret = "s3cr et:+%/\u00e9";

        String header = OAuthHttp.basic(id, secret);

        String pair = new String(Base64.getDecoder().decode(header.substring("Basic ".length())),
                StandardCharsets.UTF_8);
        assertFalse(pair.contains("+"), "a space is %20 so that decodeURIComponent reads it: " + pair);
        assertTrue(pair.contains("%20"), pair);
        int colon = pair.indexOf(':');
        assertEquals(id, URLDecoder.decode(pair.substring(0, colon), StandardCharsets.UTF_8));
        assertEquals(secret, URLDecoder.decode(pair.substring(colon + 1), StandardCharsets.UTF_8));
    }

    @Test
    void aRefusedConnectionIsNamed() throws IOException {
        String closed;
        try (Server other = new Server()) {
            closed = other.url("/token");
        }
        McpException e = assertThrows(McpException.class, () -> http.postForm(URI.create(closed),
                Map.of(), Optional.empty()));
        assertTrue(e.getMessage().startsWith("POST " + closed + " failed: could not connect"), e.getMessage());
    }

    /** A JSON object of exactly {@code size} bytes. */
    private static void respond(HttpExchange exchange, int size) throws IOException {
        byte[] body = new byte[size];
        Arrays.fill(body, (byte) 'x');
        byte[] start = "{\"padding\":\"".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(start, 0, body, 0, start.length);
        body[size - 2] = '"';
        body[size - 1] = '}';
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, 0);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }
}
