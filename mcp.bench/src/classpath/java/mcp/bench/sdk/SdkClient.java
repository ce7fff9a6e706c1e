package mcp.bench.sdk;

import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import mcp.bench.BenchClient;
import mcp.bench.ClientRun;

/**
 * The official MCP Java SDK's client ({@code io.modelcontextprotocol.sdk:mcp}): its async client over
 * its stdio transport, used as its documentation shows. The SDK has no module descriptor, so this
 * runs on the class path in its own process.
 */
public final class SdkClient implements BenchClient {

    private final List<String> command;
    private McpAsyncClient client;

    SdkClient(List<String> command) {
        this.command = List.copyOf(command);
    }

    /**
     * Runs the client workload; see {@link ClientRun}.
     *
     * @param args options, {@code --}, the server command
     */
    public static void main(String[] args) {
        ClientRun.main(args, "java-sdk", SdkClient::new);
    }

    /** @return a new async client for the server command; not initialized */
    static McpAsyncClient newClient(List<String> command) {
        ServerParameters parameters = ServerParameters.builder(command.get(0))
                .args(command.subList(1, command.size())).build();
        StdioClientTransport transport = new StdioClientTransport(parameters, McpJsonDefaults.getMapper());
        transport.setStdErrorHandler(line -> { });
        return McpClient.async(transport)
                .clientInfo(new McpSchema.Implementation("bench", "1"))
                .requestTimeout(Duration.ofSeconds(30))
                .initializationTimeout(Duration.ofSeconds(30))
                .build();
    }

    @Override
    public void connect() {
        client = newClient(command);
        client.initialize().block(Duration.ofSeconds(60));
    }

    @Override
    public String protocolVersion() {
        McpSchema.InitializeResult result = client.getCurrentInitializationResult();
        return result == null ? null : result.protocolVersion();
    }

    @Override
    public int listTools() {
        int count = 0;
        String cursor = null;
        do {
            McpSchema.ListToolsResult page = client.listTools(cursor).block(Duration.ofSeconds(30));
            count += page.tools().size();
            cursor = page.nextCursor();
        } while (cursor != null);
        return count;
    }

    @Override
    public CompletableFuture<String> echo(String message) {
        return client.callTool(new McpSchema.CallToolRequest("echo", Map.of("message", message)))
                .map(SdkClient::text)
                .toFuture();
    }

    private static String text(McpSchema.CallToolResult result) {
        return !result.content().isEmpty() && result.content().get(0) instanceof McpSchema.TextContent text
                ? text.text() : "";
    }

    @Override
    public void close() {
        if (client != null) {
            client.closeGracefully().block(Duration.ofSeconds(10));
        }
    }
}
