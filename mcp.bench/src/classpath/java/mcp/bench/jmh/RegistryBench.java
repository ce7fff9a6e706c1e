package mcp.bench.jmh;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcSuccess;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.manager.BridgedTool;
import mcp.manager.McpManager;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A registry refresh with 10,000 tools through the public API: {@link McpManager#refreshServerTools}
 * on a server whose in-process transport answers {@code tools/list} from pre-encoded pages of 1,000
 * tools (decoded by the codec on every delivery, as the stdio transport does). Measures listing,
 * decoding, tool parsing, naming and the new view.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class RegistryBench {

    static final int TOOLS = 10_000;
    static final int PAGE = 1_000;

    private McpManager manager;

    @Setup(Level.Trial)
    public void setup() {
        TransportProvider provider = new TransportProvider() {
            @Override
            public String id() {
                return "stdio";
            }

            @Override
            public Transport open(TransportRequest request) {
                return new PagedTransport();
            }
        };
        manager = McpManager.builder().transportProviders(List.of(provider)).build();
        manager.connectServers(Map.of("big", StdioServerConfig.of("in-process", List.of())), Map.of());
        if (manager.getTools().size() != TOOLS) {
            throw new IllegalStateException("expected " + TOOLS + " tools, got " + manager.getTools().size());
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        manager.close();
    }

    /** Re-lists the 10,000 tools and rebuilds the registry. */
    @Benchmark
    public List<BridgedTool> refresh10k() {
        return manager.refreshServerTools("big").join();
    }

    /** A transport that answers at once, on the caller's thread, from encoded bytes. */
    static final class PagedTransport implements Transport {
        private static final JsonRpcCodec CODEC = JsonRpcCodec.standard();
        private static final byte[][] PAGES = pages();
        private Listener listener;

        private static byte[][] pages() {
            byte[][] pages = new byte[TOOLS / PAGE][];
            for (int p = 0; p < pages.length; p++) {
                ObjectNode result = McpJson.object();
                ArrayNode tools = result.putArray("tools");
                for (int i = p * PAGE; i < (p + 1) * PAGE; i++) {
                    ObjectNode tool = tools.addObject().put("name", "tool_" + i)
                            .put("description", "Generated tool tool_" + i + "; answers with its name and the value argument.");
                    tool.putObject("inputSchema").put("type", "object").putObject("properties").putObject("value")
                            .put("type", "string");
                }
                if (p + 1 < pages.length) {
                    result.put("nextCursor", String.valueOf(p + 1));
                }
                // The id is patched per request below; encode once with a placeholder.
                pages[p] = CODEC.encode(new JsonRpcSuccess(mcp.api.jsonrpc.RequestId.of(0), result));
            }
            return pages;
        }

        @Override
        public void start(Listener listener) {
            this.listener = listener;
        }

        @Override
        public java.util.concurrent.CompletableFuture<Void> send(JsonRpcMessage message) {
            if (message instanceof JsonRpcRequest request) {
                JsonNode result;
                switch (request.method()) {
                    case "initialize" -> {
                        ObjectNode init = McpJson.object().put("protocolVersion", "2025-11-25");
                        init.putObject("capabilities").putObject("tools");
                        init.putObject("serverInfo").put("name", "in-process").put("version", "1");
                        result = init;
                    }
                    case "tools/list" -> {
                        JsonNode cursor = request.params() == null ? null : request.params().get("cursor");
                        int page = cursor == null ? 0 : Integer.parseInt(cursor.asString());
                        JsonRpcSuccess decoded = (JsonRpcSuccess) CODEC.decode(PAGES[page]);
                        result = decoded.result();
                    }
                    default -> result = McpJson.object();
                }
                listener.onMessage(new JsonRpcSuccess(request.id(), result));
            }
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }

        @Override
        public void close() {
            Listener l = listener;
            if (l != null) {
                l.onClose(new TransportClosedException("closed by client"));
            }
        }
    }
}
