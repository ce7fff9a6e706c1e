package mcp.gateway.internal;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import mcp.api.PromptDefinition;
import mcp.manager.BridgedTool;
import mcp.manager.SurfaceSlice;

/**
 * What the gateway's clients see at one moment, by the names they see it under: the tools and prompts of the servers
 * in view. One server in view keeps its own names; with several, a tool is named as the host names it for its own
 * agents less the {@code mcp_} prefix ({@code <server>_<tool>}: lower case, unique, at most 60 characters) and a
 * prompt {@code <server>_<prompt>}. Tools meant for an MCP App's view only are left out, as the host leaves them out
 * of its agents' tool sets.
 *
 * @param tools the tools by their exposed names, in the manager's order
 * @param prompts the prompts by their exposed names, in the servers' order
 */
public record Exposed(Map<String, BridgedTool> tools, Map<String, Prompt> prompts) {

    /** The prefix of the host's agent names, which a gateway's client (an agent with a prefix of its own) needs not. */
    private static final String AGENT_PREFIX = "mcp_";

    /** Copies. */
    public Exposed {
        tools = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(tools));
        prompts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(prompts));
    }

    /**
     * A prompt and its server.
     *
     * @param server the server
     * @param definition the prompt as the server lists it
     */
    public record Prompt(String server, PromptDefinition definition) {
    }

    /**
     * @param all the manager's tools
     * @param surfaces the manager's surfaces
     * @param served which servers are in view
     * @param shown the names the clients know servers by, where they differ from the manager's
     * @param toolNames the tools in view, as {@code server/tool} or the tool's own name (empty: all)
     * @return the names as the clients see them
     */
    public static Exposed of(List<BridgedTool> all, List<SurfaceSlice> surfaces, Predicate<String> served,
            Map<String, String> shown, Set<String> toolNames) {
        List<BridgedTool> inView = all.stream()
                .filter(tool -> tool.definition().visibleToModel())
                .filter(tool -> served.test(tool.serverName()))
                .filter(tool -> toolNames.isEmpty() || toolNames.contains(tool.label())
                        || toolNames.contains(tool.toolName()))
                .toList();
        List<SurfaceSlice> slices = surfaces.stream()
                .filter(slice -> served.test(slice.server())).toList();
        Set<String> named = new LinkedHashSet<>();
        inView.forEach(tool -> named.add(tool.serverName()));
        slices.stream().filter(slice -> !slice.surface().prompts().isEmpty()).forEach(slice -> named.add(slice.server()));
        boolean one = named.size() <= 1;

        Map<String, BridgedTool> tools = new LinkedHashMap<>();
        for (BridgedTool tool : inView) {
            String shownServer = shown.get(tool.serverName());
            String name = one ? tool.toolName() : (shownServer == null ? tool.name()
                    : BridgedTool.nameOf(shownServer, tool.toolName())).substring(AGENT_PREFIX.length());
            tools.putIfAbsent(name, tool);
        }
        Map<String, Prompt> prompts = new LinkedHashMap<>();
        for (SurfaceSlice slice : slices) {
            for (PromptDefinition prompt : slice.surface().prompts()) {
                String name = one ? prompt.name() : shown.getOrDefault(slice.server(), slice.server()) + "_"
                        + prompt.name();
                prompts.putIfAbsent(name, new Prompt(slice.server(), prompt));
            }
        }
        return new Exposed(tools, prompts);
    }
}
