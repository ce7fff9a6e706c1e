/**
 * Test servers for mcp-host: a small MCP server over stdio ({@link mcp.testkit.TestServer}) that tests
 * and benchmarks run as a child process, with switchable faults, and {@link mcp.testkit.TestServers} to
 * build its command line; and an in-process OAuth 2.1 authorization server with an OAuth-protected MCP
 * server over Streamable HTTP ({@link mcp.testkit.AuthTestServer}) for tests of the OAuth client, and an
 * independent checker of DPoP proofs ({@link mcp.testkit.DpopVerifier}).
 */
module mcp.testkit {
    requires tools.jackson.databind;
    requires jdk.httpserver;

    exports mcp.testkit;
}
