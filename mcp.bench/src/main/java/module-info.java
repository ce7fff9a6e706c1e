/**
 * Benchmarks of mcp-host next to the official MCP SDKs and a floor client (issue 7). Not part of
 * the runtime image.
 *
 * <p>The exported package {@code mcp.bench} holds the client workload that every Java client process
 * runs ({@link mcp.bench.BenchClient}, {@link mcp.bench.ClientRun}), so that all of them are measured
 * by the same code; {@code mcp.bench.internal} holds the mcp-host and floor clients, the startup and
 * CLI measurements, and the runner that alternates the client processes and writes the report.
 *
 * <p>The official Java SDK client and the JMH benchmarks are not in this module: the SDK has no module
 * descriptor, so they are compiled from {@code src/classpath/java} into their own class-path
 * directory and always run in processes of their own, on the class path. Likewise the two servers of the
 * HTTP choice ({@code mcp.bench.internal.HttpChoice}): modules of their own ({@code mcp.bench.http.jdk},
 * {@code mcp.bench.http.jetty}, from {@code src/http-jdk} and {@code src/http-jetty}), each run as a process with
 * its HTTP library alone on the module path; Jetty is nowhere on this module's path.
 *
 * @uses mcp.api.spi.TransportProvider
 * @uses mcp.api.spi.ToolCacheProvider
 */
module mcp.bench {
    requires mcp.manager;
    requires mcp.testkit;
    requires mcp.search;
    // Bench only: Lucene as the other engine of the tool search bench (SearchBench).
    requires org.apache.lucene.core;
    requires tools.jackson.databind;
    // The cost of tracing (TracingCostBench): the OpenTelemetry SDK, bench only.
    requires io.opentelemetry.api;
    requires io.opentelemetry.context;
    requires io.opentelemetry.sdk;
    requires io.opentelemetry.sdk.common;
    requires io.opentelemetry.sdk.trace;
    requires io.opentelemetry.sdk.metrics;
    // The client JVM's CPU time per call (TracingCostBench).
    requires jdk.management;
    // The client of the HTTP choice (HttpChoice).
    requires java.net.http;
    // Providers found by ServiceLoader, as the host finds them.
    requires mcp.transport.stdio;
    // The Streamable HTTP client of the gateway comparison (Gateways).
    requires mcp.transport.http;
    requires mcp.cache;

    exports mcp.bench;

    uses mcp.api.spi.TransportProvider;
    uses mcp.api.spi.ToolCacheProvider;
}
