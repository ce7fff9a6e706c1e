package mcp.protocol;

import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What kind of result a response of the stateless revision holds ({@code resultType}), which a server of that
 * revision must always state and a client reads before anything else. A result without it (every result of the
 * handshake era) is {@link #COMPLETE}.
 */
public enum ResultType {
    /** The request is done and the result is its final content. */
    COMPLETE("complete"),
    /**
     * The server needs input from the client first: the result has {@code inputRequests} (keyed requests the client
     * answers as it would answer the same server requests of the handshake era) and/or a {@code requestState}, and the
     * client sends the same request again with {@code inputResponses} and that state.
     */
    INPUT_REQUIRED("input_required");

    /** The member of a result that names its type. */
    public static final String KEY = "resultType";

    private final String wire;

    ResultType(String wire) {
        this.wire = wire;
    }

    /** @return the type as MCP spells it */
    public String wire() {
        return wire;
    }

    /**
     * @param result a result
     * @return its type: {@link #COMPLETE} when it states none; empty when it states one this revision does not know
     *     (the tasks extension's {@code task}, or anything else)
     */
    public static Optional<ResultType> of(JsonNode result) {
        JsonNode type = result == null ? null : result.get(KEY);
        if (type == null || type.isNull()) {
            return Optional.of(COMPLETE);
        }
        for (ResultType known : values()) {
            if (type.isString() && known.wire.equals(type.asString())) {
                return Optional.of(known);
            }
        }
        return Optional.empty();
    }

    /**
     * States this type in a result, unless the result states one already.
     *
     * @param result a result object
     * @return the same object
     */
    public ObjectNode stateIn(ObjectNode result) {
        if (!result.has(KEY)) {
            result.put(KEY, wire);
        }
        return result;
    }
}
