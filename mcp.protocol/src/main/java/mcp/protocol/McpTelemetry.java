package mcp.protocol;

import java.util.Objects;

/**
 * Where the spans and metrics of MCP requests go, by the OpenTelemetry semantic conventions for MCP: a
 * {@code CLIENT} span per request sent and a {@code SERVER} span per request received, named
 * {@code {mcp.method.name} {target}}, the {@code mcp.client.operation.duration} and
 * {@code mcp.server.operation.duration} histograms, and W3C trace context ({@code traceparent}, {@code tracestate},
 * {@code baggage}) carried in {@code params._meta} in both eras.
 *
 * <p>OpenTelemetry is optional: mcp-host reads its API only when the application has it ({@code requires static
 * io.opentelemetry.api}). Without it, or with {@link #none()}, nothing is loaded, nothing is emitted and nothing is
 * added to a request.
 *
 * <p>The default is {@link #global()}: the instance registered with {@code GlobalOpenTelemetry} (by the Java agent,
 * by the SDK's autoconfigure, or by the application), looked up when a request starts, so that an instance
 * registered after mcp-host was built is still used, and never registering the no-op instance in its place. An
 * instance passed with {@link #of(Object)} wins, for applications that keep theirs out of the global.
 *
 * <p>Tool arguments and results are recorded ({@code gen_ai.tool.call.arguments}, {@code gen_ai.tool.call.result})
 * only after {@link #withToolPayloads(boolean)}; values under keys that look like secrets (tokens, passwords, keys,
 * authorization) are masked even then.
 */
public final class McpTelemetry {

    private static final McpTelemetry NONE = new McpTelemetry(false, null, false);
    private static final McpTelemetry GLOBAL = new McpTelemetry(true, null, false);

    private final boolean enabled;
    /** The application's {@code io.opentelemetry.api.OpenTelemetry}, or {@code null} for the global one. */
    private final Object openTelemetry;
    private final boolean toolPayloads;

    private McpTelemetry(boolean enabled, Object openTelemetry, boolean toolPayloads) {
        this.enabled = enabled;
        this.openTelemetry = openTelemetry;
        this.toolPayloads = toolPayloads;
    }

    /** @return telemetry that emits nothing and adds nothing to requests */
    public static McpTelemetry none() {
        return NONE;
    }

    /** @return telemetry through {@code GlobalOpenTelemetry}, when the API is present and an instance is set */
    public static McpTelemetry global() {
        return GLOBAL;
    }

    /**
     * @param openTelemetry an {@code io.opentelemetry.api.OpenTelemetry} (typed {@code Object} so that this class
     *     loads without the API)
     * @return telemetry through that instance
     * @throws IllegalArgumentException if it is not an {@code io.opentelemetry.api.OpenTelemetry}
     */
    public static McpTelemetry of(Object openTelemetry) {
        Objects.requireNonNull(openTelemetry, "openTelemetry");
        boolean isOtel = false;
        for (Class<?> type = openTelemetry.getClass(); type != null && !isOtel; type = type.getSuperclass()) {
            isOtel = implementsOtel(type);
        }
        if (!isOtel) {
            throw new IllegalArgumentException("not an io.opentelemetry.api.OpenTelemetry: "
                    + openTelemetry.getClass().getName());
        }
        return new McpTelemetry(true, openTelemetry, false);
    }

    private static boolean implementsOtel(Class<?> type) {
        for (Class<?> face : type.getInterfaces()) {
            if (face.getName().equals("io.opentelemetry.api.OpenTelemetry") || implementsOtel(face)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param record whether tool arguments and results go into the span (default {@code false}: they may hold
     *     personal data; secret-looking values are masked either way)
     * @return a copy with that setting
     */
    public McpTelemetry withToolPayloads(boolean record) {
        return enabled ? new McpTelemetry(true, openTelemetry, record) : this;
    }

    /** @return whether anything may be emitted */
    public boolean enabled() {
        return enabled;
    }

    /** @return whether tool arguments and results are recorded */
    public boolean toolPayloads() {
        return toolPayloads;
    }

    /**
     * @return the application's {@code OpenTelemetry}, or {@code null} for the global one; for mcp-host's own
     *     modules
     */
    public Object openTelemetry() {
        return openTelemetry;
    }

    @Override
    public String toString() {
        return !enabled ? "McpTelemetry[none]" : openTelemetry == null ? "McpTelemetry[global]" : "McpTelemetry[given]";
    }
}
