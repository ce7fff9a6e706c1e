package mcp.api;

import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which of a server's tools stay in the agent's tool set when deferred loading is on (issue 19, see
 * {@code docs/tool-search.md}): all of them, some by their name on the server, or none by this setting (the
 * default). A name the server does not offer matches nothing; the tool is simply not there.
 *
 * @param allTools whether every tool of the server is always loaded (the native format's {@code "alwaysLoad": true})
 * @param tools the tools always loaded, by their name on the server (the native format's {@code "alwaysLoad":
 *     ["create_issue"]}); empty when {@code allTools}
 */
public record AlwaysLoad(boolean allTools, Set<String> tools) {

    /** Nothing always loaded by the server's config: the default. */
    public static final AlwaysLoad NONE = new AlwaysLoad(false, Set.of());

    /** Every tool of the server always loaded. */
    public static final AlwaysLoad ALL = new AlwaysLoad(true, Set.of());

    /** Validates (names not blank, no names beside {@code allTools}) and copies. */
    public AlwaysLoad {
        tools = Set.copyOf(tools);
        if (allTools && !tools.isEmpty()) {
            throw new IllegalArgumentException("alwaysLoad of all tools takes no tool names, got " + tools);
        }
        for (String tool : tools) {
            if (tool.isBlank()) {
                throw new IllegalArgumentException("alwaysLoad tool names must not be empty");
            }
        }
    }

    /**
     * @param names tools by their name on the server
     * @return those tools always loaded
     */
    public static AlwaysLoad tools(Collection<String> names) {
        return new AlwaysLoad(false, Set.copyOf(Objects.requireNonNull(names, "names")));
    }

    /**
     * @param toolName a tool's name on the server
     * @return whether that tool is always loaded
     */
    public boolean includes(String toolName) {
        return allTools || tools.contains(toolName);
    }

    /** @return whether no tool is always loaded by this */
    public boolean isEmpty() {
        return !allTools && tools.isEmpty();
    }

    @Override
    public String toString() {
        return "AlwaysLoad[" + (allTools ? "all" : String.join(", ", new TreeSet<>(tools))) + "]";
    }
}
