/**
 * Test servers: an MCP server run as a child process over stdio, and an OAuth-protected MCP server
 * over HTTP run in the test's own JVM.
 *
 * <p>{@link mcp.testkit.TestServer} is the stdio server (its {@code main} takes options such as
 * {@code --tools N} and {@code --fault F}); {@link mcp.testkit.TestServers} builds the command line
 * that starts it with the current JVM, so tests in other modules need no packaging step.
 * {@link mcp.testkit.AuthTestServer} is a local OAuth 2.1 authorization server (metadata, dynamic
 * client registration, an authorization endpoint that redirects at once, PKCE, refresh) together with
 * an MCP endpoint that demands its tokens, with switches for the failures an OAuth client must handle.
 * {@link mcp.testkit.DpopVerifier} checks DPoP proofs (RFC 9449) independently of the client's code.
 */
package mcp.testkit;
