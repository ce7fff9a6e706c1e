package mcp.resourceserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.PlainHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import java.net.URI;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import mcp.api.McpException;
import mcp.server.Caller;
import mcp.server.HttpAuthenticator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The resource server against a real issuer on loopback ({@link TestIssuer}: its metadata and JWK set over HTTP, keys
 * made by Nimbus): every refusal with its status and challenge, the caller of an accepted token, a key rotation picked
 * up without a restart, and an issuer that cannot be reached.
 */
class OAuthResourceServerTest {

    private static final URI RESOURCE = URI.create("http://127.0.0.1:8931/mcp");
    private static final String METADATA = "http://127.0.0.1:8931/.well-known/oauth-protected-resource/mcp";

    private final TestIssuer issuer;

    OAuthResourceServerTest() throws Exception {
        issuer = new TestIssuer();
    }

    @AfterEach
    void stop() {
        issuer.close();
    }

    private OAuthResourceServer server() {
        return OAuthResourceServer.builder(issuer.issuer, RESOURCE).requiredScopes(Set.of("mcp:tools"))
                .clockSkew(Duration.ofSeconds(5)).build();
    }

    private static HttpAuthenticator.Outcome call(OAuthResourceServer server, String authorization) {
        return server.authenticate("POST", "/mcp", name -> name.equalsIgnoreCase("Authorization")
                ? Optional.ofNullable(authorization) : Optional.empty());
    }

    private static HttpAuthenticator.Refused refused(HttpAuthenticator.Outcome outcome, int status) {
        HttpAuthenticator.Refused refused = assertInstanceOf(HttpAuthenticator.Refused.class, outcome);
        assertEquals(status, refused.status(), refused.toString());
        return refused;
    }

    /** A refusal for a bad token: 401, invalid_token, the metadata named, the token nowhere. */
    private static void invalid(OAuthResourceServer server, String token, String why) {
        HttpAuthenticator.Refused refused = refused(call(server, "Bearer " + token), 401);
        String challenge = refused.headers().get("WWW-Authenticate");
        assertTrue(challenge.startsWith("Bearer error=\"invalid_token\""), challenge);
        assertTrue(challenge.contains("resource_metadata=\"" + METADATA + "\""), challenge);
        assertTrue(refused.message().contains(why), refused.message());
        assertFalse(challenge.contains(token) || refused.message().contains(token), "the token is never echoed");
    }

    @Test
    void aGoodTokenGivesItsCaller() throws Exception {
        OAuthResourceServer server = server();
        String token = issuer.sign(issuer.claims(RESOURCE.toString()).claim("groups", List.of("dev", "ops"))
                .build());
        HttpAuthenticator.Allowed allowed = assertInstanceOf(HttpAuthenticator.Allowed.class,
                call(server, "Bearer " + token));
        Caller caller = allowed.caller();
        assertEquals("alice", caller.subject());
        assertEquals(Optional.of("cli"), caller.client());
        assertEquals(Set.of("dev", "ops"), caller.groups());
        assertEquals(Set.of("mcp:tools", "openid"), caller.scopes());
        assertEquals("alice", caller.claims().path("sub").asString());
        assertFalse(caller.local());
        // The scheme's case does not matter (RFC 9110: case-insensitive).
        assertInstanceOf(HttpAuthenticator.Allowed.class, call(server, "bearer " + token));
    }

    @Test
    void groupsFromAConfiguredClaimScopesFromScpAndTheClientFromAzp() throws Exception {
        OAuthResourceServer server = OAuthResourceServer.builder(issuer.issuer, RESOURCE)
                .requiredScopes(Set.of("mcp:tools")).groupsClaim("realm_access.roles").build();
        JWTClaimsSet claims = issuer.claims(RESOURCE.toString()).claim("client_id", null).claim("scope", null)
                .claim("azp", "web").claim("scp", List.of("mcp:tools", "read"))
                .claim("realm_access", Map.of("roles", List.of("admin"))).build();
        Caller caller = assertInstanceOf(HttpAuthenticator.Allowed.class,
                call(server, "Bearer " + issuer.sign(claims))).caller();
        assertEquals(Optional.of("web"), caller.client());
        assertEquals(Set.of("admin"), caller.groups());
        assertEquals(Set.of("mcp:tools", "read"), caller.scopes());
    }

