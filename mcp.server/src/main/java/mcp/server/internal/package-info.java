/**
 * The implementation of {@code mcp.server}; not exported. {@code ServerCore} holds what requests mean in each era;
 * {@code HandshakeSession} one client of the handshake era; {@code Call} one request being served (the handlers'
 * {@code RequestContext}); {@code InputRounds} and {@code RequestStates} the multi round-trip requests of the
 * stateless revision; {@code StdioEndpoint} and {@code HttpFront} the transports, the latter on an embedded HTTP
 * server behind {@code HttpBackend}.
 */
package mcp.server.internal;
