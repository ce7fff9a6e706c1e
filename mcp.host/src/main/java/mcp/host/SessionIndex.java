package mcp.host;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import mcp.manager.BridgedTool;
import mcp.manager.TokenCounter;
import mcp.search.IndexedTool;
import mcp.search.SearchResult;
import mcp.search.ToolIndex;
import mcp.search.spi.ToolRanker;
import tools.jackson.databind.JsonNode;

/**
 * A session's tools in a {@link ToolIndex}: every MCP tool (live and deferred) under its server, the application's
 * tools and the session's own (resource and skill tools) under {@value #APP}; the id of a hit is the tool's name in
 * the session. Updated server by server: a refresh re-indexes only the servers whose tools changed. Thread-safe.
 */
final class SessionIndex {

    /** The group of the tools that are not an MCP server's. */
    static final String APP = "app";

    private final Supplier<Optional<ToolRanker>> rankers;
    private final Duration rankerTimeout;
    /**
     * Made at the first update, so that a session that never searches never makes a ranker (which may load a
     * model); guarded by this for writes, read by searches after an update.
     */
    private volatile ToolIndex index;
    /** What each group held at the last update; guarded by this. */
    private final Map<String, List<IndexedTool>> groups = new HashMap<>();

    /** An index with words alone. */
    SessionIndex() {
        this(Optional::empty, ToolIndex.DEFAULT_RANKER_TIMEOUT);
    }

    /**
     * @param rankers makes the second ranking, if any, when the index is first built
     * @param rankerTimeout how long a search waits for it
     */
    SessionIndex(Supplier<Optional<ToolRanker>> rankers, Duration rankerTimeout) {
        this.rankers = rankers;
        this.rankerTimeout = rankerTimeout;
    }

    /**
     * Brings the index to these tools.
     *
     * @param tools every tool of the session
     * @param bridged the MCP tools among them, by name
     */
    synchronized void update(List<AgentTool> tools, Map<String, BridgedTool> bridged) {
        Map<String, List<IndexedTool>> next = new LinkedHashMap<>();
        for (AgentTool tool : tools) {
            BridgedTool mcp = bridged.get(tool.name());
            IndexedTool indexed = mcp != null ? indexed(mcp)
                    : new IndexedTool(tool.name(), APP, tool.name(), tool.label(), tool.description(),
                            params(tool.inputSchema()));
            next.computeIfAbsent(indexed.server(), server -> new ArrayList<>()).add(indexed);
        }
        apply(next);
    }

    /**
     * Brings the index to these MCP tools alone (a gateway's), leaving out those meant for an app's view only, as a
     * session's search does; the id of a hit is the tool's {@link BridgedTool#name()}.
     *
     * @param tools every tool to search
     */
    synchronized void updateMcp(List<BridgedTool> tools) {
        apply(groups(tools));
    }

    private void apply(Map<String, List<IndexedTool>> next) {
        if (index == null) {
            index = build(rankers.get(), rankerTimeout);
        }
        ToolIndex index = this.index;
        for (String gone : new ArrayList<>(groups.keySet())) {
            if (!next.containsKey(gone)) {
                index.remove(gone);
                groups.remove(gone);
            }
        }
        next.forEach((server, group) -> {
            if (!group.equals(groups.get(server))) {
                index.put(server, group);
                groups.put(server, List.copyOf(group));
            }
        });
    }

    private static Map<String, List<IndexedTool>> groups(List<BridgedTool> tools) {
        Map<String, List<IndexedTool>> byServer = new LinkedHashMap<>();
        for (BridgedTool tool : tools) {
            if (tool.definition().visibleToModel()) {
                byServer.computeIfAbsent(tool.serverName(), server -> new ArrayList<>()).add(indexed(tool));
            }
        }
        return byServer;
    }

    /**
     * @param query words, a tool's name, or {@code /regex/}
     * @param limit the most hits
     * @return the best matches, best first
     */
    SearchResult search(String query, int limit) {
        ToolIndex current = index;
        return current == null ? new SearchResult(List.of(), Optional.empty(), Optional.empty())
                : current.find(query, limit);
    }

    private static ToolIndex build(Optional<ToolRanker> ranker, Duration timeout) {
        ToolIndex.Builder builder = ToolIndex.builder().rankerTimeout(timeout);
        ranker.ifPresent(builder::ranker);
        return builder.build();
    }

    /**
     * Ranks MCP tools for a query as a session's search does, which never finds a tool meant for an app's view only.
     *
     * @param tools the tools
     * @param query the query
     * @param limit the most tools
     * @param ranker the second ranking, if any
     * @param timeout how long the query waits for it
     * @param wait how long the ranker may take the tools before the query
     * @return the best matches, best first, and which ranker answered
     */
    static ToolSearch.Ranked rank(List<BridgedTool> tools, String query, int limit, Optional<ToolRanker> ranker,
            Duration timeout, Duration wait) {
        ToolIndex ranking = build(ranker, timeout);
        groups(tools).forEach(ranking::put);
        Map<String, BridgedTool> byName = new HashMap<>();
        tools.forEach(tool -> byName.put(tool.name(), tool));
        if (ranker.isPresent() && !wait.isZero()) {
            try {
                ranker.get().awaitReady(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        SearchResult result = ranking.find(query, limit);
        return new ToolSearch.Ranked(result.hits().stream().map(hit -> byName.get(hit.id())).toList(),
                result.ranker(), result.rankerSkipped());
    }

    private static IndexedTool indexed(BridgedTool tool) {
        return new IndexedTool(tool.name(), tool.serverName(), tool.toolName(), tool.definition().title().orElse(""),
                tool.description(), params(tool.inputSchema()));
    }

    /** The top-level parameters of an input schema, with their descriptions. */
    private static List<IndexedTool.Param> params(JsonNode schema) {
        List<IndexedTool.Param> params = new ArrayList<>();
        JsonNode properties = schema == null ? null : schema.get("properties");
        if (properties != null && properties.isObject()) {
            properties.properties().forEach(property -> params.add(new IndexedTool.Param(property.getKey(),
                    property.getValue().path("description").isString()
                            ? property.getValue().path("description").asString() : "")));
        }
        return params;
    }

    /**
     * What a tool's definition costs in a model's context: the tokens ({@link TokenCounter}, an estimate) of its name,
     * description and input schema as an agent sends them.
     *
     * @param tool a tool
     * @return its estimated tokens
     */
    static long estimatedTokens(AgentTool tool) {
        return TokenCounter.get().countDefinition(tool.name(), tool.description(), tool.inputSchema());
    }
}
