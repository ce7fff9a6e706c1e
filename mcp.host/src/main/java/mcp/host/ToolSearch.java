package mcp.host;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import mcp.manager.BridgedTool;

/**
 * Deferred loading of a session's tools: instead of every definition, the agent gets the tools that are always
 * loaded, the tools it found, and {@value #TOOL}, a search over every tool of the session (MCP tools live and
 * deferred, and the application's own). A found tool is loaded from then on, so it is in the tool set of the next
 * request; every tool stays callable by its name ({@link ToolSession#tool(String)}) whether loaded or not.
 *
 * @param mode when deferred loading is on
 * @param contextTokens the size of the model's context window, in tokens, for {@link Mode#AUTO}
 * @param share the part of {@code contextTokens} the tool definitions may take before {@link Mode#AUTO} defers
 *     them (Claude Code's default is a tenth)
 * @param alwaysLoad the servers (by name) and tools (by session name, e.g. {@code mcp_github_create_issue}) that
 *     are always in the agent's tool set, beside those their server's config names
 *     ({@link mcp.api.ServerConfig#alwaysLoad()}); the application's own tools always are
 */
public record ToolSearch(Mode mode, int contextTokens, double share, Set<String> alwaysLoad) {

    /** The search tool's name. */
    public static final String TOOL = "search_tools";

    /** Every definition in the tool set, as before: the default. */
    public static final ToolSearch OFF = new ToolSearch(Mode.OFF, 200_000, 0.1, Set.of());

    /** When deferred loading is on. */
    public enum Mode {
        /** never: every definition goes to the agent */
        OFF,
        /** always */
        ON,
        /** when the MCP tools' definitions would take more than {@code share} of {@code contextTokens} */
        AUTO
    }

    /** Checks and copies. */
    public ToolSearch {
        Objects.requireNonNull(mode, "mode");
        if (contextTokens <= 0) {
            throw new IllegalArgumentException("contextTokens must be positive, got " + contextTokens);
        }
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("share must be in (0, 1], got " + share);
        }
        alwaysLoad = Set.copyOf(alwaysLoad);
    }

    /**
     * @param mode when deferred loading is on
     * @return these settings with that mode
     */
    public ToolSearch withMode(Mode mode) {
        return new ToolSearch(mode, contextTokens, share, alwaysLoad);
    }

    /**
     * @param names servers and tools always in the agent's tool set
     * @return these settings with those
     */
    public ToolSearch withAlwaysLoad(Set<String> names) {
        return new ToolSearch(mode, contextTokens, share, names);
    }

    /**
     * @param tokens the model's context window
     * @param part the share of it the definitions may take in {@link Mode#AUTO}
     * @return these settings with that budget
     */
    public ToolSearch withBudget(int tokens, double part) {
        return new ToolSearch(mode, tokens, part, alwaysLoad);
    }

    /** @return the most definition tokens {@link Mode#AUTO} lets the agent get before it defers them */
    public long budget() {
        return (long) (contextTokens * share);
    }

    /**
     * Ranks MCP tools for a query as a session's {@value #TOOL} does (words as a user says them, a tool's name, or
     * {@code /regex/}); for a listing such as {@code mcp-host tools --search}. Tools meant for an app's view only
     * (MCP Apps) are never found, as the session's search never finds them.
     *
     * @param tools the tools
     * @param query the query
     * @param limit the most tools
     * @return the best matches, best first
     * @throws IllegalArgumentException for a {@code /regex/} that is invalid or too costly
     */
    public static List<BridgedTool> rank(List<BridgedTool> tools, String query, int limit) {
        return SessionIndex.rank(tools, query, limit, Optional.empty(), mcp.search.ToolIndex.DEFAULT_RANKER_TIMEOUT,
                java.time.Duration.ZERO).tools();
    }

    /**
     * The answer of a ranking ({@link McpHost#searchTools}).
     *
     * @param tools the best matches, best first
     * @param ranker the id of the ranker fused with the word index for this answer; empty when words alone answered
     * @param rankerSkipped why the host's ranker did not answer (timed out, failed, still embedding, a regex query);
     *     empty when it answered or the host has none
     */
    public record Ranked(List<BridgedTool> tools, Optional<String> ranker, Optional<String> rankerSkipped) {
        /** Checks and copies. */
        public Ranked {
            tools = List.copyOf(tools);
            Objects.requireNonNull(ranker, "ranker");
            Objects.requireNonNull(rankerSkipped, "rankerSkipped");
        }
    }
}
