package mcp.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mcp.api.Content;
import mcp.api.HttpServerConfig;
import mcp.api.McpJson;
import mcp.api.ToolResult;
import mcp.api.spi.Providers;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.host.McpHost;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.protocol.McpTelemetry;
import mcp.server.HttpEndpoint;
import mcp.server.HttpOptions;
import mcp.server.McpServer;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One trace from an agent through the gateway to a server: a client with a span of its own calls a tool of the
 * gateway (mcp.server over Streamable HTTP on loopback, a real host), which calls the testkit server over stdio; the
 * server records the {@code traceparent} it receives. Each hop's span must be the child of the one before, in one
 * trace, in both eras of the agent's client.
 */
class GatewayTelemetryTest {

    @TempDir
    Path temp;

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final InMemoryMetricReader metrics = InMemoryMetricReader.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    private final Opened open = new Opened();

    @AfterEach
    void closeAll() throws Exception {
        open.closeAll();
        sdk.close();
        Opened.awaitNoServerProcess();
    }

    private HttpEndpoint gateway() throws Exception {
        List<String> command = TestServers.command("--era", "legacy", "--features", "trace-context");
        ObjectNode entry = McpJson.object().put("command", command.get(0));
        command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        ObjectNode root = McpJson.object();
        root.putObject("mcpServers").set("kit", entry);
        Path config = temp.resolve("mcp.json");
        Files.writeString(config, root.toString());
        McpTelemetry telemetry = McpTelemetry.of(sdk);
        McpHost host = open.track(McpHost.builder().configFile(config).home(temp).workingDirectory(temp)
                .cacheDirectory(temp.resolve("cache")).startupGate(Duration.ofSeconds(60))
                .clientSettings(Gateway.clientSettings().andThen(options -> options.telemetry(telemetry))).build());
        assertEquals(Map.of(), host.load().errors());
        Gateway gateway = open.track(Gateway.builder(host.manager()).build());
        McpServer server = open.track(McpServer.builder("mcp-host", "test").handler(gateway).telemetry(telemetry).build());
        gateway.attach(server);
        return server.serveHttp(HttpOptions.LOOPBACK);
    }

    private McpClient agent(HttpEndpoint endpoint, String era) {
        TransportProvider http = Providers.load(TransportProvider.class, getClass().getClassLoader()).stream()
                .filter(provider -> provider.id().equals("http")).findFirst().orElseThrow();
        HttpServerConfig config = HttpServerConfig.of(endpoint.uri().toString());
        return open.track(McpClient.connectBlocking(http.open(TransportRequest.of("gateway", config, temp)),
                ClientOptions.builder("gateway").protocolVersion(era).telemetry(McpTelemetry.of(sdk))
                        .serverUrl(endpoint.uri()).build()));
    }

    private static String text(ToolResult result) {
        return ((Content.Text) result.content().get(0)).text();
    }

    private SpanData childOf(String parentSpanId) {
        List<SpanData> found = spans.getFinishedSpanItems().stream()
                .filter(s -> s.getParentSpanId().equals(parentSpanId)).toList();
        assertEquals(1, found.size(), () -> "one child of " + parentSpanId + " in " + spans.getFinishedSpanItems());
        return found.get(0);
    }

