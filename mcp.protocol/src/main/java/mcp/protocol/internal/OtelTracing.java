package mcp.protocol.internal;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.jsonrpc.RequestId;
import mcp.protocol.McpTelemetry;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@link McpTracing} on the OpenTelemetry API. Loaded only when {@link McpTracing.ApiPresence} found the API.
 */
final class OtelTracing extends McpTracing {

    static final String SCOPE = "mcp-host";

    static final AttributeKey<String> METHOD = AttributeKey.stringKey("mcp.method.name");
    static final AttributeKey<String> PROTOCOL_VERSION = AttributeKey.stringKey("mcp.protocol.version");
    static final AttributeKey<String> SESSION_ID = AttributeKey.stringKey("mcp.session.id");
    static final AttributeKey<String> RESOURCE_URI = AttributeKey.stringKey("mcp.resource.uri");
    static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("jsonrpc.request.id");
    static final AttributeKey<String> TOOL_NAME = AttributeKey.stringKey("gen_ai.tool.name");
    static final AttributeKey<String> PROMPT_NAME = AttributeKey.stringKey("gen_ai.prompt.name");
    static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("gen_ai.operation.name");
    static final AttributeKey<String> TOOL_ARGUMENTS = AttributeKey.stringKey("gen_ai.tool.call.arguments");
    static final AttributeKey<String> TOOL_RESULT = AttributeKey.stringKey("gen_ai.tool.call.result");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<String> STATUS_CODE = AttributeKey.stringKey("rpc.response.status_code");
    static final AttributeKey<String> NETWORK_TRANSPORT = AttributeKey.stringKey("network.transport");
    static final AttributeKey<String> NETWORK_PROTOCOL = AttributeKey.stringKey("network.protocol.name");
    static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
    static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");

    static final String EXECUTE_TOOL = "execute_tool";
    /** The tool said it failed ({@code isError}): the conventions' error type for it. */
    static final String TOOL_ERROR = "tool_error";

    /** The conventions' advice for the duration histograms, in seconds. */
    private static final List<Double> BUCKETS = List.of(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0,
            60.0, 120.0, 300.0);
    /** Keys whose values are masked in recorded tool arguments and results, whatever the embedder chose. */
    private static final Pattern SECRET_KEY = Pattern.compile(
            "(?i).*(secret|token|passw|api[-_]?key|apikey|authorization|credential|cookie|private[-_]?key).*");
    /** The trace context the conventions carry in {@code _meta}, when the instance's own propagators carry none. */
    private static final TextMapPropagator W3C = TextMapPropagator.composite(W3CTraceContextPropagator.getInstance(),
            W3CBaggagePropagator.getInstance());

    private static final TextMapSetter<ObjectNode> SETTER = (meta, key, value) -> meta.put(key, value);
    private static final TextMapGetter<JsonNode> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(JsonNode meta) {
            return meta.propertyNames();
        }

