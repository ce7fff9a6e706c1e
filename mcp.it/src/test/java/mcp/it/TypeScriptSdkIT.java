package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.IntFunction;
import mcp.api.McpJson;
import mcp.api.ToolResult;
import mcp.manager.McpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * mcp-host's client against a server on the TypeScript SDK v2 ({@code @modelcontextprotocol/server} 2.4.0 with
 * {@code @modelcontextprotocol/node} 2.1.2, pinned in {@code interop/package.json}), the script
 * {@code interop/typescript/era-server.mjs}: {@code serveStdio} over stdio and {@code createMcpHandler} over
 * stateless Streamable HTTP on 127.0.0.1. The era is found by the probe on both transports, the SDK's
 * {@code inputRequired} is answered through a multi round-trip request, the list change comes on the listen
 * stream, and 2025-11-25 pinned is spoken as pinned. The checks are {@link EraPeer}'s, shared with the Python SDK's.
 */
class TypeScriptSdkIT {

    private static final EraPeer PEER = EraPeer.typescript();

    private final List<McpClient> clients = new ArrayList<>();
    private final List<AutoCloseable> servers = new ArrayList<>();

    @TempDir
    Path temp;

    @BeforeAll
    static void installed() {
        PEER.assertInstalled();
    }

    @AfterEach
    void closeAll() throws Exception {
        clients.forEach(McpClient::close);
        for (AutoCloseable server : servers) {
            server.close();
        }
        EraPeer.assertNoChildLeft();
    }

    private LoopbackServer httpServer() throws Exception {
        return httpServer(PEER::httpCommand);
    }

    private LoopbackServer httpServer(IntFunction<List<String>> command) throws Exception {
        LoopbackServer server = new LoopbackServer(command);
        servers.add(server);
        return server;
    }

    @Test
    void theModernEraIsChosenByItselfOverStdioWithInputRoundsAndTheListenStream() throws Exception {
        Path log = temp.resolve("sent.jsonl");
        CountDownLatch changed = new CountDownLatch(1);
        McpClient client = EraPeer.connect("ts", StdinLog.wrap(PEER.stdio(), log), EraPeer.options("ts", "Grace", changed),
                temp, clients);
        EraPeer.showsTheModernEra(client, changed, "stdio");
        client.close();
        // What the client sent, seen outside it: the probe and the listen request, no handshake, one retry of greet.
        assertEquals(List.of("server/discover", "subscriptions/listen", "tools/list", "tools/call", "tools/call",
                "tools/call", "tools/call", "tools/list"), StdinLog.methods(log), () -> log.toString());
    }

    @Test
    void aPinned2025VersionIsSpokenOverStdioAsPinned() throws Exception {
        Path log = temp.resolve("sent.jsonl");
        McpClient client = EraPeer.connect("ts", StdinLog.wrap(PEER.stdio(), log), EraPeer.pinned2025("ts"), temp, clients);
        // The SDK's legacy shim turns the handler's inputRequired into an elicitation/create request of its own.
        EraPeer.showsThePinnedHandshakeEra(client);
        client.close();
        List<String> sent = StdinLog.methods(log);
        assertEquals(List.of("initialize", "notifications/initialized"), sent.subList(0, 2), sent::toString);
        assertTrue(sent.contains("(response)"), "the elicitation was answered: " + sent);
        assertTrue(!sent.contains("server/discover"), sent::toString);
    }

    @Test
    void theModernEraIsChosenByItselfOverStatelessHttp() throws Exception {
        // The SDK writes an SSE comment (": keepalive") on open streams, every 100 ms here instead of every 15 s.
        LoopbackServer server = httpServer(port -> {
            List<String> command = new ArrayList<>(PEER.httpCommand(port));
            command.add("100");
            return command;
        });
        CountDownLatch changed = new CountDownLatch(1);
        McpClient client = EraPeer.connect("ts-http", EraPeer.http(server.port()),
                EraPeer.options("ts-http", "Grace", changed), temp, clients);
        // The listen stream gets a few keep-alive comments before anything else; it must stay open through them.
        Thread.sleep(500);
        // Each POST meets a new server instance; the change comes from the handler's bus on the listen POST's stream.
        EraPeer.showsTheModernEra(client, changed, server.output());
    }

    @Test
    void aPinned2025VersionIsSpokenOverStatelessHttpAsPinned() throws Exception {
        LoopbackServer server = httpServer();
        McpClient client = EraPeer.connect("ts-http", EraPeer.http(server.port()), EraPeer.pinned2025("ts-http"), temp,
                clients);
        assertEquals("2025-11-25", client.initializeResult().protocolVersion());
        assertEquals("42", EraPeer.text(client.callToolBlocking("add", EraPeer.args("{\"a\": 40, \"b\": 2}"))));
        // The SDK's stateless 2025 fallback serves each POST with a new instance, which cannot send the shim's
        // server request: it says so in a tool error (the Python SDK answers a JSON-RPC error), which shows the
        // pinned era was spoken.
        ToolResult greet = client.callToolBlocking("greet", McpJson.object());
        assertTrue(greet.isError(), EraPeer.text(greet));
        assertTrue(EraPeer.text(greet).contains("cannot receive server-to-client requests"), EraPeer.text(greet));
    }
}
