package mcp.server.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.server.ReplicaKeys;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code requestState} of an {@code input_required} round: which call waits in this server, which round of it,
 * until when, and for which request (method and name), sealed with an HMAC-SHA256 under a key only the server (and
 * its replicas) hold, so that a client can hand it back but not forge, alter or move it to another request. The call
 * itself stays in the server that ran it ({@link InputRounds}); the state names it, and that server (by a random
 * instance id), and carries the answers the call got so far, so that a replica where the call does not wait can run
 * the request again with them. Form: {@code KEYID.PAYLOAD.MAC}, the MAC over {@code KEYID.PAYLOAD}; the current key
 * seals, every key of the ring opens. Thread-safe.
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
     * @param instance the id of the server instance where the call waits
     * @param answers the answers the call got in its earlier rounds (and with its first request)
     */
    record State(String call, int round, long expiresAtMillis, String method, String name, String instance,
            Map<String, JsonNode> answers) {
        State {
            Objects.requireNonNull(call, "call");
            Objects.requireNonNull(method, "method");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(instance, "instance");
            answers = Map.copyOf(answers);
        }
    }

    /** The label of the request state keys derived from the ring's keys. */
    static final String LABEL = "mcp-host requestState v1";
    /** Answers are carried in a state up to this size; beyond it a call run again elsewhere asks for them again. */
    static final int MAX_CARRIED_BYTES = 32 * 1024;

    private final String current;
    private final Map<String, SecretKeySpec> keys = new LinkedHashMap<>();

    /** @param ring the keys: the current one seals, every one opens */
    RequestStates(ReplicaKeys ring) {
        this.current = ring.currentId();
        for (String id : ring.ids()) {
            keys.put(id, new SecretKeySpec(ring.derive(id, LABEL).orElseThrow(), ALGORITHM));
        }
    }

    /**
     * @param state what to seal
     * @return the opaque {@code requestState}
     */
    String seal(State state) {
        ObjectNode json = McpJson.object().put("c", state.call()).put("r", state.round())
                .put("e", state.expiresAtMillis()).put("m", state.method()).put("n", state.name())
                .put("p", state.instance());
        if (!state.answers().isEmpty()) {
            ObjectNode answers = McpJson.object();
            state.answers().forEach(answers::set);
            if (McpJson.mapper().writeValueAsBytes(answers).length <= MAX_CARRIED_BYTES) {
                json.set("a", answers);
            }
        }
        String signed = current + "." + ENCODER.encodeToString(McpJson.mapper().writeValueAsBytes(json));
        return signed + "." + ENCODER.encodeToString(mac(keys.get(current), signed));
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
        int first = token.indexOf('.');
        int last = token.lastIndexOf('.');
        SecretKeySpec key = first <= 0 || last <= first ? null : keys.get(token.substring(0, first));
        byte[] given;
        try {
            given = key == null ? null : DECODER.decode(token.substring(last + 1));
        } catch (IllegalArgumentException e) {
            given = null;
        }
        String signed = key == null ? "" : token.substring(0, last);
        if (key == null || given == null || !MessageDigest.isEqual(given, mac(key, signed))) {
            throw invalid("requestState failed its integrity check: it was not issued by this server or was altered");
        }
        String payload = signed.substring(first + 1);
        JsonNode json;
        try {
            json = McpJson.mapper().readTree(DECODER.decode(payload));
        } catch (RuntimeException e) {
            throw invalid("requestState cannot be read");
        }
        Map<String, JsonNode> answers = new LinkedHashMap<>();
        JsonNode carried = json.path("a");
        if (carried.isObject()) {
            carried.propertyNames().forEach(entry -> answers.put(entry, carried.get(entry)));
        }
        State state = new State(json.path("c").asString(""), json.path("r").asInt(-1), json.path("e").asLong(0),
                json.path("m").asString(""), json.path("n").asString(""), json.path("p").asString(""), answers);
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

    private static byte[] mac(SecretKeySpec key, String payload) {
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
