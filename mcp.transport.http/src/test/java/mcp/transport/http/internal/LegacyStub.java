package mcp.transport.http.internal;

import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcSuccess;
import tools.jackson.databind.node.ObjectNode;

/**
 * A legacy HTTP+SSE MCP server for the tests: GET {@code /sse} opens the stream and names
 * {@code /messages?sessionId=abc} in its {@code endpoint} event; POSTs there get 202 and their replies
 * go out on the stream. Any other request gets {@link #otherwise} (405 by default), so it can stand
 * behind a Streamable HTTP URL for the fallback.
 */
final class LegacyStub implements TestHttpServer.Handler {

    private static final String END = "\u0000end";

    final BlockingQueue<String> outgoing = new LinkedBlockingQueue<>();
    volatile String ssePath = "/sse";
    volatile String endpoint = "/messages?sessionId=abc";
    volatile boolean sendEndpoint = true;
    volatile TestHttpServer.Handler otherwise = call -> call.status(405);

    @Override
    public void handle(TestHttpServer.Call call) throws Exception {
        if (call.method().equals("GET") && call.request.path().equals(ssePath)) {
            TestHttpServer.Sse sse = call.sse(Map.of());
            if (sendEndpoint) {
                sse.raw("event: endpoint\ndata: " + endpoint + "\n\n");
            }
            while (true) {
                String next = outgoing.poll(60, TimeUnit.SECONDS);
                if (next == null || next.equals(END)) {
                    return;
                }
                sse.raw("event: message\ndata: " + next + "\n\n");
            }
        }
        if (call.method().equals("POST") && call.request.path().equals("/messages")) {
            if (!"sessionId=abc".equals(call.request.query())) {
                call.status(404, "Session not found", Map.of());
                return;
            }
            JsonRpcMessage message = call.message();
            call.status(202, "Accepted", Map.of());
            if (message instanceof JsonRpcRequest request) {
                ObjectNode result = McpJson.object();
                switch (request.method()) {
                    case "initialize" -> {
                        result.put("protocolVersion", "2024-11-05");
                        result.putObject("capabilities").putObject("tools");
                        result.putObject("serverInfo").put("name", "legacy").put("version", "1");
                    }
                    case "tools/list" -> result.putArray("tools").addObject().put("name", "legacy-echo")
                            .putObject("inputSchema").put("type", "object");
                    default -> {
                    }
                }
                outgoing.add(JsonRpcCodec.standard().encodeToString(new JsonRpcSuccess(request.id(), result)));
            }
            return;
        }
        otherwise.handle(call);
    }

    /** Ends the SSE stream gracefully. */
    void endStream() {
        outgoing.add(END);
    }
}
