package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import mcp.api.Content;
import mcp.api.HttpServerConfig;
import mcp.api.McpJson;
import mcp.api.ServerConfig;
import mcp.api.SseServerConfig;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.manager.CallOptions;
import mcp.manager.ClientListener;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.manager.ProgressUpdate;
import mcp.manager.Root;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * mcp-host's HTTP transports against the official {@code server-everything} (npm), started by the test
 * in its {@code streamableHttp} and {@code sse} modes on 127.0.0.1 only (a preloaded
 * {@code interop/loopback.cjs} binds its listen calls to loopback), through the API and through the
 * jlink image's {@code mcp-host tools --json}.
 */
class HttpInteropIT {

    private static final Path INTEROP = Path.of(System.getProperty("mcp.interop.dir", "../interop")).toAbsolutePath();
    private static final Path IMAGE = Path.of(System.getProperty("mcp.cli.image", "../mcp.cli/target/image"))
            .toAbsolutePath().normalize();
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path temp;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    /** A server-everything process listening on 127.0.0.1. */
    private static final class Everything implements AutoCloseable {
        final Process process;
        final int port;
        final List<String> output = new CopyOnWriteArrayList<>();

        Everything(String mode) throws Exception {
            Path script = INTEROP.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
            Path loopback = INTEROP.resolve("loopback.cjs");
            assertTrue(Files.isRegularFile(script), script + " is missing: run interop/install.sh (mvn verify runs it)");
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort();
            }
            ProcessBuilder builder = new ProcessBuilder("node", "--require", loopback.toString(), script.toString(), mode);
            builder.environment().put("PORT", Integer.toString(port));
            process = builder.start();
            process.getOutputStream().close();
            CountDownLatch ready = new CountDownLatch(1);
            drain(process.getInputStream(), ready);
            drain(process.getErrorStream(), ready);
            if (!ready.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                close();
                fail("server-everything " + mode + " did not start listening within " + WAIT.toSeconds() + " s: " + output);
            }
        }

