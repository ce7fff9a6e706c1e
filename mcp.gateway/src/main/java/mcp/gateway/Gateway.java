package mcp.gateway;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import mcp.api.CallPolicy;
import mcp.api.CompletionReference;
import mcp.api.LogLevel;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.ResourceDefinition;
import mcp.api.ResourceTemplate;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.api.spi.ElicitationUi;
import mcp.gateway.internal.Exposed;
import mcp.gateway.internal.Policy;
import mcp.gateway.internal.PolicyFile;
import mcp.gateway.internal.RateLimiter;
import mcp.gateway.internal.SearchView;
import mcp.gateway.internal.ServerTools;
import mcp.gateway.internal.ToolResults;
import mcp.gateway.internal.ToolSchemas;
import mcp.host.ToolFinder;
import mcp.host.ToolSearch;
import mcp.manager.BridgedTool;
import mcp.manager.CallOptions;
import mcp.manager.Caller;
import mcp.manager.ClientOptions;
import mcp.manager.ElicitationHandler;
import mcp.manager.ManagerListener;
import mcp.manager.McpClient;
import mcp.manager.McpManager;
import mcp.manager.ServerRequestHandler;
import mcp.manager.SurfaceSlice;
import mcp.protocol.CacheHints;
import mcp.protocol.ErrorCodes;
import mcp.protocol.Meta;
import mcp.protocol.ResultType;
import mcp.protocol.TaskRules;
import mcp.server.Capabilities;
import mcp.server.InputRequest;
import mcp.server.McpServer;
import mcp.server.Request;
import mcp.server.RequestContext;
import mcp.server.RequestHandler;
import mcp.server.TaskSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The host's servers as one MCP server: what an {@link McpManager} runs (approved, as the owning tools decided, with
 * pinned definitions, tools withheld by their owners or changed since pinned left out), served to every client of an
 * {@link McpServer}, in either era.
 *
 * <ul>
 *   <li><b>One connection per server.</b> Every client's calls go over the manager's one session with each server;
 *       nothing starts a server per client.</li>
 *   <li><b>Names.</b> With one server in view, its tools and prompts keep their own names. With several, a tool is
 *       named {@code <server>_<tool>} (the agent name of the host without its {@code mcp_} prefix: lower case,
 *       unique) and a prompt {@code <server>_<prompt>}; a tool name is at most 49 characters (a longer one is cut
 *       and given a hash suffix), so that an agent's own prefix such as {@code mcp__mcp-host__} keeps it within a
 *       model's 64. A resource keeps its URI; a read goes to the server that lists it, else to the one with a
 *       template that matches it.</li>
 *   <li><b>Routing without cross-talk.</b> What a server asks while it works on a call (sampling, elicitation,
 *       roots) goes to the client whose call it is, through {@link RequestContext#ask}: a server request of the
 *       handshake era, or an input round of the stateless one, whichever that client speaks
 *       ({@link CallOptions#caller()}). A client's cancellation cancels its own call only.</li>
 *   <li><b>The owners' decisions.</b> A tool whose owning tool asks before each call ({@link CallPolicy.Decision#ASK})
 *       is confirmed with the calling client's user by elicitation first; a client that cannot be asked gets an error
 *       result that says so, and the tool does not run.</li>
 *   <li><b>Tool search.</b> With {@link Builder#search} on, a client's {@code tools/list} holds the tools always
 *       loaded and {@value ToolSearch#TOOL}; what that client's searches find is added to its list alone (and it
 *       alone hears {@code list_changed}). Every tool stays callable by its name, listed or not.</li>
 *   <li><b>A view per caller.</b> With {@link Builder#policyFile}, what each caller (the {@link mcp.server.Caller} the
 *       HTTP endpoint's authenticator names) sees and may call, and its rate limits per client and per tool: listings
 *       show the view; a call, read, get, completion or header check outside it is answered as for a name that does
 *       not exist, and logged; a subscription outside it hears nothing; a request over a limit is answered with
 *       {@link ErrorCodes#RATE_LIMITED} (HTTP 429 and {@code Retry-After}). The upstreams are reached with the host's
 *       own credentials for every caller: a client's token never reaches them.</li>
 *   <li><b>Changes.</b> {@link #attach} makes the manager's list changes and resource updates reach every client
 *       that listens; the resources clients subscribe to are subscribed upstream.</li>
 * </ul>
 */
public final class Gateway implements RequestHandler, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);

    /** What an upstream of the stateless revision puts on its results about its own answer, not the gateway's. */
    private static final List<String> UPSTREAM_ONLY = List.of(ResultType.KEY, CacheHints.TTL_MS,
            CacheHints.CACHE_SCOPE);

    /** The most questions of one server answered at once through the gateway (its clients' calls bound them first). */
    static final int MAX_QUESTIONS = 4_096;

    /** The prefix of the protocol's own {@code _meta} keys. */
    private static final String RESERVED_META = "io.modelcontextprotocol/";

    private final McpManager manager;
    /** The servers in view and the names their clients know them by; replaced whole when the view changes. */
    private volatile View view;
    private final Set<String> tools;
    private final Duration connectWait;
    private final Duration askWait;
    private final CompletableFuture<?> ready;
    private final Duration readyWait;
    private final ManagerListener listener = new Changes();
    private final ToolSchemas schemas = new ToolSchemas(this::exposed);
    /** The deferred mode's lists per client, or {@code null} when every client gets every tool. */
    private final SearchView search;
    private final List<OwnTool> ownTools;
    private final boolean tasks;
    private final boolean upstreamTasks;
    private volatile McpServer server;
    /** The names of the last snapshot {@link #exposed()} saw; {@code null} before the first. */
    private volatile Snapshot snapshot;
    /** The resources subscribed upstream for the gateway's clients: URI to server. Guarded by itself. */
    private final Map<String, String> upstreamSubscriptions = new HashMap<>();
    /** The policy file, or {@code null}: everyone sees everything, without limits. */
    private final PolicyFile policyFile;
    /** The buckets of the rate limits; replaced when the policy changes their bound. */
    private volatile RateLimiter limiter;

    private Gateway(Builder builder) {
        this.manager = builder.manager;
        this.view = new View(builder.servers.isEmpty() ? null : Set.copyOf(builder.servers), Map.of());
        this.tools = Set.copyOf(builder.tools);
        this.connectWait = builder.connectWait;
        this.askWait = builder.askWait;
        this.ready = builder.ready;
        this.readyWait = builder.readyWait;
        this.search = builder.search ? new SearchView(builder.alwaysLoad, Optional.ofNullable(builder.finder)) : null;
        List<OwnTool> own = new ArrayList<>(builder.ownTools);
        if (builder.search && builder.control != null) {
            own.addAll(ServerTools.of(builder.control));
        }
        this.ownTools = List.copyOf(own);
        this.tasks = builder.tasks;
        this.upstreamTasks = builder.upstreamTasks;
        this.policyFile = builder.policyFile == null ? null : new PolicyFile(builder.policyFile, builder.policyPoll,
                builder.policyProblems, this::policyChanged);
        this.limiter = new RateLimiter(policy().maxTracked(), System::nanoTime);
    }

    /** @return the policy in force */
    Policy policy() {
        return policyFile == null ? Policy.OPEN : policyFile.policy();
    }

    /** A new policy: every client that listens hears that its lists may have changed. */
    private void policyChanged() {
        int bound = policy().maxTracked();
        if (limiter.maxTracked() != bound) {
            limiter = new RateLimiter(bound, System::nanoTime);
        }
        schemas.invalidate();
        McpServer target = server;
        if (target != null) {
            target.toolsChanged();
            target.promptsChanged();
            target.resourcesChanged();
        }
    }

    /** Reads the policy file now, as its poller does every interval. */
    void pollPolicy() {
        if (policyFile != null) {
            policyFile.poll();
        }
    }

    /**
     * @param manager the host's manager, with its servers connected or connecting
     * @return a builder
     */
    public static Builder builder(McpManager manager) {
        return new Builder(manager);
    }

    /**
     * Makes the manager's changes reach the clients of a server that serves this gateway: tool, prompt and resource
     * list changes, and updates of subscribed resources.
     *
     * @param mcpServer the server whose handler this gateway is
     */
    public void attach(McpServer mcpServer) {
        this.server = Objects.requireNonNull(mcpServer, "mcpServer");
        manager.addListener(listener);
        schemas.invalidate();
    }

    /**
     * Changes which of the manager's servers this gateway serves, and the names its clients know them by (a shared
     * gateway runs one project's server under a name of its own, and shows it by the project's name for it). The
     * clients that listen hear that the tools, prompts and resources changed.
     *
     * @param servers the servers in view, exactly (empty: none)
     * @param shown the name to show for a server, by the manager's name; a server not in it is shown as it is named
     */
    public void changeView(Set<String> servers, Map<String, String> shown) {
        View next = new View(Set.copyOf(servers), Map.copyOf(shown));
        if (next.equals(view)) {
            return;
        }
        view = next;
        McpServer target = server;
        if (target != null) {
            target.toolsChanged();
            target.promptsChanged();
            target.resourcesChanged();
        }
    }

    /** Tells the clients that listen that the tools changed: an {@link OwnTool}'s offer did. */
    public void ownToolsChanged() {
        McpServer target = server;
        if (target != null) {
            target.toolsChanged();
        }
    }

    /**
     * @param servers the servers in view, or null for all
     * @param shown the names shown for servers, by the manager's name
     */
    private record View(Set<String> servers, Map<String, String> shown) {
        boolean contains(String server) {
            return servers == null || servers.contains(server);
        }
    }

    /**
     * Tasks are always declared: whether a tool may run as one is said tool by tool ({@link #taskSupport}), and the
     * tools are not known when the gateway's server starts.
     */
    @Override
    public Capabilities capabilities() {
        return new Capabilities(true, true, true, true, true, true, true, true, McpJson.object()).withTasks();
    }

    /**
     * A tool may run as a task of the gateway's where its server says it may run as one of its own (optional or
     * required): the gateway's server holds the task (status, result, cancellation, the client's input) over the
     * gateway's ordinary upstream call, which the host's client follows to its end, upstream task or not. So nothing
     * is lost in the hop, and a required one becomes optional: a client without tasks gets a plain answer. With
     * {@link Builder#tasks} on, every tool may. Not by default: a 2026-07-28 client that declares the extension would
     * get every call as a task, polled, where a plain answer does.
     */
    @Override
    public TaskSupport taskSupport(String name) {
        if (tasks) {
            return TaskSupport.OPTIONAL;
        }
        if (!upstreamTasks) {
            return TaskSupport.FORBIDDEN;
        }
        BridgedTool tool = exposed().tools().get(name);
        return tool != null && tool.definition().mayRunAsTask() ? TaskSupport.OPTIONAL : TaskSupport.FORBIDDEN;
    }

    /**
     * A call of a tool its server may run as a task becomes a task of the gateway's when the server makes it one of its
     * own: so the questions the server asks before that reach the client as rounds of its call, and it gets a task
     * where the server made one. A server that offers no tasks makes it one at once. Any other tool (with
     * {@link Builder#tasks}) is a task from the first request, as no server's task is to be waited for.
     */
    @Override
    public boolean deferTask(String name) {
        BridgedTool tool = exposed().tools().get(name);
        return tool != null && tool.definition().mayRunAsTask();
    }

    /** The tool's schema in the calling client's view (kept until the view changes), for the header check. */
    @Override
    public Optional<JsonNode> toolInputSchema(String name) {
        if (server == null) {
            // Not attached, so not told of changes: nothing may be kept.
            return Optional.ofNullable(exposed().tools().get(name)).map(tool -> tool.definition().inputSchema());
        }
        return schemas.of(name);
    }

    /** The schema of a tool in the caller's view; none for one outside it, as for a tool that does not exist. */
    @Override
    public Optional<JsonNode> toolInputSchema(String name, mcp.server.Caller caller) {
        Policy policy = policy();
        if (!policy.open()) {
            Policy.Access access = policy.accessFor(caller);
            BridgedTool tool = exposed().tools().get(name);
            if (!access.everything() && (tool == null || !access.tool(tool.serverName(), tool.toolName()))) {
                return Optional.empty();
            }
        }
        return toolInputSchema(name);
    }

    /**
     * The servers in the caller's view for {@code GET /status}: each one's state, its tools the caller sees, its
     * last error and its counts ({@link McpManager#activity}, all clients together), errors masked. A caller that a
     * policy limits sees the servers a rule gives it whole, and those of which it sees a tool now; and never the last
     * failed call's error, which may quote another client's call. Without a policy, or for the machine's own user,
     * every server in view.
     */
    @Override
    public Optional<JsonNode> status(mcp.server.Caller caller) {
        Policy policy = policy();
        Policy.Access access = policy.open() ? Policy.Access.ALL : policy.accessFor(caller);
        boolean everything = access.everything();
        Map<String, Integer> toolCounts = new HashMap<>();
        for (BridgedTool tool : exposed().tools().values()) {
            if (everything || access.tool(tool.serverName(), tool.toolName())) {
                toolCounts.merge(tool.serverName(), 1, Integer::sum);
            }
        }
        View current = view;
        ObjectNode status = McpJson.object();
        ArrayNode servers = status.putArray("servers");
        manager.statuses().forEach((name, state) -> {
            if (!current.contains(name) || !everything && !access.server(name) && !toolCounts.containsKey(name)) {
                return;
            }
            ObjectNode entry = servers.addObject().put("name", current.shown().getOrDefault(name, name))
                    .put("state", state.state().name().toLowerCase(java.util.Locale.ROOT))
                    .put("tools", toolCounts.getOrDefault(name, 0))
                    .put("error", state.error().map(mcp.api.internal.Secrets::maskText).orElse(null));
            entry.set("activity", manager.activity(name).toJson(everything));
        });
        return Optional.of(status);
    }

    /**
     * Never: {@link #handle} starts the work upstream and returns (the host's sessions send without waiting, and what
     * a call waits for, the connection or the client's confirmation, is a future), so the server calls it on the
     * thread that read the request, without a hand-off to a worker.
     */
    @Override
    public boolean blocks() {
        return false;
    }

    /** The names as the clients see them now. */
    Exposed exposed() {
        // The manager's tools and surfaces are immutable snapshots, replaced on every change: while both are the
        // same objects and the view is the same, so are the names, and a call needs not rebuild them (a map of every
        // tool in view).
        List<BridgedTool> all = manager.getTools();
        List<SurfaceSlice> surfaces = manager.surfaces();
        View current = view;
        Snapshot last = snapshot;
        if (last != null && last.tools() == all && last.surfaces() == surfaces && last.view() == current) {
            return last.exposed();
        }
        Exposed exposed = Exposed.of(all, surfaces, current::contains, current.shown(), tools);
        snapshot = new Snapshot(all, surfaces, current, exposed);
        return exposed;
    }

    /** The names made from one snapshot of the manager's tools and surfaces, in one view. */
    private record Snapshot(List<BridgedTool> tools, List<SurfaceSlice> surfaces, View view, Exposed exposed) {
    }

    @Override
    public CompletableFuture<JsonNode> handle(Request request, RequestContext context) {
        try {
            Policy policy = policy();
            Policy.Access access = policy.open() ? Policy.Access.ALL : policy.accessFor(context.caller());
            if (access.limits().client() != null) {
                limit(clientKey(context), access.limits().client(), "client", context);
            }
            return switch (request.method()) {
                case "tools/list" -> whenReady(() -> listTools(context, access));
                case "tools/call" -> afterReady(() -> callTool(request.params(), context, access));
                case "resources/list" -> whenReady(() -> listResources(access));
                case "resources/templates/list" -> whenReady(() -> listTemplates(access));
                case "resources/read" -> afterReady(() -> readResource(request.params(), context, access));
                case "prompts/list" -> whenReady(() -> listPrompts(access));
                case "prompts/get" -> afterReady(() -> getPrompt(request.params(), context, access));
                case "completion/complete" -> complete(request.params(), context, access);
                default -> CompletableFuture.failedFuture(new McpProtocolException(JsonRpcError.METHOD_NOT_FOUND,
                        "Method not found: " + request.method(), null));
            };
        } catch (McpException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Takes a token of a bucket, or refuses the request with the rate limit's error (429 over HTTP).
     *
     * @param key whose bucket
     * @param rate its rate
     * @param scope what the bucket is about, for the answer
     */
    private void limit(String key, Policy.Rate rate, String scope, RequestContext context) {
        long wait = limiter.take(key, rate);
        if (wait > 0) {
            long millis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait + 999_999));
            mcp.server.Caller caller = context.caller();
            LOG.debug("Gateway: {} (client {}) is over its {} rate limit", caller.subject(),
                    caller.client().orElse("-"), scope);
            throw ErrorCodes.rateLimited("Rate limit exceeded: " + (scope.equals("tool") ? "calls of this tool by "
                    + "this client" : "requests of this client") + " are limited to " + format(rate.perSecond())
                    + " a second (burst " + format(rate.burst()) + "); retry after " + millis + " ms",
                    Duration.ofMillis(millis), scope);
        }
    }

    private static String format(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }

    /**
     * The key of a client's buckets: an authenticated caller by its subject and OAuth client, whichever connection
     * it uses; the machine's own user by its session or connection (each agent its own), all its stateless HTTP
     * requests together.
     */
    private static String clientKey(RequestContext context) {
        mcp.server.Caller caller = context.caller();
        if (caller.local()) {
            return "local\u0000" + context.clientId().orElse("");
        }
        return "caller\u0000" + caller.subject() + "\u0000" + caller.client().orElse("");
    }

    /**
     * A request for something outside the caller's view: logged (who and what; never a credential), and answered as
     * for something that does not exist, so that a guessed name tells nothing.
     */
    private static void outsideView(RequestContext context, String kind, String name) {
        mcp.server.Caller caller = context.caller();
        LOG.info("Gateway: refused {} {} to {} (client {}): outside its view", kind, name, caller.subject(),
                caller.client().orElse("-"));
    }

    /** The tools in the caller's view, by the names the clients see. */
    private Map<String, BridgedTool> visibleTools(Policy.Access access) {
        return visibleTools(exposed().tools(), access);
    }

    /** @return the tools of {@code all} that this access may see */
    private static Map<String, BridgedTool> visibleTools(Map<String, BridgedTool> all, Policy.Access access) {
        if (access.everything()) {
            return all;
        }
        Map<String, BridgedTool> visible = new LinkedHashMap<>();
        all.forEach((name, tool) -> {
            if (access.tool(tool.serverName(), tool.toolName())) {
                visible.put(name, tool);
            }
        });
        return visible;
    }

    private JsonNode listTools(RequestContext context, Policy.Access access) {
        ObjectNode result = McpJson.object();
        ArrayNode list = result.putArray("tools");
        Map<String, BridgedTool> tools = visibleTools(access);
        if (search != null) {
            tools = search.listed(tools, context.clientId().orElse(null), manager::alwaysLoad);
        }
        for (Map.Entry<String, BridgedTool> entry : tools.entrySet()) {
            if (search != null && entry.getKey().equals(ToolSearch.TOOL)) {
                continue; // the gateway's own search tool has the name
            }
            BridgedTool tool = entry.getValue();
            ObjectNode json = tool.definition().toJson();
            json.put("name", entry.getKey());
            // How the upstream runs it is not how the gateway does: the gateway's server writes its own.
            json.remove("execution");
            // The host's cleaned description (bounded, control characters out), as its own agents get it.
            json.put("description", tool.description());
            list.add(json);
        }
        if (search != null) {
            list.add(SearchView.definition());
        }
        for (OwnTool own : ownTools) {
            own.definition().filter(definition -> access.tool(Policy.GATEWAY_SERVER, definition.name()))
                    .ifPresent(definition -> list.add(definition.toJson()));
        }
        return result;
    }

    /** The gateway's own tool of this name that has something to offer now. */
    private Optional<OwnTool> ownTool(String name) {
        return ownTools.stream().filter(own -> own.definition().map(d -> d.name().equals(name)).orElse(false))
                .findFirst();
    }

    private static McpProtocolException unknownTool(String name) {
        return new McpProtocolException(JsonRpcError.INVALID_PARAMS, "Unknown tool: " + name, null);
    }

    private CompletableFuture<JsonNode> callTool(ObjectNode params, RequestContext context, Policy.Access access) {
        String name = params.path("name").asString("");
        if (search != null && name.equals(ToolSearch.TOOL)) {
            return CompletableFuture.completedFuture(searchTools(params.path("arguments"), context, access));
        }
        Optional<OwnTool> own = ownTool(name);
        if (own.isPresent()) {
            if (!access.tool(Policy.GATEWAY_SERVER, name)) {
                outsideView(context, "tool", Policy.GATEWAY_SERVER + "/" + name);
                throw unknownTool(name);
            }
            if (access.limits().tool() != null) {
                limit(clientKey(context) + "\u0000" + Policy.GATEWAY_SERVER + "/" + name, access.limits().tool(),
                        "tool", context);
            }
            return own.get().call(params.path("arguments").isObject() ? params.get("arguments") : McpJson.object(),
                    context);
        }
        BridgedTool tool = exposed().tools().get(name);
        if (tool == null) {
            throw unknownTool(name);
        }
        if (!access.tool(tool.serverName(), tool.toolName())) {
            outsideView(context, "tool", tool.label());
            throw unknownTool(name);
        }
        if (access.limits().tool() != null) {
            limit(clientKey(context) + "\u0000" + tool.label(), access.limits().tool(), "tool", context);
        }
        JsonNode arguments = params.path("arguments").isObject() ? params.get("arguments") : McpJson.object();
        CompletableFuture<Boolean> confirmed = tool.callPolicy().decision() == CallPolicy.Decision.ASK
                ? confirm(tool, context) : CompletableFuture.completedFuture(true);
        return confirmed.thenCompose(yes -> {
            if (!yes) {
                return CompletableFuture.completedFuture(refusal(tool, context));
            }
            return connected(tool.serverName(), manager.clientForTool(tool.serverName(), tool.toolName()))
                    .thenCompose(client -> {
                if (!TaskRules.declaresExtension(client.initializeResult().capabilities())) {
                    // No task of the server's to wait for: a call that runs as a task of the gateway's is one now.
                    context.runAsTask();
                }
                CallOptions options = CallOptions.DEFAULT.withCaller(callerOf(context));
                if (Meta.progressToken(params).isPresent()) {
                    // Only for a client that asked: a call that listens for progress gets its answer after the
                    // session's ordered events, two thread hand-offs more for every call.
                    options = options.withProgress(update -> context.progress(update.progress(),
                            update.total().orElse(-1.0), update.message().orElse(null)));
                }
                // The upstream call itself is cancelled (a future chained on it would not tell the server).
                CompletableFuture<mcp.api.ToolResult> call = client.callTool(tool.toolName(), arguments, options);
                context.cancellation().thenRun(() -> call.cancel(true));
                return call.thenApply(result -> ours(result.raw()));
            });
        });
    }

    /**
     * {@value ToolSearch#TOOL}: the best matches among every tool in view, listed or not, by the host's ranking; they
     * join the calling client's list, and that client alone hears {@code list_changed}.
     */
    private JsonNode searchTools(JsonNode arguments, RequestContext context, Policy.Access access) {
        JsonNode query = arguments.get("query");
        if (query == null || !query.isString() || query.asString().isBlank()) {
            return textResult(ToolSearch.TOOL + " needs \"query\" (a string)", true);
        }
        // One snapshot for both: the client's tools are among the ones ranked.
        Map<String, BridgedTool> every = exposed().tools();
        Map<String, BridgedTool> all = visibleTools(every, access);
        String client = context.clientId().orElse(null);
        SearchView.Found found;
        try {
            found = search.search(every, all, query.asString(), SearchView.limit(arguments), client);
        } catch (IllegalArgumentException e) {
            return textResult(e.getMessage(), true);
        }
        McpServer target = server;
        if (found.listGrew() && target != null) {
            target.toolsChanged(client);
        }
        if (found.names().isEmpty()) {
            return textResult("No tool matches \"" + query.asString() + "\". Try other words for the action or the "
                    + "thing it acts on.", false);
        }
        StringBuilder text = new StringBuilder(client != null ? "Tools found (added to your tool list; call them by "
                + "name):" : "Tools found (call them by name):");
        ObjectNode result = McpJson.object();
        ObjectNode structured = result.putObject("structuredContent");
        ArrayNode tools = structured.putArray("tools");
        // As a host session's search says it: which ranking answered, words alone or fused with the host's ranker.
        structured.put("ranker", found.ranker().orElse(null));
        structured.put("rankerSkipped", found.rankerSkipped().orElse(null));
        for (String name : found.names()) {
            BridgedTool tool = all.get(name);
            text.append("\n\n").append(name).append(": ").append(tool.description()).append("\nInput schema: ")
                    .append(McpJson.mapper().writeValueAsString(tool.inputSchema()));
            tools.addObject().put("name", name).put("description", tool.description())
                    .set("inputSchema", tool.inputSchema());
        }
        result.putArray("content").addObject().put("type", "text").put("text", text.toString());
        return result;
    }

    private static ObjectNode textResult(String text, boolean error) {
        return ToolResults.text(text, error);
    }

    /**
     * Asks the calling client's user to confirm a call that the tool's owner asks about before each call, by a form
     * with no field: accept runs it.
     */
    private CompletableFuture<Boolean> confirm(BridgedTool tool, RequestContext context) {
        if (!context.declares("elicitation")) {
            return CompletableFuture.completedFuture(false);
        }
        ObjectNode params = McpJson.object().put("mode", "form").put("message", "Call " + tool.label() + "? "
                + tool.callPolicy().describe());
        params.putObject("requestedSchema").put("type", "object").putObject("properties");
        return context.elicit(params).thenApply(answer -> answer.path("action").asString("").equals("accept"));
    }

    /** The error result of a call its owner asks about that the client's user did not confirm. */
    private static JsonNode refusal(BridgedTool tool, RequestContext context) {
        String why = context.declares("elicitation") ? "the user did not confirm it"
                : "this client cannot ask its user (it declares no elicitation)";
        ObjectNode result = McpJson.object().put("isError", true);
        result.putArray("content").addObject().put("type", "text").put("text", "Not called: " + tool.label()
                + " runs only once its user confirms each call (" + tool.callPolicy().describe() + "), and " + why
                + ". Allow the tool in that setting, or call it with mcp-host call --yes.");
        return result;
    }

    /**
     * The calling client as the caller of its call upstream: its capabilities are declared for the call where the era
     * declares them per request, and what the server asks during the call is asked of it, in its own era: a round of
     * input requests as one round under the server's keys, a server request as a round of one. Each waits at most
     * {@link Builder#askWait}; a client that did not declare the capability is not asked (the server hears -32021).
     */
    private Caller callerOf(RequestContext context) {
        return new Caller() {
            @Override
            public Optional<ObjectNode> capabilities() {
                JsonNode declared = context.clientCapabilities();
                return Optional.of(declared.isObject() ? ((ObjectNode) declared).deepCopy() : McpJson.object());
            }

            @Override
            public ObjectNode answer(ObjectNode inputRequests) throws Exception {
                Map<String, InputRequest> round = new LinkedHashMap<>();
                inputRequests.properties().forEach(entry -> round.put(entry.getKey(), new InputRequest(
                        entry.getValue().path("method").asString(""), params(entry.getValue().get("params")))));
                ObjectNode answers = McpJson.object();
                waitFor(context.ask(round), "input requests").forEach(answers::set);
                return answers;
            }

            @Override
            public JsonNode ask(String method, JsonNode params) throws Exception {
                String kind = method.equals(ClientOptions.SAMPLING_METHOD) ? "sampling"
                        : method.equals(ClientOptions.ELICITATION_METHOD) ? "elicitation" : "roots";
                return waitFor(context.ask(context.nextKey(kind), new InputRequest(method, params(params))), method);
            }

            @Override
            public void taskStarted() {
                context.runAsTask();
            }

            @Override
            public void log(JsonNode params) {
                if (params != null) {
                    LogLevel level = LogLevel.parse(params.path("level").asString("")).orElse(LogLevel.INFO);
                    String logger = params.path("logger").isString() ? params.get("logger").asString() : null;
                    context.log(level, logger, params.has("data") ? params.get("data") : McpJson.object());
                }
            }
        };
    }

    private static JsonNode params(JsonNode params) {
        return params == null || params.isNull() ? McpJson.object() : params;
    }

    private <T> T waitFor(CompletableFuture<T> answer, String what) throws Exception {
        try {
            return answer.get(askWait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (TimeoutException e) {
            answer.cancel(true);
            throw new McpProtocolException(JsonRpcError.INTERNAL_ERROR, "The gateway's client did not answer " + what
                    + " within " + askWait.toSeconds() + " s", null);
        }
    }

    /**
     * What the host's sessions with its servers declare and answer on their own, for a host that a gateway serves:
     * the capabilities its clients may have ({@code sampling}, {@code elicitation} in both modes), so that a server
     * asks during a call and the gateway puts the question to the calling client; a question that belongs to no
     * client's call is refused (sampling) or declined (elicitation), and logged. Pass it to the host's
     * {@code clientSettings} before the host connects.
     *
     * @return the settings
     */
    public static Consumer<ClientOptions.Builder> clientSettings() {
        ServerRequestHandler sampling = params -> {
            throw new McpProtocolException(JsonRpcError.INVALID_REQUEST, "Declined: no call of a client of the "
                    + "mcp-host gateway is in flight to answer it", null);
        };
        ElicitationHandler elicitation = new ElicitationHandler() {
            @Override
            public Set<ElicitationUi.Mode> modes() {
                return Set.of(ElicitationUi.Mode.FORM, ElicitationUi.Mode.URL);
            }

            @Override
            public JsonNode handle(JsonNode params) {
                LOG.info("Gateway: a server asked for user input outside any client's call; declined");
                return McpJson.object().put("action", "decline");
            }
        };
        // Each client's call may bring a question of its server: the gateway's own server bounds the calls.
        return options -> options.handler(ClientOptions.SAMPLING_METHOD, sampling)
                .handler(ClientOptions.ELICITATION_METHOD, elicitation).maxServerRequests(MAX_QUESTIONS);
    }

    private JsonNode ask(RequestContext context, String kind, InputRequest request) throws Exception {
        try {
            return context.ask(context.nextKey(kind), request).get(askWait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (TimeoutException e) {
            throw new McpProtocolException(JsonRpcError.INTERNAL_ERROR, "The gateway's client did not answer "
                    + request.method() + " within " + askWait.toSeconds() + " s", null);
        }
    }

    /**
     * The server's session, waiting for a server still connecting (bounded); a lazy server's first call starts it
     * ({@link McpManager#clientForTool}).
     */
    private CompletableFuture<McpClient> connected(String name, CompletableFuture<McpClient> session) {
        return session.orTimeout(connectWait.toMillis(), TimeUnit.MILLISECONDS)
                .exceptionallyCompose(error -> CompletableFuture.failedFuture(new McpException("MCP server \""
                        + name + "\" is not connected: " + describe(error), error)));
    }

    /** A copy of an upstream's result without what describes the upstream's own answer. */
    private static JsonNode ours(JsonNode raw) {
        if (raw == null || !raw.isObject()) {
            return McpJson.object();
        }
        ObjectNode copy = ((ObjectNode) raw).deepCopy();
        copy.remove(UPSTREAM_ONLY);
        // The envelope's keys in _meta (the upstream's serverInfo, ...) are about the upstream; the rest passes.
        if (copy.get("_meta") instanceof ObjectNode meta) {
            meta.propertyNames().stream().filter(key -> key.startsWith(RESERVED_META)).toList().forEach(meta::remove);
            if (meta.isEmpty()) {
                copy.remove("_meta");
            }
        }
        return copy;
    }

    private JsonNode listResources(Policy.Access access) {
        ObjectNode result = McpJson.object();
        ArrayNode list = result.putArray("resources");
        Set<String> seen = new java.util.HashSet<>();
        for (SurfaceSlice slice : slices()) {
            for (ResourceDefinition resource : slice.surface().resources()) {
                if (access.resource(slice.server(), resource.uri()) && seen.add(resource.uri())) {
                    list.add(resource.toJson());
                }
            }
        }
        return result;
    }

    private JsonNode listTemplates(Policy.Access access) {
        ObjectNode result = McpJson.object();
        ArrayNode list = result.putArray("resourceTemplates");
        for (SurfaceSlice slice : slices()) {
            slice.surface().templates().stream()
                    .filter(template -> access.resource(slice.server(), template.uriTemplate()))
                    .forEach(template -> list.add(template.toJson()));
        }
        return result;
    }

    /** The surfaces of the servers in view. */
    private List<SurfaceSlice> slices() {
        View current = view;
        return manager.surfaces().stream().filter(slice -> current.contains(slice.server()))
                .toList();
    }

    private CompletableFuture<JsonNode> readResource(ObjectNode params, RequestContext context,
            Policy.Access access) {
        String uri = params.path("uri").asString("");
        String owner = ownerOf(uri).orElseThrow(() -> ErrorCodes.resourceNotFound(uri, context.era()));
        if (!access.resource(owner, uri)) {
            outsideView(context, "resource", uri);
            throw ErrorCodes.resourceNotFound(uri, context.era());
        }
        CompletableFuture<mcp.api.ResourceResult> read = manager.readResource(owner, uri, CallOptions.DEFAULT
                .withCaller(callerOf(context)));
        context.cancellation().thenRun(() -> read.cancel(true));
        return read.thenApply(result -> ours(result.raw()));
    }

    /** The server a resource's URI belongs to: the one that lists it, else the first with a template matching it. */
    Optional<String> ownerOf(String uri) {
        List<SurfaceSlice> slices = slices();
        for (SurfaceSlice slice : slices) {
            if (slice.surface().resources().stream().anyMatch(resource -> resource.uri().equals(uri))) {
                return Optional.of(slice.server());
            }
        }
        for (SurfaceSlice slice : slices) {
            if (slice.surface().templates().stream().anyMatch(template -> template.matches(uri))) {
                return Optional.of(slice.server());
            }
        }
        return Optional.empty();
    }

    private JsonNode listPrompts(Policy.Access access) {
        ObjectNode result = McpJson.object();
        ArrayNode list = result.putArray("prompts");
        exposed().prompts().forEach((name, prompt) -> {
            if (!access.prompt(prompt.server(), prompt.definition().name())) {
                return;
            }
            ObjectNode json = prompt.definition().toJson();
            json.put("name", name);
            list.add(json);
        });
        return result;
    }

    private CompletableFuture<JsonNode> getPrompt(ObjectNode params, RequestContext context, Policy.Access access) {
        String name = params.path("name").asString("");
        Exposed.Prompt prompt = exposed().prompts().get(name);
        if (prompt != null && !access.prompt(prompt.server(), prompt.definition().name())) {
            outsideView(context, "prompt", prompt.server() + "/" + prompt.definition().name());
            prompt = null;
        }
        if (prompt == null) {
            throw new McpProtocolException(JsonRpcError.INVALID_PARAMS, "Unknown prompt: " + name, null);
        }
        Map<String, String> arguments = new LinkedHashMap<>();
        params.path("arguments").properties().forEach(e -> arguments.put(e.getKey(), e.getValue().asString("")));
        CompletableFuture<mcp.api.PromptResult> got = manager.getPrompt(prompt.server(), prompt.definition().name(),
                arguments, CallOptions.DEFAULT.withCaller(callerOf(context)));
        context.cancellation().thenRun(() -> got.cancel(true));
        return got.thenApply(result -> ours(result.raw()));
    }

    private CompletableFuture<JsonNode> complete(ObjectNode params, RequestContext request, Policy.Access access) {
        JsonNode ref = params.path("ref");
        String argument = params.path("argument").path("name").asString("");
        String value = params.path("argument").path("value").asString("");
        Map<String, String> context = new LinkedHashMap<>();
        params.path("context").path("arguments").properties()
                .forEach(e -> context.put(e.getKey(), e.getValue().asString("")));
        String server;
        CompletionReference reference;
        if (ref.path("type").asString("").equals("ref/prompt")) {
            Exposed.Prompt prompt = exposed().prompts().get(ref.path("name").asString(""));
            if (prompt != null && !access.prompt(prompt.server(), prompt.definition().name())) {
                outsideView(request, "prompt completion", prompt.server() + "/" + prompt.definition().name());
                prompt = null;
            }
            if (prompt == null) {
                throw new McpProtocolException(JsonRpcError.INVALID_PARAMS, "Unknown prompt: "
                        + ref.path("name").asString(""), null);
            }
            server = prompt.server();
            reference = new CompletionReference.Prompt(prompt.definition().name());
        } else {
            String template = ref.path("uri").asString("");
            server = slices().stream().filter(slice -> slice.surface().templates().stream()
                    .map(ResourceTemplate::uriTemplate).anyMatch(template::equals)).map(SurfaceSlice::server)
                    .findFirst().or(() -> ownerOf(template)).orElseThrow(() -> new McpProtocolException(
                            JsonRpcError.INVALID_PARAMS, "No server lists the resource template " + template, null));
            if (!access.resource(server, template)) {
                outsideView(request, "resource template completion", template);
                throw new McpProtocolException(JsonRpcError.INVALID_PARAMS, "No server lists the resource template "
                        + template, null);
            }
            reference = new CompletionReference.Template(template);
        }
        return manager.complete(server, reference, argument, value, context).thenApply(result -> ours(result.raw()));
    }

    /** A subscription to a resource outside the caller's view never hears of it (and is logged). */
    @Override
    public boolean maySubscribe(String uri, mcp.server.Caller caller) {
        Policy policy = policy();
        if (policy.open()) {
            return true;
        }
        Policy.Access access = policy.accessFor(caller);
        Optional<String> owner = ownerOf(uri);
        // A URI no server lists has nothing to hear of; one a server lists is heard of within the view only.
        if (owner.isEmpty() || access.resource(owner.get(), uri)) {
            return true;
        }
        LOG.info("Gateway: refused subscription {} to {} (client {}): outside its view", uri, caller.subject(),
                caller.client().orElse("-"));
        return false;
    }

    @Override
    public void subscriptionsChanged(Set<String> uris) {
        List<Runnable> actions = new ArrayList<>();
        synchronized (upstreamSubscriptions) {
            for (Map.Entry<String, String> entry : List.copyOf(upstreamSubscriptions.entrySet())) {
                if (!uris.contains(entry.getKey())) {
                    upstreamSubscriptions.remove(entry.getKey());
                    actions.add(() -> manager.unsubscribeResource(entry.getValue(), entry.getKey()));
                }
            }
            for (String uri : uris) {
                if (!upstreamSubscriptions.containsKey(uri)) {
                    Optional<String> owner = ownerOf(uri);
                    if (owner.isEmpty()) {
                        LOG.debug("Gateway: a client subscribed to {}, which no server lists", uri);
                        continue;
                    }
                    upstreamSubscriptions.put(uri, owner.get());
                    actions.add(() -> manager.subscribeResource(owner.get(), uri).exceptionally(error -> {
                        LOG.info("Gateway: MCP server \"{}\" refused the subscription to {}: {}", owner.get(), uri,
                                describe(error));
                        return null;
                    }));
                }
            }
        }
        actions.forEach(Runnable::run);
    }

    /**
     * A list once the servers have started (or {@link Builder#ready} has waited its bound): an agent lists once at its
     * start, and many never list again, so the first list waits a little for what is starting rather than come empty;
     * what comes later reaches it as {@code list_changed}.
     */
    private CompletableFuture<JsonNode> whenReady(java.util.function.Supplier<JsonNode> list) {
        return afterReady(() -> CompletableFuture.completedFuture(list.get()));
    }

    /** A request that names a tool, prompt or resource, once the servers that may have it have started (bounded). */
    private CompletableFuture<JsonNode> afterReady(java.util.function.Supplier<CompletableFuture<JsonNode>> request) {
        if (ready.isDone()) {
            return request.get();
        }
        return ready.handle((done, error) -> (Object) null)
                .completeOnTimeout(null, readyWait.toMillis(), TimeUnit.MILLISECONDS)
                .thenCompose(done -> request.get());
    }

    @Override
    public void clientEnded(String clientId) {
        if (search != null) {
            search.forget(clientId);
        }
    }

    /** Stops passing the manager's changes on; the manager and its servers are the host's to close. */
    @Override
    public void close() {
        manager.removeListener(listener);
        if (policyFile != null) {
            policyFile.close();
        }
    }

    private static String describe(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return cause.getMessage() == null ? cause.toString() : cause.getMessage();
    }

    /** The manager's changes, passed on to the clients that listen. */
    private final class Changes implements ManagerListener {
        @Override
        public void onToolsChanged(String serverName, List<BridgedTool> changed) {
            schemas.invalidate();
            McpServer target = server;
            if (target != null && inView(serverName)) {
                target.toolsChanged();
            }
        }

        @Override
        public void onSurfacesChanged(String serverName, List<SurfaceSlice> surfaces) {
            schemas.invalidate();
            McpServer target = server;
            if (target != null && inView(serverName)) {
                target.promptsChanged();
                target.resourcesChanged();
            }
        }

        @Override
        public void onResourceUpdated(String serverName, String uri) {
            McpServer target = server;
            if (target != null && inView(serverName)) {
                target.resourceUpdated(uri);
            }
        }

        private boolean inView(String serverName) {
            return view.contains(serverName);
        }
    }

    /** Builds a {@link Gateway}. */
    public static final class Builder {
        private final McpManager manager;
        private Set<String> servers = Set.of();
        private Set<String> tools = Set.of();
        private Duration connectWait = Duration.ofSeconds(60);
        private Duration askWait = Duration.ofMinutes(10);
        private CompletableFuture<?> ready = CompletableFuture.completedFuture(null);
        private Duration readyWait = Duration.ZERO;
        private boolean search;
        private ToolFinder finder;
        private final List<OwnTool> ownTools = new ArrayList<>();
        private ServerControl control;
        private boolean tasks;
        private boolean upstreamTasks = true;
        private Set<String> alwaysLoad = Set.of();
        private java.nio.file.Path policyFile;
        private Duration policyPoll = Duration.ofSeconds(1);
        private Consumer<String> policyProblems = problem -> { };

        private Builder(McpManager manager) {
            this.manager = Objects.requireNonNull(manager, "manager");
        }

        /**
         * @param names the servers to serve (default: all)
         * @return this builder
         */
        public Builder servers(Set<String> names) {
            this.servers = Set.copyOf(names);
            return this;
        }

        /**
         * @param names the tools to serve, each as {@code server/tool} or a tool's own name (default: all)
         * @return this builder
         */
        public Builder tools(Set<String> names) {
            this.tools = Set.copyOf(names);
            return this;
        }

        /**
         * @param wait how long a call waits for its server to connect (default 60 s)
         * @return this builder
         */
        public Builder connectWait(Duration wait) {
            this.connectWait = Objects.requireNonNull(wait, "wait");
            return this;
        }

        /**
         * @param wait how long a server's question during a call waits for the client's answer (default 10 min:
         *     a person may be answering)
         * @return this builder
         */
        public Builder askWait(Duration wait) {
            this.askWait = Objects.requireNonNull(wait, "wait");
            return this;
        }

        /**
         * @param started completes when the servers have been started (a host's load, which returns at its startup
         *     gate, or waits for servers nothing is cached of), so that the gateway can serve its clients before
         * @param bound how long a list waits for it at most (an agent's own timeout for its server's start is often
         *     10 s, the handshake included)
         * @return this builder
         */
        public Builder ready(CompletableFuture<?> started, Duration bound) {
            this.ready = Objects.requireNonNull(started, "started");
            this.readyWait = Objects.requireNonNull(bound, "bound");
            return this;
        }

        /**
         * @param on whether clients get the deferred mode (default off: every tool): the tools always loaded and
         *     {@value ToolSearch#TOOL}, whose finds join the searching client's list
         * @return this builder
         */
        public Builder search(boolean on) {
            this.search = on;
            return this;
        }

        /**
         * @param finder how {@value ToolSearch#TOOL} ranks, kept between searches: the host's
         *     ({@link mcp.host.McpHost#toolFinder()}, with its ranker when it has one); without it (the default), the
         *     words alone rank, indexed at each search
         * @return this builder
         */
        public Builder toolFinder(ToolFinder finder) {
            this.finder = Objects.requireNonNull(finder, "finder");
            return this;
        }

        /**
         * @param names in the deferred mode, the servers and tools always listed, beside those their server's config
         *     names ({@link mcp.api.ServerConfig#alwaysLoad()}): a server's name, or a tool's host name
         *     ({@code mcp_<server>_<tool>}, as {@link ToolSearch#alwaysLoad()} names it), label ({@code server/tool})
         *     or the name the clients see (default none)
         * @return this builder
         */
        public Builder alwaysLoad(Set<String> names) {
            this.alwaysLoad = Set.copyOf(names);
            return this;
        }

        /**
         * @param tool a tool of the gateway's own, listed beside the servers' while it offers a definition
         * @return this builder
         */
        public Builder ownTool(OwnTool tool) {
            ownTools.add(Objects.requireNonNull(tool, "tool"));
            return this;
        }

        /**
         * @param servers what the deferred mode's clients may see and do of the servers ({@code list_servers},
         *     {@code manage_server}); without it, or without {@link #search}, they get neither tool
         * @return this builder
         */
        public Builder serverControl(ServerControl servers) {
            this.control = Objects.requireNonNull(servers, "servers");
            return this;
        }

        /**
         * @param on whether clients may have every call run as a task of the gateway's (default off: only the tools
         *     whose servers run them as tasks)
         * @return this builder
         */
        public Builder tasks(boolean on) {
            this.tasks = on;
            return this;
        }

        /**
         * @param on whether a tool whose server runs it as a task may run as a task of the gateway's (default on);
         *     off for a replica behind a balancer, whose tasks only it knows, unless {@link #tasks} asks for them
         * @return this builder
         */
        public Builder upstreamTasks(boolean on) {
            this.upstreamTasks = on;
            return this;
        }

        /**
         * A policy file: who (by the claims of the {@link mcp.server.Caller} the HTTP endpoint's authenticator names)
         * sees and may call which servers, tools, resources and prompts, and the rate limits per client and per tool.
         * It is read by {@link #build} (which fails with an {@link McpException} naming the file and the place in it
         * when it is invalid) and again whenever it changes: a bad version keeps the policy in force and is reported
         * to {@link #policyProblems}; a good one takes force at once, and the clients that listen hear
         * {@code list_changed}. The format: {@code docs/gateway-policy.md}. Default: none (everyone sees everything,
         * without a limit).
         *
         * @param file the policy file (JSON)
         * @return this builder
         */
        public Builder policyFile(java.nio.file.Path file) {
            this.policyFile = Objects.requireNonNull(file, "file");
            return this;
        }

        /**
         * @param interval how often the policy file is looked at for changes (default 1 s)
         * @return this builder
         */
        public Builder policyPoll(Duration interval) {
            this.policyPoll = Objects.requireNonNull(interval, "interval");
            return this;
        }

        /**
         * @param reports told of a changed policy file that is invalid (the message names the file and the place;
         *     the policy in force stays); default: logged only
         * @return this builder
         */
        public Builder policyProblems(Consumer<String> reports) {
            this.policyProblems = Objects.requireNonNull(reports, "reports");
            return this;
        }

        /** @return the gateway */
        public Gateway build() {
            return new Gateway(this);
        }
    }
}
