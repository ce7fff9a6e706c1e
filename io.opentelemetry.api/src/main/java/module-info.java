/**
 * OpenTelemetry Java 1.68.0 (Apache License 2.0): the API, context, SDK (traces, metrics, logs), the SDK's
 * autoconfiguration from {@code OTEL_*} variables, and the OTLP exporters over the JDK's HTTP client, unchanged, as
 * one real named module for the command line's runtime image. Its jars are automatic modules, which jlink refuses;
 * the module takes the API's name, {@code io.opentelemetry.api}, because that is the module mcp-host's libraries read
 * optionally ({@code requires static}). Embedders keep OpenTelemetry's own jars; only the image uses this one.
 *
 * <p>Every package is exported as the jars export them; the service types the SDK looks up are declared here, and
 * the jars' own {@code META-INF/services} entries become {@code provides} clauses.
 */
module io.opentelemetry.api {
    // The SDK logs through java.util.logging, sends OTLP with java.net.http, and its queues use sun.misc.Unsafe.
    requires java.logging;
    requires java.net.http;
    requires jdk.unsupported;
    exports io.opentelemetry.api;
    exports io.opentelemetry.api.baggage;
    exports io.opentelemetry.api.baggage.propagation;
    exports io.opentelemetry.api.common;
    exports io.opentelemetry.api.impl;
    exports io.opentelemetry.api.internal;
    exports io.opentelemetry.api.logs;
    exports io.opentelemetry.api.metrics;
    exports io.opentelemetry.api.trace;
    exports io.opentelemetry.api.trace.propagation;
    exports io.opentelemetry.api.trace.propagation.internal;
    exports io.opentelemetry.common;
    exports io.opentelemetry.common.impl;
    exports io.opentelemetry.context;
    exports io.opentelemetry.context.propagation;
    exports io.opentelemetry.context.propagation.internal;
    exports io.opentelemetry.exporter.internal;
    exports io.opentelemetry.exporter.internal.grpc;
    exports io.opentelemetry.exporter.internal.marshal;
    exports io.opentelemetry.exporter.internal.metrics;
    exports io.opentelemetry.exporter.internal.otlp;
    exports io.opentelemetry.exporter.internal.otlp.logs;
    exports io.opentelemetry.exporter.internal.otlp.metrics;
    exports io.opentelemetry.exporter.internal.otlp.traces;
    exports io.opentelemetry.exporter.otlp.all.internal;
    exports io.opentelemetry.exporter.otlp.http.logs;
    exports io.opentelemetry.exporter.otlp.http.metrics;
    exports io.opentelemetry.exporter.otlp.http.trace;
    exports io.opentelemetry.exporter.otlp.internal;
    exports io.opentelemetry.exporter.otlp.logs;
    exports io.opentelemetry.exporter.otlp.metrics;
    exports io.opentelemetry.exporter.otlp.trace;
    exports io.opentelemetry.exporter.sender.jdk.internal;
    exports io.opentelemetry.proto.collector.logs.v1.internal;
    exports io.opentelemetry.proto.collector.metrics.v1.internal;
    exports io.opentelemetry.proto.collector.profiles.v1development.internal;
    exports io.opentelemetry.proto.collector.trace.v1.internal;
    exports io.opentelemetry.proto.common.v1.internal;
    exports io.opentelemetry.proto.logs.v1.internal;
    exports io.opentelemetry.proto.metrics.v1.internal;
    exports io.opentelemetry.proto.profiles.v1development.internal;
    exports io.opentelemetry.proto.resource.v1.internal;
    exports io.opentelemetry.proto.trace.v1.internal;
    exports io.opentelemetry.sdk;
    exports io.opentelemetry.sdk.autoconfigure;
    exports io.opentelemetry.sdk.autoconfigure.internal;
    exports io.opentelemetry.sdk.autoconfigure.spi;
    exports io.opentelemetry.sdk.autoconfigure.spi.internal;
    exports io.opentelemetry.sdk.autoconfigure.spi.logs;
    exports io.opentelemetry.sdk.autoconfigure.spi.metrics;
    exports io.opentelemetry.sdk.autoconfigure.spi.traces;
    exports io.opentelemetry.sdk.common;
    exports io.opentelemetry.sdk.common.export;
    exports io.opentelemetry.sdk.common.internal;
    exports io.opentelemetry.sdk.internal;
    exports io.opentelemetry.sdk.logs;
    exports io.opentelemetry.sdk.logs.data;
    exports io.opentelemetry.sdk.logs.export;
    exports io.opentelemetry.sdk.logs.internal;
    exports io.opentelemetry.sdk.metrics;
    exports io.opentelemetry.sdk.metrics.data;
    exports io.opentelemetry.sdk.metrics.export;
    exports io.opentelemetry.sdk.metrics.internal;
    exports io.opentelemetry.sdk.metrics.internal.aggregator;
    exports io.opentelemetry.sdk.metrics.internal.concurrent;
    exports io.opentelemetry.sdk.metrics.internal.data;
    exports io.opentelemetry.sdk.metrics.internal.debug;
    exports io.opentelemetry.sdk.metrics.internal.descriptor;
    exports io.opentelemetry.sdk.metrics.internal.exemplar;
    exports io.opentelemetry.sdk.metrics.internal.export;
    exports io.opentelemetry.sdk.metrics.internal.state;
    exports io.opentelemetry.sdk.metrics.internal.view;
    exports io.opentelemetry.sdk.resources;
    exports io.opentelemetry.sdk.resources.internal;
    exports io.opentelemetry.sdk.trace;
    exports io.opentelemetry.sdk.trace.data;
    exports io.opentelemetry.sdk.trace.export;
    exports io.opentelemetry.sdk.trace.internal;
    exports io.opentelemetry.sdk.trace.samplers;

