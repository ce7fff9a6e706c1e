package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mcp.api.HttpServerConfig;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.manager.ClientOptions;
import mcp.manager.ElicitationHandlers;
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

    private static final Path PYTHON = PythonSdkIT.PYTHON;
    private static final Path SERVER = PythonSdkIT.SERVER;

    private final List<McpClient> clients = new ArrayList<>();
    private final List<String> output = new CopyOnWriteArrayList<>();
    private Process process;
    private int port;

    @TempDir
    Path temp;

    @BeforeAll
    static void installed() {
        PythonSdkIT.installed();
    }

    @BeforeEach
    void startServer() throws Exception {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        process = new ProcessBuilder(PYTHON.toString(), SERVER.toString(), "http", Integer.toString(port))
                .redirectErrorStream(true).start();
        process.getOutputStream().close();
        drain(process.getInputStream());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (IOException notYet) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    stopServer();
                    fail("era_server.py http " + port + " did not listen within 30 s: " + output);
                }
                Thread.sleep(100);
            }
        }
    }

    private void drain(InputStream stream) {
        Thread thread = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    output.add(line);
                }
            } catch (IOException e) {
                // the process is gone
            }
        }, "python-http-output");
        thread.setDaemon(true);
        thread.start();
    }

    @AfterEach
    void stopServer() throws InterruptedException {
        clients.forEach(McpClient::close);
        clients.clear();
        if (process != null) {
            process.descendants().forEach(ProcessHandle::destroy);
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
            process = null;
        }
    }

    private McpClient connect(ClientOptions.Builder options) {
        TransportProvider http = ServiceLoader.load(TransportProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.id().equals("http")).findFirst().orElseThrow();
        HttpServerConfig config = HttpServerConfig.of("http://127.0.0.1:" + port + "/mcp");
        McpClient client = McpClient.connectBlocking(http.open(TransportRequest.of("py-http", config, temp)),
                options.build());
        clients.add(client);
        return client;
    }

    @Test
    void theModernEraIsChosenOverHttpWithInputRoundsAndTheListenStream() throws Exception {
        CountDownLatch changed = new CountDownLatch(1);
        // Over HTTP the input round is a second POST, and the list change comes on the listen POST's stream.
        PythonSdkIT.showsTheModernEra(connect(PythonSdkIT.options("py-http", "Grace", changed)), changed, output);
    }

    @Test
    void aPinned2025VersionIsSpokenOverHttpAsPinned() {
        McpClient client = connect(ClientOptions.builder("py-http").protocolVersion("2025-11-25")
                .handler(ClientOptions.ELICITATION_METHOD, ElicitationHandlers.accepting(params ->
                        McpJson.object().put("name", "Ada"))));
        assertEquals("2025-11-25", client.initializeResult().protocolVersion());
        assertEquals("42", PythonSdkIT.text(client.callToolBlocking("add", PythonSdkIT.args("{\"a\": 40, \"b\": 2}"))));
        // In the 2025 era the resolver becomes a server request, which a stateless 2025 HTTP server cannot send
        // (no session to route the answer to): the server says so, which shows the pinned era was spoken.
        McpProtocolException noBackChannel = assertThrows(McpProtocolException.class,
                () -> client.callToolBlocking("greet", McpJson.object()));
        assertTrue(noBackChannel.getMessage().contains("no back-channel"), noBackChannel.getMessage());
    }
}
