package mcp.auth.internal;

import java.math.BigInteger;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.time.Clock;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import mcp.api.McpException;

/**
 * A DPoP key (RFC 9449): an EC P-256 key pair of this client, and the proof JWTs it signs.
 *
 * <p>A proof is a JWT with header {@code {"typ":"dpop+jwt","alg":"ES256","jwk":<public key>}} and claims
 * {@code jti} (random, one per proof), {@code htm} (the HTTP method), {@code htu} (the target URI without
 * query and fragment), {@code iat} (now), and, when given, {@code ath} (base64url SHA-256 of the access
 * token, for requests to a resource server, §4.2) and {@code nonce} (the server's, §8 and §9). The public
 * key goes in the header as a JWK with {@code kty}, {@code crv}, {@code x} and {@code y} only: never a
 * private part.
 *
 * <p>The key is kept with the credential it binds ({@link #encoded()}: the PKCS#8 private key and the X.509
 * public key, base64url, joined by a dot), so that a stored DPoP-bound access or refresh token can be used
 * in a later run. {@link #toString()} shows the thumbprint only.
 */
final class Dpop {

    /** The {@code typ} of a DPoP proof (RFC 9449 §4.2). */
    static final String TYP = "dpop+jwt";

    /** The authorization scheme of a DPoP-bound access token (RFC 9449 §7.1), also its {@code token_type}. */
    static final String SCHEME = "DPoP";

    /** The header that carries a proof, and the one a server's nonce comes in. */
    static final String HEADER = "DPoP";
    static final String NONCE_HEADER = "DPoP-Nonce";

    /** The OAuth error that asks for a nonce (RFC 9449 §8, §9). */
    static final String USE_DPOP_NONCE = "use_dpop_nonce";

    private static final int COORDINATE_BYTES = 32;
    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

    private final KeyPair keys;
    private final Map<String, Object> jwk;

    private Dpop(KeyPair keys) {
        this.keys = keys;
        if (!(keys.getPublic() instanceof ECPublicKey pub)) {
            throw new McpException("a DPoP key must be an EC P-256 key");
        }
        Map<String, Object> key = new LinkedHashMap<>();
        key.put("crv", "P-256");
        key.put("kty", "EC");
        key.put("x", coordinate(pub.getW().getAffineX()));
        key.put("y", coordinate(pub.getW().getAffineY()));
        this.jwk = Map.copyOf(key);
    }

    /** @return a new key pair on P-256 */
    static Dpop generate() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            return new Dpop(generator.generateKeyPair());
        } catch (GeneralSecurityException e) {
            throw new McpException("This Java runtime cannot make an EC P-256 key for DPoP (module jdk.crypto.ec): "
                    + e.getClass().getSimpleName(), e);
        }
    }

    /**
     * @param encoded what {@link #encoded()} gave
     * @return the key, or empty when the text is not such a key (a damaged credential: a new key is made)
     */
    static Optional<Dpop> decode(String encoded) {
        int dot = encoded == null ? -1 : encoded.indexOf('.');
        if (dot <= 0) {
            return Optional.empty();
        }
        try {
            Base64.Decoder decoder = Base64.getUrlDecoder();
            KeyFactory factory = KeyFactory.getInstance("EC");
            KeyPair keys = new KeyPair(
                    factory.generatePublic(new X509EncodedKeySpec(decoder.decode(encoded.substring(dot + 1)))),
                    factory.generatePrivate(new PKCS8EncodedKeySpec(decoder.decode(encoded.substring(0, dot)))));
            return Optional.of(new Dpop(keys));
        } catch (GeneralSecurityException | IllegalArgumentException | McpException e) {
            return Optional.empty();
        }
    }

    /** @return the key pair for storage: {@code base64url(PKCS#8 private) "." base64url(X.509 public)} (a secret) */
    String encoded() {
        return BASE64URL.encodeToString(keys.getPrivate().getEncoded()) + "."
                + BASE64URL.encodeToString(keys.getPublic().getEncoded());
    }

    /** @return the public key as a JWK ({@code crv}, {@code kty}, {@code x}, {@code y}) */
    Map<String, Object> jwk() {
        return jwk;
    }

    /** @return the public key */
    ECPublicKey publicKey() {
        return (ECPublicKey) keys.getPublic();
    }

    /** @return the JWK SHA-256 thumbprint of the public key (RFC 7638), as a token's {@code cnf.jkt} holds it */
    String thumbprint() {
        return thumbprint((String) jwk.get("x"), (String) jwk.get("y"));
    }

    /**
     * @param x the JWK's {@code x} of a P-256 key
     * @param y its {@code y}
     * @return the RFC 7638 thumbprint: SHA-256 of the required members in lexicographic order, no whitespace
     */
    static String thumbprint(String x, String y) {
        String canonical = "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"" + x + "\",\"y\":\"" + y + "\"}";
        return BASE64URL.encodeToString(sha256(canonical));
    }

    /**
     * Signs a proof.
     *
     * @param method the HTTP method, e.g. {@code POST}
     * @param target the request's URI (query and fragment are left out of {@code htu})
     * @param accessToken the access token the request presents, for {@code ath}; empty at a token endpoint
     * @param nonce the server's nonce, if it gave one
     * @param clock the source of {@code iat}
     * @return the compact JWT
     */
    String proof(String method, URI target, Optional<String> accessToken, Optional<String> nonce, Clock clock) {
        Objects.requireNonNull(method, "method");
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("typ", TYP);
        header.put("alg", Jwt.ES256);
        header.put("jwk", jwk);
        Map<String, Object> claims = new LinkedHashMap<>();
        claims.put("jti", OAuthClient.random(24));
        claims.put("htm", method);
        claims.put("htu", htu(target));
        claims.put("iat", clock.instant().getEpochSecond());
        accessToken.ifPresent(token -> claims.put("ath", ath(token)));
        nonce.ifPresent(value -> claims.put("nonce", value));
        return Jwt.sign(header, claims, keys.getPrivate());
    }

    /** {@code htu}: the target URI without query and fragment (RFC 9449 §4.2). */
    static String htu(URI target) {
        String text = target.toString();
        int cut = text.length();
        int query = text.indexOf('?');
        int fragment = text.indexOf('#');
        if (query >= 0) {
            cut = query;
        }
        if (fragment >= 0 && fragment < cut) {
            cut = fragment;
        }
        return text.substring(0, cut);
    }

    /** {@code ath}: base64url of the SHA-256 of the access token's ASCII bytes (RFC 9449 §4.2). */
    static String ath(String accessToken) {
        return BASE64URL.encodeToString(sha256(accessToken));
    }

    /** The nonce key of a URI: its origin, since nonces are per server (RFC 9449 §8, §9). */
    static String origin(URI uri) {
        return (uri.getScheme() + "://" + uri.getRawAuthority()).toLowerCase(java.util.Locale.ROOT);
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.US_ASCII));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** An affine coordinate as JWK wants it: 32 bytes, big-endian, left-padded, base64url. */
    private static String coordinate(BigInteger value) {
        byte[] raw = value.toByteArray();
        byte[] out = new byte[COORDINATE_BYTES];
        int start = raw.length > COORDINATE_BYTES ? raw.length - COORDINATE_BYTES : 0;
        int length = raw.length - start;
        System.arraycopy(raw, start, out, COORDINATE_BYTES - length, length);
        return BASE64URL.encodeToString(out);
    }

    @Override
    public String toString() {
        return "Dpop[jkt=" + thumbprint() + "]";
    }
}
