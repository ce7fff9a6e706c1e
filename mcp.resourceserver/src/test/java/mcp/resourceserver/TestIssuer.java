package mcp.resourceserver;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A tiny issuer on 127.0.0.1: its OpenID metadata and its JWK set, served by the JDK's HTTP server, and the signing
 * key it would sign with (made here by Nimbus). Its published key set can be swapped (a rotation), and it counts the
 * key set's fetches.
 */
final class TestIssuer implements AutoCloseable {

    private final HttpServer server;
    final URI issuer;
    final AtomicReference<JWKSet> published = new AtomicReference<>();
    final AtomicReference<String> namedIssuer = new AtomicReference<>();
    final AtomicInteger jwksFetches = new AtomicInteger();
    volatile RSAKey signing;

    TestIssuer() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        issuer = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        namedIssuer.set(issuer.toString());
        signing = newKey("key-1");
        published.set(new JWKSet(signing.toPublicJWK()));
        server.createContext("/.well-known/openid-configuration", exchange -> {
            byte[] body = ("{\"issuer\":\"" + namedIssuer.get() + "\",\"jwks_uri\":\"" + issuer + "/jwks\","
                    + "\"token_endpoint\":\"" + issuer + "/token\"}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.createContext("/jwks", exchange -> {
            jwksFetches.incrementAndGet();
            byte[] body = published.get().toString(true).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    static RSAKey newKey(String id) throws Exception {
        return new RSAKeyGenerator(2048).keyID(id).algorithm(JWSAlgorithm.RS256).generate();
    }

    /** Publishes a new signing key beside the old one and signs with it from now on. */
    RSAKey rotate(String id) throws Exception {
        RSAKey next = newKey(id);
        published.set(new JWKSet(List.of(next.toPublicJWK(), signing.toPublicJWK())));
        signing = next;
        return next;
    }

    /** @return claims a good token of this issuer has for {@code audience} */
    JWTClaimsSet.Builder claims(String audience) {
        long now = System.currentTimeMillis();
        return new JWTClaimsSet.Builder().issuer(issuer.toString()).audience(audience).subject("alice")
                .claim("client_id", "cli").claim("scope", "mcp:tools openid")
                .issueTime(new java.util.Date(now)).expirationTime(new java.util.Date(now + 300_000));
    }

    String sign(JWTClaimsSet claims) throws Exception {
        return sign(claims, signing);
    }

    static String sign(JWTClaimsSet claims, RSAKey key) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID())
                .type(new JOSEObjectType("at+jwt")).build(), claims);
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
