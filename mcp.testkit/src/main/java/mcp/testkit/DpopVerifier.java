package mcp.testkit;

import java.math.BigInteger;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A DPoP proof checker for tests, written from RFC 9449 §4.3 ("Checking DPoP Proofs") and independent of
 * the client's own DPoP code (in {@code mcp.auth}): it parses the JWT itself, rebuilds the public key from
 * the header's JWK, and verifies the ES256 signature with the JDK's {@code SHA256withECDSAinP1363Format}
 * (JOSE's R || S form directly, not the DER conversion the client uses). Every rule that fails says which
 * one. Shared by the DPoP tests of {@code mcp.auth} and the DPoP flow tests of {@code mcp.transport.http}.
 */
public final class DpopVerifier {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private DpopVerifier() {
    }

    /** A proof that passed: its header, its claims, and the JWK thumbprint of its key (RFC 7638). */
    public record Verified(JsonNode header, JsonNode claims, String jkt) {
        public String jti() {
            return claims.path("jti").asString();
        }
    }

    /** A rule of RFC 9449 §4.3 that a proof breaks. */
    public static final class Refused extends Exception {
        Refused(String rule) {
            super(rule);
        }
    }

    /**
     * @param proof the {@code DPoP} header value
     * @param method the request's method
     * @param uri the request's URI (the proof's {@code htu} must be it without query and fragment)
     * @param accessToken the access token the request presents ({@code ath} required and checked), or empty
     *     for a token request ({@code ath} must then be absent)
     * @param nonce the nonce the server gave, if any ({@code nonce} must then be it)
     * @param now the server's time
     * @param window how far {@code iat} may be from now
     * @return what was verified
     * @throws Refused with the broken rule
     */
    public static Verified verify(String proof, String method, String uri, Optional<String> accessToken,
            Optional<String> nonce, Instant now, Duration window) throws Refused {
        if (proof == null || proof.isEmpty()) {
            throw new Refused("no DPoP header");
        }
        if (proof.contains(",")) {
            throw new Refused("more than one DPoP header");
        }
        String[] parts = proof.split("\\.", -1);
        if (parts.length != 3) {
            throw new Refused("not a JWS compact serialization (" + parts.length + " parts)");
        }
        JsonNode header = json(parts[0], "header");
        JsonNode claims = json(parts[1], "claims");
        if (!"dpop+jwt".equals(header.path("typ").asString(null))) {
            throw new Refused("typ is not dpop+jwt");
        }
        if (!"ES256".equals(header.path("alg").asString(null))) {
            throw new Refused("alg is not ES256 (none and symmetric algorithms are never allowed)");
        }
        JsonNode jwk = header.path("jwk");
        if (!jwk.isObject()) {
            throw new Refused("no jwk header parameter");
        }
        if (jwk.has("d")) {
            throw new Refused("the jwk holds a private key");
        }
        if (!"EC".equals(jwk.path("kty").asString(null)) || !"P-256".equals(jwk.path("crv").asString(null))) {
            throw new Refused("the jwk is not an EC P-256 key");
        }
        byte[] x = base64url(jwk.path("x").asString(""), "jwk.x");
        byte[] y = base64url(jwk.path("y").asString(""), "jwk.y");
        if (x.length != 32 || y.length != 32) {
            throw new Refused("jwk.x and jwk.y must be 32 bytes each");
        }
        byte[] signature = base64url(parts[2], "signature");
        try {
            PublicKey key = KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(
                    new ECPoint(new BigInteger(1, x), new BigInteger(1, y)), p256()));
            Signature verifier = Signature.getInstance("SHA256withECDSAinP1363Format");
            verifier.initVerify(key);
            verifier.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
            if (!verifier.verify(signature)) {
                throw new Refused("the signature does not verify with the jwk");
            }
        } catch (GeneralSecurityException e) {
            throw new Refused("the signature cannot be checked: " + e);
        }
        String jti = claims.path("jti").asString("");
        if (jti.isEmpty()) {
            throw new Refused("no jti");
        }
        if (!method.equals(claims.path("htm").asString(null))) {
            throw new Refused("htm is not " + method);
        }
        String htu = claims.path("htu").asString("");
        if (htu.contains("?") || htu.contains("#")) {
            throw new Refused("htu has a query or fragment");
        }
        URI target = URI.create(uri);
        String expected = target.getScheme() + "://" + target.getRawAuthority() + target.getRawPath();
        if (!htu.equals(expected)) {
            throw new Refused("htu is " + htu + ", not " + expected);
        }
        JsonNode iat = claims.path("iat");
        if (!iat.isIntegralNumber() || Math.abs(now.getEpochSecond() - iat.asLong()) > window.toSeconds()) {
            throw new Refused("iat is not within " + window + " of now");
        }
        if (accessToken.isPresent()) {
            String ath = Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(accessToken.get()));
            if (!ath.equals(claims.path("ath").asString(null))) {
                throw new Refused("ath is not the hash of the presented access token");
            }
        } else if (claims.has("ath")) {
            throw new Refused("ath in a proof that presents no access token");
        }
        if (nonce.isPresent() && !nonce.get().equals(claims.path("nonce").asString(null))) {
            throw new Refused("nonce is not the server's " + nonce.get());
        }
        String canonical = "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"" + jwk.path("x").asString() + "\",\"y\":\""
                + jwk.path("y").asString() + "\"}";
        return new Verified(header, claims, Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(canonical)));
    }

    private static JsonNode json(String part, String what) throws Refused {
        try {
            JsonNode node = MAPPER.readTree(base64url(part, what));
            if (node == null || !node.isObject()) {
                throw new Refused("the " + what + " is not a JSON object");
            }
            return node;
        } catch (tools.jackson.core.JacksonException e) {
            throw new Refused("the " + what + " is not JSON");
        }
    }

    private static byte[] base64url(String text, String what) throws Refused {
        if (text.contains("=") || text.contains("+") || text.contains("/")) {
            throw new Refused(what + " is not unpadded base64url");
        }
        try {
            return Base64.getUrlDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new Refused(what + " is not base64url");
        }
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.US_ASCII));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ECParameterSpec p256() throws GeneralSecurityException {
        AlgorithmParameters parameters = AlgorithmParameters.getInstance("EC");
        parameters.init(new ECGenParameterSpec("secp256r1"));
        return parameters.getParameterSpec(ECParameterSpec.class);
    }
}
