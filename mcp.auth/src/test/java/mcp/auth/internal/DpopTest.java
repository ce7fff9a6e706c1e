package mcp.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import mcp.testkit.DpopVerifier;
import org.junit.jupiter.api.Test;

/**
 * DPoP proofs (RFC 9449) as {@link Dpop} builds them, checked by {@link DpopVerifier} (RFC 9449 §4.3, with a real
 * ES256 signature check by the JDK), and the verifier itself checked against the RFC's own example proof.
 */
class DpopTest {

    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
    private static final Duration WINDOW = Duration.ofSeconds(60);

    /** RFC 9449, Figure 2: a proof for a token request at https://server.example.com/token. */
    private static final String RFC_PROOF = "eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwieCI6Imw4"
            + "dEZyaHgtMzR0VjNoUklDUkRZOXpDa0RscEJoRjQyVVFVZldWQVdCRnMiLCJ5IjoiOVZFNGpmX09rX282NHpiVFRsY3VOSmFqSG10NnY5VERW"
            + "clUwQ2R2R1JEQSIsImNydiI6IlAtMjU2In19.eyJqdGkiOiItQndDM0VTYzZhY2MybFRjIiwiaHRtIjoiUE9TVCIsImh0dSI6Imh0dHBzOi8v"
            + "c2VydmVyLmV4YW1wbGUuY29tL3Rva2VuIiwiaWF0IjoxNTYyMjYyNjE2fQ.2-GxA6T8lP4vfrg8v-FdWP0A0zdrj8igiMLvqRMUvwnQg4PtF"
            + "LbdLXiOSsX0x7NVY-FNyJK70nfbV37xRZT3Lg";
    /** RFC 9449, Figure 9 (and §6.1): the JWK SHA-256 thumbprint of that proof's key. */
    private static final String RFC_JKT = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I";

    @Test
    void theVerifierAcceptsTheRfcExampleAndItsThumbprintIsTheRfcs() throws Exception {
        DpopVerifier.Verified verified = DpopVerifier.verify(RFC_PROOF, "POST", "https://server.example.com/token",
                Optional.empty(), Optional.empty(), Instant.ofEpochSecond(1562262616), WINDOW);
        assertEquals(RFC_JKT, verified.jkt());
        assertEquals("-BwC3ESc6acc2lTc", verified.jti());
        // The client's own thumbprint code gives the RFC's value for the RFC's key.
        assertEquals(RFC_JKT, Dpop.thumbprint(verified.header().path("jwk").path("x").asString(),
                verified.header().path("jwk").path("y").asString()));
    }

    @Test
    void theVerifierRefusesATamperedRfcExample() {
        String[] parts = RFC_PROOF.split("\\.");
        String claims = Base64.getUrlEncoder().withoutPadding().encodeToString(
                "{\"jti\":\"-BwC3ESc6acc2lTc\",\"htm\":\"GET\",\"htu\":\"https://server.example.com/token\",\"iat\":1562262616}"
                        .getBytes(StandardCharsets.UTF_8));
        DpopVerifier.Refused refused = assertThrows(DpopVerifier.Refused.class, () -> DpopVerifier.verify(
                parts[0] + "." + claims + "." + parts[2], "GET", "https://server.example.com/token", Optional.empty(),
                Optional.empty(), Instant.ofEpochSecond(1562262616), WINDOW));
        assertTrue(refused.getMessage().contains("signature"), refused.getMessage());
    }

    @Test
    void aTokenRequestProofFollowsRfc9449() throws Exception {
        Dpop key = Dpop.generate();
        String proof = key.proof("POST", URI.create("https://as.example/oauth/token"), Optional.empty(), Optional.empty(),
                CLOCK);
        DpopVerifier.Verified verified = DpopVerifier.verify(proof, "POST", "https://as.example/oauth/token",
                Optional.empty(), Optional.empty(), NOW, WINDOW);
        assertEquals("dpop+jwt", verified.header().path("typ").asString());
        assertEquals("ES256", verified.header().path("alg").asString());
        assertFalse(verified.header().path("jwk").has("d"), "no private part in the header");
        assertEquals(Set.of("crv", "kty", "x", "y"), names(verified.header().path("jwk")));
        assertEquals(NOW.getEpochSecond(), verified.claims().path("iat").asLong());
        assertFalse(verified.claims().has("ath"), "no ath at a token endpoint");
        assertFalse(verified.claims().has("nonce"));
        assertEquals(key.thumbprint(), verified.jkt());
    }

