package mcp.server.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.jsonrpc.JsonRpcError;
import tools.jackson.databind.JsonNode;

/**
 * The {@code requestState} of an {@code input_required} round: which call waits in this server, which round of it,
 * until when, and for which request (method and name), sealed with an HMAC-SHA256 under a key only the server holds,
 * so that a client can hand it back but not forge, alter or move it to another request. The call itself stays in the
 * server ({@link InputRounds}); the state only names it. Thread-safe.
 */
final class RequestStates {

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();
    private static final String ALGORITHM = "HmacSHA256";

    /**
     * What a state says.
     *
     * @param call the waiting call's id
     * @param round the round it answers
     * @param expiresAtMillis until when (epoch milliseconds)
     * @param method the request's method
     * @param name the request's tool or prompt name or resource URI ({@code ""} for none)
     */
    record State(String call, int round, long expiresAtMillis, String method, String name) {
        State {
            Objects.requireNonNull(call, "call");
            Objects.requireNonNull(method, "method");
            Objects.requireNonNull(name, "name");
        }
    }

    private final SecretKeySpec key;

    /** @param key the HMAC key: at least 32 bytes */
    RequestStates(byte[] key) {
        if (key.length < 32) {
            throw new IllegalArgumentException("the request state key must have at least 32 bytes");
        }
        this.key = new SecretKeySpec(key.clone(), ALGORITHM);
    }

    /**
     * @param state what to seal
     * @return the opaque {@code requestState}
     */
    String seal(State state) {
        String payload = ENCODER.encodeToString(McpJson.mapper().writeValueAsBytes(McpJson.object()
                .put("c", state.call()).put("r", state.round()).put("e", state.expiresAtMillis())
                .put("m", state.method()).put("n", state.name())));
        return payload + "." + ENCODER.encodeToString(mac(payload));
    }

    /**
     * Opens a state a client handed back and checks it against the request that carries it.
     *
     * @param token the {@code requestState}
     * @param method the method of the request that carries it
     * @param name its name or URI ({@code ""} for none)
     * @param nowMillis the time now
     * @return what it says
     * @throws McpProtocolException {@code -32602} when it fails the integrity check, has expired, or belongs to
     *     another request
     */
    State open(String token, String method, String name, long nowMillis) {
        int dot = token.indexOf('.');
        byte[] given;
        try {
            given = dot < 0 ? null : DECODER.decode(token.substring(dot + 1));
        } catch (IllegalArgumentException e) {
            given = null;
        }
        String payload = dot < 0 ? token : token.substring(0, dot);
        if (given == null || !MessageDigest.isEqual(given, mac(payload))) {
            throw invalid("requestState failed its integrity check: it was not issued by this server or was altered");
        }
        JsonNode json;
        try {
            json = McpJson.mapper().readTree(DECODER.decode(payload));
        } catch (RuntimeException e) {
            throw invalid("requestState cannot be read");
        }
        State state = new State(json.path("c").asString(""), json.path("r").asInt(-1), json.path("e").asLong(0),
                json.path("m").asString(""), json.path("n").asString(""));
        if (state.expiresAtMillis() < nowMillis) {
            throw invalid("requestState has expired: the server no longer waits for this input; send the request "
                    + "again without it");
        }
        if (!state.method().equals(method) || !state.name().equals(name)) {
            throw invalid("requestState belongs to another request (" + state.method()
                    + (state.name().isEmpty() ? "" : " " + state.name()) + ")");
        }
        return state;
    }

    private byte[] mac(String payload) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac.doFinal(payload.getBytes(StandardCharsets.US_ASCII));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available", e);
        }
    }

    static McpProtocolException invalid(String why) {
        return new McpProtocolException(JsonRpcError.INVALID_PARAMS, "Invalid params: " + why, null);
    }
}
