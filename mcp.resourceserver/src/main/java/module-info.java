/**
 * An OAuth 2.1 resource server for {@code mcp.server}'s HTTP endpoint ({@link mcp.resourceserver.OAuthResourceServer},
 * an {@link mcp.server.HttpAuthenticator}): JWT access tokens are verified against the keys the issuer publishes,
 * fetched through its metadata and cached, and checked for issuer, audience (the resource's canonical URL by default),
 * expiry and scopes; the protected resource metadata of RFC 9728 is served beside the endpoint, and every refusal
 * names it. The JOSE work (signatures, JWK sets, their cache and refresh) is Nimbus JOSE+JWT's.
 */
module mcp.resourceserver {
    // Transitive: the API gives mcp.server's HttpAuthenticator.
    requires transitive mcp.server;
    requires com.nimbusds.jose.jwt;
    requires java.net.http;
    requires org.slf4j;

    exports mcp.resourceserver;
}
