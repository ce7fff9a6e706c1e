package mcp.manager;

import static mcp.manager.TestServerProcesses.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import mcp.api.McpJson;
import mcp.protocol.McpTelemetry;
import org.junit.jupiter.api.Test;

/**
 * The client's spans leave the process over OTLP/HTTP, as an operator's collector receives them: the SDK's own
 * exporter sends to a receiver on 127.0.0.1 that decodes the protobuf body with the protocol's own classes.
 */
class OtlpExportTest {

    @Test
    void spansReachAnOtlpHttpReceiverWithTheirConventionsAttributes() throws Exception {
        List<ExportTraceServiceRequest> received = new CopyOnWriteArrayList<>();
        List<String> contentTypes = new CopyOnWriteArrayList<>();
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/v1/traces", exchange -> {
            try (InputStream body = exchange.getRequestBody()) {
                contentTypes.add(exchange.getRequestHeaders().getFirst("Content-Type"));
                received.add(ExportTraceServiceRequest.parseFrom(body.readAllBytes()));
            }
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        receiver.start();
        OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(BatchSpanProcessor.builder(
                        OtlpHttpSpanExporter.builder()
                                .setEndpoint("http://127.0.0.1:" + receiver.getAddress().getPort() + "/v1/traces")
                                .setTimeout(10, TimeUnit.SECONDS).build()).build()).build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                .build();
        try (McpClient client = connect("kit", ClientOptions.builder("kit").telemetry(McpTelemetry.of(sdk)),
                "--era", "modern")) {
            client.callToolBlocking("echo", McpJson.object().put("message", "hi"));
            assertTrue(client.callToolBlocking("fail", McpJson.object()).isError());
        } finally {
            // Flushes the batch: the export is over once this returns.
            sdk.shutdown().join(20, TimeUnit.SECONDS);
            receiver.stop(0);
        }
        TestServerProcesses.assertNoChildProcessLeft();

        assertTrue(contentTypes.stream().allMatch("application/x-protobuf"::equals), contentTypes.toString());
        Map<String, io.opentelemetry.proto.trace.v1.Span> spans = received.stream()
                .flatMap(request -> request.getResourceSpansList().stream())
                .map(ResourceSpans::getScopeSpansList).flatMap(List::stream)
                .filter(scope -> scope.getScope().getName().equals("mcp-host"))
                .map(ScopeSpans::getSpansList).flatMap(List::stream)
                .collect(Collectors.toMap(io.opentelemetry.proto.trace.v1.Span::getName, span -> span, (a, b) -> a));
        assertTrue(spans.keySet().containsAll(List.of("server/discover", "tools/call echo", "tools/call fail")),
                spans.keySet().toString());
        io.opentelemetry.proto.trace.v1.Span echo = spans.get("tools/call echo");
        assertEquals(io.opentelemetry.proto.trace.v1.Span.SpanKind.SPAN_KIND_CLIENT, echo.getKind());
        Map<String, String> echoAttributes = attributes(echo);
        assertEquals("tools/call", echoAttributes.get("mcp.method.name"));
        assertEquals("echo", echoAttributes.get("gen_ai.tool.name"));
        assertEquals("execute_tool", echoAttributes.get("gen_ai.operation.name"));
        assertEquals("2026-07-28", echoAttributes.get("mcp.protocol.version"));
        assertEquals("pipe", echoAttributes.get("network.transport"));
        io.opentelemetry.proto.trace.v1.Span fail = spans.get("tools/call fail");
        assertEquals("tool_error", attributes(fail).get("error.type"));
        assertEquals(io.opentelemetry.proto.trace.v1.Status.StatusCode.STATUS_CODE_ERROR, fail.getStatus().getCode());
    }

    private static Map<String, String> attributes(io.opentelemetry.proto.trace.v1.Span span) {
        return span.getAttributesList().stream().collect(Collectors.toMap(KeyValue::getKey,
                kv -> kv.getValue().hasStringValue() ? kv.getValue().getStringValue()
                        : kv.getValue().toString().trim()));
    }
}
