package mcp.bench.internal;

import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.export.MemoryMode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.MetricExporter;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicLong;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.protocol.McpTelemetry;
import mcp.testkit.TestServers;
import tools.jackson.databind.node.ObjectNode;

/**
 * The cost of tracing (BENCHMARKS.md, "Tracing"): sequential {@code tools/call echo} over stdio to a testkit server,
 * one client per setting in one JVM, the settings taking turns round after round so that they share the machine's
 * noise: no telemetry ({@link McpTelemetry#none()}, the code path of a host without the OpenTelemetry API), the SDK
 * sampling nothing (spans dropped, the duration histogram still recorded), and the SDK sampling everything (every
 * span batched to an exporter that drops it). Reports each setting's call p50 and p99 and the client JVM's CPU time
 * per call (the server's own CPU is not in it).
 *
 * <p>Usage: {@code TracingCostBench [--rounds N] [--calls N] [--warmup N]}; prints a small Markdown table.
 */
public final class TracingCostBench {

    private TracingCostBench() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(option(args, "--rounds", "6"));
        int calls = Integer.parseInt(option(args, "--calls", "1000"));
        int warmup = Integer.parseInt(option(args, "--warmup", "1000"));
        AtomicLong exported = new AtomicLong();
        OpenTelemetrySdk nothing = sdk(Sampler.alwaysOff(), exported);
        OpenTelemetrySdk everything = sdk(Sampler.alwaysOn(), exported);
        Map<String, McpTelemetry> settings = new LinkedHashMap<>();
        settings.put("no SDK", McpTelemetry.none());
        settings.put("SDK, sampling nothing", McpTelemetry.of(nothing));
        settings.put("SDK, sampling everything", McpTelemetry.of(everything));
        Map<String, McpClient> clients = new LinkedHashMap<>();
        Map<String, long[]> latencies = new LinkedHashMap<>();
        Map<String, Long> cpu = new LinkedHashMap<>();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try {
            for (Map.Entry<String, McpTelemetry> setting : settings.entrySet()) {
                clients.put(setting.getKey(), connect(setting.getKey(), setting.getValue()));
                latencies.put(setting.getKey(), new long[rounds * calls]);
                cpu.put(setting.getKey(), 0L);
            }
            ObjectNode arguments = McpJson.object().put("message", "hi");
            for (McpClient client : clients.values()) {
                for (int i = 0; i < warmup; i++) {
                    client.callToolBlocking("echo", arguments);
                }
            }
            List<Map.Entry<String, McpClient>> order = new ArrayList<>(clients.entrySet());
            for (int round = 0; round < rounds; round++) {
                // Each round starts with another setting, so that none always runs right after the warm-up or GC.
                java.util.Collections.rotate(order, 1);
                for (Map.Entry<String, McpClient> entry : order) {
                    long[] times = latencies.get(entry.getKey());
                    long cpuStart = os.getProcessCpuTime();
                    for (int i = 0; i < calls; i++) {
                        long start = System.nanoTime();
                        entry.getValue().callToolBlocking("echo", arguments);
                        times[round * calls + i] = System.nanoTime() - start;
                    }
                    cpu.merge(entry.getKey(), os.getProcessCpuTime() - cpuStart, Long::sum);
                }
            }
        } finally {
            clients.values().forEach(McpClient::close);
            nothing.shutdown().join(10, java.util.concurrent.TimeUnit.SECONDS);
            everything.shutdown().join(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        System.out.println("| setting | calls | p50 µs | p99 µs | client CPU µs/call |");
        System.out.println("|---|---:|---:|---:|---:|");
        for (String name : settings.keySet()) {
            long[] times = latencies.get(name).clone();
            Arrays.sort(times);
            System.out.printf(Locale.ROOT, "| %s | %d | %.0f | %.0f | %.1f |%n", name, times.length,
                    times[times.length / 2] / 1e3, times[(int) (times.length * 0.99)] / 1e3,
                    cpu.get(name) / 1e3 / times.length);
        }
        System.out.printf(Locale.ROOT, "%nspans exported (dropped by the exporter): %d%n", exported.get());
        System.exit(0);
    }

    private static McpClient connect(String name, McpTelemetry telemetry) {
        TransportProvider stdio = ServiceLoader.load(TransportProvider.class, TracingCostBench.class.getClassLoader())
                .stream().map(ServiceLoader.Provider::get).filter(p -> p.id().equals("stdio")).findFirst()
                .orElseThrow(() -> new IllegalStateException("no stdio transport on the module path"));
        List<String> command = TestServers.command("--era", "legacy");
        StdioServerConfig config = StdioServerConfig.of(command.get(0), command.subList(1, command.size()));
        return McpClient.connectBlocking(stdio.open(TransportRequest.of(name.replaceAll("[^a-z]", "-"), config,
                Path.of("").toAbsolutePath())), ClientOptions.builder("bench").telemetry(telemetry)
                        .requestTimeout(Duration.ofSeconds(30)).build());
    }

    private static OpenTelemetrySdk sdk(Sampler sampler, AtomicLong exported) {
        SpanExporter drop = new SpanExporter() {
            @Override
            public CompletableResultCode export(Collection<SpanData> spans) {
                exported.addAndGet(spans.size());
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode flush() {
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode shutdown() {
                return CompletableResultCode.ofSuccess();
            }
        };
        MetricExporter dropMetrics = new MetricExporter() {
            @Override
            public AggregationTemporality getAggregationTemporality(InstrumentType type) {
                return AggregationTemporality.CUMULATIVE;
            }

            @Override
            public MemoryMode getMemoryMode() {
                return MemoryMode.REUSABLE_DATA;
            }

            @Override
            public CompletableResultCode export(Collection<MetricData> metrics) {
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode flush() {
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode shutdown() {
                return CompletableResultCode.ofSuccess();
            }
        };
        return OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().setSampler(sampler)
                        .addSpanProcessor(BatchSpanProcessor.builder(drop).build()).build())
                .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(PeriodicMetricReader
                        .builder(dropMetrics).setInterval(Duration.ofSeconds(10)).build()).build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                .build();
    }

    private static String option(String[] args, String name, String fallback) {
        List<String> list = new ArrayList<>(Arrays.asList(args));
        int at = list.indexOf(name);
        return at >= 0 && at + 1 < list.size() ? list.get(at + 1) : fallback;
    }
}