    private SpanData one(String name, SpanKind kind) {
        List<SpanData> found = spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals(name) && s.getKind() == kind).toList();
        assertEquals(1, found.size(), () -> name + " " + kind + " in " + spans.getFinishedSpanItems().stream()
                .map(s -> s.getName() + " " + s.getKind()).toList());
        return found.get(0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"2026-07-28", "2025-11-25"})
    void oneTraceRunsFromTheAgentThroughTheGatewayToTheServer(String era) throws Exception {
        HttpEndpoint endpoint = gateway();
        McpClient agent = agent(endpoint, era);
        List<String> tools = agent.listToolsBlocking().stream().map(mcp.api.ToolDefinition::name).toList();
        assertTrue(tools.contains("echo"), "one server: its own names, " + tools);
        Span turn = sdk.getTracer("agent").spanBuilder("agent turn").startSpan();
        try (Scope ignored = turn.makeCurrent()) {
            assertEquals("hi", text(agent.callToolBlocking("echo", McpJson.object().put("message", "hi"))));
        } finally {
            turn.end();
        }
        // What the server received from the gateway, read outside the trace.
        JsonNode received = McpJson.mapper().readTree(text(agent.callToolBlocking("trace_context",
                McpJson.object())));
        JsonNode echoCall = null;
        for (JsonNode request : received) {
            if (request.path("method").asString().equals("tools/call")) {
                echoCall = request;
                break;
            }
        }
        assertTrue(echoCall != null, received.toString());

        SpanData server = one("tools/call echo", SpanKind.SERVER);
        SpanData client = childOf(turn.getSpanContext().getSpanId());
        SpanData upstream = childOf(server.getSpanId());
        assertEquals(SpanKind.CLIENT, client.getKind());
        assertEquals(SpanKind.CLIENT, upstream.getKind());
        assertEquals("tools/call echo", client.getName());
        assertEquals("tools/call echo", upstream.getName());
        String trace = turn.getSpanContext().getTraceId();
        for (SpanData span : List.of(client, server, upstream)) {
            assertEquals(trace, span.getTraceId(), span.getName() + " " + span.getKind());
        }
        assertEquals(client.getSpanId(), server.getParentSpanId(), "the gateway continues the agent's span");
        assertTrue(server.getParentSpanContext().isRemote());
        assertEquals(server.getSpanId(), upstream.getParentSpanId(), "the upstream call is the gateway span's child");
        String traceparent = echoCall.path("traceparent").asString();
        assertTrue(traceparent.startsWith("00-" + trace + "-" + upstream.getSpanId() + "-"), traceparent);

        assertEquals(era, server.getAttributes().get(AttributeKey.stringKey("mcp.protocol.version")));
        assertEquals("tcp", server.getAttributes().get(AttributeKey.stringKey("network.transport")));
        assertEquals("echo", server.getAttributes().get(AttributeKey.stringKey("gen_ai.tool.name")));
        assertEquals("pipe", upstream.getAttributes().get(AttributeKey.stringKey("network.transport")));
        assertEquals("127.0.0.1", client.getAttributes().get(AttributeKey.stringKey("server.address")));
        assertEquals((long) endpoint.uri().getPort(), client.getAttributes().get(AttributeKey.longKey("server.port")));

        List<String> names = metrics.collectAllMetrics().stream().map(MetricData::getName).toList();
        assertTrue(names.contains("mcp.server.operation.duration"), names.toString());
        assertTrue(names.contains("mcp.client.operation.duration"), names.toString());
        long serverCalls = metrics.collectAllMetrics().stream()
                .filter(m -> m.getName().equals("mcp.server.operation.duration"))
                .flatMap(m -> m.getHistogramData().getPoints().stream())
                .filter(p -> "echo".equals(p.getAttributes().get(AttributeKey.stringKey("gen_ai.tool.name"))))
                .mapToLong(p -> p.getCount()).sum();
        assertEquals(1, serverCalls);
    }

    /** The points of a histogram whose attributes satisfy the filter, summed. */
    private long count(String histogram, java.util.function.Predicate<io.opentelemetry.api.common.Attributes> which) {
        return metrics.collectAllMetrics().stream().filter(m -> m.getName().equals(histogram))
                .flatMap(m -> m.getHistogramData().getPoints().stream())
                .filter(p -> which.test(p.getAttributes())).mapToLong(p -> p.getCount()).sum();
    }

    private static final AttributeKey<String> SESSION_ID = AttributeKey.stringKey("mcp.session.id");
    private static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");

    @ParameterizedTest
    @ValueSource(strings = {"2026-07-28", "2025-11-25"})
    void aHandshakeSessionsIdIsOnTheSpansOfBothSidesAndItsDurationIsRecordedOnBoth(String era) throws Exception {
        boolean handshake = era.equals("2025-11-25");
        HttpEndpoint endpoint = gateway();
        McpClient agent = agent(endpoint, era);
        assertEquals("hi", text(agent.callToolBlocking("echo", McpJson.object().put("message", "hi"))));

        SpanData server = one("tools/call echo", SpanKind.SERVER);
        List<SpanData> clients = spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("tools/call echo") && s.getKind() == SpanKind.CLIENT).toList();
        SpanData client = clients.stream().filter(s -> s.getAttributes().get(SERVER_ADDRESS) != null).findFirst()
                .orElseThrow();
        SpanData upstream = clients.stream().filter(s -> s != client).findFirst().orElseThrow();
        String sessionId = client.getAttributes().get(SESSION_ID);
        if (handshake) {
            assertTrue(sessionId != null && !sessionId.isBlank(), client.getAttributes().toString());
            assertEquals(sessionId, server.getAttributes().get(SESSION_ID), "the session the client was given");
        } else {
            assertEquals(null, sessionId, "the stateless revision has no session");
            assertEquals(null, server.getAttributes().get(SESSION_ID));
        }
        assertEquals(null, upstream.getAttributes().get(SESSION_ID), "stdio has no session id");
        List<String> metricNames = metrics.collectAllMetrics().stream().map(MetricData::getName).toList();
        for (MetricData metric : metrics.collectAllMetrics()) {
            if (metric.getName().startsWith("mcp.")) {
                metric.getHistogramData().getPoints().forEach(point -> assertEquals(null,
                        point.getAttributes().get(SESSION_ID), "a series per session: " + metric.getName()));
            }
        }
        assertEquals(0, count("mcp.client.session.duration", a -> a.get(SERVER_ADDRESS) != null),
                "the agent's session is still open: " + metricNames);

        agent.close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (count("mcp.client.session.duration", a -> a.get(SERVER_ADDRESS) != null) == 0
                || handshake && count("mcp.server.session.duration", a -> true) == 0) {
            assertTrue(System.nanoTime() < deadline, () -> "session durations: " + metrics.collectAllMetrics());
            Thread.sleep(20);
        }
        assertEquals(1, count("mcp.client.session.duration", a -> "127.0.0.1".equals(a.get(SERVER_ADDRESS))
                && era.equals(a.get(AttributeKey.stringKey("mcp.protocol.version")))
                && a.get(AttributeKey.stringKey("error.type")) == null), "closed by the client, not an error");
        assertEquals(handshake ? 1 : 0, count("mcp.server.session.duration",
                a -> era.equals(a.get(AttributeKey.stringKey("mcp.protocol.version")))
                        && "tcp".equals(a.get(AttributeKey.stringKey("network.transport")))),
                "the server ends the session the client deleted; the stateless revision has none");
    }
}
