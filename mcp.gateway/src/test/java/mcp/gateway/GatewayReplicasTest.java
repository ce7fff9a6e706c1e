package mcp.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import mcp.host.LoadResult;
import mcp.host.McpHost;
import mcp.server.HttpOptions;
import mcp.server.McpServer;
import mcp.server.ReplicaKeys;
import mcp.server.ServerLimits;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Two gateways that share keys, as two replicas behind a balancer, each with its own upstream server: a 2026-07-28
 * call whose upstream asks a question is answered {@code input_required} by one, and its retry, sent to the other,
 * calls the upstream tool again there with the answer the retry brings; the first replica's upstream call is
 * cancelled when its input wait runs out.
 */
class GatewayReplicasTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @TempDir
    Path temp;

    private final Opened open = new Opened();

    @AfterEach
    void closeAll() throws Exception {
        open.closeAll();
        Opened.awaitNoServerProcess();
    }

    private URI replica(String name, ReplicaKeys keys, Path callLog, Path cancelLog) throws Exception {
        List<String> command = TestServers.command("--era", "legacy", "--call-log", callLog.toString(),
                "--cancel-log", cancelLog.toString());
        ObjectNode entry = McpJson.object().put("command", command.get(0));
        command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        Path dir = Files.createDirectories(temp.resolve(name));
        Path config = dir.resolve("mcp.json");
        Files.writeString(config, McpJson.object().set("mcpServers", McpJson.object().set("kit", entry)).toString());
        McpHost host = open.track(McpHost.builder().configFile(config).home(dir).workingDirectory(dir)
                .cacheDirectory(dir.resolve("cache")).startupGate(Duration.ofSeconds(60))
                .clientSettings(Gateway.clientSettings()).build());
        LoadResult loaded = host.load();
        assertEquals(Map.of(), loaded.errors());
        Gateway gateway = open.track(Gateway.builder(host.manager()).build());
        McpServer server = open.track(McpServer.builder("mcp-host", "test").handler(gateway).replicaKeys(keys)
                .limits(ServerLimits.DEFAULT.withInputs(16, Duration.ofSeconds(2))).build());
        gateway.attach(server);
        return open.track(server.serveHttp(HttpOptions.LOOPBACK)).uri();
    }

    @Test
    void aRetryOnTheOtherReplicaCallsTheUpstreamAgainWithTheAnswer() throws Exception {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        ReplicaKeys keys = ReplicaKeys.parse("k1:" + Base64.getEncoder().encodeToString(secret), "test");
        Path callLog = temp.resolve("calls.log");
        Path cancelLog = temp.resolve("cancelled.log");
        URI a = replica("a", keys, callLog, cancelLog);
        URI b = replica("b", keys, callLog, cancelLog);

        JsonNode first = call(a, "").path("result");
        assertEquals("input_required", first.path("resultType").asString(), first.toString());
        assertEquals(1, first.path("inputRequests").size(), first.toString());
        String key = first.path("inputRequests").propertyNames().iterator().next();
        String retry = ",\"inputResponses\":{\"" + key + "\":{\"action\":\"accept\",\"content\":{\"name\":\"Ann\"}}},"
                + "\"requestState\":" + McpJson.mapper().getNodeFactory().stringNode(first.path("requestState")
                        .asString());
        JsonNode done = call(b, retry);
        assertEquals("hello Ann", done.path("result").path("content").path(0).path("text").asString(),
                done.toString());

        List<String> asks = Files.readAllLines(callLog).stream().filter(line -> line.startsWith("ask ")).toList();
        assertEquals(2, asks.size(), "the upstream tool ran once on each replica: " + asks);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Files.exists(cancelLog) || Files.readString(cancelLog).isBlank()) {
            assertTrue(System.nanoTime() < deadline, "the first replica's upstream call was never cancelled");
            Thread.sleep(100);
        }
    }

    private static JsonNode call(URI uri, String extra) throws Exception {
        ObjectNode params = (ObjectNode) McpJson.mapper().readTree("{\"name\":\"ask\",\"arguments\":{}" + extra
                + "}");
        ObjectNode meta = params.putObject("_meta");
        meta.put("io.modelcontextprotocol/protocolVersion", "2026-07-28");
        meta.putObject("io.modelcontextprotocol/clientCapabilities").putObject("elicitation");
        meta.putObject("io.modelcontextprotocol/clientInfo").put("name", "test").put("version", "1");
        ObjectNode message = McpJson.object().put("jsonrpc", "2.0").put("id", 7).put("method", "tools/call");
        message.set("params", params);
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", "tools/call")
                .header("Mcp-Name", "ask").POST(HttpRequest.BodyPublishers.ofString(message.toString())).build(),
                HttpResponse.BodyHandlers.ofString());
        String body = response.body();
        if (response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
            String last = null;
            for (String line : body.split("\n")) {
                if (line.startsWith("data:") && line.length() > 5 && !line.substring(5).isBlank()) {
                    last = line.substring(5).trim();
                }
            }
            body = last;
        }
        assertTrue(body != null && !body.isEmpty(), "HTTP " + response.statusCode() + ": " + response.body());
        return McpJson.mapper().readTree(body);
    }
}
