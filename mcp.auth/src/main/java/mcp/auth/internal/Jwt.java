package mcp.auth.internal;

import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Clock;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mcp.api.McpException;
import mcp.api.McpJson;
import tools.jackson.core.JacksonException;

/**
 * JSON Web Tokens signed with ES256 (ECDSA on P-256 with SHA-256, RFC 7518 §3.4), in the JWS compact
 * serialization, and the RFC 7523 {@code private_key_jwt} client assertion built on them.
 *
 * <p>Keys come as PKCS#8 PEM ({@code -----BEGIN PRIVATE KEY-----}). Messages about a key that cannot
 * be used name its kind (the PEM label, the curve size) and how to convert it, never a byte of it.
 *
 * <p>The JDK signs ECDSA in DER ({@code SEQUENCE { INTEGER r, INTEGER s }}); JOSE wants the two
 * integers as fixed-width big-endian halves, {@code R || S}, 32 bytes each for P-256. The conversion is
 * here rather than relying on the provider-specific {@code SHA256withECDSAinP1363Format}.
 */
final class Jwt {

    /** The one algorithm this class signs with. */
    static final String ES256 = "ES256";

    /** The lifetime of a {@linkplain #clientAssertion client assertion}: {@code exp = iat + 300 s}. */
    static final long CLIENT_ASSERTION_SECONDS = 300;

    /** The width of R and of S for P-256, in bytes. */
    private static final int COORDINATE_BYTES = 32;

    private static final String EXPECTED = "expected an EC P-256 private key in PKCS#8 PEM "
            + "(a block starting with -----BEGIN PRIVATE KEY-----)";

    /** The label of a PEM block: printed in messages only when it looks like a label, never arbitrary text. */
    private static final Pattern PEM_BEGIN = Pattern.compile("-----BEGIN ([A-Z0-9 ]{1,40})-----");

    private static final String PKCS8_BEGIN = "-----BEGIN PRIVATE KEY-----";
    private static final String PKCS8_END = "-----END PRIVATE KEY-----";

    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

    private Jwt() {
    }

