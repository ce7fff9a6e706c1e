package mcp.cli.internal;

import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OpenTelemetry SDK of the command, configured from the standard {@code OTEL_*} variables (the SDK's
 * autoconfigure) and registered as the global instance, which mcp-host's client and server read by default. Only
 * when a variable asks for it: without one no SDK is built, nothing is emitted and nothing is printed.
 */
final class OtelSetup {

    private static final Logger LOG = LoggerFactory.getLogger(OtelSetup.class);

    /** The variables that ask for telemetry; an operator who sets none of them gets none. */
    static final List<String> ASKING = List.of("OTEL_SERVICE_NAME", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER",
            "OTEL_LOGS_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");

    private OtelSetup() {
    }

    /** @return whether the environment asks for telemetry (and does not switch the SDK off) */
    static boolean asked(Map<String, String> env) {
        if ("true".equalsIgnoreCase(env.getOrDefault("OTEL_SDK_DISABLED", "").trim())) {
            return false;
        }
        return ASKING.stream().anyMatch(name -> !env.getOrDefault(name, "").isBlank());
    }

    /**
     * Builds and registers the SDK when asked.
     *
     * @param env the process environment
     * @return what flushes and ends it (bounded), to be closed before the process exits
     */
    static AutoCloseable start(Map<String, String> env) {
        if (!asked(env)) {
            return () -> { };
        }
        try {
            OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
                    // Lower priority than the OTEL_* variables and system properties: a name unless one is given, and
                    // OTLP over HTTP, the one sender the runtime image has (the SDK's own default is gRPC).
                    .addPropertiesSupplier(() -> Map.of("otel.service.name", "mcp-host",
                            "otel.exporter.otlp.protocol", "http/protobuf"))
                    .disableShutdownHook()
                    .setResultAsGlobal()
                    .build()
                    .getOpenTelemetrySdk();
            LOG.debug("OpenTelemetry SDK configured from the OTEL_* variables");
            return () -> sdk.shutdown().join(5, TimeUnit.SECONDS);
        } catch (RuntimeException e) {
            // The SDK's messages may quote a setting's value, and OTEL_EXPORTER_OTLP_HEADERS holds credentials.
            String message = String.valueOf(e.getMessage());
            boolean mayQuoteSecret = message.toLowerCase(Locale.ROOT).contains("header");
            LOG.warn("OpenTelemetry is not configured: the OTEL_* settings were refused ({}{})",
                    e.getClass().getSimpleName(), mayQuoteSecret ? "" : ": " + message);
            return () -> { };
        }
    }
}
