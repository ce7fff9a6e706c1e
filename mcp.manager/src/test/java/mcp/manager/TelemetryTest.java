package mcp.manager;

import static mcp.manager.TestServerProcesses.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import mcp.api.Content;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.ToolResult;
import mcp.protocol.McpTelemetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * The client's spans and metrics against the OpenTelemetry semantic conventions for MCP, with the SDK's in-memory
 * exporters and the testkit server over stdio in each era: names, kinds, attributes, error types, the duration
 * histogram, and the trace context the server receives in {@code params._meta}.
 */
class TelemetryTest {

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final InMemoryMetricReader metrics = InMemoryMetricReader.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        sdk.close();
        TestServerProcesses.assertNoChildProcessLeft();
    }

    private McpClient client(String era, McpTelemetry telemetry) {
        McpClient client = connect("kit", ClientOptions.builder("kit").telemetry(telemetry), "--era", era,
                "--features", "prompts,resources,trace-context");
        open.add(client);
        return client;
    }

    private static String attr(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    private SpanData only(String name) {
        List<SpanData> found = spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
        assertEquals(1, found.size(), () -> "one span " + name + " in " + names());
        return found.get(0);
    }

    private List<String> names() {
        return spans.getFinishedSpanItems().stream().map(SpanData::getName).toList();
    }

    /** The trace context the server received with each request, in order. */
    private static List<JsonNode> received(McpClient client) {
        ToolResult result = client.callToolBlocking("trace_context", McpJson.object());
        List<JsonNode> all = new ArrayList<>();
        McpJson.mapper().readTree(((Content.Text) result.content().get(0)).text()).forEach(all::add);
        return all;
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void everyKindOfRequestIsAClientSpanByTheConventions(String era) {
        McpClient client = client(era, McpTelemetry.of(sdk));
        String version = era.equals("modern") ? "2026-07-28" : "2025-11-25";
        Span parent = sdk.getTracer("test").spanBuilder("agent turn").startSpan();
        try (Scope ignored = parent.makeCurrent()) {
            client.listTools().join();
            client.callToolBlocking("echo", McpJson.object().put("message", "hi"));
            assertTrue(client.callToolBlocking("fail", McpJson.object()).isError());
            CompletionException error = assertThrows(CompletionException.class,
                    () -> client.callTool("error", McpJson.object(), CallOptions.DEFAULT).join());
            assertTrue(error.getCause() instanceof McpProtocolException, error.toString());
            client.getPrompt("greet", Map.of("name", "Ada"), CallOptions.DEFAULT).join();
            client.readResource("test://text/readme", CallOptions.DEFAULT).join();
        } finally {
            parent.end();
        }
        List<JsonNode> received = received(client);

        SpanData opening = only(era.equals("modern") ? "server/discover" : "initialize");
        assertEquals(SpanKind.CLIENT, opening.getKind());

        SpanData list = only("tools/list");
        SpanData echo = only("tools/call echo");
        SpanData fail = only("tools/call fail");
        SpanData rpcError = only("tools/call error");
        SpanData prompt = only("prompts/get greet");
        SpanData read = only("resources/read");
        for (SpanData span : List.of(list, echo, fail, rpcError, prompt, read)) {
            assertEquals(SpanKind.CLIENT, span.getKind(), span.getName());
            assertEquals(parent.getSpanContext().getTraceId(), span.getTraceId(), span.getName());
            assertEquals(parent.getSpanContext().getSpanId(), span.getParentSpanId(), span.getName());
            assertEquals(version, attr(span, "mcp.protocol.version"), span.getName());
            assertEquals("pipe", attr(span, "network.transport"), span.getName());
            assertNotNull(attr(span, "jsonrpc.request.id"), span.getName());
            assertEquals(span.getName().split(" ")[0], attr(span, "mcp.method.name"));
        }
        assertEquals("echo", attr(echo, "gen_ai.tool.name"));
        assertEquals("execute_tool", attr(echo, "gen_ai.operation.name"));
        assertNull(attr(echo, "error.type"));
        assertEquals(StatusCode.UNSET, echo.getStatus().getStatusCode());
        assertNull(attr(echo, "gen_ai.tool.call.arguments"), "arguments only when the embedder opts in");
        assertEquals("tool_error", attr(fail, "error.type"));
        assertEquals(StatusCode.ERROR, fail.getStatus().getStatusCode());
        assertEquals("-32603", attr(rpcError, "error.type"));
        assertEquals("-32603", attr(rpcError, "rpc.response.status_code"));
        assertEquals(StatusCode.ERROR, rpcError.getStatus().getStatusCode());
        assertEquals("greet", attr(prompt, "gen_ai.prompt.name"));
        assertEquals("test://text/readme", attr(read, "mcp.resource.uri"));

        // The server received each request with the traceparent of its own span: the trace crosses the process.
        String echoParent = received.stream().filter(r -> r.path("method").asString().equals("tools/call"))
                .findFirst().orElseThrow().path("traceparent").asString();
        assertTrue(echoParent.startsWith("00-" + echo.getTraceId() + "-" + echo.getSpanId() + "-"), echoParent);
        JsonNode readContext = received.stream().filter(r -> r.path("method").asString().equals("resources/read"))
                .findFirst().orElseThrow();
        assertTrue(readContext.path("traceparent").asString().startsWith("00-" + read.getTraceId() + "-" + read.getSpanId() + "-"),
                readContext.toString());

        HistogramPointData failPoint = histogram("mcp.client.operation.duration").stream()
                .filter(p -> "tool_error".equals(p.getAttributes().get(AttributeKey.stringKey("error.type"))))
                .findFirst().orElseThrow(() -> new AssertionError("no tool_error point"));
        assertEquals("tools/call", failPoint.getAttributes().get(AttributeKey.stringKey("mcp.method.name")));
        assertEquals("fail", failPoint.getAttributes().get(AttributeKey.stringKey("gen_ai.tool.name")));
        assertEquals(1, failPoint.getCount());
        assertTrue(failPoint.getSum() > 0);
        long lists = histogram("mcp.client.operation.duration").stream()
                .filter(p -> "tools/list".equals(p.getAttributes().get(AttributeKey.stringKey("mcp.method.name"))))
                .mapToLong(HistogramPointData::getCount).sum();
        assertTrue(lists >= 1, "tools/list recorded");
    }

    private List<HistogramPointData> histogram(String name) {
        Optional<MetricData> metric = metrics.collectAllMetrics().stream().filter(m -> m.getName().equals(name))
                .findFirst();
        assertTrue(metric.isPresent(), () -> name + " in " + metrics.collectAllMetrics());
        assertEquals("s", metric.get().getUnit());
        return new ArrayList<>(metric.get().getHistogramData().getPoints());
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void anExecuteToolSpanOfTheEmbedderGetsTheAttributesInsteadOfANestedSpan(String era) {
        McpClient client = client(era, McpTelemetry.of(sdk));
        Span tool = sdk.getTracer("agent").spanBuilder("execute_tool mcp_kit_echo")
                .setAttribute("gen_ai.operation.name", "execute_tool")
                .setAttribute("gen_ai.tool.name", "mcp_kit_echo").startSpan();
        try (Scope ignored = tool.makeCurrent()) {
            client.callToolBlocking("echo", McpJson.object().put("message", "hi"));
        } finally {
            tool.end();
        }
        assertFalse(names().contains("tools/call echo"), names().toString());
        SpanData span = only("execute_tool mcp_kit_echo");
        assertEquals("tools/call", attr(span, "mcp.method.name"));
        assertEquals("mcp_kit_echo", attr(span, "gen_ai.tool.name"), "the embedder's own tool name stays");
        String traceparent = received(client).stream().filter(r -> r.path("method").asString().equals("tools/call"))
                .findFirst().orElseThrow().path("traceparent").asString();
        assertTrue(traceparent.startsWith("00-" + span.getTraceId() + "-" + span.getSpanId() + "-"), traceparent);
    }

    @Test
    void toolArgumentsAndResultsOnlyWhenAskedAndSecretsMaskedEvenThen() {
        McpClient client = client("legacy", McpTelemetry.of(sdk).withToolPayloads(true));
        client.callToolBlocking("echo", McpJson.object().put("message", "hi").put("apiKey", "s3cret-value"));
        SpanData echo = only("tools/call echo");
        String arguments = attr(echo, "gen_ai.tool.call.arguments");
        assertTrue(arguments.contains("\"message\":\"hi\""), arguments);
        assertFalse(arguments.contains("s3cret-value"), arguments);
        assertTrue(arguments.contains("\"apiKey\":\"***\""), arguments);
        assertTrue(attr(echo, "gen_ai.tool.call.result").contains("hi"), attr(echo, "gen_ai.tool.call.result"));
    }

    @Test
    void closingASessionRecordsItsDuration() {
        McpClient client = client("modern", McpTelemetry.of(sdk));
        client.listTools().join();
        client.close();
        HistogramPointData session = histogram("mcp.client.session.duration").get(0);
        assertEquals(1, session.getCount());
        assertNull(session.getAttributes().get(AttributeKey.stringKey("error.type")), "closed by the client");
        assertEquals("2026-07-28", session.getAttributes().get(AttributeKey.stringKey("mcp.protocol.version")));
        assertEquals("pipe", session.getAttributes().get(AttributeKey.stringKey("network.transport")));
    }

    @Test
    void aSessionWhoseConnectionDropsRecordsItsDurationOnceWithTheErrorAndNoSessionIdOverStdio()
            throws InterruptedException {
        McpClient client = client("legacy", McpTelemetry.of(sdk));
        client.listTools().join();
        assertThrows(CompletionException.class, () -> client.callTool("crash", McpJson.object()).join());
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (metrics.collectAllMetrics().stream().noneMatch(m -> m.getName().equals("mcp.client.session.duration"))) {
            assertTrue(System.nanoTime() < deadline, "no session duration after the server exited");
            Thread.sleep(20);
        }
        client.close();
        List<HistogramPointData> points = histogram("mcp.client.session.duration");
        assertEquals(1, points.size(), points.toString());
        assertEquals(1, points.get(0).getCount(), "the close after the drop is not a second session");
        assertEquals("mcp.api.TransportClosedException",
                points.get(0).getAttributes().get(AttributeKey.stringKey("error.type")));
        assertNull(only("tools/call crash").getAttributes().get(AttributeKey.stringKey("mcp.session.id")),
                "stdio has no session id");
    }

    @Test
    void withoutTelemetryNothingIsEmittedAndNoTraceContextIsSent() {
        McpClient client = client("legacy", McpTelemetry.none());
        Span parent = sdk.getTracer("test").spanBuilder("agent turn").startSpan();
        try (Scope ignored = parent.makeCurrent()) {
            client.callToolBlocking("echo", McpJson.object().put("message", "hi"));
        } finally {
            parent.end();
        }
        assertEquals(List.of("agent turn"), names());
        assertTrue(received(client).stream().noneMatch(r -> r.has("traceparent")));
    }

    @Test
    void theGlobalInstanceIsUsedOnlyOnceSetAndNeverRegisteredByMcpHost() {
        McpClient client = client("legacy", McpTelemetry.global());
        client.callToolBlocking("echo", McpJson.object().put("message", "hi"));
        assertTrue(spans.getFinishedSpanItems().isEmpty());
        assertFalse(io.opentelemetry.api.GlobalOpenTelemetry.isSet(), "mcp-host must not lock in the no-op instance");
    }
}
