/**
 * A test MCP server run as a child process over stdio.
 *
 * <p>{@link mcp.testkit.TestServer} is the server (its {@code main} takes options such as
 * {@code --tools N} and {@code --fault F}); {@link mcp.testkit.TestServers} builds the command line
 * that starts it with the current JVM, so tests in other modules need no packaging step.
 */
package mcp.testkit;
