package mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.net.URI;
import java.util.List;
import java.util.Map;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.protocol.McpTelemetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.node.ObjectNode;

/**
 * The server's spans against the OpenTelemetry semantic conventions for MCP, over Streamable HTTP in each era: each
 * request's {@code SERVER} span continues the trace context its {@code params._meta} carries, with the conventions'
 * names, attributes and error types, and the {@code mcp.server.operation.duration} histogram. The instance has no
 * propagator configured: the W3C trace context of {@code _meta} is read all the same.
 */
class ServerTelemetryTest {

    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT = "00f067aa0ba902b7";

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final InMemoryMetricReader metrics = InMemoryMetricReader.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .build();
    private McpServer server;

    @AfterEach
    void close() {
        if (server != null) {
            server.close();
        }
        sdk.close();
    }

    private URI start() throws Exception {
        server = Fixtures.builder(ServerLimits.DEFAULT).telemetry(McpTelemetry.of(sdk))
                .tool(ToolDefinition.of("broken", "Fails as a tool", Wire.json("{\"type\":\"object\"}")),
                        (arguments, context) -> ToolResult.error("broken on purpose"))
                .build();
        return server.serveHttp(HttpOptions.LOOPBACK).uri();
    }

    private static ObjectNode traced(ObjectNode params) {
        ObjectNode meta = params.has("_meta") ? (ObjectNode) params.get("_meta") : params.putObject("_meta");
        meta.put("traceparent", "00-" + TRACE + "-" + PARENT + "-01");
        return params;
    }

    private SpanData one(String name) {
        List<SpanData> found = spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
        assertEquals(1, found.size(), () -> name + " in " + spans.getFinishedSpanItems());
        return found.get(0);
    }

    private static String attr(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    @ParameterizedTest
    @ValueSource(strings = {"2025-11-25", "2026-07-28"})
    void eachRequestIsAServerSpanThatContinuesTheTraceOfItsMeta(String era) throws Exception {
        URI uri = start();
        boolean modern = era.equals("2026-07-28");
        String session = modern ? null : Wire.initialize(uri, "{}");
        for (String[] call : new String[][] {{"11", "echo"}, {"12", "broken"}, {"13", "missing"}}) {
            ObjectNode params = (ObjectNode) Wire.json("{\"name\":\"" + call[1] + "\",\"arguments\":{\"text\":\"hi\"}}")
                    .deepCopy();
            if (modern) {
                params = Wire.stateless(params.toString(), "{}");
            }
            Map<String, String> headers = modern ? Wire.statelessHeaders("tools/call", call[1]) : Wire.session(session);
            Wire.Reply reply = Wire.post(uri, Wire.request(Long.parseLong(call[0]), "tools/call", traced(params)),
                    headers);
            assertEquals(200, reply.status(), reply.toString());
        }
        SpanData echo = one("tools/call echo");
        SpanData broken = one("tools/call broken");
        SpanData missing = one("tools/call missing");
        for (SpanData span : List.of(echo, broken, missing)) {
            assertEquals(SpanKind.SERVER, span.getKind());
            assertEquals(TRACE, span.getTraceId(), span.getName());
            assertEquals(PARENT, span.getParentSpanId(), span.getName());
            assertTrue(span.getParentSpanContext().isRemote());
            assertEquals("tools/call", attr(span, "mcp.method.name"));
            assertEquals("execute_tool", attr(span, "gen_ai.operation.name"));
            assertEquals(era, attr(span, "mcp.protocol.version"));
            assertEquals("tcp", attr(span, "network.transport"));
            assertEquals("http", attr(span, "network.protocol.name"));
        }
        assertEquals("11", attr(echo, "jsonrpc.request.id"));
        assertEquals("echo", attr(echo, "gen_ai.tool.name"));
        assertEquals(StatusCode.UNSET, echo.getStatus().getStatusCode());
        assertEquals("tool_error", attr(broken, "error.type"));
        assertEquals(StatusCode.ERROR, broken.getStatus().getStatusCode());
        assertEquals("-32602", attr(missing, "error.type"), missing.getAttributes().toString());
        assertEquals("-32602", attr(missing, "rpc.response.status_code"));

        List<HistogramPointData> points = metrics.collectAllMetrics().stream()
                .filter(m -> m.getName().equals("mcp.server.operation.duration"))
                .flatMap(m -> m.getHistogramData().getPoints().stream()).toList();
        assertTrue(points.stream().anyMatch(p -> "tool_error".equals(p.getAttributes().get(
                AttributeKey.stringKey("error.type"))) && p.getCount() == 1), points.toString());
        assertTrue(points.stream().anyMatch(p -> "echo".equals(p.getAttributes().get(
                AttributeKey.stringKey("gen_ai.tool.name"))) && p.getAttributes().get(
                AttributeKey.stringKey("error.type")) == null), points.toString());
    }
}