    /**
     * Reads an EC P-256 private key from PKCS#8 PEM. Line breaks may be real or written as the two
     * characters {@code \n} (as in a one-line environment variable); text around the block is ignored.
     *
     * @param pem the PEM text
     * @return the key
     * @throws McpException if the text is not a PKCS#8 PEM of an EC P-256 key (a SEC1 {@code EC PRIVATE KEY},
     *     an RSA or encrypted key, bad base64, another curve); the message says how to convert and never
     *     quotes the input
     */
    static PrivateKey parsePrivateKey(String pem) {
        Objects.requireNonNull(pem, "pem");
        if (pem.isBlank()) {
            throw new McpException("The private key is empty; " + EXPECTED);
        }
        int begin = pem.indexOf(PKCS8_BEGIN);
        if (begin < 0) {
            throw new McpException(describeOtherPem(pem));
        }
        int end = pem.indexOf(PKCS8_END, begin);
        if (end < 0) {
            throw new McpException("The private key PEM has no " + PKCS8_END + " line; " + EXPECTED);
        }
        String body = pem.substring(begin + PKCS8_BEGIN.length(), end)
                .replace("\\n", "").replace("\\r", "")
                .replaceAll("\\s+", "");
        byte[] der;
        try {
            der = Base64.getDecoder().decode(body);
        } catch (IllegalArgumentException e) {
            // No cause: the decoder's message quotes the offending character.
            throw new McpException("The private key PEM is not valid base64 between its BEGIN and END lines; " + EXPECTED);
        }
        PrivateKey key;
        try {
            key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (NoSuchAlgorithmException e) {
            throw noEcSupport(e);
        } catch (InvalidKeySpecException e) {
            throw new McpException(describeNonEcKey(der));
        }
        checkP256(key);
        return key;
    }

    /**
     * Signs a JWT with ES256.
     *
     * @param header the JOSE header; must hold {@code "alg": "ES256"}
     * @param claims the claims
     * @param key an EC P-256 private key
     * @return {@code base64url(header) "." base64url(claims) "." base64url(R || S)}, without padding
     * @throws McpException if the header's {@code alg} is not ES256, the key is not P-256, or signing fails
     */
    static String sign(Map<String, Object> header, Map<String, Object> claims, PrivateKey key) {
        Objects.requireNonNull(header, "header");
        Objects.requireNonNull(claims, "claims");
        Objects.requireNonNull(key, "key");
        Object alg = header.get("alg");
        if (!ES256.equals(alg)) {
            throw new McpException("A JWT header must have \"alg\": \"" + ES256 + "\" (the only algorithm mcp-host signs with), "
                    + "not " + (alg == null ? "none" : "\"" + alg + "\""));
        }
        checkP256(key);
        String signingInput = BASE64URL.encodeToString(json(header, "header")) + "."
                + BASE64URL.encodeToString(json(claims, "claims"));
        byte[] der;
        try {
            Signature signer = Signature.getInstance("SHA256withECDSA");
            signer.initSign(key);
            signer.update(signingInput.getBytes(StandardCharsets.US_ASCII));
            der = signer.sign();
        } catch (NoSuchAlgorithmException e) {
            throw noEcSupport(e);
        } catch (GeneralSecurityException e) {
            throw new McpException("Signing a JWT with ES256 failed: " + e.getClass().getSimpleName(), e);
        }
        return signingInput + "." + BASE64URL.encodeToString(derToConcatenated(der));
    }

    /**
     * Builds an RFC 7523 client assertion ({@code private_key_jwt}, sent as {@code client_assertion} with
     * {@code client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer}).
     *
     * <p>Header {@code {"alg":"ES256","typ":"JWT"}}; claims {@code iss} and {@code sub} = the client id,
     * {@code aud} = the audience, {@code iat} = now, {@code exp} = now + {@value #CLIENT_ASSERTION_SECONDS} s,
     * {@code jti} = a random UUID (so that a server can refuse a replay).
     *
     * @param clientId the OAuth client id
     * @param audience the authorization server's issuer identifier (servers also accept their token endpoint;
     *     the MCP conformance suite wants the issuer, with or without a trailing slash)
     * @param key the client's EC P-256 private key
     * @param clock the source of {@code iat}
     * @return the signed assertion
     */
    static String clientAssertion(String clientId, String audience, PrivateKey key, Clock clock) {
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(audience, "audience");
        Objects.requireNonNull(clock, "clock");
        long now = clock.instant().getEpochSecond();
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("alg", ES256);
        header.put("typ", "JWT");
        Map<String, Object> claims = new LinkedHashMap<>();
        claims.put("iss", clientId);
        claims.put("sub", clientId);
        claims.put("aud", audience);
        claims.put("iat", now);
        claims.put("exp", now + CLIENT_ASSERTION_SECONDS);
        claims.put("jti", UUID.randomUUID().toString());
        return sign(header, claims, key);
    }

    private static byte[] json(Map<String, Object> value, String what) {
        try {
            return McpJson.mapper().writeValueAsBytes(value);
        } catch (JacksonException e) {
            throw new McpException("The JWT " + what + " cannot be written as JSON: " + e.getClass().getSimpleName(), e);
        }
    }

    /** Converts the JDK's DER signature to JOSE's {@code R || S}, each left-padded to 32 bytes. */
    static byte[] derToConcatenated(byte[] der) {
        Der in = new Der(der);
        in.expect(0x30);
        int length = in.length();
        if (length != der.length - in.position) {
            throw badSignature();
        }
        byte[] out = new byte[2 * COORDINATE_BYTES];
        in.unsignedInteger(out, 0);
        in.unsignedInteger(out, COORDINATE_BYTES);
        if (in.position != der.length) {
            throw badSignature();
        }
        return out;
    }

    /** A reader of the few DER elements of an ECDSA signature. */
    private static final class Der {
        private final byte[] bytes;
        private int position;

        Der(byte[] bytes) {
            this.bytes = bytes;
        }

        int next() {
            if (position >= bytes.length) {
                throw badSignature();
            }
            return bytes[position++] & 0xff;
        }

        void expect(int tag) {
            if (next() != tag) {
                throw badSignature();
            }
        }

        /** Short form, or long form of one or two bytes (more is never needed for a signature). */
        int length() {
            int first = next();
            if (first < 0x80) {
                return first;
            }
            int count = first & 0x7f;
            if (count == 0 || count > 2) {
                throw badSignature();
            }
            int value = 0;
            for (int i = 0; i < count; i++) {
                value = value << 8 | next();
            }
            return value;
        }

        /** Reads an INTEGER and writes its magnitude right-aligned into {@code out[offset, offset + 32)}. */
        void unsignedInteger(byte[] out, int offset) {
            expect(0x02);
            int length = length();
            int start = position;
            int end = start + length;
            if (length == 0 || end > bytes.length) {
                throw badSignature();
            }
            position = end;
            // DER adds a 0x00 before a magnitude whose top bit is set; R and S are positive.
            while (start < end - 1 && bytes[start] == 0) {
                start++;
            }
            int size = end - start;
            if (size > COORDINATE_BYTES) {
                throw badSignature();
            }
            System.arraycopy(bytes, start, out, offset + COORDINATE_BYTES - size, size);
        }
    }

    private static McpException badSignature() {
        return new McpException("The JDK returned an ECDSA signature that is not a DER SEQUENCE of two 256-bit "
                + "INTEGERs; cannot convert it to ES256");
    }

    private static void checkP256(PrivateKey key) {
        if (!(key instanceof ECPrivateKey)) {
            throw new McpException("ES256 needs an EC P-256 private key, not a " + key.getAlgorithm() + " key");
        }
        ECParameterSpec params = ((ECPrivateKey) key).getParams();
        ECParameterSpec p256 = P256.SPEC;
        if (params == null || !params.getCurve().equals(p256.getCurve()) || !params.getOrder().equals(p256.getOrder())
                || !params.getGenerator().equals(p256.getGenerator())) {
            String size = params == null ? "an unknown" : "a " + params.getCurve().getField().getFieldSize() + "-bit";
            throw new McpException("The private key is on " + size + " curve other than P-256; ES256 needs P-256 "
                    + "(also called prime256v1 or secp256r1): openssl genpkey -algorithm EC "
                    + "-pkeyopt ec_paramgen_curve:P-256 -out key.pem");
        }
    }

    /** The P-256 domain parameters, looked up once. */
    private static final class P256 {
        static final ECParameterSpec SPEC = lookUp();

        private static ECParameterSpec lookUp() {
            try {
                AlgorithmParameters parameters = AlgorithmParameters.getInstance("EC");
                parameters.init(new ECGenParameterSpec("secp256r1"));
                return parameters.getParameterSpec(ECParameterSpec.class);
            } catch (NoSuchAlgorithmException e) {
                throw noEcSupport(e);
            } catch (GeneralSecurityException e) {
                throw new McpException("The JDK does not know the P-256 curve (secp256r1): " + e.getClass().getSimpleName(), e);
            }
        }
    }

    private static McpException noEcSupport(NoSuchAlgorithmException e) {
        return new McpException("This Java runtime has no EC cryptography; on Java 17 it lives in module jdk.crypto.ec "
                + "(add it to the runtime image with jlink --add-modules jdk.crypto.ec)", e);
    }

    /** The message for text without a PKCS#8 block: names the label it found, if it looks like one. */
    private static String describeOtherPem(String pem) {
        Matcher label = PEM_BEGIN.matcher(pem);
        if (!label.find()) {
            return "The private key is not PEM text; " + EXPECTED;
        }
        // openssl ecparam -genkey writes an "EC PARAMETERS" block before the key: look at every label.
        boolean sec1 = false;
        boolean rsa = false;
        boolean encrypted = false;
        String first = label.group(1);
        do {
            sec1 |= label.group(1).equals("EC PRIVATE KEY");
            rsa |= label.group(1).equals("RSA PRIVATE KEY");
            encrypted |= label.group(1).equals("ENCRYPTED PRIVATE KEY");
        } while (label.find());
        if (sec1) {
            return "The private key is a SEC1 \"EC PRIVATE KEY\" PEM; " + EXPECTED + ". Convert it with: "
                    + "openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-pkcs8.pem";
        }
        if (rsa) {
            return "The private key is an RSA key (\"RSA PRIVATE KEY\"); ES256 needs an EC P-256 key: "
                    + "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out key.pem";
        }
        if (encrypted) {
            return "The private key is encrypted (\"ENCRYPTED PRIVATE KEY\"); mcp-host needs it unencrypted. "
                    + "Decrypt it with: openssl pkcs8 -in key.pem -out key-plain.pem";
        }
        return "The PEM holds a \"" + first + "\" block, not a private key; " + EXPECTED;
    }

    /** The message for a PKCS#8 block the EC key factory refused: says whether it is an RSA key. */
    private static String describeNonEcKey(byte[] der) {
        try {
            KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
            return "The private key is an RSA key; ES256 needs an EC P-256 key: "
                    + "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out key.pem";
        } catch (GeneralSecurityException e) {
            return "The private key PEM does not hold a usable PKCS#8 EC private key (another key type, an unsupported "
                    + "curve, or damaged data); " + EXPECTED;
        }
    }
}
