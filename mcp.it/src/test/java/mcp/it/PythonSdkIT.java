package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import mcp.api.Content;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.manager.ClientListener;
import mcp.manager.ClientOptions;
import mcp.manager.ElicitationHandlers;
import mcp.manager.McpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * mcp-host's client against a server on the MCP Python SDK ({@code mcp} 2.3.0, pinned in
 * {@code interop/python/requirements.txt}, installed into a virtual environment by {@code interop/install.sh}),
 * which speaks the stateless 2026-07-28 revision and the 2025 handshake: the era is found by the probe, and a
 * pinned 2025 version is spoken as pinned. Its script is {@code interop/python/era_server.py}.
 */
class PythonSdkIT {

    static final Path INTEROP = Path.of(System.getProperty("mcp.interop.dir", "../interop")).toAbsolutePath();
    static final Path PYTHON = INTEROP.resolve("python/venv/bin/python");
    static final Path SERVER = INTEROP.resolve("python/era_server.py");

    private final List<McpClient> clients = new ArrayList<>();

    @TempDir
    Path temp;

    @BeforeAll
    static void installed() {
        assertTrue(Files.isExecutable(PYTHON), PYTHON + " is missing: run interop/install.sh (mvn verify runs it)");
        assertTrue(Files.isRegularFile(SERVER), SERVER + " is missing");
    }

    @AfterEach
    void closeAll() throws InterruptedException {
        clients.forEach(McpClient::close);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (ProcessHandle.current().descendants().anyMatch(ProcessHandle::isAlive)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("a server process outlived its client: "
                        + ProcessHandle.current().descendants().map(p -> p.info().command().orElse("?")).toList());
            }
            Thread.sleep(50);
        }
    }

    private McpClient connect(ClientOptions.Builder options) {
        TransportProvider stdio = ServiceLoader.load(TransportProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.id().equals("stdio")).findFirst().orElseThrow();
        StdioServerConfig config = StdioServerConfig.of(PYTHON.toString(), List.of(SERVER.toString()));
        McpClient client = McpClient.connectBlocking(stdio.open(TransportRequest.of("py", config, temp)), options.build());
        clients.add(client);
        return client;
    }

    static String text(ToolResult result) {
        return result.content().stream().filter(Content.Text.class::isInstance).map(c -> ((Content.Text) c).text())
                .collect(Collectors.joining("\n"));
    }

    static JsonNode args(String json) {
        return McpJson.mapper().readTree(json);
    }

    /** Options that answer the server's elicitation with this name, and count down on a tool list change. */
    static ClientOptions.Builder options(String server, String name, CountDownLatch changed) {
        return ClientOptions.builder(server)
                .handler(ClientOptions.ELICITATION_METHOD, ElicitationHandlers.accepting(params ->
                        McpJson.object().put("name", name)))
                .listener(new ClientListener() {
                    @Override
                    public void onToolsListChanged() {
                        changed.countDown();
                    }
                });
    }

    /**
     * What the server shows in the stateless era, over either transport: 2026-07-28 chosen by the probe, tools
     * listed and called, the name asked in an input_required result and given in the retry ("Grace"), and the
     * tool list change after grow on the subscriptions/listen stream.
     */
    static void showsTheModernEra(McpClient client, CountDownLatch changed, Object diagnostics) throws Exception {
        assertEquals("2026-07-28", client.initializeResult().protocolVersion());
        assertEquals("era-server", client.initializeResult().serverName());
        List<String> names = client.listToolsBlocking().stream().map(ToolDefinition::name).toList();
        assertTrue(names.containsAll(List.of("add", "greet", "grow")), names.toString());
        assertEquals("42", text(client.callToolBlocking("add", args("{\"a\": 40, \"b\": 2}"))));
        assertEquals("hello Grace", text(client.callToolBlocking("greet", McpJson.object())));
        assertEquals("grown", text(client.callToolBlocking("grow", McpJson.object())));
        assertTrue(changed.await(10, TimeUnit.SECONDS), "no tools/list_changed on the listen stream: " + diagnostics);
        assertTrue(client.listToolsBlocking().stream().anyMatch(t -> t.name().equals("extra")));
    }

    @Test
    void theModernEraIsChosenByItselfWithInputRoundsAndListChanges() throws Exception {
        CountDownLatch changed = new CountDownLatch(1);
        showsTheModernEra(connect(options("py", "Grace", changed)), changed, "stdio");
    }

    @Test
    void aPinned2025VersionIsSpokenAsPinned() {
        McpClient client = connect(ClientOptions.builder("py").protocolVersion("2025-11-25")
                .handler(ClientOptions.ELICITATION_METHOD, ElicitationHandlers.accepting(params ->
                        McpJson.object().put("name", "Ada"))));
        assertEquals("2025-11-25", client.initializeResult().protocolVersion());
        assertEquals("42", text(client.callToolBlocking("add", args("{\"a\": 40, \"b\": 2}"))));
        // In the handshake era the same resolver becomes a server request, answered by the same handler.
        assertEquals("hello Ada", text(client.callToolBlocking("greet", McpJson.object())));
    }
}
