package mcp.api.jsonrpc;

import java.util.Objects;

/** A JSON-RPC request id: a number or a string, kept as sent so that it is echoed exactly. */
public sealed interface RequestId {

    /**
     * @param value the number
     * @return a numeric id
     */
    static RequestId of(long value) {
        return new NumberId(value);
    }

    /**
     * @param value the string
     * @return a string id
     */
    static RequestId of(String value) {
        return new StringId(value);
    }

    /** @param value the number */
    record NumberId(long value) implements RequestId {
        @Override
        public String toString() {
            return Long.toString(value);
        }
    }

    /** @param value the string */
    record StringId(String value) implements RequestId {
        /** Validates. */
        public StringId {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public String toString() {
            return '"' + value + '"';
        }
    }
}
