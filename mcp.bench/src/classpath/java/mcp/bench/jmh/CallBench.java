package mcp.bench.jmh;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import mcp.api.Content;
import mcp.api.McpJson;
import mcp.api.ToolResult;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcSuccess;
import mcp.api.spi.Transport;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What one {@code tools/call} costs mcp-host's client in each era, without a process or a pipe: {@link
 * McpClient#callToolBlocking} on an in-process transport that encodes every request as the stdio transport
 * writes it and answers with a decoded response as the stdio transport reads it, on the caller's thread. The
 * {@code era} parameter is the session's protocol version: {@code 2025-11-25} (handshake, plain params) or
 * {@code 2026-07-28} (the {@code _meta} envelope on every request; the answer carries {@code resultType} and
 * the server's info, as the TypeScript SDK v2 server's does).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CallBench {

    @Param({"2025-11-25", "2026-07-28"})
    public String era;

    private McpClient client;
    private final ObjectNode arguments = McpJson.object().put("message", "hello");

    @Setup(Level.Trial)
    public void setup() {
        client = McpClient.connectBlocking(new EchoTransport(era.equals(McpClient.MODERN_PROTOCOL_VERSION)),
                ClientOptions.builder("bench").protocolVersion(era).build());
        if (!client.initializeResult().protocolVersion().equals(era)) {
            throw new IllegalStateException("the session speaks " + client.initializeResult().protocolVersion());
        }
        if (!"hello".equals(call())) {
            throw new IllegalStateException("echo did not answer");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        client.close();
    }

    /** One blocking echo call, its request encoded and its response decoded. */
    @Benchmark
    public String call() {
        ToolResult result = client.callToolBlocking("echo", arguments);
        return result.content().get(0) instanceof Content.Text text ? text.text() : null;
    }

    /** Answers {@code server/discover}, {@code initialize} and {@code echo} at once, through the codec. */
    static final class EchoTransport implements Transport {
        private static final JsonRpcCodec CODEC = JsonRpcCodec.standard();
        private final boolean modern;
        private Listener listener;
        /** Where the encoded requests go, so that the encoding is not optimised away. */
        long bytesWritten;

        EchoTransport(boolean modern) {
            this.modern = modern;
        }

        @Override
        public boolean carriesModernEra() {
            return modern;
        }

        @Override
        public void start(Listener listener) {
            this.listener = listener;
        }

        @Override
        public CompletableFuture<Void> send(JsonRpcMessage message) {
            bytesWritten += CODEC.encode(message).length;
            if (message instanceof JsonRpcRequest request) {
                ObjectNode result = McpJson.object();
                switch (request.method()) {
                    case "server/discover" -> {
                        result.putArray("supportedVersions").add(McpClient.MODERN_PROTOCOL_VERSION);
                        result.putObject("capabilities").putObject("tools");
                    }
                    case "initialize" -> {
                        result.put("protocolVersion", request.params().path("protocolVersion").asString());
                        result.putObject("capabilities").putObject("tools");
                        result.putObject("serverInfo").put("name", "in-process").put("version", "1");
                    }
                    case "tools/call" -> {
                        JsonNode text = request.params().path("arguments").path("message");
                        result.putArray("content").addObject().put("type", "text").put("text", text.asString());
                        if (modern) {
                            result.put("resultType", "complete");
                            result.putObject("_meta").putObject("io.modelcontextprotocol/serverInfo")
                                    .put("name", "in-process").put("version", "1");
                        }
                    }
                    default -> { }
                }
                // Through bytes, as a real transport delivers it.
                listener.onMessage(CODEC.decode(CODEC.encode(new JsonRpcSuccess(request.id(), result))));
            }
            return CompletableFuture.completedFuture(null);
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
