package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * mcp-host's client against the same Python SDK server as {@link PythonSdkIT} ({@code interop/python/era_server.py},
 * {@code mcp} 2.3.0), served over stateless Streamable HTTP on 127.0.0.1: the probe finds 2026-07-28 over HTTP, the
 * input round and the listen stream work there, and a pinned 2025 version is spoken as pinned (the server is
 * stateless in that era too, so it has no channel for server requests).
 */
class PythonSdkHttpIT {

    private static final EraPeer PEER = EraPeer.python();

    private final List<McpClient> clients = new ArrayList<>();
    private LoopbackServer server;

    @TempDir
    Path temp;

    @BeforeAll
    static void installed() {
        PEER.assertInstalled();
    }

    @BeforeEach
    void startServer() throws Exception {
        server = new LoopbackServer(PEER::httpCommand);
    }

    @AfterEach
    void stopServer() throws InterruptedException {
        clients.forEach(McpClient::close);
        clients.clear();
        server.close();
    }

    private McpClient connect(ClientOptions.Builder options) {
        return EraPeer.connect("py-http", EraPeer.http(server.port()), options, temp, clients);
    }

    @Test
    void theModernEraIsChosenOverHttpWithInputRoundsAndTheListenStream() throws Exception {
        CountDownLatch changed = new CountDownLatch(1);
        // Over HTTP the input round is a second POST, and the list change comes on the listen POST's stream.
        EraPeer.showsTheModernEra(connect(EraPeer.options("py-http", "Grace", changed)), changed, server.output());
    }

    @Test
    void aPinned2025VersionIsSpokenOverHttpAsPinned() {
        McpClient client = connect(EraPeer.pinned2025("py-http"));
        assertEquals("2025-11-25", client.initializeResult().protocolVersion());
        assertEquals("42", EraPeer.text(client.callToolBlocking("add", EraPeer.args("{\"a\": 40, \"b\": 2}"))));
        // In the 2025 era the resolver becomes a server request, which a stateless 2025 HTTP server cannot send
        // (no session to route the answer to): the server says so, which shows the pinned era was spoken.
        McpProtocolException noBackChannel = assertThrows(McpProtocolException.class,
                () -> client.callToolBlocking("greet", McpJson.object()));
        assertTrue(noBackChannel.getMessage().contains("no back-channel"), noBackChannel.getMessage());
    }
}
