package mcp.host;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import mcp.api.AlwaysLoad;
import mcp.api.CallPolicy;
import mcp.api.LoadedSkill;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.SkillEntry;
import mcp.manager.BridgedTool;
import mcp.manager.ManagerListener;
import mcp.manager.McpManager;
import mcp.manager.SurfaceSlice;
import mcp.manager.ToolOutput;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An agent session's tool registry (SPEC §10): the application's own tools beside the MCP tools.
 * MCP tools are replaced as a whole by {@link #refreshMcpTools}; the session does that by itself
 * when a server connects after the startup gate (served from the cache meanwhile, or past the wait for uncached
 * servers, or up on a retry of its first connect) or changes its tools, and tells its listeners
 * ({@link #onToolsChanged}) as a {@code tools/list_changed} would: the agent's next request takes the new set.
 * {@link #reload()} runs the whole reload flow, {@link #reloadChanged()} restarts only the servers whose config changed.
 * {@link #subagent()} gives a session whose proxy tools call through this
 * session's connections and which starts nothing of its own.
 *
 * <p>Everything here is the model's: a server's tools meant for an app's view only (the MCP Apps extension,
 * {@code _meta.ui.visibility} without {@code "model"}) are in none of its tool sets, searches or subagents, and
 * {@link #tool(String)} does not find them; an embedder's app bridge calls them through
 * {@link McpManager#appTools(String)}.
 *
 * <p>Thread-safe. Listeners registered with {@link #onToolsChanged} hear every change of the tool set.
 */
public final class ToolSession implements AutoCloseable {

    /** The call timeout of a subagent's proxy tools. */
    public static final Duration SUBAGENT_CALL_TIMEOUT = Duration.ofSeconds(60);

    private final McpHost host;
    private final McpManager manager;
    private final boolean subagent;
    private final Object lock = new Object();
    private final Map<String, AgentTool> appTools = new LinkedHashMap<>();
    private List<AgentTool> mcpTools = List.of();
    /** The MCP tools among {@link #mcpTools}, by name; guarded by lock. */
    private Map<String, BridgedTool> bridged = Map.of();
    /** The tools the agent found with the search tool, loaded from then on (deferred loading). */
    private final Set<String> found = ConcurrentHashMap.newKeySet();
    private final SessionIndex index;
    /**
     * Guarded by lock: whether {@link #index} lags behind the tools (it is brought up to date by the next search,
     * so a session that never searches never builds it), and the MCP tools' estimated definition tokens (counted
     * once per change of the tool set, for {@link ToolSearch.Mode#AUTO}; -1 until counted).
     */
    private boolean indexStale = true;
    private long mcpTokens = -1;
    private final AgentTool searchTool = new SearchTool();
    private volatile LoadResult lastLoad;
    private final List<Consumer<List<AgentTool>>> listeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<List<PromptCommand>>> promptListeners = new CopyOnWriteArrayList<>();
    /** Held while the manager's tool set is taken and applied, so that an older set never replaces a newer one. */
    private final Object rebindLock = new Object();
    private final ManagerListener rebinding = new ManagerListener() {
        @Override
        public void onToolsChanged(String serverName, List<BridgedTool> tools) {
            rebind();
        }

        @Override
        public void onSurfacesChanged(String serverName, List<SurfaceSlice> surfaces) {
            // The resource tools come and go with the servers that offer resources.
            rebind();
            List<PromptCommand> prompts = prompts();
            promptListeners.forEach(listener -> listener.accept(prompts));
        }
    };

    private ToolSession(McpHost host, McpManager manager, boolean subagent) {
        this.host = host;
        this.manager = manager;
        this.subagent = subagent;
        this.index = host == null ? new SessionIndex() : new SessionIndex(host::newRanker, host.rankerTimeout());
    }

    static ToolSession open(McpHost host) {
        ToolSession session = new ToolSession(host, host.manager(), false);
        // Following the manager before the load returns: a server that arrives after the gate (a cached one, one
        // past the uncached wait, one that came up on a retry), even a moment after it, re-binds the session; the
        // load's own tools would be a set older than the manager's by then.
        host.manager().addListener(session.rebinding);
        try {
            session.lastLoad = host.load();
        } catch (RuntimeException | Error e) {
            host.manager().removeListener(session.rebinding);
            throw e;
        }
        session.rebind();
        return session;
    }

    /** Takes the manager's tool set now: the load's, a late server's, a server's changed list. */
    private void rebind() {
        synchronized (rebindLock) {
            refreshMcpTools(manager.getTools());
        }
    }

    /** @return the last load (or reload) of this session; for a subagent, its parent's */
    public LoadResult lastLoad() {
        return lastLoad;
    }

    /**
     * The tool set the agent gets: every tool (the application's, then the MCP tools, in a stable order); with
     * deferred loading on ({@link #deferredLoading()}), only the application's tools, the MCP tools always loaded
     * (by the builder's {@link ToolSearch#alwaysLoad()} or their server's config, {@link mcp.api.ServerConfig#alwaysLoad()})
     * or found by a search, the resource and skill tools, and
     * {@value ToolSearch#TOOL}.
     *
     * @return the agent's tool set now
     */
    public List<AgentTool> tools() {
        synchronized (lock) {
            List<AgentTool> all = allToolsLocked();
            if (!deferredLoadingLocked(all)) {
                return all;
            }
            Set<String> always = host == null ? Set.of() : host.toolSearch().alwaysLoad();
            // Each server's own alwaysLoad, read from its current config once per server and call.
            Map<String, AlwaysLoad> configured = new HashMap<>();
            List<AgentTool> loaded = new ArrayList<>(appTools.values());
            for (AgentTool tool : mcpTools) {
                BridgedTool mcp = bridged.get(tool.name());
                if (mcp == null || found.contains(tool.name()) || always.contains(tool.name())
                        || always.contains(mcp.serverName())
                        || configured.computeIfAbsent(mcp.serverName(), manager::alwaysLoad).includes(mcp.toolName())) {
                    loaded.add(tool);
                }
            }
            if (!appTools.containsKey(ToolSearch.TOOL)) {
                // (An application tool of that name wins, as it does over an MCP tool.)
                loaded.add(searchTool);
            }
            return List.copyOf(loaded);
        }
    }

    /** @return every tool of the session, loaded or not: the application's, then the MCP tools */
    public List<AgentTool> allTools() {
        synchronized (lock) {
            return allToolsLocked();
        }
    }

    private List<AgentTool> allToolsLocked() {
        List<AgentTool> all = new ArrayList<>(appTools.values());
        all.addAll(mcpTools);
        return List.copyOf(all);
    }

    /**
     * @return whether the agent gets the search tool instead of every MCP definition now: {@link ToolSearch.Mode#ON},
     *     or {@link ToolSearch.Mode#AUTO} with the MCP tools' definitions over the budget (their tokens estimated by
     *     {@link mcp.manager.TokenCounter})
     */
    public boolean deferredLoading() {
        synchronized (lock) {
            return deferredLoadingLocked(allToolsLocked());
        }
    }

    private boolean deferredLoadingLocked(List<AgentTool> all) {
        ToolSearch settings = host == null ? ToolSearch.OFF : host.toolSearch();
        return switch (settings.mode()) {
            case OFF -> false;
            case ON -> true;
            case AUTO -> {
                if (mcpTokens < 0) {
                    mcpTokens = all.stream().filter(tool -> bridged.containsKey(tool.name()))
                            .mapToLong(SessionIndex::estimatedTokens).sum();
                }
                yield mcpTokens > settings.budget();
            }
        };
    }

    /**
     * Searches every tool of the session, loaded or not, and loads the ones found: from now on they are in
     * {@link #tools()} (the listeners hear it).
     *
     * @param query words as a user would say them, a tool's name, or {@code /regex/}
     * @param limit the most tools (1 to 50)
     * @return the tools found, best first
     */
    public List<AgentTool> searchTools(String query, int limit) {
        return findTools(query, limit).tools();
    }

    /**
     * Searches as {@link #searchTools} does, and says which ranking answered: the word index alone, or fused with the
     * host's ranker ({@link McpHost.Builder#toolRanker}, or the one ServiceLoader found).
     *
     * @param query words as a user would say them, a tool's name, or {@code /regex/}
     * @param limit the most tools (1 to 50)
     * @return the tools found, best first, and the ranker that answered or why it did not
     */
    public Found findTools(String query, int limit) {
        Objects.requireNonNull(query, "query");
        if (limit < 1 || limit > 50) {
            throw new IllegalArgumentException("limit must be 1 to 50, got " + limit);
        }
        Map<String, AgentTool> all = new LinkedHashMap<>();
        synchronized (lock) {
            List<AgentTool> tools = allToolsLocked();
            tools.forEach(tool -> all.put(tool.name(), tool));
            if (indexStale) {
                index.update(tools, bridged);
                indexStale = false;
            }
        }
        // Outside the lock: a ranker may take up to its bound, and tools() must not wait for it.
        mcp.search.SearchResult result = index.search(query, limit);
        List<AgentTool> hits = new ArrayList<>();
        boolean added = false;
        synchronized (lock) {
            for (mcp.search.Hit hit : result.hits()) {
                AgentTool tool = all.get(hit.id());
                if (tool != null) {
                    hits.add(tool);
                    added |= bridged.containsKey(tool.name()) && found.add(tool.name());
                }
            }
        }
        if (added) {
            List<AgentTool> snapshot = tools();
            listeners.forEach(listener -> listener.accept(snapshot));
        }
        return new Found(hits, result.ranker(), result.rankerSkipped());
    }

    /**
     * What a search found.
     *
     * @param tools the tools found, best first
     * @param ranker the id of the ranker fused with the words for this answer; empty when the words alone answered
     * @param rankerSkipped why the host's ranker did not answer this one (timed out, failed, still embedding, a
     *     regex); empty when it answered or there is none
     */
    public record Found(List<AgentTool> tools, Optional<String> ranker, Optional<String> rankerSkipped) {
        /** Checks and copies. */
        public Found {
            tools = List.copyOf(tools);
            Objects.requireNonNull(ranker, "ranker");
            Objects.requireNonNull(rankerSkipped, "rankerSkipped");
        }
    }

    /**
     * @param name a tool name
     * @return the tool of that name, loaded or not (every tool stays callable by its name), or the search tool
     */
    public Optional<AgentTool> tool(String name) {
        if (name.equals(ToolSearch.TOOL) && deferredLoading()) {
            return Optional.of(searchTool);
        }
        return allTools().stream().filter(tool -> tool.name().equals(name)).findFirst();
    }

    /**
     * Registers one of the application's own tools.
     *
     * @param tool the tool
     * @throws McpException if a tool of that name exists
     */
    public void addTool(AgentTool tool) {
        Objects.requireNonNull(tool, "tool");
        List<AgentTool> snapshot;
        synchronized (lock) {
            if (appTools.containsKey(tool.name()) || mcpTools.stream().anyMatch(t -> t.name().equals(tool.name()))) {
                throw new McpException("A tool named \"" + tool.name() + "\" is already registered");
            }
            appTools.put(tool.name(), tool);
            indexStale = true;
            snapshot = tools();
        }
        listeners.forEach(listener -> listener.accept(snapshot));
    }

    /**
     * Replaces every MCP tool of the session with these, wrapped, and the resource tools ({@code list_mcp_resources}
     * and {@code read_mcp_resource}, while a server offers resources) and the skill tool ({@code load_mcp_skill},
     * while a server offers skills); the application's tools stay. A tool meant for an app's view only (MCP Apps:
     * {@link mcp.api.ToolDefinition#visibleToModel()} false) is left out.
     *
     * @param tools the MCP tools now
     */
    public void refreshMcpTools(List<BridgedTool> tools) {
        List<AgentTool> wrapped = new ArrayList<>(tools.size() + 2);
        Map<String, BridgedTool> byName = new LinkedHashMap<>();
        for (BridgedTool tool : tools) {
            if (!tool.definition().visibleToModel()) {
                // Meant for an app's view (MCP Apps): not in the tool set, the search or a subagent, nor callable by
                // name; an app bridge reaches it through McpManager.appTools.
                continue;
            }
            wrapped.add(subagent ? new ProxyTool(manager, tool) : new BoundTool(tool));
            byName.put(tool.name(), tool);
        }
        wrapped.addAll(ResourceTools.of(manager));
        wrapped.addAll(SkillTools.of(manager));
        List<AgentTool> snapshot;
        synchronized (lock) {
            // An application tool keeps its name; an MCP tool of the same name is left out.
            wrapped.removeIf(tool -> appTools.containsKey(tool.name()));
            mcpTools = List.copyOf(wrapped);
            byName.keySet().retainAll(wrapped.stream().map(AgentTool::name).toList());
            bridged = Map.copyOf(byName);
            found.retainAll(bridged.keySet());
            indexStale = true;
            mcpTokens = -1;
            snapshot = tools();
        }
        listeners.forEach(listener -> listener.accept(snapshot));
    }

    /**
     * The reload flow: disconnect every server, discover again (honouring the host's options), and
     * refresh this session's MCP tools. Not available to a subagent.
     *
     * @return the new load
     */
    public LoadResult reload() {
        if (subagent) {
            throw new McpException("A subagent session shares its parent's servers and cannot reload them");
        }
        lastLoad = host.reload();
        rebind();
        return lastLoad;
    }

    /**
     * Reloads what changed ({@link McpHost#reloadChanged()}): only the servers whose config changed are restarted,
     * the others keep their connections, and this session's MCP tools follow. Not available to a subagent.
     *
     * @return what the reload found and did; its load becomes {@link #lastLoad()}
     */
    public ReloadResult reloadChanged() {
        if (subagent) {
            throw new McpException("A subagent session shares its parent's servers and cannot reload them");
        }
        ReloadResult result = host.reloadChanged();
        lastLoad = result.load();
        rebind();
        return result;
    }

    /**
     * Creates a subagent session: proxy tools with this session's names, labels, descriptions and
     * schemas that call through this session's connections (waiting for a pending one), with a
     * {@link #SUBAGENT_CALL_TIMEOUT}. It discovers and starts nothing, and follows this session's
     * MCP tool changes.
     *
     * @return the subagent session
     */
    public ToolSession subagent() {
        ToolSession child = new ToolSession(host, manager, true);
        child.lastLoad = lastLoad;
        manager.addListener(child.rebinding);
        child.rebind();
        return child;
    }

    /**
     * The prompts of the session's servers as commands for the user (slash commands): {@code <server>:<prompt>},
     * with their arguments; a subagent sees its parent's.
     *
     * @return every prompt command now, in the servers' order
     */
    public List<PromptCommand> prompts() {
        return PromptCommand.of(manager);
    }

    /**
     * The skills of the session's servers (the skills extension): the entries only, nothing of a skill is read
     * until it is loaded (by the agent's {@code load_mcp_skill}, or {@link #loadSkill}).
     *
     * @return every skill entry now, in the servers' order
     */
    public List<SkillEntry> skills() {
        return SkillTools.skills(manager);
    }

    /**
     * Loads a skill: its {@code SKILL.md}, verified against the entry (size, digest, frontmatter).
     *
     * @param skill an entry of {@link #skills()}
     * @return the verified skill, whose files {@link McpManager#readSkillFile} reads
     */
    public CompletableFuture<LoadedSkill> loadSkill(SkillEntry skill) {
        return manager.loadSkill(skill);
    }

    /** @param listener hears every prompt command after a change of a server's prompts (or resources) */
    public void onPromptsChanged(Consumer<List<PromptCommand>> listener) {
        promptListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * @param listener hears the whole tool set ({@link #tools()}) after every change: a server that arrived late (its
     *     tools were not in the load), a server's {@code tools/list_changed}, a reconnect, a search that loaded
     *     tools, a tool of the application's; on a thread of the manager's, one change at a time
     */
    public void onToolsChanged(Consumer<List<AgentTool>> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Stops following the manager. A parent session also closes its host, ending every server; a
     * subagent leaves its parent's servers alone.
     */
    @Override
    public void close() {
        manager.removeListener(rebinding);
        if (!subagent && host != null) {
            host.close();
        }
    }

    /** An MCP tool of the session itself. */
    private record BoundTool(BridgedTool tool) implements AgentTool {
        @Override
        public String name() {
            return tool.name();
        }

        @Override
        public String label() {
            return tool.label();
        }

        @Override
        public String description() {
            return tool.description();
        }

        @Override
        public JsonNode inputSchema() {
            return tool.inputSchema();
        }

        @Override
        public String origin() {
            return tool.origin();
        }

        @Override
        public CompletableFuture<ToolOutput> call(JsonNode arguments) {
            return tool.call(arguments);
        }

        @Override
        public CallPolicy callPolicy() {
            return tool.callPolicy();
        }

        @Override
        public boolean isMcp() {
            return true;
        }
    }

    /**
     * A subagent's stand-in for a parent's MCP tool: same presentation, and a call that goes to
     * whatever the parent's manager holds for that name at call time (live, or deferred and waiting
     * for its server), bounded by {@link #SUBAGENT_CALL_TIMEOUT}.
     */
    private record ProxyTool(McpManager parent, BridgedTool template) implements AgentTool {
        @Override
        public String name() {
            return template.name();
        }

        @Override
        public String label() {
            return template.label();
        }

        @Override
        public String description() {
            return template.description();
        }

        @Override
        public JsonNode inputSchema() {
            return template.inputSchema();
        }

        @Override
        public String origin() {
            return template.origin();
        }

        @Override
        public boolean isMcp() {
            return true;
        }

        /** The parent's current one, as for the call. */
        @Override
        public CallPolicy callPolicy() {
            return parent.getTools().stream().filter(t -> t.name().equals(template.name())).findFirst()
                    .orElse(template).callPolicy();
        }

        @Override
        public CompletableFuture<ToolOutput> call(JsonNode arguments) {
            BridgedTool current = parent.getTools().stream().filter(t -> t.name().equals(template.name())).findFirst()
                    .orElse(template);
            CompletableFuture<ToolOutput> call = current.call(arguments);
            CompletableFuture<ToolOutput> bounded = new CompletableFuture<>();
            call.whenComplete((output, error) -> {
                if (error != null) {
                    bounded.completeExceptionally(error);
                } else {
                    bounded.complete(output);
                }
            });
            bounded.orTimeout(SUBAGENT_CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).whenComplete((output, error) -> {
                if (error instanceof TimeoutException) {
                    call.cancel(false);
                }
            });
            return bounded.exceptionallyCompose(error -> unwrap(error) instanceof TimeoutException
                    ? CompletableFuture.completedFuture(new ToolOutput("MCP tool call timed out after "
                            + SUBAGENT_CALL_TIMEOUT.toMillis() + "ms", true, timeoutDetails()))
                    : CompletableFuture.failedFuture(error));
        }

        private static Throwable unwrap(Throwable error) {
            return error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                    ? error.getCause() : error;
        }

        private ToolOutput.Details timeoutDetails() {
            return new ToolOutput.Details(template.serverName(), template.toolName(), true, List.of(), Optional.empty(),
                    template.source().map(s -> s.providerId()), template.source().map(s -> s.providerName()));
        }
    }

    /**
     * {@value ToolSearch#TOOL}: the agent's way to the tools it was not given. It answers with the best matches' names,
     * descriptions and input schemas, and loads them, so they are in the next request's tool set.
     */
    private final class SearchTool implements AgentTool {
        @Override
        public String name() {
            return ToolSearch.TOOL;
        }

        @Override
        public String label() {
            return "Search tools";
        }

        @Override
        public String description() {
            return "Finds tools by what they do: more tools exist than are loaded. Describe the action in a few words "
                    + "(\"create a pull request\", \"shelve my changes\"), or give a tool's name, or /regex/. The "
                    + "tools found are loaded and can be called from the next turn on.";
        }

        @Override
        public JsonNode inputSchema() {
            return McpJson.mapper().readTree("{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\","
                    + "\"description\":\"What the tool should do, its name, or /regex/\"},\"limit\":{\"type\":"
                    + "\"integer\",\"minimum\":1,\"maximum\":20,\"description\":\"How many tools (default 5)\"}},"
                    + "\"required\":[\"query\"]}");
        }

        @Override
        public String origin() {
            return "mcp-host";
        }

        @Override
        public CompletableFuture<ToolOutput> call(JsonNode arguments) {
            JsonNode query = arguments == null ? null : arguments.get("query");
            JsonNode limit = arguments == null ? null : arguments.get("limit");
            if (query == null || !query.isString() || query.asString().isBlank()) {
                return CompletableFuture.completedFuture(output(ToolSearch.TOOL + " needs \"query\" (a string)", true));
            }
            int n = limit != null && limit.canConvertToInt() ? Math.max(1, Math.min(20, limit.asInt())) : 5;
            List<AgentTool> hits;
            Found answer;
            try {
                answer = findTools(query.asString(), n);
                hits = answer.tools();
            } catch (IllegalArgumentException e) {
                return CompletableFuture.completedFuture(output(e.getMessage(), true));
            }
            if (hits.isEmpty()) {
                return CompletableFuture.completedFuture(output("No tool matches \"" + query.asString()
                        + "\". Try other words for the action or the thing it acts on.", false));
            }
            StringBuilder text = new StringBuilder("Tools found (loaded: call them by name):");
            for (AgentTool hit : hits) {
                text.append("\n\n").append(hit.name()).append(": ").append(hit.description())
                        .append("\nInput schema: ").append(McpJson.mapper().writeValueAsString(hit.inputSchema()));
            }
            // Which ranking answered goes to the application (the details), not into the agent's context.
            ObjectNode structured = McpJson.object();
            ArrayNode names = structured.putArray("tools");
            hits.forEach(hit -> names.add(hit.name()));
            structured.put("ranker", answer.ranker().orElse(null));
            structured.put("rankerSkipped", answer.rankerSkipped().orElse(null));
            return CompletableFuture.completedFuture(new ToolOutput(text.toString(), false, new ToolOutput.Details("",
                    ToolSearch.TOOL, false, List.of(), Optional.of(structured), Optional.empty(), Optional.empty())));
        }

        private ToolOutput output(String text, boolean error) {
            return new ToolOutput(text, error, new ToolOutput.Details("", ToolSearch.TOOL, error, List.of(),
                    Optional.empty(), Optional.empty(), Optional.empty()));
        }
    }
}
