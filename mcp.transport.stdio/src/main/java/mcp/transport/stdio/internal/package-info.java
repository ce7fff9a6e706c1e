/**
 * The implementation of the stdio transport; not exported.
 *
 * <p>{@link mcp.transport.stdio.internal.StdioTransportProvider} starts the process;
 * {@link mcp.transport.stdio.internal.StdioTransport} owns its threads and its close;
 * {@code MessageReader} turns stdout into messages, {@code StderrTail} keeps the end of stderr,
 * {@code ProcessTree} ends the process and its descendants, and {@code LiveTransports} is the
 * JVM-wide safety net (shutdown hook, descendant snapshots).
 */
package mcp.transport.stdio.internal;
