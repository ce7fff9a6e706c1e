package mcp.transport.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import mcp.api.HttpServerConfig;
import mcp.api.spi.TransportRequest;
import org.junit.jupiter.api.Test;

/** URLs in messages, headers the JDK client refuses, and body excerpts. */
class HttpEndpointTest {

    @Test
    void redactionDropsUserInfoQueryAndFragment() {
        assertEquals("https://example.invalid/mcp?...",
                HttpEndpoint.redact(URI.create("https://user:pw@example.invalid/mcp?exaApiKey=k#frag")));
        assertEquals("http://127.0.0.1:8080/a/b", HttpEndpoint.redact(URI.create("http://127.0.0.1:8080/a/b")));
        assertEquals("http://[::1]:9/x", HttpEndpoint.redact(URI.create("http://[::1]:9/x")));
    }

    @Test
    void headersTheClientCannotSendAreLeftOutByNameOnly() {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        HttpEndpoint endpoint;
        try {
            endpoint = HttpEndpoint.of(TransportRequest.of("t", HttpServerConfig.of("http://127.0.0.1:1/mcp"), Path.of(".")),
                    "http://127.0.0.1:1/mcp", Map.of("Host", "secret-host-value", "X-Ok", "fine", "Bad Name", "v",
                            "Mcp-Session-Id", "forged"), Duration.ofSeconds(1));
        } finally {
            System.setErr(original);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        assertEquals(Map.of("X-Ok", "fine"), endpoint.headers.current().headers());
        assertTrue(log.contains("header \"Host\" cannot be sent"), log);
        assertTrue(log.contains("header \"Mcp-Session-Id\" is set by the transport itself"), log);
        assertFalse(log.contains("secret-host-value") || log.contains("forged"), log);
    }

    @Test
    void excerptsArePrintableAndCut() {
        assertEquals("a b c", ReplyHandler.printable("a\r\n\tb  c\n".getBytes(StandardCharsets.UTF_8), 512));
        assertEquals("x".repeat(200) + "...", ReplyHandler.printable("x".repeat(300).getBytes(StandardCharsets.UTF_8), 512));
        assertEquals("abc...", ReplyHandler.printable("abcdef".getBytes(StandardCharsets.UTF_8), 3));
    }
}
