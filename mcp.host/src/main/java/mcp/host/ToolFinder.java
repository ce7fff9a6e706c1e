package mcp.host;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import mcp.manager.BridgedTool;
import mcp.search.SearchResult;

/**
 * Tool search over a set of MCP tools that changes now and then, asked again and again: one index and one ranker
 * (the host's, when it has one) kept between searches, so a tool's words are indexed, and its definition embedded,
 * once and not at every query. For a program that offers search over tools it chose itself, such as a gateway's
 * {@value ToolSearch#TOOL}; a {@link ToolSession} has its own. Made by {@link McpHost#toolFinder()}. Thread-safe.
 */
public final class ToolFinder {

    private final SessionIndex index;
    /** The tools indexed last, compared by identity first; guarded by this. */
    private List<BridgedTool> indexed = List.of();
    private Map<String, BridgedTool> byName = Map.of();

    ToolFinder(SessionIndex index) {
        this.index = index;
    }

    /**
     * Ranks these tools for a query as a session's search does (tools meant for an app's view only are never found).
     * The index is brought to {@code tools} first: only the servers whose tools changed since the last search are
     * indexed again.
     *
     * @param tools every tool to search among
     * @param query words as a user says them, a tool's name, or {@code /regex/}
     * @param limit the most tools, at least 1
     * @return the best matches, best first, and which ranker answered
     * @throws IllegalArgumentException for a {@code /regex/} that is invalid or too costly
     */
    public ToolSearch.Ranked find(List<BridgedTool> tools, String query, int limit) {
        Objects.requireNonNull(query, "query");
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        Map<String, BridgedTool> names;
        synchronized (this) {
            if (!sameTools(tools)) {
                index.updateMcp(tools);
                indexed = List.copyOf(tools);
                Map<String, BridgedTool> next = new HashMap<>();
                indexed.forEach(tool -> next.put(tool.name(), tool));
                byName = next;
            }
            names = byName;
        }
        // Outside the lock: the ranker may take up to its bound, and other searches need not wait for it.
        SearchResult result = index.search(query, limit);
        return new ToolSearch.Ranked(result.hits().stream().map(hit -> names.get(hit.id())).filter(Objects::nonNull)
                .toList(), result.ranker(), result.rankerSkipped());
    }

    private boolean sameTools(List<BridgedTool> tools) {
        if (tools.size() != indexed.size()) {
            return false;
        }
        for (int i = 0; i < tools.size(); i++) {
            if (tools.get(i) != indexed.get(i)) {
                return false;
            }
        }
        return true;
    }
}
