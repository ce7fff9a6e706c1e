package mcp.transport.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import mcp.api.HeaderCommands;
import mcp.api.HttpServerConfig;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.ServerConfig;
import mcp.api.SseServerConfig;
import mcp.api.ToolResult;
import mcp.api.spi.AuthResolver;
import mcp.api.spi.TransportRequest;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Header commands against a real MCP server on 127.0.0.1 that takes one bearer token at a time and answers
 * 401 to any other, as a server does whose short-lived tokens a company's login tool mints: the command runs
 * again on the refusal, and the request goes out once more with what it prints now. Each command counts its
 * runs in a file and prints {@code token-<run>}, so the server can demand the second token.
 */
class HeaderCommandsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path temp;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private PrintStream originalErr;
    /** The one token the server takes now. */
    private final AtomicReference<String> accepted = new AtomicReference<>("token-2");
    private final AtomicInteger refusals = new AtomicInteger();

    @BeforeEach
    void captureLog() {
        originalErr = System.err;
        System.setErr(new PrintStream(new Tee(log, originalErr), true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void close() throws Exception {
        System.setErr(originalErr);
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        String logged = log.toString(StandardCharsets.UTF_8);
        // No token, and nothing a helper wrote on stderr, ever reaches the log.
        assertFalse(logged.contains("token-1") || logged.contains("token-2") || logged.contains("token-3"), logged);
        assertFalse(logged.contains("stderr-secret"), logged);
    }

    /** The MCP stub behind a token check: 401 with a bearer challenge unless the request carries the token. */
    private TestHttpServer server() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = TestHttpServer.start(call -> {
            if (!("Bearer " + accepted.get()).equals(call.header("Authorization"))) {
                refusals.incrementAndGet();
                call.status(401, "token expired", Map.of("WWW-Authenticate", "Bearer error=\"invalid_token\""));
                return;
            }
            stub.handle(call);
        });
        resources.add(server);
        return server;
    }

    /** A command that counts its runs in {@code name}.count and prints what {@code format} makes of the count. */
    private String countingCommand(String name, String printf) {
        Path count = temp.resolve(name + ".count");
        return "n=$(( $(cat '" + count + "' 2>/dev/null || echo 0) + 1 )); echo $n > '" + count + "'; "
                + "echo stderr-secret >&2; printf '" + printf + "' \"$n\"";
    }

    private int runs(String name) throws Exception {
        Path count = temp.resolve(name + ".count");
        return Files.exists(count) ? Integer.parseInt(Files.readString(count).trim()) : 0;
    }

    private McpClient connect(ServerConfig config) {
        TransportRequest request = TransportRequest.of("corp", config, temp);
        McpClient client = McpClient.connectBlocking(config instanceof SseServerConfig
                        ? new LegacySseTransportProvider().open(request) : new StreamableHttpTransportProvider().open(request),
                ClientOptions.builder("header-commands-test").initializeTimeout(TIMEOUT).requestTimeout(TIMEOUT)
                        // One era, so that each test knows every request it makes.
                        .protocolVersion(config instanceof SseServerConfig ? "2024-11-05" : "2025-11-25").build());
        resources.add(client);
        return client;
    }

    private static HttpServerConfig withHelper(String url, String command, Optional<String> directory) {
        return HttpServerConfig.of(url).withHeaderCommands(new HeaderCommands(
                Optional.of(new HeaderCommands.Helper(command, directory)), Map.of()));
    }

    private static String echo(McpClient client, String text) {
        ToolResult result = client.callToolBlocking("echo", McpJson.object().put("message", text));
        assertFalse(result.isError(), result.toString());
        return result.toString();
    }

    @Test
    void aHeadersHelperRunsAgainOnA401AndTheRequestThenGoesThrough() throws Exception {
        TestHttpServer server = server();
        // Relative to the helper's own directory, where Claude Code runs it too.
        Path dir = Files.createDirectories(temp.resolve("helper-home"));
        String helper = "n=$(( $(cat count 2>/dev/null || echo 0) + 1 )); echo $n > count; echo stderr-secret >&2; "
                + "printf '{\"Authorization\":\"Bearer token-%s\",\"X-Server\":\"%s\",\"X-Url\":\"%s\"}' "
                + "\"$n\" \"$CLAUDE_CODE_MCP_SERVER_NAME\" \"$CLAUDE_CODE_MCP_SERVER_URL\"";
        McpClient client = connect(withHelper(server.url("/mcp"), helper, Optional.of(dir.toString())));

        assertTrue(echo(client, "hello").contains("hello"));
        assertEquals("2", Files.readString(dir.resolve("count")).trim(), "once before the connect, once on the 401");
        assertEquals(1, refusals.get());
        TestHttpServer.Recorded last = server.all.get(server.all.size() - 1);
        assertEquals("Bearer token-2", last.header("Authorization"));
        assertEquals("corp", last.header("X-Server"), "the server's name, as Claude Code passes it");
        assertEquals(server.url("/mcp"), last.header("X-Url"), "the server's URL, as Claude Code passes it");
    }

    @Test
    void aTokenThatExpiresDuringTheSessionIsMintedAgainForTheToolCall() throws Exception {
        accepted.set("token-1");
        TestHttpServer server = server();
        McpClient client = connect(withHelper(server.url("/mcp"),
                countingCommand("mid", "{\"Authorization\":\"Bearer token-%s\"}"), Optional.empty()));
        assertTrue(echo(client, "first").contains("first"));
        assertEquals(1, runs("mid"));
        assertEquals(0, refusals.get());

        accepted.set("token-2"); // the first token expired
        assertTrue(echo(client, "second").contains("second"));
        assertEquals(2, runs("mid"));
        assertEquals(1, refusals.get());
        assertTrue(echo(client, "third").contains("third"));
        assertEquals(2, runs("mid"), "the new headers serve the later requests");
    }

    @Test
    void aRefusedRequestIsSentAgainOnceOnly() throws Exception {
        accepted.set("never");
        TestHttpServer server = server();
        HttpServerConfig config = withHelper(server.url("/mcp"),
                countingCommand("once", "{\"Authorization\":\"Bearer token-%s\"}"), Optional.empty());
        McpException e = assertThrows(McpException.class, () -> connect(config));
        assertTrue(String.valueOf(e.getMessage()).contains("401") || String.valueOf(e.getCause()).contains("401"),
                String.valueOf(e));
        assertEquals(2, runs("once"), "before the connect and on the first refusal, not again");
        assertEquals(2, server.all.stream().filter(r -> r.method().equals("POST")).count(),
                "the first request and its one retry");
    }

    @Test
    void aCommandValueRunsAgainOnA401AndTheNewValueIsKeptForTheNextConnect() throws Exception {
        TestHttpServer server = server();
        String command = countingCommand("value", "Bearer token-%s");
        HttpServerConfig written = new HttpServerConfig(server.url("/mcp"), Map.of("Authorization", "!" + command),
                TIMEOUT, true, Optional.empty(), Optional.empty(), List.of());
        AuthResolver.Context context = () -> System.getenv();
        ServerConfig resolved = new ValuesAuthResolver().resolve("corp", written, context);
        assertEquals(Map.of("Authorization", command), ((HttpServerConfig) resolved).headerCommands().values());
        assertEquals(1, runs("value"));

        McpClient client = connect(resolved);
        assertTrue(echo(client, "hello").contains("hello"));
        assertEquals(2, runs("value"));
        assertEquals(1, refusals.get());

        // A new connect takes the value the refusal made the command print, without running it again.
        ServerConfig again = new ValuesAuthResolver().resolve("corp", written, context);
        assertEquals("Bearer token-2", ((HttpServerConfig) again).headers().get("Authorization"));
        assertEquals(2, runs("value"));
    }

    @Test
    void aLegacySseServerGetsTheSameRetry() throws Exception {
        LegacyStub stub = new LegacyStub();
        TestHttpServer server = TestHttpServer.start(call -> {
            if (!("Bearer " + accepted.get()).equals(call.header("Authorization"))) {
                refusals.incrementAndGet();
                call.status(401, "token expired", Map.of("WWW-Authenticate", "Bearer"));
                return;
            }
            stub.handle(call);
        });
        resources.add(server);
        SseServerConfig config = SseServerConfig.of(server.url("/sse")).withHeaderCommands(new HeaderCommands(
                Optional.of(new HeaderCommands.Helper(countingCommand("sse", "{\"Authorization\":\"Bearer token-%s\"}"),
                        Optional.empty())), Map.of()));
        McpClient client = connect(config);
        assertEquals("legacy-echo", client.listToolsBlocking().get(0).name());
        assertEquals(2, runs("sse"));
        assertEquals(1, refusals.get());
    }

    @Test
    void aHelperThatPrintsNoJsonObjectIsLeftOutWithoutShowingWhatItPrinted() throws Exception {
        accepted.set("token-1");
        TestHttpServer server = server();
        HttpServerConfig config = withHelper(server.url("/mcp"), "echo stderr-secret >&2; echo token-2", Optional.empty());
        McpException e = assertThrows(McpException.class, () -> connect(config));
        assertFalse(String.valueOf(e).contains("token-2"));
        String logged = log.toString(StandardCharsets.UTF_8);
        assertTrue(logged.contains("headersHelper did not print a JSON object of string values"), logged);
        assertEquals(Optional.empty(), CommandHeaders.parse("{\"A\": 1}"), "a value that is no string");
        assertEquals(Optional.of(Map.of("A", "b")), CommandHeaders.parse(" {\"A\": \"b\"} "));
    }

    /** Writes to two streams: the log is kept and still shown. */
    private static final class Tee extends java.io.OutputStream {
        private final java.io.OutputStream first;
        private final java.io.OutputStream second;

        Tee(java.io.OutputStream first, java.io.OutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public synchronized void write(int b) throws java.io.IOException {
            first.write(b);
            second.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws java.io.IOException {
            first.write(b, off, len);
            second.write(b, off, len);
        }
    }
}
