package mcp.gateway.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
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
 * agents less the {@code mcp_} prefix ({@code <server>_<tool>}: lower case, unique) and a prompt
 * {@code <server>_<prompt>}. A tool name is at most {@value #MAX_TOOL_NAME} characters either way: a longer one is
 * cut and given a stable hash suffix. Tools meant for an MCP App's view only are left out, as the host leaves them out
 * of its agents' tool sets.
 *
 * @param tools the tools by their exposed names, in the manager's order
 * @param prompts the prompts by their exposed names, in the servers' order
 */
public record Exposed(Map<String, BridgedTool> tools, Map<String, Prompt> prompts) {

    /** The prefix of the host's agent names, which a gateway's client (an agent with a prefix of its own) needs not. */
    private static final String AGENT_PREFIX = "mcp_";

    /**
     * The longest tool name: 64, what the strictest model APIs accept, less the longest prefix an agent puts before
     * the tools of the entry {@code mcp-host serve --print-config} writes, Claude Code's {@code mcp__mcp-host__} (15;
     * Codex's {@code mcp__mcp_host__} is as long, Gemini CLI's {@code mcp_mcp-host_} shorter). Longer, Claude Code
     * offers a name the model API refuses and Gemini CLI cuts the middle out of it.
     */
    public static final int MAX_TOOL_NAME = 64 - "mcp__mcp-host__".length();

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
            if (name.length() > MAX_TOOL_NAME) {
                String seed = tool.serverName() + "\u0000" + tool.toolName();
                String cut = shortened(name, seed);
                // Long names alike in their first characters differ by their suffixes, made of the tools' own names.
                for (int attempt = 1; tools.containsKey(cut) && attempt < 100; attempt++) {
                    cut = shortened(name, seed + "#" + attempt);
                }
                name = cut;
            }
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

    /** The name cut to fit {@link #MAX_TOOL_NAME} with {@code _} and 8 hex digits of the seed's SHA-256. */
    private static String shortened(String name, String seed) {
        String suffix;
        try {
            suffix = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(seed.getBytes(StandardCharsets.UTF_8))).substring(0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
        String head = name.substring(0, Math.min(name.length(), MAX_TOOL_NAME - suffix.length() - 1));
        while (head.endsWith("_")) {
            head = head.substring(0, head.length() - 1);
        }
        return head + "_" + suffix;
    }
}