        @Override
        public String get(JsonNode meta, String key) {
            if (meta == null) {
                return null;
            }
            JsonNode value = meta.get(key);
            return value != null && value.isString() ? value.asString() : null;
        }
    };

    private final McpTelemetry telemetry;
    private volatile Instruments instruments;

    private OtelTracing(McpTelemetry telemetry) {
        this.telemetry = telemetry;
    }

    static McpTracing create(McpTelemetry telemetry) {
        return new OtelTracing(telemetry);
    }

    /** What one {@link OpenTelemetry} instance gives: built once per instance. */
    private static final class Instruments {
        final OpenTelemetry otel;
        final boolean noop;
        final Tracer tracer;
        final DoubleHistogram clientOperation;
        final DoubleHistogram serverOperation;
        final DoubleHistogram clientSession;
        final DoubleHistogram serverSession;
        final TextMapPropagator propagator;

        Instruments(OpenTelemetry otel) {
            this.otel = otel;
            this.noop = otel == OpenTelemetry.noop();
            this.tracer = otel.getTracer(SCOPE);
            Meter meter = otel.getMeter(SCOPE);
            this.clientOperation = histogram(meter, "mcp.client.operation.duration",
                    "The duration of the MCP request or notification as observed on the sender from the time it was"
                            + " sent until the response or ack is received.");
            this.serverOperation = histogram(meter, "mcp.server.operation.duration",
                    "MCP request or notification duration as observed on the receiver from the time it was received"
                            + " until the result or ack is sent.");
            this.clientSession = histogram(meter, "mcp.client.session.duration",
                    "The duration of the MCP session as observed on the MCP client.");
            this.serverSession = histogram(meter, "mcp.server.session.duration",
                    "The duration of the MCP session as observed on the MCP server.");
            TextMapPropagator own = otel.getPropagators().getTextMapPropagator();
            this.propagator = own.fields().isEmpty() ? W3C : own;
        }

        private static DoubleHistogram histogram(Meter meter, String name, String description) {
            return meter.histogramBuilder(name).setUnit("s").setDescription(description)
                    .setExplicitBucketBoundariesAdvice(BUCKETS).build();
        }
    }

    private Instruments instruments() {
        Object given = telemetry.openTelemetry();
        // The global one is looked up every time (a volatile read), so that one set later is used; getOrNoop never
        // registers the no-op instance, which would make the application's later set fail.
        OpenTelemetry otel = given != null ? (OpenTelemetry) given : GlobalOpenTelemetry.getOrNoop();
        Instruments current = instruments;
        if (current == null || current.otel != otel) {
            current = new Instruments(otel);
            instruments = current;
        }
        return current;
    }

    @Override
    public Operation startClient(String method, JsonNode params, RequestId id, Peer peer, String protocolVersion,
            String sessionId) {
        Instruments in = instruments();
        if (in.noop) {
            return Operation.NOOP;
        }
        long start = System.nanoTime();
        Context parent = Context.current();
        Target target = Target.of(method, params);
        AttributesBuilder metric = metricAttributes(method, target, peer, protocolVersion);
        Span current = Span.fromContext(parent);
        Span span;
        boolean own;
        if (target.tool != null && isExecuteTool(current)) {
            // The application already traces this tool's execution: the conventions put the MCP attributes on its
            // span rather than nesting one more.
            span = current;
            own = false;
            span.setAttribute(METHOD, method);
            span.setAttribute(REQUEST_ID, requestId(id));
            setNetwork(span, peer);
            if (protocolVersion != null) {
                span.setAttribute(PROTOCOL_VERSION, protocolVersion);
            }
            if (sessionId != null) {
                span.setAttribute(SESSION_ID, sessionId);
            }
        } else {
            span = in.tracer.spanBuilder(target.spanName(method)).setSpanKind(SpanKind.CLIENT).setParent(parent)
                    .setAllAttributes(metric.build())
                    .setAttribute(REQUEST_ID, requestId(id))
                    .startSpan();
            if (target.uri != null) {
                span.setAttribute(RESOURCE_URI, target.uri);
            }
            if (sessionId != null) {
                // A span attribute only: a session id on the histograms would make a series per session.
                span.setAttribute(SESSION_ID, sessionId);
            }
            own = true;
        }
        if (target.tool != null && telemetry.toolPayloads() && span.isRecording()) {
            span.setAttribute(TOOL_ARGUMENTS, masked(params.path("arguments")));
        }
        return new Op(in, in.clientOperation, span, own, parent.with(span), metric, start, target.tool != null);
    }

    @Override
    public Operation startServer(String method, JsonNode params, RequestId id, Peer peer, String protocolVersion,
            String sessionId) {
        Instruments in = instruments();
        if (in.noop) {
            return Operation.NOOP;
        }
        long start = System.nanoTime();
        JsonNode meta = params == null ? null : params.get("_meta");
        Context parent = meta != null && meta.isObject()
                ? in.propagator.extract(Context.current(), meta, GETTER) : Context.current();
        Target target = Target.of(method, params);
        AttributesBuilder metric = Attributes.builder().put(METHOD, method);
        target.put(metric);
        if (protocolVersion != null) {
            metric.put(PROTOCOL_VERSION, protocolVersion);
        }
        if (peer != null) {
            metric.put(NETWORK_TRANSPORT, peer.transport());
            if (peer.protocolName() != null) {
                metric.put(NETWORK_PROTOCOL, peer.protocolName());
            }
        }
        var builder = in.tracer.spanBuilder(target.spanName(method)).setSpanKind(SpanKind.SERVER).setParent(parent)
                .setAllAttributes(metric.build());
        if (id != null) {
            builder.setAttribute(REQUEST_ID, requestId(id));
        }
        if (sessionId != null) {
            builder.setAttribute(SESSION_ID, sessionId);
        }
        Span span = builder.startSpan();
        if (target.uri != null) {
            span.setAttribute(RESOURCE_URI, target.uri);
        }
        if (target.tool != null && telemetry.toolPayloads() && span.isRecording()) {
            span.setAttribute(TOOL_ARGUMENTS, masked(params.path("arguments")));
        }
        return new Op(in, in.serverOperation, span, true, parent.with(span), metric, start, target.tool != null);
    }

    @Override
    public void sessionEnded(boolean client, long startNanos, Peer peer, String protocolVersion, Throwable error) {
        Instruments in = instruments();
        if (in.noop) {
            return;
        }
        AttributesBuilder attributes = Attributes.builder();
        if (protocolVersion != null) {
            attributes.put(PROTOCOL_VERSION, protocolVersion);
        }
        if (peer != null) {
            putNetwork(attributes, peer, client);
        }
        if (error != null) {
            attributes.put(ERROR_TYPE, errorType(error));
        }
        (client ? in.clientSession : in.serverSession).record((System.nanoTime() - startNanos) / 1e9,
                attributes.build());
    }

    private static AttributesBuilder metricAttributes(String method, Target target, Peer peer, String version) {
        AttributesBuilder attributes = Attributes.builder().put(METHOD, method);
        target.put(attributes);
        if (version != null) {
            attributes.put(PROTOCOL_VERSION, version);
        }
        if (peer != null) {
            putNetwork(attributes, peer, true);
        }
        return attributes;
    }

    private static void putNetwork(AttributesBuilder attributes, Peer peer, boolean client) {
        attributes.put(NETWORK_TRANSPORT, peer.transport());
        if (peer.protocolName() != null) {
            attributes.put(NETWORK_PROTOCOL, peer.protocolName());
        }
        if (client && peer.address() != null) {
            attributes.put(SERVER_ADDRESS, peer.address());
            attributes.put(SERVER_PORT, (long) peer.port());
        }
    }

    private static void setNetwork(Span span, Peer peer) {
        if (peer == null) {
            return;
        }
        AttributesBuilder attributes = Attributes.builder();
        putNetwork(attributes, peer, true);
        span.setAllAttributes(attributes.build());
    }

    private static String requestId(RequestId id) {
        if (id instanceof RequestId.NumberId number) {
            return Long.toString(number.value());
        }
        return ((RequestId.StringId) id).value();
    }

    /** The low-cardinality target of a span name, and the attributes that name what a request is about. */
    private static final class Target {
        final String tool;
        final String prompt;
        final String uri;

        private Target(String tool, String prompt, String uri) {
            this.tool = tool;
            this.prompt = prompt;
            this.uri = uri;
        }

        static Target of(String method, JsonNode params) {
            String tool = null;
            String prompt = null;
            String uri = null;
            if (params != null) {
                switch (method) {
                    case "tools/call" -> tool = text(params, "name");
                    case "prompts/get" -> prompt = text(params, "name");
                    case "resources/read", "resources/subscribe", "resources/unsubscribe" -> uri = text(params, "uri");
                    default -> {
                    }
                }
            }
            return new Target(tool, prompt, uri);
        }

        /** {@code {mcp.method.name} {target}}; never the resource URI, whose cardinality is unbounded. */
        String spanName(String method) {
            return tool != null ? method + " " + tool : prompt != null ? method + " " + prompt : method;
        }

        void put(AttributesBuilder attributes) {
            if (tool != null) {
                attributes.put(TOOL_NAME, tool);
                attributes.put(OPERATION_NAME, EXECUTE_TOOL);
            }
            if (prompt != null) {
                attributes.put(PROMPT_NAME, prompt);
            }
        }

        private static String text(JsonNode params, String field) {
            JsonNode value = params.get(field);
            return value != null && value.isString() ? value.asString() : null;
        }
    }

    /** One request: its span (own or the application's) and its clock. */
    private final class Op implements Operation {
        private final Instruments in;
        private final DoubleHistogram histogram;
        private final Span span;
        private final boolean own;
        private final Context context;
        private final AttributesBuilder metric;
        private final long start;
        private final boolean toolCall;
        private final AtomicBoolean ended = new AtomicBoolean();

        Op(Instruments in, DoubleHistogram histogram, Span span, boolean own, Context context,
                AttributesBuilder metric, long start, boolean toolCall) {
            this.in = in;
            this.histogram = histogram;
            this.span = span;
            this.own = own;
            this.context = context;
            this.metric = metric;
            this.start = start;
            this.toolCall = toolCall;
        }

        @Override
        public JsonNode inject(JsonNode params) {
            if (!span.getSpanContext().isValid() && Baggage.fromContext(context).isEmpty()) {
                return params;
            }
            ObjectNode copy = params != null && params.isObject() ? ((ObjectNode) params).deepCopy() : McpJson.object();
            JsonNode meta = copy.get("_meta");
            ObjectNode metaObject = meta != null && meta.isObject() ? (ObjectNode) meta : copy.putObject("_meta");
            in.propagator.inject(context, metaObject, SETTER);
            return copy;
        }

        @Override
        public AutoCloseable makeCurrent() {
            Scope scope = context.makeCurrent();
            return scope::close;
        }

        @Override
        public void end(JsonNode result, Throwable error) {
            if (!ended.compareAndSet(false, true)) {
                return;
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            Throwable cause = unwrap(error);
            String errorType = null;
            if (cause != null) {
                errorType = errorType(cause);
                if (cause instanceof McpProtocolException protocol) {
                    String code = Integer.toString(protocol.code());
                    span.setAttribute(STATUS_CODE, code);
                    metric.put(STATUS_CODE, code);
                    span.setStatus(StatusCode.ERROR, protocol.getMessage());
                } else {
                    span.setStatus(StatusCode.ERROR);
                }
            } else if (toolCall && result != null && result.path("isError").asBoolean(false)) {
                errorType = TOOL_ERROR;
                span.setStatus(StatusCode.ERROR);
            }
            if (errorType != null) {
                span.setAttribute(ERROR_TYPE, errorType);
                metric.put(ERROR_TYPE, errorType);
            }
            if (toolCall && result != null && telemetry.toolPayloads() && span.isRecording()) {
                span.setAttribute(TOOL_RESULT, masked(result));
            }
            if (own) {
                span.end();
            }
            histogram.record(seconds, metric.build(), context);
        }
    }

    static String errorType(Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof McpProtocolException protocol) {
            return Integer.toString(protocol.code());
        }
        return cause.getClass().getName();
    }

    private static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** The JSON with the values of secret-looking keys replaced, for the span. */
    static String masked(JsonNode json) {
        return mask(json).toString();
    }

    private static JsonNode mask(JsonNode json) {
        if (json.isObject()) {
            ObjectNode copy = McpJson.object();
            for (Map.Entry<String, JsonNode> field : json.properties()) {
                copy.set(field.getKey(), SECRET_KEY.matcher(field.getKey()).matches()
                        ? McpJson.mapper().getNodeFactory().stringNode("***") : mask(field.getValue()));
            }
            return copy;
        }
        if (json.isArray()) {
            var copy = McpJson.mapper().createArrayNode();
            json.forEach(item -> copy.add(mask(item)));
            return copy;
        }
        return json;
    }

    // ---------------------------------------------------------------- the application's execute_tool span

    /**
     * Whether the span is the application's {@code execute_tool} span (kind {@code INTERNAL}, as the GenAI
     * conventions make it; not a gateway's {@code SERVER} span, whose tool call goes upstream in a span of its own).
     * The API does not read a span's attributes back, so the SDK's {@code ReadableSpan} is asked reflectively;
     * another implementation is never taken for one.
     */
    private static boolean isExecuteTool(Span span) {
        if (!span.isRecording()) {
            return false;
        }
        Method[] readers = READERS.get(span.getClass());
        if (readers == null) {
            return false;
        }
        try {
            return "INTERNAL".equals(String.valueOf(readers[1].invoke(span)))
                    && EXECUTE_TOOL.equals(readers[0].invoke(span, OPERATION_NAME));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    private static final ClassValue<Method[]> READERS = new ClassValue<>() {
        @Override
        protected Method[] computeValue(Class<?> type) {
            for (Class<?> face : allInterfaces(type)) {
                if (face.getName().equals("io.opentelemetry.sdk.trace.ReadableSpan")) {
                    try {
                        return new Method[] {face.getMethod("getAttribute", AttributeKey.class),
                            face.getMethod("getKind")};
                    } catch (NoSuchMethodException e) {
                        return null;
                    }
                }
            }
            return null;
        }
    };

    private static List<Class<?>> allInterfaces(Class<?> type) {
        List<Class<?>> all = new ArrayList<>();
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> face : c.getInterfaces()) {
                collect(face, all);
            }
        }
        return all;
    }

    private static void collect(Class<?> face, List<Class<?>> all) {
        if (!all.contains(face)) {
            all.add(face);
            for (Class<?> parent : face.getInterfaces()) {
                collect(parent, all);
            }
        }
    }
}
