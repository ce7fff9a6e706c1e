package mcp.bench.sdk;

import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.modern.McpSchema;
import io.modelcontextprotocol.modern.client.McpAsyncClient;
import io.modelcontextprotocol.modern.client.McpClient;
import io.modelcontextprotocol.modern.client.transport.StdioMcpClientTransport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import mcp.bench.BenchClient;
import mcp.bench.ClientRun;

/**
 * The official MCP Java SDK's client of the 2026-07-28 revision (package
 * {@code io.modelcontextprotocol.modern} of {@code io.modelcontextprotocol.sdk:mcp} 2.2.0): its async
 * client over its stdio transport. It speaks only the stateless revision: no {@code initialize}; "connect"
 * here is starting the transport (the server's spawn) and one {@code server/discover}, which is what
 * mcp-host's and the TypeScript SDK v2's connect send to such a server too. Class path, own process, like
 * {@link SdkClient}.
 */
public final class SdkModernClient implements BenchClient {

    private final List<String> command;
    private StdioMcpClientTransport transport;
    private McpAsyncClient client;
    private String protocolVersion;

    SdkModernClient(List<String> command) {
        this.command = List.copyOf(command);
    }

    /**
     * Runs the client workload; see {@link ClientRun}.
     *
     * @param args options, {@code --}, the server command
     */
    public static void main(String[] args) {
        ClientRun.main(args, "java-sdk-modern", SdkModernClient::new);
    }

    @Override
    public void connect() {
        ServerParameters parameters = ServerParameters.builder(command.get(0))
                .args(command.subList(1, command.size())).build();
        transport = StdioMcpClientTransport.builder(parameters).jsonMapper(McpJsonDefaults.getMapper())
                .stderrConsumer(line -> { }).start();
        client = McpClient.async(transport)
                .clientInfo(McpSchema.Implementation.builder("bench", "1").build())
                .callTimeout(Duration.ofSeconds(30))
                .build();
        McpSchema.DiscoverResult discover = client.discover().block(Duration.ofSeconds(60));
        // The client sends McpSchema.LATEST_PROTOCOL_VERSION in every request's envelope; the server must list it.
        if (discover != null && discover.supportedVersions().contains(McpSchema.LATEST_PROTOCOL_VERSION)) {
            protocolVersion = McpSchema.LATEST_PROTOCOL_VERSION;
        }
    }

    @Override
    public String protocolVersion() {
        return protocolVersion;
    }

    /** Every page, from the server each time ({@code skipCache}: never the client's tool catalog). */
    @Override
    public int listTools() {
        McpSchema.ListToolsResult all = client.listTools().skipCache().list().block(Duration.ofSeconds(30));
        if (all.nextCursor() != null) {
            throw new IllegalStateException("listTools() left a cursor: " + all.nextCursor());
        }
        return all.tools().size();
    }

    @Override
    public CompletableFuture<String> echo(String message) {
        return client.tool("echo").arguments(Map.of("message", message)).call()
                .map(SdkModernClient::text)
                .toFuture();
    }

    private static String text(McpSchema.CallToolResult result) {
        return !result.content().isEmpty() && result.content().get(0) instanceof McpSchema.TextContent text
                ? text.text() : "";
    }

    @Override
    public void close() {
        if (transport != null) {
            transport.close();
        }
    }
}
