/**
 * The implementation of the HTTP transports and the value-substitution auth resolver; not exported.
 *
 * <p>{@link mcp.transport.http.internal.StreamableHttpTransport} and
 * {@link mcp.transport.http.internal.LegacySseTransport} own their exchanges and their close;
 * {@code HttpEndpoint} holds what both share (URL, headers, limits, the HttpClient, the wording of
 * errors); {@code ReplyHandler} decides per response how its body is read; {@code SseStream} and
 * {@code mcp.protocol.SseParser} read event streams with bounded memory; {@code Inbound} delivers to the listener
 * in order and reports the close once; {@code HttpThreads} names every thread.
 * {@link mcp.transport.http.internal.ValuesAuthResolver} and {@code CommandRunner} resolve
 * {@code !command} and environment-variable values.
 */
package mcp.transport.http.internal;
