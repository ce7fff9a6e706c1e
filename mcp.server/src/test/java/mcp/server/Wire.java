package mcp.server;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import mcp.api.McpJson;
import mcp.protocol.SseEvent;
import mcp.protocol.SseParser;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** A plain HTTP client of the server for the tests: raw requests, the answers as JSON or as their SSE events. */
final class Wire {

    static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    /** An answer: status, headers, and the JSON-RPC messages it carried (one for JSON, each event for SSE). */
    record Reply(int status, Map<String, String> headers, String body, List<JsonNode> messages) {
        JsonNode last() {
            return messages.get(messages.size() - 1);
        }

        String header(String name) {
            return headers.get(name.toLowerCase(java.util.Locale.ROOT));
        }
    }

    private Wire() {
    }

    static JsonNode json(String text) {
        return McpJson.mapper().readTree(text);
    }

    /** The envelope of a stateless request, as the conformance suite sends it. */
    static ObjectNode stateless(String paramsJson, String capabilities) {
        ObjectNode params = (ObjectNode) json(paramsJson);
        ObjectNode meta = params.putObject("_meta");
        meta.put("io.modelcontextprotocol/protocolVersion", "2026-07-28");
        meta.set("io.modelcontextprotocol/clientCapabilities", json(capabilities));
        meta.putObject("io.modelcontextprotocol/clientInfo").put("name", "test").put("version", "1");
        return params;
    }

    static String request(Object id, String method, JsonNode params) {
        ObjectNode message = McpJson.object().put("jsonrpc", "2.0").put("method", method);
        if (id instanceof Number number) {
            message.put("id", number.longValue());
        } else {
            message.put("id", String.valueOf(id));
        }
        if (params != null) {
            message.set("params", params);
        }
        return message.toString();
    }

    static Map<String, String> headers(String... pairs) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            map.put(pairs[i], pairs[i + 1]);
        }
        return map;
    }

    /** The standard headers of a stateless request. */
    static Map<String, String> statelessHeaders(String method, String name) {
        Map<String, String> headers = headers("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method);
        if (name != null) {
            headers.put("Mcp-Name", name);
        }
        return headers;
    }

    static Reply post(URI uri, String body, Map<String, String> headers) throws IOException, InterruptedException {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(TIMEOUT)
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(builder::setHeader);
        return send(builder.build());
    }

    static Reply send(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<byte[]> response = CLIENT.send(request, HttpResponse.BodyHandlers.ofByteArray());
        Map<String, String> headers = new LinkedHashMap<>();
        response.headers().map().forEach((key, values) -> headers.put(key.toLowerCase(java.util.Locale.ROOT),
                values.get(0)));
        String body = new String(response.body(), UTF_8);
        List<JsonNode> messages = new ArrayList<>();
        String type = headers.getOrDefault("content-type", "");
        if (type.startsWith("text/event-stream")) {
            List<SseEvent> events = new ArrayList<>();
            SseParser parser = new SseParser(1 << 24, events::add);
            try {
                parser.feed(response.body());
            } catch (SseParser.TooLargeException e) {
                throw new IOException(e);
            }
            events.forEach(event -> messages.add(json(event.text())));
        } else if (type.startsWith("application/json") && !body.isEmpty()) {
            messages.add(json(body));
        }
        return new Reply(response.statusCode(), headers, body, messages);
    }

    /** Initializes a session of the handshake era; returns its id. */
    static String initialize(URI uri, String capabilities) throws IOException, InterruptedException {
        Reply reply = post(uri, request(0, "initialize", json("{\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
                + capabilities + ",\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}")), Map.of());
        if (reply.status() != 200) {
            throw new IOException("initialize failed: " + reply);
        }
        String session = reply.header("Mcp-Session-Id");
        post(uri, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", headers("Mcp-Session-Id", session,
                "MCP-Protocol-Version", "2025-11-25"));
        return session;
    }

    static Map<String, String> session(String id) {
        return headers("Mcp-Session-Id", id, "MCP-Protocol-Version", "2025-11-25");
    }
}
