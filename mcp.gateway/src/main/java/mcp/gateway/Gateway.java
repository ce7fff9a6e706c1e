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
import mcp.server.Capabilities;
import mcp.server.InputRequest;
import mcp.server.McpServer;
import mcp.server.Request;
import mcp.server.RequestContext;
import mcp.server.RequestHandler;
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
 *       unique, at most 60 characters) and a prompt {@code <server>_<prompt>}. A resource keeps its URI; a read goes
 *       to the server that lists it, else to the one with a template that matches it.</li>
 *   <li><b>Routing without cross-talk.</b> What a server asks while it works on a call (sampling, elicitation,
 *       roots) goes to the client whose call it is, through {@link RequestContext#ask}: a server request of the
 *       handshake era, or an input round of the stateless one, whichever that client speaks
 *       ({@link CallOptions#caller()}). A client's cancellation cancels its own call only.</li>
 *   <li><b>The owners' decisions.</b> A tool whose owning tool asks before each call ({@link CallPolicy.Decision#ASK})
 *       is confirmed with the calling client's user by elicitation first; a client that cannot be asked gets an error
 *       result that says so, and the tool does not run.</li>
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
    private final Set<String> servers;
    private final Set<String> tools;
    private final Duration connectWait;
    private final Duration askWait;
    private final ManagerListener listener = new Changes();
    private volatile McpServer server;
    /** The names of the last snapshot {@link #exposed()} saw; {@code null} before the first. */
    private volatile View view;
    /** The resources subscribed upstream for the gateway's clients: URI to server. Guarded by itself. */
    private final Map<String, String> upstreamSubscriptions = new HashMap<>();

    private Gateway(Builder builder) {
        this.manager = builder.manager;
        this.servers = Set.copyOf(builder.servers);
        this.tools = Set.copyOf(builder.tools);
        this.connectWait = builder.connectWait;
        this.askWait = builder.askWait;
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
    }

    @Override
    public Capabilities capabilities() {
        return new Capabilities(true, true, true, true, true, true, true, true, McpJson.object());
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
        // same objects, so are the names, and a call needs not rebuild them (a map of every tool in view).
        List<BridgedTool> all = manager.getTools();
        List<SurfaceSlice> surfaces = manager.surfaces();
        View last = view;
        if (last != null && last.tools() == all && last.surfaces() == surfaces) {
            return last.exposed();
        }
        Exposed exposed = Exposed.of(all, surfaces, servers, tools);
        view = new View(all, surfaces, exposed);
        return exposed;
    }

    /** The names made from one snapshot of the manager's tools and surfaces. */
    private record View(List<BridgedTool> tools, List<SurfaceSlice> surfaces, Exposed exposed) {
    }

    @Override
    public CompletableFuture<JsonNode> handle(Request request, RequestContext context) {
        try {
            return switch (request.method()) {
                case "tools/list" -> CompletableFuture.completedFuture(listTools());
                case "tools/call" -> callTool(request.params(), context);
                case "resources/list" -> CompletableFuture.completedFuture(listResources());
                case "resources/templates/list" -> CompletableFuture.completedFuture(listTemplates());
                case "resources/read" -> readResource(request.params(), context);
                case "prompts/list" -> CompletableFuture.completedFuture(listPrompts());
                case "prompts/get" -> getPrompt(request.params(), context);
                case "completion/complete" -> complete(request.params());
                default -> CompletableFuture.failedFuture(new McpProtocolException(JsonRpcError.METHOD_NOT_FOUND,
                        "Method not found: " + request.method(), null));
            };
        } catch (McpException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private JsonNode listTools() {
        ObjectNode result = McpJson.object();
        ArrayNode list = result.putArray("tools");
        for (Map.Entry<String, BridgedTool> entry : exposed().tools().entrySet()) {
            BridgedTool tool = entry.getValue();
            ObjectNode json = tool.definition().toJson();
            json.put("name", entry.getKey());
            // The host's cleaned description (bounded, control characters out), as its own agents get it.
            json.put("description", tool.description());
            list.add(json);
        }
        return result;
    }

    private CompletableFuture<JsonNode> callTool(ObjectNode params, RequestContext context) {
        String name = params.path("name").asString("");
        BridgedTool tool = exposed().tools().get(name);
        if (tool == null) {
            throw new McpProtocolException(JsonRpcError.INVALID_PARAMS, "Unknown tool: " + name, null);
        }
        JsonNode arguments = params.path("arguments").isObject() ? params.get("arguments") : McpJson.object();
        CompletableFuture<Boolean> confirmed = tool.callPolicy().decision() == CallPolicy.Decision.ASK
                ? confirm(tool, context) : CompletableFuture.completedFuture(true);
        return confirmed.thenCompose(yes -> {
            if (!yes) {
                return CompletableFuture.completedFuture(refusal(tool, context));
            }
            return connected(tool.serverName()).thenCompose(client -> {
                CallOptions options = CallOptions.DEFAULT.withCaller(callerOf(context));
                if (Meta.progressToken(params).isPresent()) {
                    // Only for a client that asked: a call that listens for progress gets its answer after the
                    // session's ordered events, two thread hand-offs more for every call.
                    options = options.withProgress(update -> context.progress(update.progress(),
                            update.total().orElse(-1.0), update.message().orElse(null)));
                }
                CompletableFuture<JsonNode> call = client.callTool(tool.toolName(), arguments, options)
                        .thenApply(result -> ours(result.raw()));
                context.cancellation().thenRun(() -> call.cancel(true));
                return call;
            });
        });
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

    /** The server's session, waiting for a server still connecting (bounded). */
    private CompletableFuture<McpClient> connected(String name) {
        return manager.waitForConnection(name).orTimeout(connectWait.toMillis(), TimeUnit.MILLISECONDS)
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

    private JsonNode listResources() {
        ObjectNode result = McpJson.object();
        ArrayNode list = result.putArray("resources");
        Set<String> seen = new java.util.HashSet<>();
        for (SurfaceSlice slice : slices()) {
            for (ResourceDefinition resource : slice.surface().resources()) {
                if (seen.add(resource.uri())) {
                    list.add(resource.toJson());
                }
            }
        }
        return result;
    }

    private JsonNode listTemplates() {
        ObjectNode result = McpJson.object();
        ArrayNode list = result.putArray("resourceTemplates");
        for (SurfaceSlice slice : slices()) {
            slice.surface().templates().forEach(template -> list.add(template.toJson()));
        }
        return result;
    }

    /** The surfaces of the servers in view. */
    private List<SurfaceSlice> slices() {
        return manager.surfaces().stream().filter(slice -> servers.isEmpty() || servers.contains(slice.server()))
                .toList();
    }

    private CompletableFuture<JsonNode> readResource(ObjectNode params, RequestContext context) {
        String uri = params.path("uri").asString("");
        String owner = ownerOf(uri).orElseThrow(() -> ErrorCodes.resourceNotFound(uri, context.era()));
        CompletableFuture<JsonNode> read = manager.readResource(owner, uri, CallOptions.DEFAULT
                .withCaller(callerOf(context))).thenApply(result -> ours(result.raw()));
        context.cancellation().thenRun(() -> read.cancel(true));
        return read;
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

    private JsonNode listPrompts() {
        ObjectNode result = McpJson.object();
        ArrayNode list = result.putArray("prompts");
        exposed().prompts().forEach((name, prompt) -> {
            ObjectNode json = prompt.definition().toJson();
            json.put("name", name);
            list.add(json);
        });
        return result;
    }

    private CompletableFuture<JsonNode> getPrompt(ObjectNode params, RequestContext context) {
        String name = params.path("name").asString("");
        Exposed.Prompt prompt = exposed().prompts().get(name);
        if (prompt == null) {
            throw new McpProtocolException(JsonRpcError.INVALID_PARAMS, "Unknown prompt: " + name, null);
        }
        Map<String, String> arguments = new LinkedHashMap<>();
        params.path("arguments").properties().forEach(e -> arguments.put(e.getKey(), e.getValue().asString("")));
        CompletableFuture<JsonNode> got = manager.getPrompt(prompt.server(), prompt.definition().name(), arguments,
                CallOptions.DEFAULT.withCaller(callerOf(context))).thenApply(result -> ours(result.raw()));
        context.cancellation().thenRun(() -> got.cancel(true));
        return got;
    }

    private CompletableFuture<JsonNode> complete(ObjectNode params) {
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
            reference = new CompletionReference.Template(template);
        }
        return manager.complete(server, reference, argument, value, context).thenApply(result -> ours(result.raw()));
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

    /** Stops passing the manager's changes on; the manager and its servers are the host's to close. */
    @Override
    public void close() {
        manager.removeListener(listener);
    }

    private static String describe(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return cause.getMessage() == null ? cause.toString() : cause.getMessage();
    }

    /** The manager's changes, passed on to the clients that listen. */
    private final class Changes implements ManagerListener {
        @Override
        public void onToolsChanged(String serverName, List<BridgedTool> changed) {
            McpServer target = server;
            if (target != null && inView(serverName)) {
                target.toolsChanged();
            }
        }

        @Override
        public void onSurfacesChanged(String serverName, List<SurfaceSlice> surfaces) {
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
            return servers.isEmpty() || servers.contains(serverName);
        }
    }

    /** Builds a {@link Gateway}. */
    public static final class Builder {
        private final McpManager manager;
        private Set<String> servers = Set.of();
        private Set<String> tools = Set.of();
        private Duration connectWait = Duration.ofSeconds(60);
        private Duration askWait = Duration.ofMinutes(10);

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

        /** @return the gateway */
        public Gateway build() {
            return new Gateway(this);
        }
    }
}