        private void drain(InputStream stream, CountDownLatch ready) {
            Thread thread = new Thread(() -> {
                try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = reader.readLine()) != null) {
                        output.add(line);
                        if (line.contains("listening on port " + port) || line.contains("running on port " + port)) {
                            ready.countDown();
                        }
                    }
                } catch (IOException e) {
                    // the process is gone
                }
            }, "everything-output");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            process.descendants().forEach(ProcessHandle::destroy);
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    private Everything everything(String mode) throws Exception {
        Everything server = new Everything(mode);
        resources.add(server);
        return server;
    }

    private McpClient connect(ServerConfig config, CountDownLatch listChanged) {
        TransportProvider provider = ServiceLoader.load(TransportProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.id().equals(config.type())).findFirst().orElseThrow();
        ClientOptions options = ClientOptions.builder("everything")
                .roots(List.of(Root.of(temp)))
                .listener(new ClientListener() {
                    @Override
                    public void onToolsListChanged() {
                        listChanged.countDown();
                    }
                })
                .build();
        McpClient client = McpClient.connectBlocking(provider.open(TransportRequest.of("everything", config, temp)), options);
        resources.add(client);
        return client;
    }

    private static String text(ToolResult result) {
        return result.content().stream().filter(Content.Text.class::isInstance).map(c -> ((Content.Text) c).text())
                .collect(Collectors.joining("\n"));
    }

    private static JsonNode args(String json) {
        return McpJson.mapper().readTree(json);
    }

    /** Lists, calls, gets progress, list_changed and a server request (roots/list) answered. */
    private void exercise(McpClient client, CountDownLatch listChanged) throws Exception {
        // With roots declared the server adds a tool after initialized and says so.
        assertTrue(listChanged.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "no tools/list_changed");
        List<String> names = client.listToolsBlocking().stream().map(ToolDefinition::name).toList();
        assertTrue(names.containsAll(List.of("echo", "get-sum", "get-tiny-image", "trigger-long-running-operation",
                "get-roots-list")), names.toString());

        assertEquals("Echo: hello", text(client.callToolBlocking("echo", args("{\"message\":\"hello\"}"))));
        assertEquals("The sum of 2 and 40 is 42.", text(client.callToolBlocking("get-sum", args("{\"a\":2,\"b\":40}"))));

        List<ProgressUpdate> progress = new CopyOnWriteArrayList<>();
        ToolResult longRun = McpClient.await(client.callTool("trigger-long-running-operation",
                args("{\"duration\":1,\"steps\":4}"),
                CallOptions.DEFAULT.withProgress(progress::add).withTimeout(Duration.ofSeconds(20))));
        assertFalse(longRun.isError(), text(longRun));
        assertEquals(List.of(1.0, 2.0, 3.0, 4.0), progress.stream().map(ProgressUpdate::progress).toList());

        // The server asked roots/list on its own; this tool shows what the client answered.
        String roots = text(client.callToolBlocking("get-roots-list", null));
        assertTrue(roots.contains(temp.toUri().toString().replaceAll("/$", "")), roots);
    }

    @Test
    void streamableHttp() throws Exception {
        Everything server = everything("streamableHttp");
        CountDownLatch listChanged = new CountDownLatch(1);
        McpClient client = connect(HttpServerConfig.of("http://127.0.0.1:" + server.port + "/mcp"), listChanged);
        // auto: the server/discover probe got the SDK's 400 "Server not initialized", so the handshake followed.
        assertEquals("2025-11-25", client.initializeResult().protocolVersion());
        exercise(client, listChanged);
        client.close();
        assertTrue(client.closeReason().orElseThrow().getMessage().endsWith("closed by client"));
    }

    @Test
    void legacySse() throws Exception {
        Everything server = everything("sse");
        CountDownLatch listChanged = new CountDownLatch(1);
        McpClient client = connect(SseServerConfig.of("http://127.0.0.1:" + server.port + "/sse"), listChanged);
        exercise(client, listChanged);
    }

    @Test
    void anHttpConfigReachesAnSseOnlyServerByTheFallback() throws Exception {
        Everything server = everything("sse");
        CountDownLatch listChanged = new CountDownLatch(1);
        McpClient client = connect(HttpServerConfig.of("http://127.0.0.1:" + server.port + "/sse"), listChanged);
        assertEquals("Echo: via fallback", text(client.callToolBlocking("echo", args("{\"message\":\"via fallback\"}"))));
    }

    @Test
    void theCliListsTheToolsOfAUrlServer() throws Exception {
        Everything server = everything("streamableHttp");
        Path launcher = IMAGE.resolve("bin/mcp-host");
        assertTrue(Files.isExecutable(launcher), launcher + " is missing: build mcp.cli (mvn package) first");
        Path home = Files.createDirectories(temp.resolve("home"));
        Path project = Files.createDirectories(temp.resolve("project"));
        Path config = temp.resolve("http.json");
        Files.writeString(config, """
                {"mcpServers": {"everything": {"url": "http://127.0.0.1:%d/mcp"}}}
                """.formatted(server.port));
        ProcessBuilder builder = new ProcessBuilder(launcher.toString(), "tools", "--json", "--config", config.toString())
                .directory(project.toFile());
        builder.environment().keySet().removeIf(name -> name.startsWith("XDG_"));
        builder.environment().put("HOME", home.toString());
        Process process = builder.start();
        process.getOutputStream().close();
        CompletableFuture<String> out = read(process.getInputStream());
        CompletableFuture<String> err = read(process.getErrorStream());
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("mcp-host tools did not finish within 120 s");
        }
        String stdout = out.get(10, TimeUnit.SECONDS);
        String stderr = err.get(10, TimeUnit.SECONDS);
        assertEquals(0, process.exitValue(), stdout + "\n" + stderr);
        JsonNode document = McpJson.mapper().readTree(stdout);
        assertEquals(Map.of(), McpJson.mapper().convertValue(document.get("errors"), Map.class), stdout);
        List<String> names = new ArrayList<>();
        document.get("tools").forEach(tool -> names.add(tool.get("name").asString()));
        assertTrue(names.containsAll(List.of("mcp_everything_echo", "mcp_everything_get_sum")), names.toString());
        assertTrue(document.get("tools").get(0).get("server").asString().equals("everything"), stdout);
    }

    private static CompletableFuture<String> read(InputStream stream) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }
}
