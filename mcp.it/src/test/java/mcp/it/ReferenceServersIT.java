package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import mcp.api.Content;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.api.spi.Providers;
import mcp.api.spi.ToolCache;
import mcp.api.spi.ToolCacheProvider;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.manager.CallOptions;
import mcp.manager.ClientListener;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.manager.McpManager;
import mcp.manager.ProgressUpdate;
import mcp.manager.Root;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * mcp-host's client and stdio transport against the official reference servers, which nobody on
 * this team wrote, installed from npm at pinned versions by {@code interop/install.sh}.
 */
class ReferenceServersIT {

    private static final Path INTEROP = Path.of(System.getProperty("mcp.interop.dir", "../interop")).toAbsolutePath();

    private final List<McpClient> clients = new ArrayList<>();

    @TempDir
    Path temp;

    @AfterEach
    void closeAll() throws InterruptedException {
        clients.forEach(McpClient::close);
        long deadline = System.nanoTime() + 3_000_000_000L;
        while (ProcessHandle.current().descendants().anyMatch(ProcessHandle::isAlive)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("a server process outlived its client: "
                        + ProcessHandle.current().descendants().map(p -> p.info().command().orElse("?")).toList());
            }
            Thread.sleep(50);
        }
    }

    private static Path server(String name) {
        Path script = INTEROP.resolve("node_modules/@modelcontextprotocol/" + name + "/dist/index.js");
        assertTrue(Files.isRegularFile(script), script + " is missing: run interop/install.sh (mvn verify runs it)");
        return script;
    }

    private McpClient connect(String name, StdioServerConfig config, ClientOptions.Builder options) {
        TransportProvider stdio = ServiceLoader.load(TransportProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.id().equals("stdio")).findFirst().orElseThrow();
        McpClient client = McpClient.connectBlocking(
                stdio.open(TransportRequest.of(name, config, temp)), options.build());
        clients.add(client);
        return client;
    }

    private static JsonNode args(String json) {
        return McpJson.mapper().readTree(json);
    }

    private static String text(ToolResult result) {
        return result.content().stream().filter(Content.Text.class::isInstance).map(c -> ((Content.Text) c).text())
                .collect(Collectors.joining("\n"));
    }

    @Test
    void everythingServer() throws Exception {
        CountDownLatch listChanged = new CountDownLatch(1);
        ClientOptions.Builder options = ClientOptions.builder("everything")
                .roots(List.of(Root.of(temp)))
                .listener(new ClientListener() {
                    @Override
                    public void onToolsListChanged() {
                        listChanged.countDown();
                    }
                });
        McpClient client = connect("everything",
                StdioServerConfig.of("node", List.of(server("server-everything").toString(), "stdio")), options);
        assertEquals("2025-11-25", client.initializeResult().protocolVersion());

        // With roots declared the server adds tools after initialized and says so.
        assertTrue(listChanged.await(10, TimeUnit.SECONDS), "no tools/list_changed");
        List<String> names = client.listToolsBlocking().stream().map(ToolDefinition::name).toList();
        assertTrue(names.containsAll(List.of("echo", "get-sum", "get-tiny-image", "get-structured-content",
                "trigger-long-running-operation", "get-roots-list")), names.toString());

        assertEquals("Echo: hello", text(client.callToolBlocking("echo", args("{\"message\":\"hello\"}"))));
        assertEquals("The sum of 2 and 40 is 42.", text(client.callToolBlocking("get-sum", args("{\"a\":2,\"b\":40}"))));

        List<ProgressUpdate> progress = new CopyOnWriteArrayList<>();
        ToolResult longRun = McpClient.await(client.callTool("trigger-long-running-operation",
                args("{\"duration\":1,\"steps\":4}"),
                CallOptions.DEFAULT.withProgress(progress::add).withTimeout(Duration.ofSeconds(20))));
        assertFalse(longRun.isError(), text(longRun));
        assertEquals(List.of(1.0, 2.0, 3.0, 4.0), progress.stream().map(ProgressUpdate::progress).toList());

        // The server asked roots/list on its own after initialized; this tool shows what we answered.
        String roots = text(client.callToolBlocking("get-roots-list", null));
        assertTrue(roots.contains(temp.toUri().toString().replaceAll("/$", "")), roots);
    }

    /**
     * server-everything is of the handshake era only: with {@code protocolVersion} {@code auto} the first start
     * probes it with {@code server/discover} and falls back to {@code initialize}; the verdict lands in the tool cache
     * with the tools, and a warm start from that cache sends no probe. What the client sent is read from outside it:
     * the server runs under {@code interop/stdin-log.sh}, which copies its stdin into a file.
     */
    @Test
    void everythingServerIsFoundByTheProbeAndAWarmStartSendsNone() throws Exception {
        Path log = temp.resolve("sent.jsonl");
        Path cacheDir = Files.createDirectory(temp.resolve("cache"));
        StdioServerConfig config = StdinLog.wrap(
                StdioServerConfig.of("node", List.of(server("server-everything").toString(), "stdio")), log);
        assertEquals("auto", config.protocolVersion());
        ToolCacheProvider file = Providers.load(ToolCacheProvider.class, getClass().getClassLoader()).stream()
                .filter(p -> p.id().equals("file")).findFirst().orElseThrow();
        ToolCache cache = file.open(new ToolCacheProvider.Settings(Optional.of(cacheDir), temp, Map.of(),
                Duration.ofDays(1)));
        TransportProvider stdio = ServiceLoader.load(TransportProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.id().equals("stdio")).findFirst().orElseThrow();

        try (McpManager cold = McpManager.builder().transportProviders(List.of(stdio)).toolCache(cache).build()) {
            assertEquals(Map.of(), cold.connectServers(Map.of("everything", config), Map.of()).errors());
            McpClient client = cold.waitForConnection("everything").join();
            assertEquals("2025-11-25", client.initializeResult().protocolVersion());
            assertEquals("Echo: cold", text(client.callToolBlocking("echo", args("{\"message\":\"cold\"}"))));
        }
        List<String> first = StdinLog.methods(log);
        assertEquals(List.of("server/discover", "initialize", "notifications/initialized"), first.subList(0, 3),
                first::toString);
        JsonNode entry = McpJson.mapper().readTree(Files.readString(cacheDir.resolve("everything.json")));
        assertEquals("2025-11-25", entry.path("protocolVersion").asString(), "the verdict is cached: " + entry);
        assertTrue(entry.path("tools").size() > 0, "the tools are cached: " + entry);

        try (McpManager warm = McpManager.builder().transportProviders(List.of(stdio)).toolCache(cache).build()) {
            assertEquals(Map.of(), warm.connectServers(Map.of("everything", config), Map.of()).errors());
            McpClient client = warm.waitForConnection("everything").join();
            assertEquals("2025-11-25", client.initializeResult().protocolVersion());
            assertEquals("Echo: warm", text(client.callToolBlocking("echo", args("{\"message\":\"warm\"}"))));
        }
        List<String> second = StdinLog.methods(log);
        assertEquals("initialize", second.get(0), second::toString);
        assertFalse(second.contains("server/discover"), "a warm start sends no probe: " + second);
    }

    @Test
    void filesystemServer() throws IOException {
        Files.writeString(temp.resolve("notes.txt"), "line one\nline two\n");
        Files.createDirectory(temp.resolve("sub"));
        McpClient client = connect("fs", StdioServerConfig.of("node",
                List.of(server("server-filesystem").toString(), temp.toString())), ClientOptions.builder("fs"));
        List<String> names = client.listToolsBlocking().stream().map(ToolDefinition::name).toList();
        assertTrue(names.containsAll(List.of("list_directory", "read_text_file")), names.toString());

        String listing = text(client.callToolBlocking("list_directory",
                McpJson.object().put("path", temp.toString())));
        assertTrue(listing.contains("[FILE] notes.txt") && listing.contains("[DIR] sub"), listing);
        String content = text(client.callToolBlocking("read_text_file",
                McpJson.object().put("path", temp.resolve("notes.txt").toString())));
        assertEquals("line one\nline two\n", content);

        ToolResult outside = client.callToolBlocking("read_text_file", McpJson.object().put("path", "/etc/hostname"));
        assertTrue(outside.isError(), "reading outside the allowed directory must be refused: " + text(outside));
    }

    @Test
    void memoryServer() throws IOException {
        Path memory = temp.resolve("memory.jsonl");
        StdioServerConfig config = StdioServerConfig.of("node", List.of(server("server-memory").toString()))
                .withEnv(Map.of("MEMORY_FILE_PATH", memory.toString()));
        McpClient client = connect("memory", config, ClientOptions.builder("memory"));
        client.callToolBlocking("create_entities", args("{\"entities\":[{\"name\":\"mcp-host\","
                + "\"entityType\":\"project\",\"observations\":[\"runs MCP servers on the JVM\"]}]}"));
        String graph = text(client.callToolBlocking("read_graph", null));
        assertTrue(graph.contains("mcp-host") && graph.contains("runs MCP servers on the JVM"), graph);
        assertTrue(Files.readString(memory).contains("mcp-host"), "the server wrote its file where we told it");
    }
}
