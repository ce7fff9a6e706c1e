/**
 * The HTTP choice's server on Jetty 12.1 core (its {@code Handler} API, no servlets): the minimal Streamable HTTP
 * endpoint that {@code mcp.bench.internal.HttpChoice} measures beside the same endpoint on the JDK's own server
 * (module {@code mcp.bench.http.jdk}). It requires Jetty's server module and nothing else, so that its process,
 * its start and its jlink image carry that library alone. A bench program, not part of mcp-host.
 */
module mcp.bench.http.jetty {
    requires org.eclipse.jetty.server;
}
