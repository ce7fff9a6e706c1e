package mcp.server.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import mcp.api.McpJson;
import mcp.server.ReplicaKeys;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Session ids of the handshake era that any replica holding the keys can open: what the server needs to serve the
 * session (the protocol version agreed, the client's capabilities and info, when it was issued), sealed with
 * AES-256-GCM (the JDK's {@code javax.crypto}; authenticated encryption: a client can neither read nor alter it) under
 * the current key of the ring. Form: {@code s1.KEYID.BASE64URL(IV || CIPHERTEXT+TAG)}, the prefix {@code s1.KEYID}
 * bound in as associated data; a 12-byte random IV per id. Every key of the ring opens, so keys rotate.
 *
 * <p>An id is good for {@link #MAX_AGE} from its issue (a replica's clock may be {@link #SKEW} ahead); the state a
 * session builds up later (log level, subscriptions) is not in it and stays with the replica where it was set.
 * Bounded: a client whose capabilities and info would make an id longer than {@link #MAX_PLAIN_BYTES} gets its info cut
 * to name, version and title, then its capabilities to their top-level names. Thread-safe. Public for the benchmark
 * that measures it on the class path ({@code mcp.bench.jmh.SessionSealBench}); the package is not exported.
 */
public final class SessionSeal {

    /** The label of the session keys derived from the ring's keys. */
    static final String LABEL = "mcp-host session v1";
    /** How long a sealed id opens after its issue. */
    static final Duration MAX_AGE = Duration.ofHours(24);
    /** How far ahead of this replica's clock another replica's may be. */
    static final Duration SKEW = Duration.ofMinutes(5);
    /** The most plaintext sealed into one id: about 4 KiB of header once encoded. */
    static final int MAX_PLAIN_BYTES = 3 * 1024;

    private static final String PREFIX = "s1.";
    private static final int IV_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    /**
     * What an id says.
     *
     * @param protocolVersion the version agreed at {@code initialize}
     * @param capabilities the client's capabilities
     * @param clientInfo the client's info, if it sent one
     * @param issuedAtMillis when the id was issued (epoch milliseconds)
     * @param owner who opened the session (the HTTP front's key of its caller): the session answers nobody else
     */
    public record Opened(String protocolVersion, JsonNode capabilities, Optional<JsonNode> clientInfo, long issuedAtMillis,
            String owner) {
    }

    private final String current;
    private final Map<String, SecretKeySpec> keys = new LinkedHashMap<>();
    private final SecureRandom random = new SecureRandom();

    /** @param ring the keys: the current one seals, every one opens */
    public SessionSeal(ReplicaKeys ring) {
        this.current = ring.currentId();
        for (String id : ring.ids()) {
            keys.put(id, new SecretKeySpec(ring.derive(id, LABEL).orElseThrow(), "AES"));
        }
    }

    /**
     * @param protocolVersion the version agreed
     * @param capabilities the client's capabilities
     * @param clientInfo the client's info, if any
     * @param nowMillis the time now (epoch milliseconds)
     * @return a new session id that carries these
     */
    public String seal(String protocolVersion, JsonNode capabilities, Optional<JsonNode> clientInfo, long nowMillis) {
        return seal(protocolVersion, capabilities, clientInfo, nowMillis, "");
    }

    /**
     * @param protocolVersion the version agreed
     * @param capabilities the client's capabilities
     * @param clientInfo the client's info, if any
     * @param nowMillis the time now (epoch milliseconds)
     * @param owner who opens the session, so that every replica answers that caller alone
     * @return a new session id that carries these
     */
    public String seal(String protocolVersion, JsonNode capabilities, Optional<JsonNode> clientInfo, long nowMillis,
            String owner) {
        ObjectNode json = McpJson.object().put("v", protocolVersion).put("t", nowMillis).put("o", owner);
        json.set("c", capabilities);
        clientInfo.ifPresent(info -> json.set("i", info));
        byte[] plain = McpJson.mapper().writeValueAsBytes(json);
        if (plain.length > MAX_PLAIN_BYTES && clientInfo.isPresent()) {
            ObjectNode info = McpJson.object();
            for (String field : new String[] {"name", "version", "title"}) {
                if (clientInfo.get().path(field).isString()) {
                    info.put(field, clientInfo.get().get(field).asString());
                }
            }
            json.set("i", info);
            plain = McpJson.mapper().writeValueAsBytes(json);
        }
        if (plain.length > MAX_PLAIN_BYTES) {
            ObjectNode shallow = McpJson.object();
            capabilities.propertyNames().forEach(shallow::putObject);
            json.set("c", shallow);
            plain = McpJson.mapper().writeValueAsBytes(json);
        }
        String prefix = PREFIX + current;
        byte[] iv = new byte[IV_BYTES];
        random.nextBytes(iv);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, keys.get(current), new GCMParameterSpec(TAG_BITS, iv));
            cipher.updateAAD(prefix.getBytes(StandardCharsets.US_ASCII));
            byte[] sealed = cipher.doFinal(plain);
            return prefix + "." + ENCODER.encodeToString(ByteBuffer.allocate(IV_BYTES + sealed.length).put(iv)
                    .put(sealed).array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is not available", e);
        }
    }

    /**
     * @param id a session id a client sent
     * @param nowMillis the time now (epoch milliseconds)
     * @return what it says; empty when it is not a sealed id of these keys (unknown key, altered, not one), or has
     *     expired
     */
    public Optional<Opened> open(String id, long nowMillis) {
        if (!id.startsWith(PREFIX)) {
            return Optional.empty();
        }
        int dot = id.indexOf('.', PREFIX.length());
        SecretKeySpec key = dot < 0 ? null : keys.get(id.substring(PREFIX.length(), dot));
        if (key == null) {
            return Optional.empty();
        }
        byte[] data;
        try {
            data = DECODER.decode(id.substring(dot + 1));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        if (data.length < IV_BYTES + TAG_BITS / 8) {
            return Optional.empty();
        }
        JsonNode json;
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, data, 0, IV_BYTES));
            cipher.updateAAD(id.substring(0, dot).getBytes(StandardCharsets.US_ASCII));
            json = McpJson.mapper().readTree(cipher.doFinal(data, IV_BYTES, data.length - IV_BYTES));
        } catch (GeneralSecurityException | RuntimeException e) {
            // The tag did not match (altered, or another ring's key of that id), or it was not ours.
            return Optional.empty();
        }
        long issued = json.path("t").asLong(0);
        if (!json.path("v").isString() || issued > nowMillis + SKEW.toMillis()
                || nowMillis - issued > MAX_AGE.toMillis()) {
            return Optional.empty();
        }
        JsonNode capabilities = json.path("c").isObject() ? json.get("c") : McpJson.object();
        JsonNode info = json.get("i");
        return Optional.of(new Opened(json.get("v").asString(), capabilities,
                info != null && info.isObject() ? Optional.of(info) : Optional.empty(), issued,
                json.path("o").asString("")));
    }
}
