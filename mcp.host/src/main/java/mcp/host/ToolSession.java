package mcp.host;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import mcp.api.LoadedSkill;
import mcp.api.McpException;
import mcp.api.SkillEntry;
import mcp.manager.BridgedTool;
import mcp.manager.ManagerListener;
import mcp.manager.McpManager;
import mcp.manager.SurfaceSlice;
import mcp.manager.ToolOutput;
import tools.jackson.databind.JsonNode;

/**
 * An agent session's tool registry (SPEC §10): the application's own tools beside the MCP tools.
 * MCP tools are replaced as a whole by {@link #refreshMcpTools}; the session does that by itself
 * when a server connects after the startup gate or changes its tools, and {@link #reload()} runs the
 * whole reload flow. {@link #subagent()} gives a session whose proxy tools call through this
 * session's connections and which starts nothing of its own.
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
    private volatile LoadResult lastLoad;
    private final List<Consumer<List<AgentTool>>> listeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<List<PromptCommand>>> promptListeners = new CopyOnWriteArrayList<>();
    private final ManagerListener rebinding = new ManagerListener() {
        @Override
        public void onToolsChanged(String serverName, List<BridgedTool> tools) {
            refreshMcpTools(tools);
        }

        @Override
        public void onSurfacesChanged(String serverName, List<SurfaceSlice> surfaces) {
            // The resource tools come and go with the servers that offer resources.
            refreshMcpTools(manager.getTools());
            List<PromptCommand> prompts = prompts();
            promptListeners.forEach(listener -> listener.accept(prompts));
        }
    };

    private ToolSession(McpHost host, McpManager manager, boolean subagent) {
        this.host = host;
        this.manager = manager;
        this.subagent = subagent;
    }

    static ToolSession open(McpHost host) {
        ToolSession session = new ToolSession(host, host.manager(), false);
        session.lastLoad = host.load();
        session.refreshMcpTools(session.lastLoad.tools());
        // Late servers and list_changed re-bind on their own from now on.
        host.manager().addListener(session.rebinding);
        return session;
    }

    /** @return the last load (or reload) of this session; for a subagent, its parent's */
    public LoadResult lastLoad() {
        return lastLoad;
    }

    /** @return every tool: the application's, then the MCP tools, in a stable order */
    public List<AgentTool> tools() {
        synchronized (lock) {
            List<AgentTool> all = new ArrayList<>(appTools.values());
            all.addAll(mcpTools);
            return List.copyOf(all);
        }
    }

    /**
     * @param name a tool name
     * @return the tool of that name
     */
    public Optional<AgentTool> tool(String name) {
        return tools().stream().filter(tool -> tool.name().equals(name)).findFirst();
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
            snapshot = tools();
        }
        listeners.forEach(listener -> listener.accept(snapshot));
    }

    /**
     * Replaces every MCP tool of the session with these, wrapped, and the resource tools ({@code list_mcp_resources}
     * and {@code read_mcp_resource}, while a server offers resources) and the skill tool ({@code load_mcp_skill},
     * while a server offers skills); the application's tools stay.
     *
     * @param tools the MCP tools now
     */
    public void refreshMcpTools(List<BridgedTool> tools) {
        List<AgentTool> wrapped = new ArrayList<>(tools.size() + 2);
        for (BridgedTool tool : tools) {
            wrapped.add(subagent ? new ProxyTool(manager, tool) : new BoundTool(tool));
        }
        wrapped.addAll(ResourceTools.of(manager));
        wrapped.addAll(SkillTools.of(manager));
        List<AgentTool> snapshot;
        synchronized (lock) {
            // An application tool keeps its name; an MCP tool of the same name is left out.
            wrapped.removeIf(tool -> appTools.containsKey(tool.name()));
            mcpTools = List.copyOf(wrapped);
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
        refreshMcpTools(lastLoad.tools());
        return lastLoad;
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
        child.refreshMcpTools(manager.getTools());
        manager.addListener(child.rebinding);
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

    /** @param listener hears the whole tool set after every change */
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
}