    @Test
    void aResourceRequestProofHasTheTokenHashTheNonceAndNoQueryInHtu() throws Exception {
        Dpop key = Dpop.generate();
        String token = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU";
        String proof = key.proof("GET", URI.create("https://mcp.example/mcp/stream?session=1#part"), Optional.of(token),
                Optional.of("eyJ7S_zG.eyJH0-Z.HX4w-7v"), CLOCK);
        DpopVerifier.Verified verified = DpopVerifier.verify(proof, "GET", "https://mcp.example/mcp/stream?session=1",
                Optional.of(token), Optional.of("eyJ7S_zG.eyJH0-Z.HX4w-7v"), NOW, WINDOW);
        assertEquals("https://mcp.example/mcp/stream", verified.claims().path("htu").asString());
        // RFC 9449 §7.1's example: this access token has this ath.
        assertEquals("fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo", verified.claims().path("ath").asString());
        // The same proof does not do for another token, method or URI.
        assertThrows(DpopVerifier.Refused.class, () -> DpopVerifier.verify(proof, "GET", "https://mcp.example/mcp/stream",
                Optional.of(token + "x"), Optional.empty(), NOW, WINDOW));
        assertThrows(DpopVerifier.Refused.class, () -> DpopVerifier.verify(proof, "POST", "https://mcp.example/mcp/stream",
                Optional.of(token), Optional.empty(), NOW, WINDOW));
        assertThrows(DpopVerifier.Refused.class, () -> DpopVerifier.verify(proof, "GET", "https://mcp.example/mcp",
                Optional.of(token), Optional.empty(), NOW, WINDOW));
        assertThrows(DpopVerifier.Refused.class, () -> DpopVerifier.verify(proof, "GET", "https://mcp.example/mcp/stream",
                Optional.of(token), Optional.of("another-nonce"), NOW, WINDOW));
        assertThrows(DpopVerifier.Refused.class, () -> DpopVerifier.verify(proof, "GET", "https://mcp.example/mcp/stream",
                Optional.of(token), Optional.empty(), NOW.plusSeconds(600), WINDOW));
    }

    @Test
    void everyProofHasItsOwnJtiAndTheSameKey() throws Exception {
        Dpop key = Dpop.generate();
        Set<String> jtis = new HashSet<>();
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            DpopVerifier.Verified verified = DpopVerifier.verify(key.proof("POST", URI.create("https://mcp.example/mcp"),
                    Optional.of("token"), Optional.empty(), CLOCK), "POST", "https://mcp.example/mcp",
                    Optional.of("token"), Optional.empty(), NOW, WINDOW);
            jtis.add(verified.jti());
            keys.add(verified.jkt());
        }
        assertEquals(50, jtis.size());
        assertEquals(Set.of(key.thumbprint()), keys);
        assertNotEquals(key.thumbprint(), Dpop.generate().thumbprint());
    }

    @Test
    void theStoredFormKeepsTheKeyAndNothingElseDecodes() throws Exception {
        Dpop key = Dpop.generate();
        Dpop again = Dpop.decode(key.encoded()).orElseThrow();
        assertEquals(key.thumbprint(), again.thumbprint());
        String proof = again.proof("POST", URI.create("https://as.example/token"), Optional.empty(), Optional.empty(), CLOCK);
        assertEquals(key.thumbprint(), DpopVerifier.verify(proof, "POST", "https://as.example/token", Optional.empty(),
                Optional.empty(), NOW, WINDOW).jkt());
        assertEquals(Optional.empty(), Dpop.decode(null));
        assertEquals(Optional.empty(), Dpop.decode(""));
        assertEquals(Optional.empty(), Dpop.decode("not.akey"));
        assertEquals(Optional.empty(), Dpop.decode(key.encoded().substring(0, key.encoded().indexOf('.'))));
        assertFalse(key.toString().contains(key.encoded().substring(0, 20)), "toString shows no key");
    }

    @Test
    void htuDropsQueryAndFragmentOnly() {
        assertEquals("https://a.example/x/y", Dpop.htu(URI.create("https://a.example/x/y?q=1#f")));
        assertEquals("https://a.example/x/y", Dpop.htu(URI.create("https://a.example/x/y#f?q")));
        assertEquals("http://127.0.0.1:8080/mcp", Dpop.htu(URI.create("http://127.0.0.1:8080/mcp")));
    }

    private static Set<String> names(tools.jackson.databind.JsonNode node) {
        Set<String> names = new HashSet<>();
        node.propertyNames().forEach(names::add);
        return names;
    }
}
