package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import mcp.api.McpJson;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * The runtime image exports over OTLP/HTTP when, and only when, the standard {@code OTEL_*} variables ask: a receiver
 * on 127.0.0.1 decodes what {@code mcp-host call} sent with the protocol's own classes, and without the variables it
 * receives nothing and the command prints nothing more.
 */
class TelemetryIT {

    @TempDir
    Path temp;

    private HttpServer receiver;
    private final List<ExportTraceServiceRequest> traces = new CopyOnWriteArrayList<>();
    private final List<ExportMetricsServiceRequest> metrics = new CopyOnWriteArrayList<>();
    private Path home;
    private Path project;

    @BeforeEach
    void start() throws Exception {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/v1/traces", exchange -> {
            try (InputStream body = exchange.getRequestBody()) {
                traces.add(ExportTraceServiceRequest.parseFrom(body.readAllBytes()));
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        receiver.createContext("/v1/metrics", exchange -> {
            try (InputStream body = exchange.getRequestBody()) {
                metrics.add(ExportMetricsServiceRequest.parseFrom(body.readAllBytes()));
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        receiver.start();
        home = Files.createDirectories(temp.resolve("home"));
        project = Files.createDirectories(temp.resolve("project"));
        Files.createDirectories(project.resolve(".git"));
        List<String> command = TestServers.command();
        ObjectNode server = McpJson.object().put("command", command.get(0));
        command.subList(1, command.size()).forEach(server.putArray("args")::add);
        ObjectNode root = McpJson.object();
        root.putObject("mcpServers").set("kit", server);
        Path config = Files.createDirectories(home.resolve(".config/mcp-host")).resolve("mcp.json");
        Files.writeString(config, root.toString());
    }

    @AfterEach
    void stop() {
        receiver.stop(0);
    }

    private Cli.Run call(Map<String, String> env) {
        return Cli.run(home, project, env, "call", "mcp_kit_echo", "{\"message\":\"traced\"}");
    }

    @Test
    void theImageExportsSpansAndMetricsWhenOtelVariablesAskAndNothingOtherwise() {
        Cli.Run quiet = call(Map.of());
        assertEquals(0, quiet.exitCode(), quiet::toString);
        assertEquals("traced", quiet.out().strip(), quiet::toString);
        assertTrue(traces.isEmpty() && metrics.isEmpty(), "nothing exported without OTEL_* variables");

        Cli.Run traced = call(Map.of("OTEL_TRACES_EXPORTER", "otlp", "OTEL_METRICS_EXPORTER", "otlp",
                "OTEL_LOGS_EXPORTER", "none",
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + receiver.getAddress().getPort()));
        assertEquals(0, traced.exitCode(), traced::toString);
        assertEquals("traced", traced.out().strip(), "stdout is the result alone: " + traced);
        assertEquals("", traced.err().strip(), traced::toString);

        List<ResourceSpans> resources = traces.stream().flatMap(r -> r.getResourceSpansList().stream()).toList();
        assertTrue(!resources.isEmpty(), "spans received");
        assertEquals("mcp-host", attributes(resources.get(0).getResource().getAttributesList()).get("service.name"));
        Map<String, Span> spans = resources.stream().flatMap(r -> r.getScopeSpansList().stream())
                .filter(scope -> scope.getScope().getName().equals("mcp-host"))
                .flatMap(scope -> scope.getSpansList().stream())
                .collect(Collectors.toMap(Span::getName, span -> span, (a, b) -> a));
        assertTrue(spans.containsKey("tools/call echo"), spans.keySet().toString());
        Span echo = spans.get("tools/call echo");
        assertEquals(Span.SpanKind.SPAN_KIND_CLIENT, echo.getKind());
        Map<String, String> attributes = attributes(echo.getAttributesList());
        assertEquals("tools/call", attributes.get("mcp.method.name"));
        assertEquals("echo", attributes.get("gen_ai.tool.name"));
        assertEquals("pipe", attributes.get("network.transport"));
        assertTrue(metrics.stream().flatMap(r -> r.getResourceMetricsList().stream())
                .flatMap(r -> r.getScopeMetricsList().stream()).flatMap(s -> s.getMetricsList().stream())
                .anyMatch(m -> m.getName().equals("mcp.client.operation.duration")), metrics.toString());
    }

    private static Map<String, String> attributes(List<KeyValue> values) {
        return values.stream().collect(Collectors.toMap(KeyValue::getKey,
                kv -> kv.getValue().hasStringValue() ? kv.getValue().getStringValue() : kv.getValue().toString(),
                (a, b) -> a));
    }
}
