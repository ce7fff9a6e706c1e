package mcp.bench.internal;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.api.ToolResult;
import mcp.api.Content;
import mcp.api.spi.Providers;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.bench.BenchClient;
import mcp.bench.ClientRun;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;

/**
 * mcp-host's client: {@link McpClient} over the {@code stdio} transport, found through
 * {@link Providers} and {@link java.util.ServiceLoader} as the host finds it, with default options (so the
 * era is {@code auto}: a server of the 2026-07-28 revision is spoken to statelessly, one of 2025 with the
 * handshake); or a session opened another way ({@link GatewayClient}'s, to a gateway's URL).
 */
public final class HostClient implements BenchClient {

    private final Supplier<McpClient> connector;
    private McpClient client;

    HostClient(List<String> command) {
        List<String> server = List.copyOf(command);
        this.connector = () -> McpClient.connectBlocking(stdio().open(TransportRequest.of("bench",
                StdioServerConfig.of(server.get(0), server.subList(1, server.size())), Path.of("").toAbsolutePath())),
                ClientOptions.builder("bench").build());
    }

    /** @param connector how the session is opened (another transport, or options of its own) */
    HostClient(Supplier<McpClient> connector) {
        this.connector = connector;
    }

    /**
     * Runs the client workload; see {@link ClientRun}.
     *
     * @param args options, {@code --}, the server command
     */
    public static void main(String[] args) {
        ClientRun.main(args, "mcp-host", HostClient::new);
    }

    /** @return the stdio transport provider, looked up like the host does */
    static TransportProvider stdio() {
        List<TransportProvider> found = Providers.load(TransportProvider.class, HostClient.class.getClassLoader());
        return Providers.require(TransportProvider.class,
                Providers.byId(TransportProvider.class, found, TransportProvider::id), "stdio");
    }

    @Override
    public void connect() {
        client = connector.get();
    }

    /** @return the version of the session: 2026-07-28 when {@code auto} found the stateless era */
    @Override
    public String protocolVersion() {
        return client.initializeResult().protocolVersion();
    }

    @Override
    public int listTools() {
        return client.listToolsBlocking().size();
    }

    @Override
    public CompletableFuture<String> echo(String message) {
        return client.callTool("echo", McpJson.object().put("message", message)).thenApply(HostClient::text);
    }

    /** {@link McpClient#callToolBlocking}: the response completes the wait on the reader thread. */
    @Override
    public String echoBlocking(String message) {
        return text(client.callToolBlocking("echo", McpJson.object().put("message", message)));
    }

    /** @return the text of the result's first content item, or {@code null} */
    static String text(ToolResult result) {
        return !result.content().isEmpty() && result.content().get(0) instanceof Content.Text text ? text.text() : null;
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
    }
}
