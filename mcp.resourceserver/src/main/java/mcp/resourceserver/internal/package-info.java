/** The resource server's implementation: token checks on Nimbus JOSE+JWT, and the issuer's documents. */
package mcp.resourceserver.internal;
