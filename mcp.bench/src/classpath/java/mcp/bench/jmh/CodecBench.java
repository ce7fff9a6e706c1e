package mcp.bench.jmh;

import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import mcp.api.ToolResult;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcSuccess;
import mcp.api.jsonrpc.RequestId;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** JSON-RPC encode and decode of typical MCP messages with mcp-host's codec. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CodecBench {

    private final JsonRpcCodec codec = JsonRpcCodec.standard();
    private JsonRpcRequest callRequest;
    private byte[] callResponse;
    private byte[] listPage;
    private long id;

    @Setup
    public void setup() {
        ObjectNode params = McpJson.object().put("name", "echo");
        params.putObject("arguments").put("message", "hello from the benchmark");
        callRequest = new JsonRpcRequest(RequestId.of(42), "tools/call", params);
        ObjectNode result = McpJson.object();
        result.putArray("content").addObject().put("type", "text").put("text", "hello from the benchmark");
        callResponse = codec.encode(new JsonRpcSuccess(RequestId.of(42), result));
        ObjectNode page = McpJson.object();
        ArrayNode tools = page.putArray("tools");
        for (int i = 0; i < 100; i++) {
            ObjectNode tool = tools.addObject().put("name", "tool_" + i)
                    .put("description", "Generated tool tool_" + i + "; answers with its name and the value argument.");
            ObjectNode schema = tool.putObject("inputSchema").put("type", "object");
            schema.putObject("properties").putObject("value").put("type", "string");
        }
        page.put("nextCursor", "100");
        listPage = codec.encode(new JsonRpcSuccess(RequestId.of(7), page));
    }

    /** A {@code tools/call} request to bytes (what every call sends). */
    @Benchmark
    public byte[] encodeCallRequest() {
        return codec.encode(new JsonRpcRequest(RequestId.of(++id), callRequest.method(), callRequest.params()));
    }

    /** A {@code tools/call} response from bytes (what every call receives). */
    @Benchmark
    public JsonRpcMessage decodeCallResponse() {
        return codec.decode(callResponse);
    }

    /** A {@code tools/call} response from bytes to the {@link ToolResult} a caller gets. */
    @Benchmark
    public ToolResult decodeCallResult() {
        return ToolResult.fromJson(((JsonRpcSuccess) codec.decode(callResponse)).result());
    }

    /** One {@code tools/list} page of 100 tools from bytes. */
    @Benchmark
    public JsonRpcMessage decodeListPage() {
        return codec.decode(listPage);
    }

}
