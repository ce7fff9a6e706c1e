package mcp.auth.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import mcp.api.McpException;
import mcp.api.McpJson;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** ES256 signing checked by the JDK's own verifier, the client assertion's claims, and PEM errors that leak nothing. */
class JwtTest {

    private static final KeyPair P256 = generate("EC", new ECGenParameterSpec("secp256r1"));

    @Test
    void parsesPkcs8PemOfAGeneratedKey() {
        PrivateKey parsed = Jwt.parsePrivateKey(pem("PRIVATE KEY", P256.getPrivate().getEncoded()));
        assertEquals(((ECPrivateKey) P256.getPrivate()).getS(), ((ECPrivateKey) parsed).getS());
    }

    @Test
    void toleratesCrLfEscapedNewlinesAndSurroundingText() {
        String crlf = pem("PRIVATE KEY", P256.getPrivate().getEncoded()).replace("\n", "\r\n");
        String escaped = "key: " + pem("PRIVATE KEY", P256.getPrivate().getEncoded()).replace("\n", "\\n") + " (end)";
        BigInteger s = ((ECPrivateKey) P256.getPrivate()).getS();
        assertEquals(s, ((ECPrivateKey) Jwt.parsePrivateKey(crlf)).getS());
        assertEquals(s, ((ECPrivateKey) Jwt.parsePrivateKey(escaped)).getS());
    }

    @Test
    void signatureVerifiesWithTheJdkAndTheClaimsRoundTrip() throws Exception {
        PrivateKey key = Jwt.parsePrivateKey(pem("PRIVATE KEY", P256.getPrivate().getEncoded()));
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("alg", "ES256");
        header.put("typ", "JWT");
        header.put("kid", "k1");
        Map<String, Object> claims = new LinkedHashMap<>();
        claims.put("iss", "me");
        claims.put("n", 42);
        claims.put("list", List.of("a", "b"));
        claims.put("text", "ünïcode & \"quotes\"");

        String jwt = Jwt.sign(header, claims, key);

        String[] parts = jwt.split("\\.", -1);
        assertEquals(3, parts.length, jwt);
        for (String part : parts) {
            assertTrue(part.matches("[A-Za-z0-9_-]+"), "base64url without padding: " + part);
        }
        assertEquals(McpJson.mapper().valueToTree(header), decode(parts[0]));
        assertEquals(McpJson.mapper().valueToTree(claims), decode(parts[1]));
        assertTrue(verifies(jwt, P256.getPublic()));

        // A changed claim or another key fails: the check above can fail.
        String tampered = parts[0] + "." + b64(McpJson.mapper().writeValueAsBytes(Map.of("iss", "other"))) + "." + parts[2];
        assertFalse(verifies(tampered, P256.getPublic()));
        assertFalse(verifies(jwt, generate("EC", new ECGenParameterSpec("secp256r1")).getPublic()));
    }

    @Test
    void everySignatureIsSixtyFourBytesAndVerifiesInBothFormats() throws Exception {
        // Enough signatures that some R or S is shorter than 32 bytes (about 1 in 128 per signature) and
        // many need DER's leading 0x00.
        Map<String, Object> header = Map.of("alg", "ES256");
        for (int i = 0; i < 300; i++) {
            String jwt = Jwt.sign(header, Map.of("i", i), P256.getPrivate());
            String[] parts = jwt.split("\\.");
            byte[] signature = Base64.getUrlDecoder().decode(parts[2]);
            assertEquals(64, signature.length);
            byte[] input = (parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII);
            Signature der = Signature.getInstance("SHA256withECDSA");
            der.initVerify(P256.getPublic());
            der.update(input);
            assertTrue(der.verify(toDer(signature)), "DER verification of signature " + i);
            Signature p1363 = Signature.getInstance("SHA256withECDSAinP1363Format");
            p1363.initVerify(P256.getPublic());
            p1363.update(input);
            assertTrue(p1363.verify(signature), "P1363 verification of signature " + i);
        }
    }

