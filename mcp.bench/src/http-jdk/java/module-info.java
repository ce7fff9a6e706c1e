/**
 * The HTTP choice's server on the JDK's own HTTP server ({@code com.sun.net.httpserver}): the minimal
 * Streamable HTTP endpoint that {@code mcp.bench.internal.HttpChoice} measures beside the same endpoint on Jetty
 * (module {@code mcp.bench.http.jetty}). It requires {@code jdk.httpserver} and nothing else, so that its process,
 * its start and its jlink image carry that library alone. A bench program, not part of mcp-host.
 */
module mcp.bench.http.jdk {
    requires jdk.httpserver;
}