    @Test
    void noTokenIsA401NamingTheMetadataAndTheScope() {
        OAuthResourceServer server = server();
        for (String authorization : new String[] {null, "Basic YWxpY2U6c2VjcmV0", "Bearer ", "Bearer"}) {
            HttpAuthenticator.Refused refused = refused(call(server, authorization), 401);
            assertEquals("Bearer resource_metadata=\"" + METADATA + "\", scope=\"mcp:tools\"",
                    refused.headers().get("WWW-Authenticate"), String.valueOf(authorization));
        }
    }

    @Test
    void aTokenForAnotherAudienceIsRefused() throws Exception {
        invalid(server(), issuer.sign(issuer.claims("http://127.0.0.1:8931/other").build()), "audience");
    }

    @Test
    void anExpiredTokenIsRefusedBeyondTheSkewOnly() throws Exception {
        long now = System.currentTimeMillis();
        invalid(server(), issuer.sign(issuer.claims(RESOURCE.toString()).expirationTime(new Date(now - 10_000))
                .build()), "expired");
        assertInstanceOf(HttpAuthenticator.Allowed.class, call(server(), "Bearer " + issuer.sign(issuer.claims(
                RESOURCE.toString()).expirationTime(new Date(now - 2_000)).build())), "within the 5 s skew");
        invalid(server(), issuer.sign(issuer.claims(RESOURCE.toString()).expirationTime(null).build()), "no expiry");
        invalid(server(), issuer.sign(issuer.claims(RESOURCE.toString()).notBeforeTime(new Date(now + 60_000))
                .build()), "not valid yet");
    }

    @Test
    void anotherIssuersTokenIsRefusedEvenWithTheRightKey() throws Exception {
        invalid(server(), issuer.sign(issuer.claims(RESOURCE.toString()).issuer("http://127.0.0.1:1/").build()),
                "issuer");
    }

    @Test
    void aMissingScopeIsA403() throws Exception {
        String token = issuer.sign(issuer.claims(RESOURCE.toString()).claim("scope", "openid profile").build());
        HttpAuthenticator.Refused refused = refused(call(server(), "Bearer " + token), 403);
        assertEquals("Bearer error=\"insufficient_scope\", error_description=\"the token lacks the scope mcp:tools\", "
                + "resource_metadata=\"" + METADATA + "\", scope=\"mcp:tools\"", refused.headers().get(
                "WWW-Authenticate"));
    }

