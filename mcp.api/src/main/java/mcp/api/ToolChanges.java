package mcp.api;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How a server's tool listing differs from the tool definitions pinned for it (the listing accepted on
 * first connect or approval, or since approved): per tool what changed, and whether the tool is withheld
 * from the agent until the user accepts the change.
 *
 * <p>A tool whose definition changed is always withheld; a new tool is withheld in strict mode only; a
 * removed tool is only reported. Diff lines are for people and hold the server's own text with control,
 * format and other invisible characters shown as <code>&#92;u{XXXX}</code> escapes.
 *
 * @param server the server's name
 * @param key what the pins are keyed by: the hash of the server's approved definition
 * @param tools one entry per tool that differs, in the listing's order (removed tools last)
 * @param instructions how the server's {@code instructions} changed, when they did (they are then
 *     withheld too)
 * @param problem why the listing could not be compared with its pins (an unreadable pins file); every
 *     tool is then withheld
 */
public record ToolChanges(String server, String key, List<ToolChange> tools, Optional<InstructionsChange> instructions,
        Optional<String> problem) {

    /** Validates and copies. */
    public ToolChanges {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(key, "key");
        tools = List.copyOf(tools);
        Objects.requireNonNull(instructions, "instructions");
        Objects.requireNonNull(problem, "problem");
    }

    /**
     * @param server the server
     * @param key its pin key
     * @return a report without any difference
     */
    public static ToolChanges none(String server, String key) {
        return new ToolChanges(server, key, List.of(), Optional.empty(), Optional.empty());
    }

    /** @return whether the listing is exactly the pinned one */
    public boolean isEmpty() {
        return tools.isEmpty() && instructions.isEmpty() && problem.isEmpty();
    }

    /** @return the tools kept from the agent until accepted */
    public List<ToolChange> withheld() {
        return tools.stream().filter(ToolChange::withheld).toList();
    }

    /** @return whether anything (a tool or the instructions) waits for the user's acceptance */
    public boolean hasWithheld() {
        return instructions.isPresent() || tools.stream().anyMatch(ToolChange::withheld);
    }

    /** What happened to one tool. */
    public enum Kind {
        /** Its definition differs from its pin: withheld. */
        CHANGED,
        /** Not pinned before: exposed and pinned, or withheld in strict mode. */
        ADDED,
        /** Pinned but no longer listed. */
        REMOVED,
        /** A pinned tool gone and a new one listed with the same definition apart from the name. */
        RENAMED,
        /** Not comparable: the pins could not be read. Withheld. */
        UNVERIFIED
    }

    /**
     * One tool's difference.
     *
     * @param kind what happened
     * @param tool the tool's name now (for a removed tool, its pinned name)
     * @param previousName the pinned name of a renamed tool
     * @param fields the fields that differ ({@code title}, {@code description}, {@code inputSchema},
     *     {@code outputSchema}, {@code annotations}; {@code name} for a rename)
     * @param diff a readable diff, one line per difference, e.g.
     *     {@code inputSchema.properties.path.type: "string" -> "number"}
     * @param withheld whether the agent does not get the tool until the change is accepted
     */
    public record ToolChange(Kind kind, String tool, Optional<String> previousName, List<String> fields,
            List<String> diff, boolean withheld) {
        /** Validates and copies. */
        public ToolChange {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(tool, "tool");
            Objects.requireNonNull(previousName, "previousName");
            fields = List.copyOf(fields);
            diff = List.copyOf(diff);
        }
    }

    /**
     * The server's instructions differ from the pinned ones.
     *
     * @param diff a readable diff of the texts (lines removed with {@code - }, added with {@code + })
     */
    public record InstructionsChange(List<String> diff) {
        /** Copies. */
        public InstructionsChange {
            diff = List.copyOf(diff);
        }
    }
}
