/**
 * Test servers for mcp-host: a small MCP server over stdio ({@link mcp.testkit.TestServer}) that tests
 * and benchmarks run as a child process, with switchable faults, and {@link mcp.testkit.TestServers} to
 * build its command line; and an in-process OAuth 2.1 authorization server with an OAuth-protected MCP
 * server over Streamable HTTP ({@link mcp.testkit.AuthTestServer}) for tests of the OAuth client, and an
 * independent checker of DPoP proofs ({@link mcp.testkit.DpopVerifier}); and the server the official conformance
 * suite scores ({@link mcp.testkit.ConformanceServer}), which, unlike the others, is written on {@code mcp.server}.
 */
module mcp.testkit {
    requires tools.jackson.databind;
    // The conformance fixture (ConformanceServer) is an MCP server on mcp-host's own server side.
    requires mcp.server;
    requires jdk.httpserver;

    exports mcp.testkit;
}
