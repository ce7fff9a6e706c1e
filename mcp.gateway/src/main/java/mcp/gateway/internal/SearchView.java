package mcp.gateway.internal;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import mcp.api.AlwaysLoad;
import mcp.api.McpJson;
import mcp.host.ToolFinder;
import mcp.host.ToolSearch;
import mcp.manager.BridgedTool;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The gateway's deferred mode, per client: instead of every tool, a client gets the tools always loaded and
 * {@value ToolSearch#TOOL}, and from then on the tools its own searches found. What one client found is not in
 * another's list. Every tool stays callable by its name, listed or not; the view only decides what a client's
 * {@code tools/list} shows.
 *
 * <p>Always loaded: a tool whose server's config says so ({@link mcp.api.ServerConfig#alwaysLoad()}), or one named
 * in the gateway's own set by its server, its host name ({@code mcp_<server>_<tool>}), its label
 * ({@code server/tool}) or the name the gateway's clients see.
 *
 * <p>State: the tools each client found, by the client's id ({@code RequestContext.clientId()}), in a concurrent
 * map of concurrent sets; a client that ends is forgotten ({@link #forget}). A client without an id (a stateless one
 * over HTTP, which nothing tells apart) finds tools and calls them by name, but no list of its own grows.
 */
public final class SearchView {

    /** The most tools one search returns, and its default. */
    public static final int MAX_LIMIT = 20;
    private static final int DEFAULT_LIMIT = 5;

    private final Set<String> alwaysLoad;
    private final Optional<ToolFinder> finder;
    private final Map<String, Set<String>> found = new ConcurrentHashMap<>();

    /**
     * @param alwaysLoad servers and tools always listed, beside those their server's config names
     * @param finder the host's search kept between queries, with its ranker; empty: words alone, indexed per query
     */
    public SearchView(Set<String> alwaysLoad, Optional<ToolFinder> finder) {
        this.alwaysLoad = Set.copyOf(alwaysLoad);
        this.finder = finder;
    }

    /**
     * @param exposed every tool by the name the clients see
     * @param clientId the client, or {@code null} for one without an id
     * @param configured each server's own {@code alwaysLoad}
     * @return the tools this client's list shows, in {@code exposed}'s order
     */
    public Map<String, BridgedTool> listed(Map<String, BridgedTool> exposed, String clientId,
            Function<String, AlwaysLoad> configured) {
        Set<String> ours = clientId == null ? Set.of() : found.getOrDefault(clientId, Set.of());
        Map<String, AlwaysLoad> perServer = new java.util.HashMap<>();
        Map<String, BridgedTool> listed = new LinkedHashMap<>();
        exposed.forEach((name, tool) -> {
            if (ours.contains(name) || alwaysLoad.contains(name) || alwaysLoad.contains(tool.serverName())
                    || alwaysLoad.contains(tool.name()) || alwaysLoad.contains(tool.label())
                    || perServer.computeIfAbsent(tool.serverName(), configured).includes(tool.toolName())) {
                listed.put(name, tool);
            }
        });
        return listed;
    }

    /**
     * Ranks the client's tools for a query (by the host's ranking: {@link ToolFinder} when the gateway has one, else
     * {@link ToolSearch#rank}) and adds the hits to the client's list. The finder indexes every tool of the gateway
     * once for all its clients; a tool the client may not see is dropped from the hits.
     *
     * @param all every tool of the gateway by the name the clients see
     * @param visible the tools this client may see, among them
     * @param query what the client asked
     * @param limit the most tools
     * @param clientId the client, or {@code null} for one without an id
     * @return the hits by the names the clients see, best first, whether the client's list grew, and which ranker
     *     answered
     * @throws IllegalArgumentException for a {@code /regex/} that is invalid or too costly
     */
    public Found search(Map<String, BridgedTool> all, Map<String, BridgedTool> visible, String query, int limit,
            String clientId) {
        Map<BridgedTool, String> names = new IdentityHashMap<>();
        visible.forEach((name, tool) -> names.put(tool, name));
        ToolSearch.Ranked ranked = finder.isPresent()
                ? finder.get().find(new ArrayList<>(all.values()), query, limit + all.size() - visible.size())
                : new ToolSearch.Ranked(ToolSearch.rank(new ArrayList<>(visible.values()), query, limit),
                        Optional.empty(), Optional.empty());
        List<String> hits = new ArrayList<>();
        for (BridgedTool tool : ranked.tools()) {
            String name = names.get(tool);
            if (name != null && hits.size() < limit) {
                hits.add(name);
            }
        }
        boolean grew = false;
        if (clientId != null && !hits.isEmpty()) {
            Set<String> ours = found.computeIfAbsent(clientId, id -> ConcurrentHashMap.newKeySet());
            for (String hit : hits) {
                grew |= ours.add(hit);
            }
        }
        return new Found(hits, grew, ranked.ranker(), ranked.rankerSkipped());
    }

    /**
     * What a search found.
     *
     * @param names the tools by the names the clients see, best first
     * @param listGrew whether the client's list has tools it did not have
     * @param ranker the id of the ranker fused with the words for this answer; empty when the words alone answered
     * @param rankerSkipped why the host's ranker did not answer this one; empty when it answered or there is none
     */
    public record Found(List<String> names, boolean listGrew, Optional<String> ranker, Optional<String> rankerSkipped) {
        /** Copies. */
        public Found {
            names = List.copyOf(names);
        }
    }

    /** @param clientId a client that is gone */
    public void forget(String clientId) {
        found.remove(clientId);
    }

    /**
     * @param arguments the call's arguments
     * @return the limit asked for, within 1 to {@link #MAX_LIMIT} (default 5)
     */
    public static int limit(JsonNode arguments) {
        JsonNode limit = arguments.get("limit");
        return limit != null && limit.canConvertToInt() ? Math.max(1, Math.min(MAX_LIMIT, limit.asInt()))
                : DEFAULT_LIMIT;
    }

    /** @return the definition of {@value ToolSearch#TOOL} as the gateway's clients get it */
    public static ObjectNode definition() {
        ObjectNode tool = McpJson.object().put("name", ToolSearch.TOOL).put("title", "Search tools")
                .put("description", "Finds tools by what they do: more tools exist than are listed. Describe the "
                        + "action in a few words (\"create a pull request\", \"shelve my changes\"), or give a tool's "
                        + "name, or /regex/. The tools found are added to your tool list and can be called by name.");
        tool.set("inputSchema", McpJson.mapper().readTree("{\"type\":\"object\",\"properties\":{\"query\":{\"type\":"
                + "\"string\",\"description\":\"What the tool should do, its name, or /regex/\"},\"limit\":{\"type\":"
                + "\"integer\",\"minimum\":1,\"maximum\":" + MAX_LIMIT + ",\"description\":\"How many tools (default "
                + DEFAULT_LIMIT + ")\"}},\"required\":[\"query\"]}"));
        return tool;
    }
}