    uses io.opentelemetry.context.ContextStorageProvider;
    uses io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizerProvider;
    uses io.opentelemetry.sdk.autoconfigure.spi.ConfigurablePropagatorProvider;
    uses io.opentelemetry.sdk.autoconfigure.spi.ResourceProvider;
    uses io.opentelemetry.sdk.autoconfigure.spi.internal.AutoConfigureListener;
    uses io.opentelemetry.sdk.autoconfigure.spi.internal.ComponentProvider;
    uses io.opentelemetry.sdk.autoconfigure.spi.internal.ConditionalResourceProvider;
    uses io.opentelemetry.sdk.autoconfigure.spi.internal.ConfigurableMetricReaderProvider;
    uses io.opentelemetry.sdk.autoconfigure.spi.logs.ConfigurableLogRecordExporterProvider;
    uses io.opentelemetry.sdk.autoconfigure.spi.metrics.ConfigurableMetricExporterProvider;
    uses io.opentelemetry.sdk.autoconfigure.spi.traces.ConfigurableSamplerProvider;
    uses io.opentelemetry.sdk.autoconfigure.spi.traces.ConfigurableSpanExporterProvider;
    uses io.opentelemetry.sdk.autoconfigure.spi.traces.SdkTracerProviderConfigurer;
    uses io.opentelemetry.sdk.common.export.Compressor;
    uses io.opentelemetry.sdk.common.export.GrpcSenderProvider;
    uses io.opentelemetry.sdk.common.export.HttpSenderProvider;
    uses io.opentelemetry.sdk.logs.export.LogRecordExporter;
    uses io.opentelemetry.sdk.metrics.export.MetricExporter;
    uses io.opentelemetry.sdk.trace.export.SpanExporter;

    provides io.opentelemetry.sdk.autoconfigure.spi.ResourceProvider with
            io.opentelemetry.sdk.autoconfigure.ServiceInstanceIdResourceProvider,
            io.opentelemetry.sdk.autoconfigure.EnvironmentResourceProvider;
    provides io.opentelemetry.sdk.autoconfigure.spi.internal.ComponentProvider with
            io.opentelemetry.exporter.otlp.internal.OtlpHttpMetricExporterComponentProvider,
            io.opentelemetry.exporter.otlp.internal.OtlpHttpSpanExporterComponentProvider,
            io.opentelemetry.exporter.otlp.internal.OtlpHttpLogRecordExporterComponentProvider,
            io.opentelemetry.exporter.otlp.internal.OtlpGrpcMetricExporterComponentProvider,
            io.opentelemetry.exporter.otlp.internal.OtlpGrpcSpanExporterComponentProvider,
            io.opentelemetry.exporter.otlp.internal.OtlpGrpcLogRecordExporterComponentProvider;
    provides io.opentelemetry.sdk.autoconfigure.spi.logs.ConfigurableLogRecordExporterProvider with
            io.opentelemetry.exporter.otlp.internal.OtlpLogRecordExporterProvider;
    provides io.opentelemetry.sdk.autoconfigure.spi.metrics.ConfigurableMetricExporterProvider with
            io.opentelemetry.exporter.otlp.internal.OtlpMetricExporterProvider;
    provides io.opentelemetry.sdk.autoconfigure.spi.traces.ConfigurableSpanExporterProvider with
            io.opentelemetry.exporter.otlp.internal.OtlpSpanExporterProvider;
    provides io.opentelemetry.sdk.common.export.HttpSenderProvider with
            io.opentelemetry.exporter.sender.jdk.internal.JdkHttpSenderProvider;
}
