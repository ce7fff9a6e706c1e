/**
 * What the client and server sides share beyond the protocol's rules, not for applications: the spans and metrics
 * of MCP requests by the OpenTelemetry semantic conventions ({@link mcp.protocol.internal.McpTracing}), on the
 * OpenTelemetry API only when it is present.
 */
package mcp.protocol.internal;