    @Test
    void derConversionPadsShortIntegersAndDropsTheSignByte() {
        byte[] r = new byte[32];
        Arrays.fill(r, (byte) 0xff);
        byte[] s = {0x01, 0x02, 0x03};
        ByteArrayOutputStream der = new ByteArrayOutputStream();
        der.write(0x30);
        der.write(2 + 33 + 2 + 3);
        der.write(0x02);
        der.write(33);
        der.write(0x00);
        der.writeBytes(r);
        der.write(0x02);
        der.write(3);
        der.writeBytes(s);

        byte[] out = Jwt.derToConcatenated(der.toByteArray());

        byte[] expected = new byte[64];
        System.arraycopy(r, 0, expected, 0, 32);
        System.arraycopy(s, 0, expected, 61, 3);
        assertArrayEquals(expected, out);
        assertThrows(McpException.class, () -> Jwt.derToConcatenated(new byte[] {0x30, 0x02, 0x05, 0x00}));
        assertThrows(McpException.class, () -> Jwt.derToConcatenated(new byte[0]));
    }

    @Test
    void clientAssertionHasTheRfc7523Claims() throws Exception {
        Instant now = Instant.parse("2025-06-01T12:00:00Z");
        Clock clock = Clock.fixed(now, ZoneOffset.UTC);

        String jwt = Jwt.clientAssertion("conformance-test-client", "http://localhost:4242", P256.getPrivate(), clock);
        String again = Jwt.clientAssertion("conformance-test-client", "http://localhost:4242", P256.getPrivate(), clock);

        String[] parts = jwt.split("\\.");
        JsonNode header = decode(parts[0]);
        assertEquals("ES256", header.get("alg").stringValue());
        assertEquals("JWT", header.get("typ").stringValue());
        JsonNode claims = decode(parts[1]);
        assertEquals("conformance-test-client", claims.get("iss").stringValue());
        assertEquals("conformance-test-client", claims.get("sub").stringValue());
        assertEquals("http://localhost:4242", claims.get("aud").stringValue());
        assertEquals(now.getEpochSecond(), claims.get("iat").longValue());
        assertEquals(now.getEpochSecond() + 300, claims.get("exp").longValue());
        assertEquals(4, UUID.fromString(claims.get("jti").stringValue()).version());
        assertNotEquals(claims.get("jti"), decode(again.split("\\.")[1]).get("jti"), "jti is fresh each time");
        assertTrue(verifies(jwt, P256.getPublic()));
    }

    @Test
    void signRefusesOtherAlgorithmsAndOtherCurves() {
        McpException alg = assertThrows(McpException.class,
                () -> Jwt.sign(Map.of("alg", "RS256"), Map.of(), P256.getPrivate()));
        assertTrue(alg.getMessage().contains("\"alg\": \"ES256\""), alg.getMessage());
        assertThrows(McpException.class, () -> Jwt.sign(Map.of(), Map.of(), P256.getPrivate()));
        KeyPair p384 = generate("EC", new ECGenParameterSpec("secp384r1"));
        McpException curve = assertThrows(McpException.class,
                () -> Jwt.sign(Map.of("alg", "ES256"), Map.of(), p384.getPrivate()));
        assertTrue(curve.getMessage().contains("384-bit curve other than P-256"), curve.getMessage());
    }

    @Test
    void sec1PemIsRefusedWithTheConversionCommandAndNoKeyMaterial() {
        byte[] material = P256.getPrivate().getEncoded();
        String pem = pem("EC PARAMETERS", new byte[] {6, 8, 42, -122, 72, -50, 61, 3, 1, 7}) + pem("EC PRIVATE KEY", material);
        McpException e = assertThrows(McpException.class, () -> Jwt.parsePrivateKey(pem));
        assertTrue(e.getMessage().contains("SEC1 \"EC PRIVATE KEY\""), e.getMessage());
        assertTrue(e.getMessage().contains("openssl pkcs8 -topk8 -nocrypt"), e.getMessage());
        assertLeaksNothing(e, pem);
    }