    @Test
    void signaturesAlgorithmsAndKeysAreChecked() throws Exception {
        OAuthResourceServer server = server();
        String good = issuer.sign(issuer.claims(RESOURCE.toString()).build());
        // A changed payload breaks the signature.
        String[] parts = good.split("\\.");
        String forged = parts[0] + "." + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
                issuer.claims(RESOURCE.toString()).subject("mallory").build().toString().getBytes()) + "." + parts[2];
        invalid(server, forged, "signature");
        // alg none.
        invalid(server, new PlainJWT(new PlainHeader(), issuer.claims(RESOURCE.toString()).build()).serialize(),
                "not accepted");
        // HMAC with the public key as the secret: the classic confusion a public-key verifier must refuse.
        SignedJWT hmac = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID("key-1").build(),
                issuer.claims(RESOURCE.toString()).build());
        hmac.sign(new MACSigner(issuer.signing.toRSAPublicKey().getEncoded()));
        invalid(server, hmac.serialize(), "not accepted");
        // A key the issuer does not publish, whatever its id says.
        invalid(server, TestIssuer.sign(issuer.claims(RESOURCE.toString()).build(), TestIssuer.newKey("key-1")),
                "not accepted");
        invalid(server, TestIssuer.sign(issuer.claims(RESOURCE.toString()).build(), TestIssuer.newKey("stranger")),
                "signed with a key the issuer does not publish");
        invalid(server, "not-a-jwt", "not a signed JWT");
        assertInstanceOf(HttpAuthenticator.Allowed.class, call(server, "Bearer " + good));
    }

    @Test
    void aRotatedKeyIsFetchedWhenATokenNamesIt() throws Exception {
        OAuthResourceServer server = server();
        assertInstanceOf(HttpAuthenticator.Allowed.class, call(server, "Bearer " + issuer.sign(issuer.claims(
                RESOURCE.toString()).build())));
        assertInstanceOf(HttpAuthenticator.Allowed.class, call(server, "Bearer " + issuer.sign(issuer.claims(
                RESOURCE.toString()).build())));
        assertEquals(1, issuer.jwksFetches.get(), "the key set is cached");
        issuer.rotate("key-2");
        HttpAuthenticator.Allowed allowed = assertInstanceOf(HttpAuthenticator.Allowed.class, call(server,
                "Bearer " + issuer.sign(issuer.claims(RESOURCE.toString()).build())));
        assertEquals("alice", allowed.caller().subject());
        assertEquals(2, issuer.jwksFetches.get(), "an unknown key id fetched the set again, once");
    }

    @Test
    void unknownKeyIdsDoNotMakeItFetchWithoutBound() throws Exception {
        OAuthResourceServer server = server();
        for (int i = 0; i < 20; i++) {
            invalid(server, TestIssuer.sign(issuer.claims(RESOURCE.toString()).build(), TestIssuer.newKey("k" + i)),
                    "key");
        }
        assertTrue(issuer.jwksFetches.get() <= 2, "fetches: " + issuer.jwksFetches.get());
    }

    @Test
    void theMetadataIsServedAtBothWellKnownPaths() {
        OAuthResourceServer server = OAuthResourceServer.builder(issuer.issuer, RESOURCE)
                .requiredScopes(Set.of("mcp:tools")).scopesSupported(Set.of("mcp:tools", "mcp:admin")).build();
        assertEquals(URI.create(METADATA), server.metadataUri());
        for (String path : List.of("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource")) {
            var document = server.document(path).orElseThrow();
            assertEquals(RESOURCE.toString(), document.path("resource").asString());
            assertEquals(issuer.issuer.toString(), document.path("authorization_servers").path(0).asString());
            assertEquals("[\"mcp:admin\",\"mcp:tools\"]", document.path("scopes_supported").toString());
            assertEquals("[\"header\"]", document.path("bearer_methods_supported").toString());
        }
        assertTrue(server.document("/.well-known/oauth-protected-resource/other").isEmpty());
    }

    @Test
    void anIssuerThatCannotBeReachedIsAnErrorNotARefusal() throws Exception {
        OAuthResourceServer server = OAuthResourceServer.builder(URI.create("http://127.0.0.1:9/"), RESOURCE)
                .httpTimeout(Duration.ofSeconds(2)).build();
        String token = issuer.sign(issuer.claims(RESOURCE.toString()).build());
        // mcp.server answers what an authenticator throws with 503 and Retry-After: the token may well be valid.
        assertThrows(RuntimeException.class, () -> call(server, "Bearer " + token));
        McpException prefetch = assertThrows(McpException.class, server::prefetch);
        assertTrue(prefetch.getMessage().contains("127.0.0.1:9"), prefetch.getMessage());
        // A keys URL that fails is an error too, once the metadata was read.
        OAuthResourceServer keysDown = OAuthResourceServer.builder(issuer.issuer, RESOURCE)
                .jwksUri(URI.create("http://127.0.0.1:9/jwks")).httpTimeout(Duration.ofSeconds(2)).build();
        assertThrows(IllegalStateException.class, () -> call(keysDown, "Bearer " + token));
    }

    @Test
    void anIssuerThatGoesDownIsA503NotARefusalOnceItsKeysExpire() throws Exception {
        OAuthResourceServer server = OAuthResourceServer.builder(issuer.issuer, RESOURCE)
                .jwksCacheTtl(Duration.ofSeconds(2)).jwksMinRefresh(Duration.ofSeconds(1))
                .httpTimeout(Duration.ofSeconds(2)).build();
        String token = issuer.sign(issuer.claims(RESOURCE.toString()).build());
        assertInstanceOf(HttpAuthenticator.Allowed.class, call(server, "Bearer " + token));
        issuer.close();
        Thread.sleep(2_200);
        // Fetches fail, then the rate limit holds them back: neither may turn a good token into a refusal.
        for (int i = 0; i < 5; i++) {
            assertThrows(IllegalStateException.class, () -> call(server, "Bearer " + token), "attempt " + i);
        }
    }

    @Test
    void metadataNamingAnotherIssuerIsRefusedAtPrefetch() {
        issuer.namedIssuer.set("http://127.0.0.1:1");
        McpException e = assertThrows(McpException.class, server()::prefetch);
        assertTrue(e.getMessage().contains("names the issuer \"http://127.0.0.1:1\""), e.getMessage());
        issuer.namedIssuer.set(issuer.issuer.toString());
        // Five seconds of failing fast, then it asks again: a replica that started before its issuer recovers.
    }

    @Test
    void anEs256TokenVerifiesAndIsRefusedWhenOnlyRs256IsAccepted() throws Exception {
        com.nimbusds.jose.jwk.ECKey ec = new com.nimbusds.jose.jwk.gen.ECKeyGenerator(com.nimbusds.jose.jwk.Curve.P_256)
                .keyID("ec-1").generate();
        issuer.published.set(new com.nimbusds.jose.jwk.JWKSet(List.of(issuer.signing.toPublicJWK(),
                ec.toPublicJWK())));
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.ES256).keyID("ec-1").build(),
                issuer.claims(RESOURCE.toString()).build());
        jwt.sign(new com.nimbusds.jose.crypto.ECDSASigner(ec));
        assertInstanceOf(HttpAuthenticator.Allowed.class, call(server(), "Bearer " + jwt.serialize()));
        OAuthResourceServer rsaOnly = OAuthResourceServer.builder(issuer.issuer, RESOURCE).algorithms(Set.of("RS256"))
                .build();
        invalid(rsaOnly, jwt.serialize(), "algorithm");
    }

    @Test
    void anIssuerWithAPathIsFoundThroughRfc8414Metadata() throws Exception {
        com.sun.net.httpserver.HttpServer other = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        try {
            String origin = "http://127.0.0.1:" + other.getAddress().getPort();
            URI withPath = URI.create(origin + "/realms/dev");
            // Only the RFC 8414 form, path inserted after the well-known part; the keys are the test issuer's.
            other.createContext("/.well-known/oauth-authorization-server/realms/dev", exchange -> {
                byte[] body = ("{\"issuer\":\"" + withPath + "\",\"jwks_uri\":\"" + issuer.issuer + "/jwks\"}")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            other.start();
            OAuthResourceServer server = OAuthResourceServer.builder(withPath, RESOURCE).build();
            server.prefetch();
            assertInstanceOf(HttpAuthenticator.Allowed.class, call(server, "Bearer " + issuer.sign(issuer.claims(
                    RESOURCE.toString()).issuer(withPath.toString()).build())));
        } finally {
            other.stop(0);
        }
    }

    @Test
    void settingsRefuseWhatCannotBeSafe() {
        IllegalArgumentException hmac = assertThrows(IllegalArgumentException.class, () -> OAuthResourceServer
                .builder(issuer.issuer, RESOURCE).algorithms(Set.of("HS256")).build());
        assertTrue(hmac.getMessage().contains("HMAC"), hmac.getMessage());
        assertThrows(IllegalArgumentException.class, () -> OAuthResourceServer.builder(issuer.issuer, RESOURCE)
                .algorithms(Set.of("none")).build());
        assertThrows(IllegalArgumentException.class, () -> OAuthResourceServer.builder(URI.create("ftp://x/"),
                RESOURCE).build());
        assertThrows(IllegalArgumentException.class, () -> OAuthResourceServer.builder(issuer.issuer,
                URI.create("http://127.0.0.1/mcp#x")).build());
        assertThrows(IllegalArgumentException.class, () -> OAuthResourceServer.builder(issuer.issuer, RESOURCE)
                .requiredScopes(Set.of("a\"b")).build());
        assertThrows(IllegalArgumentException.class, () -> OAuthResourceServer.builder(issuer.issuer, RESOURCE)
                .jwksCacheTtl(Duration.ofSeconds(30)).jwksMinRefresh(Duration.ofSeconds(30)).build());
        assertEquals(Set.of("ES256"), OAuthResourceServer.builder(issuer.issuer, RESOURCE).algorithms(Set.of("es256"))
                .build().settings().algorithms());
    }
}
