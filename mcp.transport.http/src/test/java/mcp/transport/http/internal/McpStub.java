package mcp.transport.http.internal;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.api.McpJson;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcSuccess;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A small Streamable HTTP MCP server for the tests: sessions (one per initialize, ids {@code s1},
 * {@code s2}, ...), {@code tools/list} with one tool, {@code tools/call} that echoes, replies as JSON or
 * SSE, no GET stream (405) unless a GET handler is set; any method can be overridden.
 */
final class McpStub implements TestHttpServer.Handler {

    /** Answers one request in place of the default. */
    @FunctionalInterface
    interface Responder {
        void respond(TestHttpServer.Call call, JsonRpcRequest request) throws Exception;
    }

    final AtomicInteger sessions = new AtomicInteger();
    final Set<String> live = ConcurrentHashMap.newKeySet();
    final Map<String, Responder> overrides = new ConcurrentHashMap<>();
    volatile boolean sseReplies;
    volatile TestHttpServer.Handler get = call -> call.status(405);

    @Override
    public void handle(TestHttpServer.Call call) throws Exception {
        switch (call.method()) {
            case "GET" -> get.handle(call);
            case "DELETE" -> {
                live.remove(call.header("Mcp-Session-Id"));
                call.status(200);
            }
            case "POST" -> post(call);
            default -> call.status(405);
        }
    }

    /** Forgets every session: the next request with one gets 404. */
    void expireAll() {
        live.clear();
    }

    private void post(TestHttpServer.Call call) throws Exception {
        JsonRpcMessage message = call.message();
        if (message instanceof JsonRpcRequest request && request.method().equals("initialize")) {
            Responder override = overrides.get("initialize");
            if (override != null) {
                override.respond(call, request);
                return;
            }
            String session = "s" + sessions.incrementAndGet();
            live.add(session);
            ObjectNode result = McpJson.object().put("protocolVersion",
                    request.params().path("protocolVersion").asString("2025-11-25"));
            result.putObject("capabilities").putObject("tools").put("listChanged", true);
            result.putObject("serverInfo").put("name", "stub").put("version", "1");
            reply(call, request, result, Map.of("Mcp-Session-Id", session));
            return;
        }
        String session = call.header("Mcp-Session-Id");
        if (session == null) {
            call.status(400, "{\"error\":\"missing session\"}", Map.of("Content-Type", "application/json"));
            return;
        }
        if (!live.contains(session)) {
            call.status(404, "{\"error\":\"unknown session\"}", Map.of("Content-Type", "application/json"));
            return;
        }
        if (!(message instanceof JsonRpcRequest request)) {
            call.status(202);
            return;
        }
        Responder override = overrides.get(request.method());
        if (override != null) {
            override.respond(call, request);
            return;
        }
        switch (request.method()) {
            case "tools/list" -> {
                ObjectNode result = McpJson.object();
                result.putArray("tools").addObject().put("name", "echo").putObject("inputSchema").put("type", "object");
                reply(call, request, result, Map.of());
            }
            case "tools/call" -> {
                ObjectNode result = McpJson.object();
                result.putArray("content").addObject().put("type", "text")
                        .put("text", "Echo: " + request.params().path("arguments").path("message").asString(""));
                reply(call, request, result, Map.of());
            }
            default -> reply(call, request, McpJson.object(), Map.of());
        }
    }

    void reply(TestHttpServer.Call call, JsonRpcRequest request, JsonNode result, Map<String, String> headers)
            throws Exception {
        String json = JsonRpcCodec.standard().encodeToString(new JsonRpcSuccess(request.id(), result));
        if (sseReplies) {
            call.sse(headers).priming("p-" + request.id(), null).event("r-" + request.id(), json);
        } else {
            call.json(200, json, headers);
        }
    }
}
