/**
 * The {@code mcp-host} command: the command line (picocli) over the embedding API of {@code mcp.host}, the demo
 * with its test servers, the client the conformance suite runs, and tinylog as the logging backend. An
 * application, not a library: it exports nothing, and the jlink runtime image is built from it.
 *
 * <p>{@link mcp.cli.Main} is the entry point ({@code java -m mcp.cli/mcp.cli.Main}).
 */
module mcp.cli {
    requires mcp.host.defaults;
    requires mcp.gateway;
    requires mcp.resourceserver;
    requires org.slf4j;
    requires info.picocli;
    // OpenTelemetry's API, SDK, autoconfigure and OTLP exporter as one named module (see io.opentelemetry.api/pom.xml):
    // configured only when an OTEL_* variable asks for it (OtelSetup).
    requires io.opentelemetry.api;
    // sun.misc.Signal: serve drains its calls on SIGTERM instead of letting the JVM's shutdown cancel them.
    requires jdk.unsupported;

    // picocli reads and writes the command classes' annotated fields reflectively.
    opens mcp.cli.internal to info.picocli;
}