    @Test
    void rsaKeysAreRefusedAsRsa() {
        KeyPair rsa = generate("RSA", null);
        String pkcs8 = pem("PRIVATE KEY", rsa.getPrivate().getEncoded());
        McpException e = assertThrows(McpException.class, () -> Jwt.parsePrivateKey(pkcs8));
        assertTrue(e.getMessage().contains("is an RSA key; ES256 needs an EC P-256 key"), e.getMessage());
        assertLeaksNothing(e, pkcs8);

        String pkcs1 = pem("RSA PRIVATE KEY", rsa.getPrivate().getEncoded());
        McpException e1 = assertThrows(McpException.class, () -> Jwt.parsePrivateKey(pkcs1));
        assertTrue(e1.getMessage().contains("is an RSA key (\"RSA PRIVATE KEY\")"), e1.getMessage());
        assertLeaksNothing(e1, pkcs1);
    }

    @Test
    void otherBadInputsSayWhatIsWrongAndLeakNothing() {
        String body = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(P256.getPrivate().getEncoded());
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + body + "\n-----END ENCRYPTED PRIVATE KEY-----\n",
                "is encrypted");
        cases.put("-----BEGIN CERTIFICATE-----\n" + body + "\n-----END CERTIFICATE-----\n", "\"CERTIFICATE\" block");
        cases.put("sk-live-" + body.replace("\n", ""), "is not PEM text");
        cases.put("-----BEGIN PRIVATE KEY-----\n" + body + "\n", "no -----END PRIVATE KEY----- line");
        cases.put("-----BEGIN PRIVATE KEY-----\n" + body + "$%\n-----END PRIVATE KEY-----\n", "not valid base64");
        cases.put("-----BEGIN PRIVATE KEY-----\n" + body.substring(0, 40) + "\n-----END PRIVATE KEY-----\n",
                "does not hold a usable PKCS#8 EC private key");
        cases.put(" \n", "is empty");
        cases.forEach((input, expected) -> {
            McpException e = assertThrows(McpException.class, () -> Jwt.parsePrivateKey(input));
            assertTrue(e.getMessage().contains(expected), e.getMessage());
            assertLeaksNothing(e, input);
        });
        KeyPair p384 = generate("EC", new ECGenParameterSpec("secp384r1"));
        String other = pem("PRIVATE KEY", p384.getPrivate().getEncoded());
        McpException curve = assertThrows(McpException.class, () -> Jwt.parsePrivateKey(other));
        assertTrue(curve.getMessage().contains("384-bit curve other than P-256"), curve.getMessage());
        assertLeaksNothing(curve, other);
    }

    /** No run of 12 characters of the PEM body, nor its decoded bytes, appears in the message or the stack trace. */
    private static void assertLeaksNothing(Throwable error, String input) {
        StringWriter trace = new StringWriter();
        error.printStackTrace(new PrintWriter(trace));
        String text = trace.toString();
        String body = input.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s+|\\\\n", "");
        for (int i = 0; i + 12 <= body.length(); i += 6) {
            String piece = body.substring(i, i + 12);
            assertFalse(text.contains(piece), "the error quotes the input (" + piece + "): " + text);
        }
    }

    private static boolean verifies(String jwt, PublicKey key) throws GeneralSecurityException {
        String[] parts = jwt.split("\\.");
        Signature verifier = Signature.getInstance("SHA256withECDSA");
        verifier.initVerify(key);
        verifier.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
        return verifier.verify(toDer(Base64.getUrlDecoder().decode(parts[2])));
    }

    /** JOSE {@code R || S} back to DER {@code SEQUENCE { INTEGER r, INTEGER s }}. */
    private static byte[] toDer(byte[] concatenated) {
        byte[] r = new BigInteger(1, Arrays.copyOfRange(concatenated, 0, 32)).toByteArray();
        byte[] s = new BigInteger(1, Arrays.copyOfRange(concatenated, 32, 64)).toByteArray();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0x30);
        out.write(2 + r.length + 2 + s.length);
        out.write(0x02);
        out.write(r.length);
        out.writeBytes(r);
        out.write(0x02);
        out.write(s.length);
        out.writeBytes(s);
        return out.toByteArray();
    }

    private static JsonNode decode(String part) {
        return McpJson.mapper().readTree(Base64.getUrlDecoder().decode(part));
    }

    private static String b64(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }

    static KeyPair generate(String algorithm, ECGenParameterSpec spec) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance(algorithm);
            if (spec != null) {
                generator.initialize(spec);
            } else {
                generator.initialize(2048);
            }
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }
}
