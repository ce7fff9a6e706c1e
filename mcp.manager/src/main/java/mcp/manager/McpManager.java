package mcp.manager;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import mcp.api.AlwaysLoad;
import mcp.api.CallLimits;
import mcp.api.CallPolicy;
import mcp.api.CompletionReference;
import mcp.api.CompletionResult;
import mcp.api.HttpServerConfig;
import mcp.api.LoadedSkill;
import mcp.api.McpException;
import mcp.api.PromptResult;
import mcp.api.ReconnectPolicy;
import mcp.api.ResourceResult;
import mcp.api.ServerConfig;
import mcp.api.ServerSurface;
import mcp.api.SkillEntry;
import mcp.api.SkillFile;
import mcp.api.SourceMetadata;
import mcp.api.SseServerConfig;
import mcp.api.StdioServerConfig;
import mcp.api.ToolChanges;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.api.ToolRule;
import mcp.api.TransportClosedException;
import mcp.api.spi.AuthResolver;
import mcp.api.spi.AuthServices;
import mcp.api.spi.AuthStorage;
import mcp.api.spi.ConsentHandler;
import mcp.api.spi.Providers;
import mcp.api.spi.ToolCache;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.consent.ToolPins;
import mcp.manager.internal.ActivityCounters;
import mcp.manager.internal.ClientSession;
import mcp.manager.internal.ClientThreads;
import mcp.manager.internal.JvmShutdown;
import mcp.manager.internal.ListenerEvents;
import mcp.manager.internal.AgentText;
import mcp.manager.internal.AuthContext;
import mcp.manager.internal.ConfigHash;
import mcp.manager.internal.ToolNames;
import mcp.manager.internal.ResultBudgeting;
import mcp.manager.internal.ResultFiles;
import mcp.manager.internal.StartupFailures;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs many MCP servers: connects them in parallel, returns their tools within a startup gate
 * (deferred tools from the cache for slow servers), keeps every server's tool slice current, and
 * tears everything down. Thread-safe.
 *
 * <p>A failing or slow server never affects another: tool slices are keyed by server, errors are
 * per server, and every wait is bounded by the server's own timeout.
 *
 * <p>A connected server whose connection closes by itself is started again as its {@link ReconnectPolicy} says
 * ({@link ServerConfig#reconnect()}, else {@link Builder#reconnect(ReconnectPolicy)}): status
 * {@link ServerStatus.State#RECONNECTING}, its last tools kept as deferred tools whose calls wait for it within
 * their own timeout; calls in flight when it died fail at once and are never sent again; a crash loop ends
 * {@link ServerStatus.State#FAILED} at the policy's limit (docs/reconnect.md). A first connect that fails for a
 * passing reason (its process exits during its start, a connection refused or reset, a timeout, an HTTP 408, 429
 * or 5xx) is tried again up to the policy's {@link ReconnectPolicy#startupRetries()} times with the same delays,
 * its status {@link ServerStatus.State#CONNECTING} with the attempt; one that another try cannot fix (a command
 * that does not exist, an authorization the user has to give, any other HTTP 4xx) fails at once (docs/startup.md).
 *
 * <p>With {@linkplain Builder#toolPins(ToolPins) tool pins}, every listing of a server (the first, and
 * each after {@code tools/list_changed} or {@link #refreshServerTools}) is compared, as the server sent
 * it, with the definitions pinned for the server's key (the hash of its approved definition, see
 * {@link #connectServers(Map, Map, Map)}): a tool whose definition changed is withheld from the agent
 * and reported ({@link #toolChanges(String)}, {@link ManagerListener#onToolChanges}, a warning) until
 * accepted ({@link #acceptToolChanges(String)}, {@link ConsentHandler#acceptToolChanges}, or
 * {@code mcp-host approve NAME --tools}); see {@link ToolPins} for the rules.
 */
public final class McpManager implements AutoCloseable {

    /** How long {@link #connectServers} waits before it returns cached tools for slow servers. */
    public static final Duration DEFAULT_STARTUP_GATE = Duration.ofMillis(250);

    /**
     * How long {@link #connectServers} waits for a server whose tools it does not know (no cache entry, or none its
     * pins vouch for) before it returns without them: long enough for most servers' cold starts (a JVM or Node
     * server, a warm {@code npx}), a third of the default connect timeout, so that one server that takes its time
     * cannot hold an agent's start for its whole connect timeout (and its retries).
     */
    public static final Duration DEFAULT_UNCACHED_WAIT = Duration.ofSeconds(10);

    /** How long a burst of {@code tools/list_changed} is coalesced before the server is re-listed. */
    public static final Duration DEFAULT_LIST_CHANGED_DEBOUNCE = Duration.ofMillis(100);

    private static final Logger LOG = LoggerFactory.getLogger(McpManager.class);
    /** The most characters of a server's instructions {@link #instructions(String)} gives. */
    private static final int MAX_INSTRUCTIONS = 4 * AgentText.DEFAULT_MAX_DESCRIPTION;
    private static final Pattern PIN_KEY = Pattern.compile("[0-9a-f]{64}");

    private final Map<String, TransportProvider> transports;
    private final List<AuthResolver> authResolvers;
    private final Optional<AuthServices> authServices;
    private final AuthResolver.Context resolverContext;
    private final Optional<ToolCache> cache;
    private final Duration startupGate;
    private final Duration uncachedWait;
    private final Duration debounce;
    private final int maxDescription;
    /** The texts already warned about, so that a relisting or reconnect does not repeat the warning. */
    private final Set<String> warnedTexts = ConcurrentHashMap.newKeySet();
    private final Path workingDirectory;
    private final Map<String, String> environment;
    private final Consumer<ClientOptions.Builder> clientSettings;
    private final List<ManagerListener> listeners = new CopyOnWriteArrayList<>();
    private final ListenerEvents events = new ListenerEvents(listeners, LOG, ClientThreads.Serial.DEFAULT_CAPACITY);
    private final Optional<ToolPins> pins;
    private final boolean strictNewTools;
    private final ConsentHandler consent;
    /** The tool changes already warned about, so that a relisting does not repeat the warning. */
    private final Set<String> warnedChanges = ConcurrentHashMap.newKeySet();
    private final ReconnectPolicy defaultReconnect;
    private final CallLimits defaultCallLimits;
    /** Whether every server is lazy ({@link Builder#lazy(boolean)}), and the idle timeout of those that set none. */
    private final boolean allLazy;
    private final Duration lazyIdleTimeout;
    /** The session's files of results too large for the agent's context (issue 19), removed on close unless kept. */
    private final ResultFiles resultFiles;
    /** Where servers' logs are also written; empty: in memory only. */
    private final Optional<ServerLogFiles> logFiles;
    /** The log of every server name asked for or connected: it outlives the server's sessions. */
    private final Map<String, ServerLog> serverLogs = new ConcurrentHashMap<>();
    /**
     * The counts of every server name launched, for {@link #activity}: kept for the manager's life, across
     * disconnects and reloads, since they count from its start; a few counters per name.
     */
    private final Map<String, ActivityCounters> activity = new ConcurrentHashMap<>();

    /*
     * The registries, all guarded by `lock` (I/O never happens under it). Invariants:
     *  1. A name is in at most one of `connections` and `pendingConnections`.
     *  2. Every key of `pendingToolLoads` is a key of `connections` (connected, first tools/list in flight).
     *  3. `slices` has an entry only for a name in `connections` or `pendingConnections`; a live slice
     *     (deferred == false) only for a name in `connections`. Slices are keyed by server name: a
     *     change to one server's slice never touches another's.
     *  4. `view` is always the naming of exactly the tools of `slices`, in slice order.
     *  5. `inactive` holds the last status of servers in neither `connections` nor `pendingConnections`
     *     that ended with an error; a server starting again leaves it.
     *  6. `listings` has an entry only for a name in `connections`: its last listing as the server sent it,
     *     and what the pins decided about it; its live slice holds exactly the tools the pins let through.
     *  7. `reconnects` holds the servers being started again, whose connection dropped (a reconnect) or whose
     *     first connect failed for a passing reason (a startup retry): in backoff (in neither `connections` nor
     *     `pendingConnections`) or with an attempt in `pendingConnections` (its Server's `reconnect` is that
     *     entry). Their slices, if any, are deferred. An attempt starts only after the one before it ended.
     *  8. `dormant` holds the lazy servers that are not running (stopped): a name in it is in none of
     *     `connections`, `pendingConnections` and `reconnects`, and its slice, if any, is deferred (its cached or
     *     last listed tools). Invariant 3 holds for every other name.
     *  9. `filling` holds the lazy servers started only to fill the tool cache: each is in `pendingConnections`,
     *     `connections` or `reconnects`, and is stopped as soon as it is loaded and unused; a call handed its client
     *     takes it out.
     */
    private final Object lock = new Object();
    private final Map<String, Server> connections = new LinkedHashMap<>();
    private final Map<String, Server> pendingConnections = new LinkedHashMap<>();
    private final Map<String, Server> pendingToolLoads = new LinkedHashMap<>();
    private final Map<String, Slice> slices = new LinkedHashMap<>();
    private final Map<String, SourceMetadata> sources = new LinkedHashMap<>();
    private final Map<String, ServerStatus> inactive = new LinkedHashMap<>();
    private final Map<String, Listing> listings = new LinkedHashMap<>();
    private final Map<String, Reconnect> reconnects = new LinkedHashMap<>();
    private final Map<String, Dormant> dormant = new LinkedHashMap<>();
    private final Set<String> filling = new LinkedHashSet<>();
    private volatile List<BridgedTool> view = List.of();
    /**
     * Held by {@link #reconcileServers} from its look at the registries to its last start, so that two reconciles
     * never interleave their stops and starts. Taken before `lock`, never under it; whoever holds it is bounded by
     * the closes it waits for and the startup gate.
     */
    private final Object reconciling = new Object();
    /** The client surface (resources, templates, prompts, skills; subscriptions): its own class, under `lock`. */
    private final Surfaces surfaces;

    private McpManager(Builder builder) {
        List<TransportProvider> providers = builder.transportProviders != null ? builder.transportProviders
                : Providers.load(TransportProvider.class, McpManager.class.getClassLoader());
        this.transports = Providers.byId(TransportProvider.class, providers, TransportProvider::id);
        this.authResolvers = List.copyOf(builder.authResolvers);
        this.authServices = Optional.ofNullable(builder.authServices);
        this.cache = Optional.ofNullable(builder.toolCache);
        this.startupGate = builder.startupGate;
        this.uncachedWait = builder.uncachedWait;
        this.debounce = builder.debounce;
        this.workingDirectory = builder.workingDirectory;
        this.environment = Map.copyOf(builder.environment);
        this.resolverContext = new ResolverContext(environment, authServices.map(AuthServices::storage));
        this.clientSettings = builder.clientSettings;
        this.listeners.addAll(builder.listeners);
        this.maxDescription = builder.maxDescription;
        this.pins = Optional.ofNullable(builder.toolPins);
        this.strictNewTools = builder.strictNewTools;
        this.consent = builder.consent;
        this.defaultReconnect = builder.reconnect;
        this.defaultCallLimits = builder.callLimits;
        this.allLazy = builder.allLazy;
        this.lazyIdleTimeout = builder.lazyIdleTimeout;
        this.resultFiles = new ResultFiles(Optional.ofNullable(builder.resultDirectory), builder.keepResultFiles);
        this.logFiles = Optional.ofNullable(builder.logFiles);
        this.surfaces = new Surfaces(this, lock, connections, slices, listings, cache, events, debounce,
                maxDescription);
    }

    /** @return a builder with every default set */
    public static Builder builder() {
        return new Builder();
    }

    /** One connect attempt of one server, from launch to close. */
    static final class Server {
        final String name;
        final ServerConfig config;
        /** What its pinned tool definitions are keyed by. */
        final String pinKey;
        final CompletableFuture<McpClient> connected = new CompletableFuture<>();
        /** Completes when the first tool list is in the slice; fails when the attempt fails. */
        final CompletableFuture<Void> settled = new CompletableFuture<>();
        /**
         * The outcome of the server's first connect, shared by every attempt of it (its retries, and the reconnects
         * of a connection that dropped before its first listing): completes when one of them has its tools in the
         * slice, fails when the last of them failed. What the startup gate and {@link #awaitConnect} wait for.
         */
        final CompletableFuture<Void> outcome;
        /** The transport of the attempt before this one, closed (the process tree ended) before this one starts. */
        volatile Transport previousTransport;
        /** Completes once this connection left the registry: it dropped, or it was disconnected. */
        final CompletableFuture<Void> left = new CompletableFuture<>();
        volatile Transport transport;
        volatile McpClient client;
        volatile boolean cancelled;
        volatile boolean gateReturned;
        /** The debounced re-list after {@code tools/list_changed}; guarded by the manager's lock. */
        ScheduledFuture<?> relist;
        /** The debounced re-list after a prompts or resources {@code list_changed}; guarded by the manager's lock. */
        ScheduledFuture<?> surfaceRelist;
        /** The protocol version the tool cache says this server spoke last time, if any. */
        volatile String knownProtocolVersion;
        /** Whether this attempt was started again in the handshake era after the server closed on the probe. */
        volatile boolean probeClosedOnce;
        /** The cache entry read for the gate, as the server listed it (not verified against the pins); null if none. */
        volatile ToolCache.Entry cached;
        /** The fingerprint of the authorization context this attempt reaches the server in ({@link AuthContext}). */
        volatile String authContext = "";
        /** Whether this attempt was started again with the probe after refusing the remembered handshake era. */
        volatile boolean staleEraOnce;
        /** The run of attempts this attempt belongs to (reconnects, or retries of a first connect); null for the first. */
        volatile Reconnect reconnect;
        /** The attempt of its run this is (a reconnect from 1, a first connect's retry from 2), or 0 for the first. */
        volatile int attempt;
        /** When it connected ({@link System#nanoTime()}), for the crash-loop window. */
        volatile long connectedAt;
        /** Whether a call started this attempt of a stopped lazy server: calls wait for its first connect. */
        volatile boolean lazyStart;
        /** When its client was last handed to a call ({@link System#nanoTime()}), or 0: a lazy server's idle clock. */
        volatile long handedOut;
        /** The check that stops a lazy server once idle; guarded by the manager's lock. */
        ScheduledFuture<?> idleCheck;

        Server(String name, ServerConfig config, String pinKey, CompletableFuture<Void> outcome) {
            this.name = name;
            this.config = config;
            this.pinKey = pinKey;
            this.outcome = outcome;
        }
    }

    /**
     * A connected server's last listing as it sent it, and what its pins decided (null without pins).
     *
     * @param report the differences from the pins that concern the tools its config exposes
     */
    record Listing(Server server, List<ToolDefinition> tools, Optional<String> instructions,
            ToolPins.Verdict verdict, ToolChanges report) {
    }

    /**
     * A lazy server that is not running: what its next start needs, and why its last start failed, if it did.
     *
     * @param knownProtocolVersion the era it spoke last, or null
     * @param lastTransport the transport of its last run, still closing perhaps, or null: the next start ends it first,
     *     so that a call right after the stop never runs two processes of the server at once
     */
    private record Dormant(ServerConfig config, String pinKey, String knownProtocolVersion, Optional<String> error,
            Transport lastTransport) {
        ServerStatus status() {
            return new ServerStatus(ServerStatus.State.STOPPED, error);
        }
    }

    /**
     * A server being started again: one whose connection dropped (a reconnect), or one whose first connect failed
     * for a passing reason (a startup retry: {@code first} is that first attempt). Guarded by the manager's lock but
     * for {@code ready}, which calls made meanwhile wait on, and {@code outcome}, which the startup gate waits on.
     */
    private static final class Reconnect {
        final String name;
        final ServerConfig config;
        final String pinKey;
        final ReconnectPolicy policy;
        final String knownProtocolVersion;
        /** The first attempt of a startup retry run; null for a reconnect. */
        final Server first;
        /** The outcome of the server's first connect ({@link Server#outcome}); done already for most reconnects. */
        final CompletableFuture<Void> outcome;
        /** The last attempt a run may make: a reconnect's policy attempts, or 1 + the startup retries. */
        final int limit;
        final CompletableFuture<McpClient> ready = new CompletableFuture<>();
        int attempt;
        /** When the next attempt starts; null while one is in flight. */
        Instant nextTry;
        ScheduledFuture<?> timer;
        String reason;
        /** The transport of the attempt that failed or dropped last; the next attempt closes it before it starts. */
        Transport lastTransport;

        private Reconnect(String name, ServerConfig config, String pinKey, ReconnectPolicy policy,
                String knownProtocolVersion, Server first, CompletableFuture<Void> outcome, int limit) {
            this.name = name;
            this.config = config;
            this.pinKey = pinKey;
            this.policy = policy;
            this.knownProtocolVersion = knownProtocolVersion;
            this.first = first;
            this.outcome = outcome;
            this.limit = limit;
        }

        /** The same run, with a fresh {@code ready}: the old one gave calls a client that then failed. */
        Reconnect(Reconnect run) {
            this(run.name, run.config, run.pinKey, run.policy, run.knownProtocolVersion, run.first, run.outcome,
                    run.limit);
        }

        /** A reconnect of a connection that dropped. */
        Reconnect(Server dropped, ReconnectPolicy policy) {
            // The era it spoke: the attempt sends no probe to a server of the handshake era (as a warm start).
            this(dropped.name, dropped.config, dropped.pinKey, policy, dropped.client != null
                    ? dropped.client.initializeResult().protocolVersion() : dropped.knownProtocolVersion, null,
                    dropped.outcome, policy.attempts());
            this.lastTransport = dropped.transport;
        }

        /** The retries of a first connect that failed for a passing reason. */
        static Reconnect startup(Server failed, ReconnectPolicy policy) {
            Reconnect run = new Reconnect(failed.name, failed.config, failed.pinKey, policy,
                    failed.knownProtocolVersion, failed, failed.outcome, policy.startupRetries() + 1);
            run.lastTransport = failed.transport;
            return run;
        }

        boolean startup() {
            return first != null;
        }

        /** The delay before {@code attempt}: a startup retry (from 2) waits as a reconnect's attempt 1 would, on. */
        Duration delay(int attempt) {
            return policy.delay(startup() ? attempt - 1 : attempt, ThreadLocalRandom.current().nextDouble());
        }

        ServerStatus status() {
            return new ServerStatus(startup() ? ServerStatus.State.CONNECTING : ServerStatus.State.RECONNECTING,
                    Optional.ofNullable(reason),
                    Optional.of(new ServerStatus.Reconnect(attempt, limit, Optional.ofNullable(nextTry))));
        }
    }

    /**
     * One server's tools and what it offers beside them (resources, templates, prompts): live, or deferred (from
     * the cache, server still connecting or reconnecting). The two go together through every state.
     */
    record Slice(boolean deferred, List<ToolDefinition> tools, ServerSurface surface, List<WithheldTool> withheld) {

        Slice asDeferred() {
            return new Slice(true, tools, surface, withheld);
        }

        Slice withSurface(ServerSurface newSurface) {
            return new Slice(deferred, tools, newSurface, withheld);
        }
    }

    /** A slice of a server's tools as listed: the agent's, and those the owner of its config withholds. */
    private Slice slice(boolean deferred, String serverName, ServerConfig config, List<ToolDefinition> listed,
            ServerSurface surface) {
        List<WithheldTool> withheld = new ArrayList<>();
        for (ToolDefinition tool : listed) {
            config.toolPolicy().denial(tool.name()).ifPresent(rule -> withheld.add(new WithheldTool(serverName, tool,
                    rule)));
        }
        if (!withheld.isEmpty() && LOG.isDebugEnabled()) {
            LOG.debug("MCP server \"{}\": {} tool(s) withheld by the owner of its config: {}", serverName,
                    withheld.size(), withheld.stream().map(w -> w.label() + " (" + w.rule().describe() + ")").toList());
        }
        return new Slice(deferred, exposed(serverName, config, listed), surface, List.copyOf(withheld));
    }

    // ------------------------------------------------------------------ connect

    /**
     * Connects every server that is not connected or connecting yet, in parallel, and returns once
     * the startup gate closes: live tools of the servers that finished, deferred tools of slow
     * servers whose tools the cache holds, and the errors of the servers that failed. (Cached tools
     * are in the tool set as deferred tools from the start; a server's own list replaces them.) A slow server
     * without a cache entry is waited for longer, up to the {@linkplain Builder#uncachedWait uncached wait}
     * (default {@link #DEFAULT_UNCACHED_WAIT}): nothing is known of its tools, so a little patience buys the agent
     * a complete tool set, but one server may not hold the start for its whole connect timeout. Past it, the call
     * returns without that server's tools. Servers still connecting finish in the background, replace their own
     * slice (listeners hear {@link ManagerListener#onToolsChanged}, as for a {@code tools/list_changed}), and log a
     * failure as a warning. A first connect that failed for a passing reason and is tried again counts as still
     * connecting.
     *
     * @param configs the servers, by name, as configured (unresolved)
     * @param sourceMetadata where each came from; may lack entries
     * @return the tools and the errors
     */
    public ConnectResult connectServers(Map<String, ServerConfig> configs, Map<String, SourceMetadata> sourceMetadata) {
        return connectServers(configs, sourceMetadata, Map.of());
    }

    /**
     * Connects as {@link #connectServers(Map, Map)} does, with the keys of the servers' pinned tool
     * definitions.
     *
     * @param configs the servers, by name, as configured (unresolved)
     * @param sourceMetadata where each came from; may lack entries
     * @param pinKeys the key of each server's pinned tool definitions, by name: the SHA-256 (lower-case hex) of
     *     its definition as approved ({@code DiscoveryResult.definitions()}), so that pins follow the
     *     definition, not the name; a server without one is keyed by the hash of its config
     * @return the tools and the errors
     */
    public ConnectResult connectServers(Map<String, ServerConfig> configs, Map<String, SourceMetadata> sourceMetadata,
            Map<String, String> pinKeys) {
        long start = System.nanoTime();
        Map<String, String> errors = new LinkedHashMap<>();
        List<Server> started = new ArrayList<>();
        List<Server> lazy = new ArrayList<>();
        for (Map.Entry<String, ServerConfig> entry : configs.entrySet()) {
            String name = entry.getKey();
            ServerConfig config = entry.getValue();
            Optional<String> problem = validate(name, config);
            String pinKey = pinKeys.get(name) != null ? pinKeys.get(name) : ConfigHash.of(config);
            if (problem.isEmpty() && !PIN_KEY.matcher(pinKey).matches()) {
                problem = Optional.of("Server \"" + name + "\": its pin key is not a SHA-256 in lower-case hex");
            }
            Server server = null;
            synchronized (lock) {
                SourceMetadata source = sourceMetadata.get(name);
                if (source != null) {
                    sources.put(name, source);
                }
                if (connections.containsKey(name) || pendingConnections.containsKey(name) || reconnects.containsKey(name)
                        || dormant.containsKey(name)) {
                    LOG.debug("MCP server \"{}\" is already connected or connecting; skipped", name);
                } else if (problem.isPresent()) {
                    errors.put(name, problem.get());
                    setInactive(name, new ServerStatus(ServerStatus.State.FAILED, problem));
                } else if (!config.enabled()) {
                    LOG.debug("MCP server \"{}\" is disabled; not started", name);
                } else if (lazyIdle(config).isPresent()) {
                    // Not started here: its cache entry decides (below), outside the lock.
                    lazy.add(new Server(name, config, pinKey, new CompletableFuture<>()));
                } else {
                    server = new Server(name, config, pinKey, new CompletableFuture<>());
                    inactive.remove(name);
                    pendingConnections.put(name, server);
                    fireStatus(name, ServerStatus.of(ServerStatus.State.CONNECTING));
                }
            }
            if (server != null) {
                started.add(server);
            }
        }
        started.addAll(sleepOrFill(lazy));
        // The cached tools become deferred tools before the servers start, so that at the gate nothing is
        // left to do but return: once many server processes start, they take the CPU (a JVM or Node server
        // needs a few hundred ms of it), and work done after that takes many times longer (50 servers on two
        // cores: seconds). A server that finishes within the gate replaces its slice with its live tools.
        Map<Server, List<ToolDefinition>> cached = readCache(started);
        offerDeferredTools(started, cached);
        // Each server is launched on a worker of its own, and one worker hands them out: starting a thread
        // waits until the new thread runs, which takes long once the first servers hold the CPU, and the
        // gate must not wait for fifty of those.
        if (!started.isEmpty()) {
            ClientThreads.WORKERS.execute(() -> started.forEach(this::launch));
        }
        awaitGate(started, start);
        List<Server> unknown = new ArrayList<>();
        for (Server server : started) {
            if (!server.outcome.isDone() && !cached.containsKey(server)) {
                unknown.add(server);
            }
        }
        awaitUnknown(unknown, start);
        for (Server server : started) {
            server.gateReturned = true;
            if (server.outcome.isCompletedExceptionally()) {
                errors.put(server.name, failureMessage(server));
            }
        }
        LOG.debug("connectServers: {} started, {} errors, {} tools after {} ms", started.size(), errors.size(),
                view.size(), (System.nanoTime() - start) / 1_000_000);
        return new ConnectResult(view, errors);
    }

    /**
     * The lazy servers of a connect: one whose cache entry its pins vouch for is not started (stopped, its cached
     * tools deferred in its slice); one nothing is cached of (or whose definition changed, which changes its cache
     * key) is started to fill the cache, and stopped once loaded and unused.
     *
     * @return the servers to start, in {@code pendingConnections} already
     */
    private List<Server> sleepOrFill(List<Server> lazy) {
        if (lazy.isEmpty()) {
            return List.of();
        }
        Map<Server, List<ToolDefinition>> cached = readCache(lazy);
        List<Server> fill = new ArrayList<>();
        List<String> stopped = new ArrayList<>();
        synchronized (lock) {
            for (Server server : lazy) {
                String name = server.name;
                if (connections.containsKey(name) || pendingConnections.containsKey(name)
                        || reconnects.containsKey(name) || dormant.containsKey(name)) {
                    continue;
                }
                inactive.remove(name);
                List<ToolDefinition> tools = cached.get(server);
                if (tools != null) {
                    slices.put(name, slice(true, name, server.config, tools, server.cached.surface()
                            .map(surface -> surfaces.cleaned(name, surface)).orElse(ServerSurface.EMPTY)));
                    dormant.put(name, new Dormant(server.config, server.pinKey, server.knownProtocolVersion,
                            Optional.empty(), null));
                    stopped.add(name);
                    fireStatus(name, dormant.get(name).status());
                    LOG.debug("MCP server \"{}\" is lazy: not started, {} tools from the cache", name, tools.size());
                } else {
                    pendingConnections.put(name, server);
                    filling.add(name);
                    fill.add(server);
                    fireStatus(name, ServerStatus.of(ServerStatus.State.CONNECTING));
                    LOG.debug("MCP server \"{}\" is lazy, and nothing is cached of it: started to fill the cache",
                            name);
                }
            }
            if (!stopped.isEmpty()) {
                rebuildView(stopped.size() == 1 ? stopped.get(0) : "*");
            }
        }
        return fill;
    }

    /** @return how long the server may be idle if it is lazy (its config's, else this manager's), else empty */
    private Optional<Duration> lazyIdle(ServerConfig config) {
        if (config == null) {
            return Optional.empty();
        }
        if (config.lazy().isPresent()) {
            return Optional.of(config.lazy().get().idleTimeout().orElse(lazyIdleTimeout));
        }
        return allLazy ? Optional.of(lazyIdleTimeout) : Optional.empty();
    }

    /**
     * @param name a server
     * @return how long it may be idle before it is stopped, if it is lazy (its config says so, or
     *     {@link Builder#lazy(boolean)}); empty for a server started at load, or one the manager does not know
     */
    public Optional<Duration> lazyIdleTimeout(String name) {
        return lazyIdle(configOf(name));
    }

    /** A call is handed this server's client: its idle clock starts again, and it no longer only fills the cache. */
    private void handedOutLocked(Server server) {
        server.handedOut = System.nanoTime();
        filling.remove(server.name);
    }

    /** Arms the check that stops a loaded lazy server once idle. Called under the lock. */
    private void armIdleLocked(Server server, Duration after) {
        if (server.idleCheck != null) {
            server.idleCheck.cancel(false);
        }
        server.idleCheck = ClientThreads.TIMERS.schedule(() -> checkIdle(server), Math.max(1, after.toMillis()),
                TimeUnit.MILLISECONDS);
    }

    /**
     * Stops a lazy server that has been idle for its idle timeout (one that only filled the cache: as soon as it is
     * unused): no request in flight on its session (the listen stream of list changes aside), none started or settled
     * for that long, no call handed its client for that long, and no resource subscribed. Otherwise looks again when
     * it may be.
     */
    private void checkIdle(Server server) {
        Optional<Duration> timeout = lazyIdle(server.config);
        if (timeout.isEmpty()) {
            return;
        }
        McpClient client = server.client;
        Optional<Duration> unused = client instanceof ClientSession session ? session.idleFor() : Optional.empty();
        synchronized (lock) {
            if (connections.get(server.name) != server || server.cancelled) {
                return;
            }
            Duration limit = filling.contains(server.name) ? Duration.ZERO : timeout.get();
            long handedOut = server.handedOut;
            if (handedOut != 0 && unused.isPresent()) {
                Duration since = Duration.ofNanos(System.nanoTime() - handedOut);
                unused = Optional.of(since.compareTo(unused.get()) < 0 ? since : unused.get());
            }
            if (unused.isEmpty() || !surfaces.subscribedResources(server.name).isEmpty()) {
                // In use: looked at again soon, since the use may end any time (once a second at most).
                armIdleLocked(server, limit.isZero() ? Duration.ofMillis(50) : min(timeout.get(), Duration.ofSeconds(1)));
                return;
            }
            if (unused.get().compareTo(limit) < 0) {
                armIdleLocked(server, limit.minus(unused.get()));
                return;
            }
            boolean filled = filling.remove(server.name);
            connections.remove(server.name);
            pendingToolLoads.remove(server.name);
            listings.remove(server.name);
            if (server.relist != null) {
                server.relist.cancel(false);
            }
            if (server.surfaceRelist != null) {
                server.surfaceRelist.cancel(false);
            }
            Slice slice = slices.get(server.name);
            if (slice != null && !slice.deferred()) {
                slices.put(server.name, slice.asDeferred());
                rebuildView(server.name);
            }
            String spoke = client != null ? client.initializeResult().protocolVersion() : server.knownProtocolVersion;
            dormant.put(server.name, new Dormant(server.config, server.pinKey, spoke, Optional.empty(),
                    server.transport));
            server.cancelled = true;
            fireStatus(server.name, dormant.get(server.name).status());
            LOG.info("MCP server \"{}\" (lazy) stopped: {}", server.name, filled ? "its tools are cached"
                    : "idle for " + unused.get().toMillis() + " ms");
        }
        ClientThreads.WORKERS.execute(() -> cancel(server));
    }

    /**
     * Puts a lazy server that a call started, and that failed to start, back to sleep with its tools, so that the
     * next call tries again. Called under the lock.
     *
     * @return whether it was such a server
     */
    private boolean backToSleepLocked(Server first, String message, Transport last) {
        if (first == null || !first.lazyStart || lazyIdle(first.config).isEmpty()) {
            return false;
        }
        Slice slice = slices.get(first.name);
        if (slice == null) {
            return false;
        }
        listings.remove(first.name);
        if (!slice.deferred()) {
            slices.put(first.name, slice.asDeferred());
            rebuildView(first.name);
        }
        dormant.put(first.name, new Dormant(first.config, first.pinKey, first.knownProtocolVersion,
                Optional.of(message), last));
        fireStatus(first.name, dormant.get(first.name).status());
        return true;
    }

    /**
     * The client of a lazy server for a call: a stopped one is started (once, however many calls come at once), and
     * the call waits for its first connect and listing, retries included, within {@link #firstConnectBound}; the
     * call's own timeout starts when it is sent. The listing is judged by the pins as every listing is: a tool named
     * here that it withholds (changed since pinned) or no longer lists fails the call, never reaching the server.
     *
     * @param tool the tool to be called, if the client is for a tool call
     * @return the client, or empty when the server is neither stopped nor being started by a call (the usual way)
     */
    Optional<CompletableFuture<McpClient>> lazyClient(String name, Optional<String> tool) {
        Server woken = null;
        CompletableFuture<Void> outcome;
        ServerConfig config;
        synchronized (lock) {
            Server pending = pendingConnections.get(name);
            Reconnect run = reconnects.get(name);
            Dormant sleeping = dormant.remove(name);
            if (sleeping != null) {
                woken = new Server(name, sleeping.config(), sleeping.pinKey(), new CompletableFuture<>());
                woken.knownProtocolVersion = sleeping.knownProtocolVersion();
                woken.previousTransport = sleeping.lastTransport();
                woken.gateReturned = true;
                woken.lazyStart = true;
                pendingConnections.put(name, woken);
                fireStatus(name, ServerStatus.of(ServerStatus.State.CONNECTING));
                outcome = woken.outcome;
                config = woken.config;
            } else if (pending != null && pending.lazyStart && pending.reconnect == null) {
                outcome = pending.outcome;
                config = pending.config;
            } else if (run != null && run.startup() && run.first.lazyStart) {
                outcome = run.outcome;
                config = run.config;
            } else {
                return Optional.empty();
            }
        }
        if (woken != null) {
            LOG.info("MCP server \"{}\" (lazy) is starting for a call", name);
            launch(woken);
        }
        long bound = firstConnectBound(config).toMillis();
        CompletableFuture<McpClient> ready = new CompletableFuture<>();
        ScheduledFuture<?> timer = ClientThreads.TIMERS.schedule(() -> ready.completeExceptionally(new McpException(
                "MCP server \"" + name + "\" (lazy) was started for the call and was not ready within " + bound
                        + " ms")), bound, TimeUnit.MILLISECONDS);
        outcome.whenComplete((v, error) -> {
            timer.cancel(false);
            if (error != null) {
                ready.completeExceptionally(unwrap(error));
                return;
            }
            try {
                ready.complete(startedClient(name, tool));
            } catch (McpException e) {
                ready.completeExceptionally(e);
            }
        });
        return Optional.of(ready);
    }

    /** The client of a lazy server that was just loaded, if it offers the tool as its pins allow. */
    private McpClient startedClient(String name, Optional<String> tool) {
        synchronized (lock) {
            Server server = connections.get(name);
            Slice slice = slices.get(name);
            if (server == null || slice == null || slice.deferred()) {
                throw new McpException("MCP server \"" + name + "\" (lazy) was started for the call but is "
                        + statusLocked(name).state().toString().toLowerCase(java.util.Locale.ROOT)
                        + statusLocked(name).error().map(e -> ": " + e).orElse(""));
            }
            if (tool.isPresent() && slice.tools().stream().noneMatch(t -> t.name().equals(tool.get()))) {
                Listing listing = listings.get(name);
                boolean withheld = listing != null && listing.report().tools().stream()
                        .anyMatch(change -> change.tool().equals(tool.get()) && change.withheld());
                String clean = AgentText.clean(tool.get(), 128).text();
                throw new McpException(withheld
                        ? "MCP server \"" + name + "\": tool \"" + clean + "\" changed since it was pinned and is "
                                + "withheld: run `mcp-host approve " + AgentText.clean(name, 64).text()
                                + " --tools` to accept"
                        : "MCP server \"" + name + "\" no longer offers tool \"" + clean + "\"");
            }
            handedOutLocked(server);
            return server.client;
        }
    }

    /**
     * The client a call of this tool goes to: as {@link #waitForConnection}, and a lazy server that is stopped is
     * started for it, the call waiting for its start within {@link #firstConnectBound}; once started, the tool must
     * be one it offers as pinned, or the call fails without reaching the server.
     *
     * @param name a server
     * @param tool the tool's name on the server
     * @return its client
     */
    public CompletableFuture<McpClient> clientForTool(String name, String tool) {
        Objects.requireNonNull(tool, "tool");
        return lazyClient(name, Optional.of(tool)).orElseGet(() -> waitForConnection(name));
    }

    private static Optional<String> validate(String name, ServerConfig config) {
        Optional<String> problem = ServerConfig.nameProblem(name);
        if (problem.isPresent()) {
            return problem;
        }
        if (config instanceof StdioServerConfig stdio && stdio.command().isBlank()) {
            return Optional.of("Server \"" + name + "\": stdio server requires \"command\" field");
        }
        String url = config instanceof HttpServerConfig http ? http.url()
                : config instanceof SseServerConfig sse ? sse.url() : null;
        if (url != null && url.isBlank()) {
            return Optional.of("Server \"" + name + "\": " + config.type() + " server requires \"url\" field");
        }
        return Optional.empty();
    }

    private void awaitGate(List<Server> started, long start) {
        if (started.isEmpty()) {
            return;
        }
        long remaining = startupGate.toNanos() - (System.nanoTime() - start);
        CompletableFuture<?>[] settles = started.stream().map(s -> s.outcome.handle((v, e) -> null))
                .toArray(CompletableFuture[]::new);
        try {
            CompletableFuture.allOf(settles).get(Math.max(0, remaining), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            // The gate closed: slow servers go on in the background.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new McpException("Interrupted while connecting MCP servers", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("handled futures do not fail", e);
        }
    }

    /** @return the cached tools of each server that has a valid cache entry */
    private Map<Server, List<ToolDefinition>> readCache(List<Server> servers) {
        Map<Server, List<ToolDefinition>> cached = new LinkedHashMap<>();
        if (cache.isEmpty()) {
            return cached;
        }
        for (Server server : servers) {
            if (!server.settled.isDone()) {
                Optional<ToolCache.Entry> entry = cache.get().readEntry(server.name, ConfigHash.of(server.config));
                entry.flatMap(ToolCache.Entry::protocolVersion).ifPresent(v -> server.knownProtocolVersion = v);
                Optional<ToolCache.Entry> offered = entry.flatMap(e -> pinned(server, e))
                        .filter(e -> !e.tools().isEmpty() || e.surface().filter(s -> !s.isEmpty()).isPresent());
                if (offered.isPresent()) {
                    // Kept as listed, not as verified: a fresh list stands in for the server's listing, which the
                    // pins must judge whole (a changed tool left out would read as removed, and be unpinned).
                    server.cached = entry.get();
                    cached.put(server, offered.get().tools());
                }
            }
        }
        return cached;
    }

    /**
     * A cache entry as it may be offered: only the tools exactly as pinned, since a cached definition the user
     * never accepted must not reach the agent. When the pins vouch for none of the cached tools (no pins file
     * for the key, as under another home or state directory, a file that cannot be read, or every definition
     * changed), the entry is no guide to what the server's listing will give: offering it would give the agent
     * no tools of the server, and nobody would be told. The server is then waited for as on a cache miss, and
     * its own listing decides (pinned on first use, or withheld and reported).
     *
     * @return the entry to offer, or empty to treat the server as not cached
     */
    private Optional<ToolCache.Entry> pinned(Server server, ToolCache.Entry entry) {
        if (pins.isEmpty()) {
            return Optional.of(entry);
        }
        List<ToolDefinition> verified = pins.get().verified(server.pinKey, entry.tools());
        if (verified.isEmpty() && !entry.tools().isEmpty()) {
            LOG.debug("MCP server \"{}\": none of its {} cached tools matches its pins in {}; waiting for its listing",
                    server.name, entry.tools().size(), pins.get().directory());
            return Optional.empty();
        }
        return Optional.of(new ToolCache.Entry(verified, entry.protocolVersion(), entry.freshness(), entry.surface()));
    }

    /**
     * Puts the cached tools of every server still connecting into its slice, as deferred tools, and
     * rebuilds the view once for all of them.
     */
    private void offerDeferredTools(List<Server> started, Map<Server, List<ToolDefinition>> cached) {
        List<String> offered = new ArrayList<>();
        synchronized (lock) {
            for (Server server : started) {
                List<ToolDefinition> tools = cached.get(server);
                if (tools == null || server.settled.isDone()) {
                    continue;
                }
                boolean pending = pendingConnections.get(server.name) == server
                        || pendingToolLoads.get(server.name) == server;
                if (pending && !slices.containsKey(server.name)) {
                    slices.put(server.name, slice(true, server.name, server.config, tools,
                            server.cached.surface().map(surface -> surfaces.cleaned(server.name, surface))
                                    .orElse(ServerSurface.EMPTY)));
                    offered.add(server.name);
                    LOG.debug("MCP server \"{}\" is still connecting: {} deferred tools from the cache", server.name,
                            tools.size());
                }
            }
            if (!offered.isEmpty()) {
                rebuildView(offered.size() == 1 ? offered.get(0) : "*");
            }
        }
    }

    /**
     * Waits for the servers whose tools nothing vouches for, up to the uncached wait from the start of
     * {@link #connectServers} (never less than the gate); what is still connecting then goes on in the background.
     */
    private void awaitUnknown(List<Server> unknown, long start) {
        if (unknown.isEmpty()) {
            return;
        }
        long remaining = max(uncachedWait, startupGate).toNanos() - (System.nanoTime() - start);
        CompletableFuture<?>[] outcomes = unknown.stream().map(s -> s.outcome.handle((v, e) -> null))
                .toArray(CompletableFuture[]::new);
        try {
            CompletableFuture.allOf(outcomes).get(Math.max(0, remaining), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            for (Server server : unknown) {
                if (!server.outcome.isDone()) {
                    LOG.info("MCP server \"{}\" is still connecting after {} ms and nothing is cached of it; going on "
                            + "without its tools, which come when it is ready", server.name,
                            (System.nanoTime() - start) / 1_000_000);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new McpException("Interrupted while connecting MCP servers", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("handled futures do not fail", e);
        }
    }

    private void launch(Server server) {
        ClientThreads.WORKERS.execute(() -> {
            Transport previous = server.previousTransport;
            if (previous != null) {
                // Never two processes of one server at once: the last attempt's tree ends first (a bounded close;
                // at once when it ended by itself).
                previous.close();
            }
            try {
                ServerConfig resolved = server.config;
                for (AuthResolver resolver : authResolvers) {
                    resolved = resolver.resolve(server.name, resolved, resolverContext);
                }
                server.authContext = AuthContext.of(resolved, System.getenv(), authServices.isPresent());
                TransportProvider provider = Providers.require(TransportProvider.class, transports, server.config.type());
                TransportRequest request = TransportRequest.of(server.name, resolved, workingDirectory);
                if (authServices.isPresent()) {
                    request = request.withAuth(authServices.get());
                }
                Transport transport = provider.open(request);
                server.transport = transport;
                if (server.cancelled) {
                    transport.close();
                    throw new McpException("MCP server \"" + server.name + "\" was disconnected while connecting");
                }
                ClientSession.connect(transport, clientOptions(server), counters(server.name))
                        .<McpClient>thenApply(session -> session).whenComplete((client, error) -> {
                    if (error != null && unwrap(error) instanceof ClientSession.ProbeClosedException closed
                            && !server.probeClosedOnce && !server.cancelled && server.reconnect == null) {
                        // (Not for a reconnect attempt: its era is known, and a server that closes at once is just a
                        // failed attempt.)
                        // Some servers of the 2025 era exit on any request before initialize: start it again
                        // in that era, once.
                        LOG.debug("{}; starting it again with the initialize handshake", closed.getMessage());
                        server.probeClosedOnce = true;
                        server.knownProtocolVersion = McpClient.LATEST_PROTOCOL_VERSION;
                        launch(server);
                    } else if (error != null && refusedHandshake(error) && server.knownProtocolVersion != null
                            && !server.staleEraOnce && !server.cancelled
                            && server.config.protocolVersion().equals(McpClient.AUTO)) {
                        // The tool cache said the 2025 era, but the server now speaks only 2026-07-28: the verdict
                        // is stale, so it is started again with the probe, once (and the new verdict is cached).
                        LOG.debug("{}; starting it again with the server/discover probe", unwrap(error).getMessage());
                        server.staleEraOnce = true;
                        server.knownProtocolVersion = null;
                        launch(server);
                    } else if (error != null) {
                        failed(server, error);
                    } else {
                        connected(server, client);
                    }
                });
            } catch (RuntimeException e) {
                // Before the transport was open: a command that does not exist, a config the transport or an auth
                // resolver refuses. Another try would fail the same way.
                failed(server, e, false);
            }
        });
    }

    /** Whether a failed connect is a server of the stateless era only refusing the handshake. */
    private static boolean refusedHandshake(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof ClientSession.HandshakeRefusedException) {
                return true;
            }
        }
        return false;
    }

    private ClientOptions clientOptions(Server server) {
        ClientOptions.Builder options = ClientOptions.builder(server.name)
                .initializeTimeout(server.config.timeout())
                .requestTimeout(server.config.timeout())
                .toolCallTimeout(server.config.toolCallTimeout())
                .callLimits(server.config.callLimits().orElse(defaultCallLimits))
                .protocolVersion(server.config.protocolVersion())
                .knownProtocolVersion(server.knownProtocolVersion)
                .serverLog(serverLog(server.name))
                .serverUrl(telemetryUrl(server.config))
                .listener(new ClientListener() {
                    @Override
                    public void onToolsListChanged() {
                        scheduleRelist(server);
                    }

                    @Override
                    public void onPromptsListChanged() {
                        surfaces.scheduleSurfaceRelist(server);
                    }

                    @Override
                    public void onResourcesListChanged() {
                        surfaces.scheduleSurfaceRelist(server);
                    }

                    @Override
                    public void onResourceUpdated(String uri) {
                        events.resourceUpdated(server.name, uri);
                    }

                    @Override
                    public void onClose(TransportClosedException reason) {
                        dropped(server, reason);
                    }
                });
        clientSettings.accept(options);
        return options.build();
    }

    /** The server's URL for telemetry's {@code server.address} and {@code server.port}; {@code null} for stdio. */
    private static java.net.URI telemetryUrl(ServerConfig config) {
        String url = config instanceof HttpServerConfig http ? http.url()
                : config instanceof SseServerConfig sse ? sse.url() : null;
        if (url == null) {
            return null;
        }
        try {
            return java.net.URI.create(url);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private void connected(Server server, McpClient client) {
        boolean current;
        synchronized (lock) {
            current = !server.cancelled && pendingConnections.get(server.name) == server;
            if (current) {
                server.client = client;
                server.connectedAt = System.nanoTime();
                pendingConnections.remove(server.name);
                if (server.reconnect != null) {
                    reconnects.remove(server.name, server.reconnect);
                }
                connections.put(server.name, server);
                pendingToolLoads.put(server.name, server);
                fireStatus(server.name, ServerStatus.of(ServerStatus.State.CONNECTED));
            }
        }
        if (!current) {
            // Disconnected while the handshake was in flight: no orphan connection, no orphan process.
            client.close();
            failed(server, new McpException("MCP server \"" + server.name + "\" was disconnected while connecting"));
            return;
        }
        if (server.reconnect != null && server.reconnect.startup()) {
            LOG.info("MCP server \"{}\" connected (attempt {} of {})", server.name, server.attempt,
                    server.reconnect.limit);
            server.reconnect.ready.complete(client);
        } else if (server.reconnect != null) {
            counters(server.name).reconnectAttempt(true, null);
            LOG.info("MCP server \"{}\" reconnected (attempt {} of {})", server.name, server.attempt,
                    server.reconnect.policy.attempts());
            server.reconnect.ready.complete(client);
            surfaces.resubscribe(server, client);
        } else {
            LOG.debug("MCP server \"{}\" connected", server.name);
        }
        server.connected.complete(client);
        ToolCache.Entry entry = server.cached;
        if (entry != null && isModern(client) && entry.freshness().filter(f -> f.isFresh(Instant.now(),
                server.authContext)).isPresent()) {
            // 2026-07-28 ttlMs: the server let its list be taken as current until then; no tools/list now.
            LOG.debug("MCP server \"{}\": its cached tool list is fresh until {}; not listed again", server.name,
                    entry.freshness().get().until());
            surfaces.listSurface(server, client).thenAccept(surface -> loaded(server,
                    new ToolListing(entry.tools(), Duration.ZERO, false), surface, false));
            return;
        }
        // Tools and the rest are listed at once; the server counts as loaded (for the gate too) when both are in.
        CompletableFuture<ServerSurface> surface = surfaces.listSurface(server, client);
        client.listToolsWithHints().whenComplete((listing, error) -> {
            if (error != null) {
                failed(server, error);
            } else {
                surface.thenAccept(listed -> loaded(server, listing, listed, true));
            }
        });
    }

    private static boolean isModern(McpClient client) {
        return client.initializeResult().protocolVersion().equals(McpClient.MODERN_PROTOCOL_VERSION);
    }

    /**
     * A fresh tool list of a connected server: compared with its pins (outside the lock: file I/O), it
     * replaces that server's slice, and only that.
     */
    private void loaded(Server server, ToolListing fetched, ServerSurface surface, boolean save) {
        List<ToolDefinition> tools = fetched.tools();
        Optional<String> instructions = server.client.initializeResult().instructions();
        ToolPins.Verdict verdict = pins.map(p -> p.compare(server.pinKey, server.name, instructions, tools,
                strictNewTools)).orElse(null);
        ToolChanges report = verdict == null ? ToolChanges.none(server.name, server.pinKey)
                : concerning(server.config, verdict.changes());
        Listing listing = new Listing(server, tools, instructions, verdict, report);
        synchronized (lock) {
            if (connections.get(server.name) != server) {
                return;
            }
            pendingToolLoads.remove(server.name);
            listings.put(server.name, listing);
            slices.put(server.name, slice(false, server.name, server.config,
                    verdict == null ? tools : verdict.exposed(), surface));
            rebuildView(server.name);
            if (!report.isEmpty()) {
                events.toolChanges(report);
            }
        }
        warn(server, report);
        // The era it spoke goes with its tools: a warm start then sends no probe to a server of the handshake.
        Optional<String> spoke = Optional.ofNullable(server.client).map(McpClient::initializeResult)
                .map(InitializeResult::protocolVersion);
        // The tools as listed (not as exposed): the config's filters and the pins apply again on the next read.
        Optional<ToolCache.Freshness> fresh = fetched.ttl().isZero() ? Optional.empty()
                : Optional.of(new ToolCache.Freshness(Instant.now().plus(fetched.ttl()), fetched.shared(),
                        server.authContext));
        if (save) {
            cache.ifPresent(c -> c.write(server.name, ConfigHash.of(server.config),
                    new ToolCache.Entry(tools, spoke, fresh, Optional.of(surface))));
        }
        server.settled.complete(null);
        server.outcome.complete(null);
        Optional<Duration> idle = lazyIdle(server.config);
        if (idle.isPresent()) {
            synchronized (lock) {
                if (connections.get(server.name) == server && server.idleCheck == null) {
                    armIdleLocked(server, filling.contains(server.name) ? Duration.ZERO : idle.get());
                }
            }
        }
        if (report.hasWithheld() && consent != ConsentHandler.DENY_AND_REPORT) {
            // Never on the transport's reader, never before the gate has its tools: the handler may block.
            ClientThreads.WORKERS.execute(() -> ask(listing));
        }
    }

    /** The differences that concern the agent: those of tools the config exposes. */
    private static ToolChanges concerning(ServerConfig config, ToolChanges changes) {
        List<ToolChanges.ToolChange> kept = changes.tools().stream().filter(change -> config.exposesTool(change.tool())
                || change.previousName().map(config::exposesTool).orElse(false)).toList();
        return new ToolChanges(changes.server(), changes.key(), kept, changes.instructions(), changes.problem());
    }

    /** One log line per difference and server key, once: a warning for what waits for the user. */
    private void warn(Server server, ToolChanges report) {
        if (report.isEmpty()) {
            return;
        }
        String name = AgentText.clean(server.name, 64).text();
        String approve = "run `mcp-host approve " + name + " --tools` to accept";
        report.problem().filter(problem -> warnedChanges.add(server.pinKey + "\u0000problem\u0000" + problem))
                .ifPresent(problem -> LOG.warn("MCP server \"{}\": its tools cannot be compared with their pinned "
                        + "definitions ({}); all of them are withheld from the agent: {}", name, problem, approve));
        report.instructions().filter(change -> warnedChanges.add(server.pinKey + "\u0000instructions\u0000"
                + change.diff())).ifPresent(change -> LOG.warn("MCP server \"{}\": its instructions changed since "
                        + "they were pinned; withheld: {}", name, approve));
        for (ToolChanges.ToolChange change : report.tools()) {
            if (change.kind() == ToolChanges.Kind.UNVERIFIED
                    || !warnedChanges.add(server.pinKey + "\u0000" + change)) {
                continue;
            }
            String tool = AgentText.clean(change.tool(), 64).text();
            switch (change.kind()) {
                case CHANGED -> LOG.warn("MCP server \"{}\": tool \"{}\" changed since it was pinned ({}); withheld "
                        + "from the agent: {}", name, tool, String.join(", ", change.fields()), approve);
                case ADDED -> {
                    if (change.withheld()) {
                        LOG.warn("MCP server \"{}\": new tool \"{}\" withheld (strict mode): {}", name, tool, approve);
                    } else {
                        LOG.info("MCP server \"{}\": new tool \"{}\" (pinned now)", name, tool);
                    }
                }
                case RENAMED -> LOG.info("MCP server \"{}\": tool \"{}\" was renamed \"{}\"{}", name,
                        AgentText.clean(change.previousName().orElse(""), 64).text(), tool,
                        change.withheld() ? "; withheld (strict mode): " + approve : "");
                case REMOVED -> LOG.info("MCP server \"{}\": pinned tool \"{}\" is no longer listed", name, tool);
                default -> { }
            }
            if (!change.diff().isEmpty()) {
                LOG.debug("MCP server \"{}\": tool \"{}\": {}", name, tool, String.join("; ", change.diff()));
            }
        }
    }

    /** Asks the consent handler about a listing that withholds something; on a worker thread. */
    private void ask(Listing listing) {
        boolean accepted;
        try {
            accepted = consent.acceptToolChanges(listing.report());
        } catch (RuntimeException e) {
            LOG.warn("MCP server \"{}\": the consent handler failed on its tool changes; they stay withheld: {}",
                    listing.server().name, e.toString());
            return;
        }
        if (accepted) {
            try {
                accept(listing);
            } catch (McpException e) {
                LOG.warn("{}", e.getMessage());
            }
        }
    }

    /**
     * The tools of a server the agent gets: those its config exposes, with clean and bounded titles and
     * descriptions ({@link AgentText}); each change is one warning naming the server and the tool, once
     * for the same text.
     */
    private List<ToolDefinition> exposed(String serverName, ServerConfig config, List<ToolDefinition> tools) {
        List<ToolDefinition> exposed = tools.stream().filter(tool -> config.exposesTool(tool.name()))
                .map(tool -> cleaned(serverName, tool)).toList();
        if (!config.alwaysLoad().tools().isEmpty() && LOG.isDebugEnabled()) {
            // Not an error: a tool a server no longer offers (or its config hides) is simply not there.
            Set<String> missing = new TreeSet<>(config.alwaysLoad().tools());
            exposed.forEach(tool -> missing.remove(tool.name()));
            if (!missing.isEmpty()) {
                LOG.debug("MCP server \"{}\": alwaysLoad names tools it does not offer: {}", serverName, missing);
            }
        }
        return exposed;
    }

    private ToolDefinition cleaned(String serverName, ToolDefinition tool) {
        Optional<String> title = tool.title().map(text -> cleaned(serverName, "tool", tool.name(), "title", text,
                AgentText.MAX_TITLE));
        Optional<String> description = tool.description()
                .map(text -> cleaned(serverName, "tool", tool.name(), "description", text, maxDescription));
        if (title.equals(tool.title()) && description.equals(tool.description())) {
            return tool;
        }
        return new ToolDefinition(tool.name(), title, description, tool.inputSchema(), tool.outputSchema(),
                tool.annotations(), tool.meta(), tool.execution());
    }

    /** A text of a server's item as the agent gets it, one warning per change; for tools and {@link Surfaces}. */
    String cleaned(String serverName, String kind, String item, String field, String text, int max) {
        AgentText.Cleaned cleaned = AgentText.clean(text, max);
        if (!cleaned.changes().isEmpty() && warnedTexts.add(serverName + "\u0000" + kind + "\u0000" + item + "\u0000"
                + field + "\u0000" + text.hashCode())) {
            LOG.warn("MCP server \"{}\": the {} of {} \"{}\" was changed before the agent sees it: {}", serverName,
                    field, kind, AgentText.clean(item, 64).text(), String.join(", ", cleaned.changes()));
        }
        return cleaned.text();
    }

    private void failed(Server server, Throwable error) {
        failed(server, error, true);
    }

    /**
     * An attempt that failed: its handshake or first listing, or its start.
     *
     * @param mayRetry whether the transport was open, so that the failure may be passing ({@link StartupFailures})
     */
    private void failed(Server server, Throwable error, boolean mayRetry) {
        Throwable cause = unwrap(error);
        String message = cause.getMessage() == null ? cause.toString() : cause.getMessage();
        if (!message.contains("\"" + server.name + "\"")) {
            message = "MCP server \"" + server.name + "\": " + message;
        }
        StartupFailures.Verdict verdict = mayRetry ? StartupFailures.of(error)
                : new StartupFailures.Verdict(false, "it failed before the server could be reached");
        boolean current;
        boolean inRun = false;
        synchronized (lock) {
            current = pendingConnections.remove(server.name, server);
            if (!current && connections.get(server.name) == server) {
                connections.remove(server.name);
                pendingToolLoads.remove(server.name);
                current = true;
            }
            boolean goesOn = current && !server.cancelled && !JvmShutdown.inProgress();
            if (goesOn) {
                ActivityCounters counts = counters(server.name);
                if (server.reconnect != null && !server.reconnect.startup() && server.client == null) {
                    counts.reconnectAttempt(false, message);
                } else {
                    // A first connect, a retry of one, or a reconnect whose first listing failed after it connected
                    // (that attempt counted as it connected).
                    counts.failed(message);
                }
            }
            ReconnectPolicy policy = reconnectPolicy(server.config);
            if (goesOn && server.reconnect != null && (!server.reconnect.startup() || verdict.retry())) {
                // An attempt of a run that failed (the process exited at its start, the handshake or first listing
                // failed): the next one, or the end of the run. A reconnect goes on whatever the failure (the server
                // worked before); a first connect's retries only while the failure is passing.
                Reconnect run = server.reconnect;
                if (run.ready.isDone()) {
                    // It connected, then its first listing failed: calls waiting from now on wait for the next one.
                    run = new Reconnect(run);
                    reconnects.put(server.name, run);
                } else {
                    reconnects.putIfAbsent(server.name, run);
                }
                run.lastTransport = server.transport;
                inRun = true;
                backOffLocked(run, server.attempt + 1, message);
            } else if (goesOn && server.reconnect != null) {
                // A retry of a first connect met a failure that another try cannot fix: the run ends here.
                Reconnect run = server.reconnect;
                inRun = true;
                endRunLocked(run, message + " (attempt " + server.attempt + " of " + run.limit + "; not tried again: "
                        + verdict.why() + ")");
            } else if (goesOn && verdict.retry() && policy.startupRetries() > 0) {
                // A first connect that failed for a passing reason: tried again, spaced as reconnects are, while
                // its slice (cached tools, if any) stays deferred.
                Reconnect run = Reconnect.startup(server, policy);
                reconnects.put(server.name, run);
                inRun = true;
                backOffLocked(run, 2, message);
            } else if (current && backToSleepLocked(server, message, server.transport)) {
                LOG.warn("MCP server \"{}\" (lazy) did not start: {}; the next call tries again", server.name, message);
            } else if (current) {
                filling.remove(server.name);
                listings.remove(server.name);
                if (slices.remove(server.name) != null) {
                    rebuildView(server.name);
                }
                setInactive(server.name, new ServerStatus(ServerStatus.State.FAILED, Optional.of(message)));
            }
        }
        McpClient client = server.client;
        if (client != null) {
            client.close();
        }
        if (inRun) {
            // backOffLocked and endRunLocked logged the end of the run, if it ended.
            LOG.debug("{} (attempt {}; {}: {})", message, Math.max(1, server.attempt),
                    verdict.retry() ? "passing" : "not passing", verdict.why());
        } else if (current && server.gateReturned && !JvmShutdown.inProgress()) {
            LOG.warn("{} (after startup)", message);
        } else {
            LOG.debug("{} (not tried again: {})", message, verdict.why());
        }
        McpException failure = new McpException(message, cause);
        server.connected.completeExceptionally(failure);
        server.settled.completeExceptionally(failure);
        if (!inRun) {
            server.outcome.completeExceptionally(failure);
        }
    }

    /**
     * The connection of a connected server closed by itself. Calls in flight on it have failed with the reason
     * (never sent again: a tool call may not be idempotent). With a reconnect policy, the server is started again
     * after a backoff, its tools staying as deferred tools; without one (or once its attempts ran out), its
     * status is disconnected (failed) and its tools are gone.
     */
    private void dropped(Server server, TransportClosedException reason) {
        ReconnectPolicy policy = reconnectPolicy(server.config);
        String message = reason.getMessage();
        boolean reconnecting = false;
        synchronized (lock) {
            if (connections.get(server.name) != server) {
                return;
            }
            connections.remove(server.name);
            pendingToolLoads.remove(server.name);
            if (!server.cancelled && !JvmShutdown.inProgress()) {
                counters(server.name).dropped(message);
            }
            if (server.relist != null) {
                server.relist.cancel(false);
            }
            if (server.surfaceRelist != null) {
                server.surfaceRelist.cancel(false);
            }
            listings.remove(server.name);
            if (policy.enabled() && !server.cancelled && !JvmShutdown.inProgress()) {
                // Died again within the crash window of a reconnect: a crash loop, whose attempts go on counting.
                // (A server that came up on a retry of its first connect and drops starts a reconnect run of its own.)
                Reconnect previous = server.reconnect;
                boolean crashLoop = previous != null && !previous.startup()
                        && System.nanoTime() - server.connectedAt < policy.crashWindow().toNanos();
                Reconnect run = new Reconnect(server, policy);
                reconnects.put(server.name, run);
                Slice slice = slices.get(server.name);
                if (slice != null && !slice.deferred()) {
                    slices.put(server.name, slice.asDeferred());
                    rebuildView(server.name);
                }
                reconnecting = backOffLocked(run, crashLoop ? server.attempt + 1 : 1, message);
            } else {
                if (slices.remove(server.name) != null) {
                    rebuildView(server.name);
                }
                setInactive(server.name, new ServerStatus(ServerStatus.State.DISCONNECTED, Optional.of(message)));
            }
        }
        if (JvmShutdown.inProgress()) {
            // The host is stopping (SIGTERM, SIGINT, SIGHUP, exit): the server ends with it, as it should.
            LOG.debug("MCP server \"{}\" closed at JVM shutdown: {}", server.name, message);
        } else if (reconnecting) {
            LOG.warn("MCP server \"{}\" disconnected: {}; reconnecting", server.name, message);
        } else if (!policy.enabled()) {
            LOG.warn("MCP server \"{}\" disconnected: {}", server.name, message);
        }
        server.settled.completeExceptionally(reason);
        if (!reconnecting) {
            server.outcome.completeExceptionally(reason);
        }
        server.left.complete(null);
    }

    private ActivityCounters counters(String name) {
        return activity.computeIfAbsent(name, ignored -> new ActivityCounters());
    }

    private ReconnectPolicy reconnectPolicy(ServerConfig config) {
        return config.reconnect().orElse(defaultReconnect);
    }

    /**
     * Schedules attempt {@code attempt} of a reconnect run, or ends the run when the policy's attempts are used up
     * (status failed with the last reason, tools gone, waiting calls failed). Called under the lock.
     *
     * @return whether an attempt was scheduled
     */
    private boolean backOffLocked(Reconnect run, int attempt, String reason) {
        // A startup retry says which attempt failed: its status reads "attempt 2 of 4 ...: attempt 1 of 4 failed: ...".
        run.reason = run.startup() ? "attempt " + (attempt - 1) + " of " + run.limit + " failed: "
                + stripName(run.name, reason) : reason;
        if (attempt > run.limit) {
            String message = run.startup()
                    ? "MCP server \"" + run.name + "\" failed to connect after " + run.limit + " attempts; last: "
                            + stripName(run.name, reason)
                    : "MCP server \"" + run.name + "\" failed: no reconnect after " + run.policy.attempts()
                            + (run.policy.attempts() == 1 ? " attempt" : " attempts") + "; last: "
                            + stripName(run.name, reason);
            endRunLocked(run, message);
            return false;
        }
        Duration delay = run.delay(attempt);
        run.attempt = attempt;
        run.nextTry = Instant.now().plus(delay);
        run.timer = ClientThreads.TIMERS.schedule(() -> retry(run), delay.toMillis(), TimeUnit.MILLISECONDS);
        fireStatus(run.name, run.status());
        if (run.startup()) {
            LOG.info("MCP server \"{}\": connect attempt {} of {} failed: {}; trying again in {} ms", run.name,
                    attempt - 1, run.limit, stripName(run.name, reason), delay.toMillis());
        } else {
            LOG.debug("MCP server \"{}\": reconnect attempt {} of {} in {} ms", run.name, attempt, run.limit,
                    delay.toMillis());
        }
        return true;
    }

    /**
     * Ends a run of attempts: status failed with this message, tools gone, calls waiting on it and the startup gate
     * told. Called under the lock.
     */
    private void endRunLocked(Reconnect run, String message) {
        reconnects.remove(run.name, run);
        counters(run.name).failed(message);
        filling.remove(run.name);
        if (run.startup() && backToSleepLocked(run.first, message, run.lastTransport)) {
            LOG.warn("{}; the next call tries again", message);
            McpException failure = new McpException(message);
            run.ready.completeExceptionally(failure);
            run.outcome.completeExceptionally(failure);
            return;
        }
        listings.remove(run.name);
        if (slices.remove(run.name) != null) {
            rebuildView(run.name);
        }
        setInactive(run.name, new ServerStatus(ServerStatus.State.FAILED, Optional.of(message)));
        if (!run.startup() || run.first.gateReturned) {
            LOG.warn("{}", message);
        } else {
            // The startup gate is still waiting: connectServers returns it as the server's error.
            LOG.debug("{}", message);
        }
        McpException failure = new McpException(message);
        run.ready.completeExceptionally(failure);
        run.outcome.completeExceptionally(failure);
    }

    private static String stripName(String name, String message) {
        String prefix = "MCP server \"" + name + "\": ";
        return message.startsWith(prefix) ? message.substring(prefix.length()) : message;
    }

    /** Starts the attempt a reconnect run waited for, unless the server was disconnected meanwhile. */
    private void retry(Reconnect run) {
        Server server;
        synchronized (lock) {
            if (reconnects.get(run.name) != run || pendingConnections.containsKey(run.name)
                    || connections.containsKey(run.name) || JvmShutdown.inProgress()) {
                return;
            }
            server = new Server(run.name, run.config, run.pinKey, run.outcome);
            server.reconnect = run;
            server.attempt = run.attempt;
            server.gateReturned = true;
            server.knownProtocolVersion = run.knownProtocolVersion;
            server.previousTransport = run.lastTransport;
            run.lastTransport = null;
            run.nextTry = null;
            run.timer = null;
            pendingConnections.put(run.name, server);
            fireStatus(run.name, run.status());
        }
        LOG.debug("MCP server \"{}\": {} attempt {} of {}", run.name, run.startup() ? "connect" : "reconnect",
                run.attempt, run.limit);
        launch(server);
    }

    /** Ends a run that a disconnect cut short: no more attempts, and the calls waiting on it fail. */
    private static void cancel(Reconnect run) {
        if (run.timer != null) {
            run.timer.cancel(false);
        }
        McpException failure = new McpException("MCP server \"" + run.name + "\" was disconnected while "
                + (run.startup() ? "connecting" : "reconnecting"));
        run.ready.completeExceptionally(failure);
        run.outcome.completeExceptionally(failure);
    }

    private static String failureMessage(Server server) {
        try {
            server.outcome.join();
            return "";
        } catch (CompletionException e) {
            return unwrap(e).getMessage();
        }
    }

    // ------------------------------------------------------------------ live changes

    private void scheduleRelist(Server server) {
        synchronized (lock) {
            if (connections.get(server.name) != server) {
                return;
            }
            if (server.relist != null) {
                server.relist.cancel(false);
            }
            server.relist = ClientThreads.TIMERS.schedule(() -> relist(server), debounce.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    private CompletableFuture<List<ToolDefinition>> relist(Server server) {
        synchronized (lock) {
            if (connections.get(server.name) != server) {
                return CompletableFuture.failedFuture(notConnected(server.name));
            }
        }
        return server.client.listToolsWithHints().whenComplete((listing, error) -> {
            if (error != null) {
                LOG.warn("MCP server \"{}\": re-listing tools failed: {}", server.name, unwrap(error).getMessage());
            } else {
                loaded(server, listing, surfaces.currentSurface(server.name), true);
            }
        }).thenApply(ToolListing::tools);
    }

    /**
     * Lists a connected server's tools again and replaces its slice.
     *
     * @param name the server
     * @return that server's tools after the refresh, or a failure ({@code MCP server not connected: <name>})
     */
    public CompletableFuture<List<BridgedTool>> refreshServerTools(String name) {
        Server server;
        synchronized (lock) {
            server = connections.get(name);
        }
        if (server == null) {
            return CompletableFuture.failedFuture(notConnected(name));
        }
        return relist(server).thenApply(tools -> toolsOf(name));
    }

    // ------------------------------------------------------------------ queries

    /**
     * @param name a connected server
     * @return how its last listing differs from its pinned tool definitions (empty without pins or when it
     *     does not differ), limited to the tools its config exposes
     */
    public Optional<ToolChanges> toolChanges(String name) {
        synchronized (lock) {
            return Optional.ofNullable(listings.get(name)).map(Listing::report).filter(report -> !report.isEmpty());
        }
    }

    /**
     * @return {@link #toolChanges(String)} of every connected server whose last listing differs from its
     *     pins, by name; {@link ToolChanges#withheld()} says what the agent does not get
     */
    public Map<String, ToolChanges> toolChanges() {
        synchronized (lock) {
            Map<String, ToolChanges> all = new LinkedHashMap<>();
            listings.forEach((name, listing) -> {
                if (!listing.report().isEmpty()) {
                    all.put(name, listing.report());
                }
            });
            return all;
        }
    }

    /**
     * Accepts a connected server's last listing as it is: pins it (tools and instructions) and gives the
     * agent every tool of it at once.
     *
     * @param name a connected server
     * @return what was withheld or reported and is now accepted (empty when nothing differed)
     * @throws McpException when the server is not connected, no pins are kept, or the pins cannot be written
     */
    public ToolChanges acceptToolChanges(String name) {
        Listing listing;
        synchronized (lock) {
            listing = listings.get(name);
        }
        if (listing == null) {
            throw notConnected(name);
        }
        return accept(listing);
    }

    private ToolChanges accept(Listing listing) {
        Server server = listing.server();
        if (pins.isEmpty()) {
            throw new McpException("MCP server \"" + server.name + "\": tool definitions are not pinned by this host");
        }
        try {
            pins.get().pin(server.pinKey, server.name, listing.instructions(), listing.tools());
        } catch (IOException e) {
            throw new McpException("MCP server \"" + server.name + "\": could not pin its tool definitions in "
                    + pins.get().file(server.pinKey) + ": " + e.getMessage(), e);
        }
        boolean stale;
        synchronized (lock) {
            stale = listings.get(server.name) != listing;
            if (!stale) {
                listings.put(server.name, new Listing(server, listing.tools(), listing.instructions(),
                        new ToolPins.Verdict(listing.tools(), ToolChanges.none(server.name, server.pinKey), true),
                        ToolChanges.none(server.name, server.pinKey)));
                Slice slice = slices.get(server.name);
                slices.put(server.name, slice(false, server.name, server.config, listing.tools(),
                        slice == null ? ServerSurface.EMPTY : slice.surface()));
                rebuildView(server.name);
            }
        }
        if (stale && connections(server)) {
            // A newer listing came in meanwhile, compared with the old pins: compare it again.
            relist(server);
        }
        LOG.info("MCP server \"{}\": its tool definitions are accepted and pinned", AgentText.clean(server.name, 64).text());
        return listing.report();
    }

    private boolean connections(Server server) {
        synchronized (lock) {
            return connections.get(server.name) == server;
        }
    }

    /**
     * @param name a connected server
     * @return the {@code instructions} it gave in its handshake, cleaned like tool descriptions
     *     (8,192 characters at most); empty when it gave none or, with pins, when they
     *     differ from the pinned ones (until accepted). Nothing hands them to an agent by itself.
     */
    public Optional<String> instructions(String name) {
        Listing listing;
        synchronized (lock) {
            listing = listings.get(name);
        }
        if (listing == null || (listing.verdict() != null && !listing.verdict().instructionsExposed())) {
            return Optional.empty();
        }
        return listing.instructions().map(text -> AgentText.clean(text, MAX_INSTRUCTIONS).text());
    }

    /**
     * @param name a server's name (known or not)
     * @return its log messages ({@code notifications/message}), kept under its name across its reconnects and
     *     sessions: the last {@link ServerLog#DEFAULT_CAPACITY} in memory, each also written to its file when the
     *     builder has {@linkplain Builder#serverLogFiles log files}
     */
    public ServerLog serverLog(String name) {
        Objects.requireNonNull(name, "name");
        return serverLogs.computeIfAbsent(name, n -> logFiles.map(files -> files.open(n, ServerLog.DEFAULT_CAPACITY))
                .orElseGet(() -> new ServerLog(n, ServerLog.DEFAULT_CAPACITY)));
    }

    /**
     * @return every tool: the union of every server's slice, in a stable order, with unique names; tools meant for
     *     an app's view only are here too ({@link ToolDefinition#visibleToModel()} false): an agent's tool set is
     *     {@code mcp.host.ToolSession}'s, which leaves them out
     */
    public List<BridgedTool> getTools() {
        return view;
    }

    /**
     * @param name a server
     * @return that server's tools, app-only ones included
     */
    public List<BridgedTool> toolsOf(String name) {
        return view.stream().filter(tool -> tool.serverName().equals(name)).toList();
    }

    /**
     * The tools their servers list that the tool owning each server's config denies (a Claude Code
     * {@code permissions.deny} rule, Codex's {@code enabled_tools} and {@code disabled_tools}, Gemini CLI's
     * {@code includeTools} and {@code excludeTools}: {@link ServerConfig#toolPolicy()}), with the rule and its file:
     * they are in no tool set ({@link #getTools()} leaves them out), and their calls are refused.
     *
     * @return those tools, in the servers' order, as last listed (or cached, for a server still connecting)
     */
    public List<WithheldTool> withheldByOwner() {
        synchronized (lock) {
            return slices.values().stream().flatMap(slice -> slice.withheld().stream()).toList();
        }
    }

    /**
     * @param server a server
     * @param tool a tool's name on it
     * @return the rule of the tool owning the server's config (its current config: a reload's counts from then on)
     *     that denies the tool, or empty
     */
    public Optional<ToolRule> ownerDenial(String server, String tool) {
        ServerConfig config = configOf(Objects.requireNonNull(server, "server"));
        return config == null ? Optional.empty() : config.toolPolicy().denial(Objects.requireNonNull(tool, "tool"));
    }

    /**
     * The tools an MCP App's view may call, for the host's app bridge (the MCP Apps extension): those of the server
     * whose UI resource the view was rendered from, and of that server only, whose {@code _meta.ui.visibility}
     * names {@code "app"} or is absent ({@link ToolDefinition#visibleToApp()}). The extension asks the host to refuse
     * a view's call of any other tool, and of any other server's. Live and deferred tools alike, as in
     * {@link #toolsOf}.
     *
     * @param server the server the view came from
     * @return the tools it may call, by {@link BridgedTool#toolName()} as the view names them
     */
    public List<BridgedTool> appTools(String server) {
        Objects.requireNonNull(server, "server");
        return view.stream().filter(tool -> tool.serverName().equals(server) && tool.definition().visibleToApp())
                .toList();
    }

    /**
     * @return the resources, resource templates and prompts of every server that offers any, in the servers' order;
     *     a deferred slice is a server's cached or last known surface while it connects or reconnects
     */
    public List<SurfaceSlice> surfaces() {
        return surfaces.view();
    }

    /**
     * @param name a server
     * @return its resources, templates and prompts, if it is known to offer any
     */
    public Optional<SurfaceSlice> surfaceOf(String name) {
        return surfaces.surfaceOf(name);
    }

    /**
     * Lists a connected server's resources, templates and prompts again and replaces them in its slice (its tools
     * stay); done by itself when the server says a list changed.
     *
     * @param name the server
     * @return what it offers now, or a failure ({@code MCP server not connected: <name>})
     */
    public CompletableFuture<ServerSurface> refreshServerSurface(String name) {
        return surfaces.refreshServerSurface(name);
    }

    /**
     * Reads a resource of a server ({@code resources/read}); a server still connecting or reconnecting is waited
     * for within the call's timeout, as a deferred tool's call is.
     *
     * @param server the server
     * @param uri the resource's URI: a listed one, or one made from a template
     * @param options timeout (default: the server's request timeout) and progress
     * @return the contents; a read over the client's size limit fails (the session stays up)
     */
    public CompletableFuture<ResourceResult> readResource(String server, String uri, CallOptions options) {
        return surfaces.readResource(server, uri, options);
    }

    /**
     * Gets a prompt of a server with its arguments ({@code prompts/get}), waiting for the server as
     * {@link #readResource} does.
     *
     * @param server the server
     * @param prompt the prompt's name on the server
     * @param arguments its arguments by name
     * @param options timeout and progress
     * @return the prompt's messages
     */
    public CompletableFuture<PromptResult> getPrompt(String server, String prompt, Map<String, String> arguments,
            CallOptions options) {
        return surfaces.getPrompt(server, prompt, arguments, options);
    }

    /**
     * Asks a server for the values an argument of a prompt or resource template may take
     * ({@code completion/complete}), waiting for the server as {@link #readResource} does.
     *
     * @param server the server
     * @param ref the prompt or template
     * @param argument the argument's name
     * @param value what has been typed of it
     * @param context the other arguments' values by name
     * @return the suggestions
     */
    public CompletableFuture<CompletionResult> complete(String server, CompletionReference ref, String argument,
            String value, Map<String, String> context) {
        return surfaces.complete(server, ref, argument, value, context);
    }

    /**
     * Subscribes to a resource of a server: {@link ManagerListener#onResourceUpdated} hears of its changes. The
     * subscription belongs to the server's name: a reconnect subscribes its new session again (and reports the
     * resource as updated, since a change may have been missed); a disconnect ends it. A server still connecting or
     * reconnecting is waited for as {@link #readResource} does. Needs the server's {@code resources.subscribe}.
     *
     * @param server the server
     * @param uri the resource's URI
     * @return completes once the server accepted it; on a failure nothing is kept
     */
    public CompletableFuture<Void> subscribeResource(String server, String uri) {
        return surfaces.subscribeResource(server, uri);
    }

    /**
     * Ends a subscription of {@link #subscribeResource}; a server that is not connected just forgets it.
     *
     * @param server the server
     * @param uri the resource's URI
     * @return completes once the server no longer sends its updates
     */
    public CompletableFuture<Void> unsubscribeResource(String server, String uri) {
        return surfaces.unsubscribeResource(server, uri);
    }

    /**
     * @param server a server
     * @return the resources of it that the embedder subscribed to through this manager
     */
    public Set<String> subscribedResources(String server) {
        return surfaces.subscribedResources(server);
    }

    /**
     * Loads a skill of a server (reads its {@code SKILL.md} and verifies it against the entry; see
     * {@link McpClient#loadSkill(SkillEntry)}), waiting for the server as {@link #readResource} does.
     *
     * @param skill an entry of the server's surface ({@link SurfaceSlice}), or one it listed
     * @return the verified skill
     */
    public CompletableFuture<LoadedSkill> loadSkill(SkillEntry skill) {
        return surfaces.loadSkill(skill);
    }

    /**
     * Reads one file of a loaded skill, verified against its entry ({@link McpClient#readSkillFile}), waiting for the
     * server as {@link #readResource} does.
     *
     * @param skill a skill loaded by {@link #loadSkill}
     * @param reference the file, relative to the skill's directory or its URI
     * @return the verified file
     */
    public CompletableFuture<SkillFile> readSkillFile(LoadedSkill skill, String reference) {
        return surfaces.readSkillFile(skill, reference);
    }

    /** Runs a call of the {@link Surfaces} on a server's client, waiting for it within the call's timeout. */
    <T> CompletableFuture<T> onServer(String name, CallOptions options,
            java.util.function.Function<McpClient, CompletableFuture<T>> call) {
        Duration bound;
        synchronized (lock) {
            Server server = connections.containsKey(name) ? connections.get(name) : pendingConnections.get(name);
            Reconnect run = server == null ? reconnects.get(name) : null;
            ServerConfig config = server != null ? server.config : run != null ? run.config : null;
            bound = options.timeout().orElse(config == null ? ServerConfig.DEFAULT_TIMEOUT : config.timeout());
        }
        return clientForCall(name, bound, true).thenCompose(call);
    }

    /**
     * @param name a server
     * @return connected if connected, connecting if a connect or tool load is in flight, failed if its
     *     last connect failed, disconnected otherwise (with the reason if its connection dropped)
     */
    public ServerStatus status(String name) {
        synchronized (lock) {
            return statusLocked(name);
        }
    }

    private ServerStatus statusLocked(String name) {
        Dormant sleeping = dormant.get(name);
        if (sleeping != null) {
            return sleeping.status();
        }
        Reconnect run = reconnects.get(name);
        if (run != null) {
            return run.status();
        }
        if (connections.containsKey(name)) {
            return ServerStatus.of(ServerStatus.State.CONNECTED);
        }
        if (pendingConnections.containsKey(name) || pendingToolLoads.containsKey(name)) {
            return ServerStatus.of(ServerStatus.State.CONNECTING);
        }
        return inactive.getOrDefault(name, ServerStatus.of(ServerStatus.State.DISCONNECTED));
    }

    /**
     * What a server did since this manager started: its tool calls and how they ended, its dropped connections and
     * reconnects, and its last errors. Cheap: a few counters read, no lock taken; the counts go on across the
     * server's reconnects, disconnects and reloads.
     *
     * @param name a server
     * @return its counts; {@link ServerActivity#NONE} for a server never started
     */
    public ServerActivity activity(String name) {
        ActivityCounters counts = activity.get(name);
        return counts == null ? ServerActivity.NONE : counts.snapshot();
    }

    /** @return {@link #activity(String)} of every server started since this manager started, by name */
    public Map<String, ServerActivity> activities() {
        Map<String, ServerActivity> all = new java.util.TreeMap<>();
        activity.forEach((name, counts) -> all.put(name, counts.snapshot()));
        return all;
    }

    /** @return the status of every server the manager knows (given to it and not disconnected since) */
    public Map<String, ServerStatus> statuses() {
        synchronized (lock) {
            Map<String, ServerStatus> all = new LinkedHashMap<>();
            for (String name : sources.keySet()) {
                all.put(name, statusLocked(name));
            }
            for (String name : pendingConnections.keySet()) {
                all.put(name, statusLocked(name));
            }
            for (String name : connections.keySet()) {
                all.put(name, statusLocked(name));
            }
            for (String name : reconnects.keySet()) {
                all.put(name, statusLocked(name));
            }
            for (String name : dormant.keySet()) {
                all.put(name, statusLocked(name));
            }
            for (String name : inactive.keySet()) {
                all.put(name, statusLocked(name));
            }
            return all;
        }
    }

    /**
     * @param name a server
     * @return where its config came from, if known
     */
    public Optional<SourceMetadata> source(String name) {
        synchronized (lock) {
            return Optional.ofNullable(sources.get(name));
        }
    }

    /**
     * @param name a server
     * @return its live client, or waits for its pending connect (bounded by its timeout) or its reconnect (bounded
     *     by its reconnect policy), or fails
     *     with {@code MCP server not connected: <name>}
     */
    public CompletableFuture<McpClient> waitForConnection(String name) {
        Optional<CompletableFuture<McpClient>> lazy = lazyClient(name, Optional.empty());
        if (lazy.isPresent()) {
            return lazy.get();
        }
        synchronized (lock) {
            Server server = connections.get(name);
            if (server != null) {
                handedOutLocked(server);
                return CompletableFuture.completedFuture(server.client);
            }
            Reconnect run = reconnects.get(name);
            if (run != null) {
                return run.ready.copy();
            }
            server = pendingConnections.get(name);
            if (server != null) {
                return server.connected.copy();
            }
        }
        return CompletableFuture.failedFuture(notConnected(name));
    }

    /**
     * Waits for the first connect of a server that is still in flight after the startup gate (a server served
     * deferred from the cache goes on connecting in the background, and so does one past the wait for uncached
     * servers): its handshake and its first listing, through its retries when it failed for a passing reason.
     * A reconnect of a server that was loaded is not waited for; its status says where it is.
     *
     * @param name a server
     * @param bound how long at most; empty: as long as its first connect may take ({@link #firstConnectBound})
     * @return its status once that connect is over (connected with its listed tools, or failed), or when the
     *     bound passed first (still connecting); at once when no first connect is in flight. Never completes
     *     exceptionally.
     */
    public CompletableFuture<ServerStatus> awaitConnect(String name, Optional<Duration> bound) {
        Objects.requireNonNull(bound, "bound");
        CompletableFuture<Void> outcome;
        ServerConfig config;
        synchronized (lock) {
            Server server = pendingConnections.get(name);
            if (server == null) {
                server = pendingToolLoads.get(name);
            }
            Reconnect run = reconnects.get(name);
            outcome = run != null ? run.outcome : server != null ? server.outcome : null;
            config = run != null ? run.config : server != null ? server.config : null;
            if (outcome == null || outcome.isDone()) {
                return CompletableFuture.completedFuture(statusLocked(name));
            }
        }
        long millis = Math.max(0, bound.orElse(firstConnectBound(config)).toMillis());
        CompletableFuture<ServerStatus> done = new CompletableFuture<>();
        ScheduledFuture<?> timer = ClientThreads.TIMERS.schedule(() -> done.complete(status(name)), millis,
                TimeUnit.MILLISECONDS);
        outcome.whenComplete((v, error) -> {
            timer.cancel(false);
            done.complete(status(name));
        });
        return done;
    }

    /**
     * The client a tool call goes to: the live one, or, while the server reconnects, the one it reconnects with
     * (waited for within {@code bound}); else fails with {@code MCP server not connected: <name>}.
     *
     * @param pending whether a first connect in flight is waited for too (deferred tools)
     */
    CompletableFuture<McpClient> clientForCall(String name, Duration bound, boolean pending) {
        if (pending) {
            Optional<CompletableFuture<McpClient>> lazy = lazyClient(name, Optional.empty());
            if (lazy.isPresent()) {
                return lazy.get();
            }
        }
        CompletableFuture<McpClient> ready;
        String late;
        synchronized (lock) {
            Server server = connections.get(name);
            if (server != null) {
                handedOutLocked(server);
                return CompletableFuture.completedFuture(server.client);
            }
            Reconnect run = reconnects.get(name);
            if (run != null) {
                ready = run.ready;
                late = run.startup() ? "is still connecting (attempt " + run.attempt + " of " + run.limit
                        + ") and was not connected" : "is reconnecting and did not come back";
            } else {
                server = pendingConnections.get(name);
                if (!pending || server == null) {
                    return CompletableFuture.failedFuture(notConnected(name));
                }
                // A first connect is bounded by its own timeouts, which may be longer than the call's.
                ready = server.connected;
                late = "is still connecting and was not connected";
            }
        }
        CompletableFuture<McpClient> wait = new CompletableFuture<>();
        ScheduledFuture<?> timeout = ClientThreads.TIMERS.schedule(() -> wait.completeExceptionally(new McpException(
                "MCP server \"" + name + "\" " + late + " within the call's timeout (" + bound.toMillis() + " ms)")),
                bound.toMillis(), TimeUnit.MILLISECONDS);
        ready.whenComplete((client, error) -> {
            timeout.cancel(false);
            if (error != null) {
                wait.completeExceptionally(error);
            } else {
                wait.complete(client);
            }
        });
        return wait;
    }

    /**
     * The client a tool call goes to after it never reached the server on {@code dead} ({@link
     * mcp.api.McpNotDeliveredException}: nothing listened): once this manager has seen that connection drop (the
     * transport closes right after such a failure), as {@link #clientForCall}, so that the call waits for the
     * reconnect within {@code bound}.
     */
    CompletableFuture<McpClient> clientAfter(String name, McpClient dead, Duration bound) {
        Server server;
        synchronized (lock) {
            server = connections.get(name);
        }
        if (server == null || server.client != dead) {
            return clientForCall(name, bound, true);
        }
        long start = System.nanoTime();
        return server.left.copy().orTimeout(Math.max(1, bound.toMillis()), TimeUnit.MILLISECONDS)
                .handle((v, timeout) -> timeout)
                .thenCompose(timeout -> timeout == null ? clientForCall(name, max(bound.minusNanos(System.nanoTime()
                        - start), Duration.ofMillis(1)), true) : CompletableFuture.failedFuture(new McpException("MCP server \"" + name
                        + "\" did not answer and did not come back within the call's timeout (" + bound.toMillis()
                        + " ms)")));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /**
     * How long a server's first connect may take: each attempt's handshake and first listing within twice its
     * connect timeout (and 5 s to start), the longest delays of its retries between them.
     *
     * @param config the server's config
     * @return the bound
     */
    public Duration firstConnectBound(ServerConfig config) {
        ReconnectPolicy policy = reconnectPolicy(config);
        Duration attempt = config.timeout().multipliedBy(2).plusSeconds(5);
        Duration bound = attempt;
        for (int retry = 1; retry <= policy.startupRetries(); retry++) {
            bound = bound.plus(policy.delay(retry, 1.0)).plus(attempt);
        }
        return bound;
    }

    /**
     * @return the options of a call of this server's tools made with these: its timeout and cap present, its idle
     *     timeout and reset as the server's config and this manager's defaults say where the call sets none
     */
    CallOptions callBounds(String name, CallOptions options) {
        ServerConfig config = configOf(name);
        return config == null ? options.withDefaults(ServerConfig.DEFAULT_TIMEOUT, defaultCallLimits)
                : options.withDefaults(config.toolCallTimeout(), config.callLimits().orElse(defaultCallLimits));
    }

    /**
     * A tool's result as the agent gets it: rendered, within the server's result budget (its config's, else this
     * manager's, else the defaults), text over it saved to the session's result files.
     */
    ToolOutput agentOutput(String name, ToolDefinition tool, ToolResult result, ToolOutput.Details details) {
        ServerConfig config = configOf(name);
        CallLimits limits = config == null ? defaultCallLimits : config.callLimits().orElse(defaultCallLimits);
        return ResultBudgeting.render(name, tool, result, details, limits.resultBudget(), resultFiles);
    }

    /** @return the config of the server's connection (current, pending or reconnecting), or null without one */
    private ServerConfig configOf(String name) {
        synchronized (lock) {
            Server server = connections.get(name);
            if (server == null) {
                server = pendingConnections.get(name);
            }
            Reconnect run = server == null ? reconnects.get(name) : null;
            Dormant sleeping = server == null && run == null ? dormant.get(name) : null;
            return server != null ? server.config : run != null ? run.config : sleeping != null ? sleeping.config()
                    : null;
        }
    }

    /**
     * @param name a server
     * @return the tools its config keeps in the agent's tool set under deferred loading (the config of its
     *     connection: current, pending or reconnecting, so a reload's new config counts from then on);
     *     {@link AlwaysLoad#NONE} for a server without one
     */
    public AlwaysLoad alwaysLoad(String name) {
        ServerConfig config = configOf(name);
        return config == null ? AlwaysLoad.NONE : config.alwaysLoad();
    }

    /** @return the directory of this session's saved results, once one was saved (removed on close unless kept) */
    public Optional<Path> resultDirectory() {
        return resultFiles.directory();
    }

    static McpException notConnected(String name) {
        return new McpException("MCP server not connected: " + name);
    }

    /** @param listener receives status and tool changes from now on */
    public void addListener(ManagerListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** @param listener no longer receives events */
    public void removeListener(ManagerListener listener) {
        listeners.remove(listener);
    }

    // ------------------------------------------------------------------ reconcile

    /**
     * Makes the running servers exactly these, touching only what differs: a server no longer given (or given
     * disabled) is disconnected ({@link #disconnectServer}); one given with another config or another pin key than
     * the one it runs with is disconnected and started with the given one; a new one is started, and so is one the
     * manager knew but does not run (its connect failed, its connection closed for good); every other running
     * server (connected, connecting or reconnecting) is left alone: the same connection, no restart, and its tools
     * stay in the view throughout. The stops come first, all at once, each bounded; then the starts, as
     * {@link #connectServers(Map, Map, Map)} does them, up to its startup gate. Listeners hear each stop and start
     * as they do for those calls. Two reconciles run one after the other.
     *
     * @param configs the servers that should run, by name, as configured (unresolved)
     * @param sourceMetadata where each came from; may lack entries. A server kept whose source changed gets the new
     *     one (its tools are named after it)
     * @param pinKeys the key of each server's pinned tool definitions, as {@link #connectServers(Map, Map, Map)}
     *     takes them; a changed key is a changed server
     * @return what was added, removed, changed, kept and retried, and the connect of those started
     */
    public ReconcileResult reconcileServers(Map<String, ServerConfig> configs,
            Map<String, SourceMetadata> sourceMetadata, Map<String, String> pinKeys) {
        Objects.requireNonNull(configs, "configs");
        Objects.requireNonNull(sourceMetadata, "sourceMetadata");
        Objects.requireNonNull(pinKeys, "pinKeys");
        synchronized (reconciling) {
            List<String> added = new ArrayList<>();
            List<String> removed = new ArrayList<>();
            List<String> changed = new ArrayList<>();
            List<String> kept = new ArrayList<>();
            List<String> retried = new ArrayList<>();
            List<String> relabelled = new ArrayList<>();
            Map<String, ServerConfig> starting = new LinkedHashMap<>();
            synchronized (lock) {
                Set<String> known = new LinkedHashSet<>(sources.keySet());
                known.addAll(pendingConnections.keySet());
                known.addAll(connections.keySet());
                known.addAll(reconnects.keySet());
                known.addAll(dormant.keySet());
                known.addAll(inactive.keySet());
                for (String name : known) {
                    ServerConfig given = configs.get(name);
                    if (given == null || !given.enabled()) {
                        removed.add(name);
                    }
                }
                for (Map.Entry<String, ServerConfig> entry : configs.entrySet()) {
                    String name = entry.getKey();
                    ServerConfig config = entry.getValue();
                    if (!config.enabled()) {
                        continue;
                    }
                    Running running = runningLocked(name);
                    String pinKey = pinKeys.get(name) != null ? pinKeys.get(name) : ConfigHash.of(config);
                    if (running != null && running.config().equals(config) && running.pinKey().equals(pinKey)) {
                        kept.add(name);
                        SourceMetadata source = sourceMetadata.get(name);
                        if (source != null && !source.equals(sources.get(name))) {
                            relabelled.add(name);
                        }
                        continue;
                    }
                    (running != null ? changed : known.contains(name) ? retried : added).add(name);
                    starting.put(name, config);
                }
            }
            List<String> stopping = new ArrayList<>(removed);
            stopping.addAll(changed);
            if (!stopping.isEmpty()) {
                LOG.debug("Reconcile: stopping {}", stopping);
                awaitClosed(stopping.stream().map(name -> CompletableFuture.runAsync(() -> disconnectServer(name),
                        ClientThreads.WORKERS)).toArray(CompletableFuture[]::new));
            }
            if (!relabelled.isEmpty()) {
                synchronized (lock) {
                    for (String name : relabelled) {
                        if (runningLocked(name) != null) {
                            sources.put(name, sourceMetadata.get(name));
                        }
                    }
                    rebuildView(relabelled.size() == 1 ? relabelled.get(0) : "*");
                }
            }
            ConnectResult connect = connectServers(starting, sourceMetadata, pinKeys);
            LOG.debug("Reconcile: added {}, removed {}, changed {}, retried {}, kept {}", added, removed, changed,
                    retried, kept);
            return new ReconcileResult(added, removed, changed, kept, retried, connect);
        }
    }

    /** The config and pin key a server runs with: connected, connecting, or between reconnect attempts. */
    private record Running(ServerConfig config, String pinKey) {
    }

    private Running runningLocked(String name) {
        Server server = connections.containsKey(name) ? connections.get(name) : pendingConnections.get(name);
        if (server != null) {
            return new Running(server.config, server.pinKey);
        }
        Reconnect run = reconnects.get(name);
        if (run != null) {
            return new Running(run.config, run.pinKey);
        }
        Dormant sleeping = dormant.get(name);
        return sleeping == null ? null : new Running(sleeping.config(), sleeping.pinKey());
    }

    // ------------------------------------------------------------------ teardown

    /**
     * Disconnects one server: forgets its metadata, removes its tools (and only its tools), closes
     * its connection or cancels its connect (a handshake that completes later is closed at once).
     * Returns once the server's process tree has ended (bounded).
     *
     * @param name the server
     */
    public void disconnectServer(String name) {
        Server pending;
        Server connected;
        Reconnect run;
        synchronized (lock) {
            sources.remove(name);
            inactive.remove(name);
            pending = pendingConnections.remove(name);
            connected = connections.remove(name);
            pendingToolLoads.remove(name);
            run = reconnects.remove(name);
            Dormant sleeping = dormant.remove(name);
            filling.remove(name);
            surfaces.disconnectedLocked(name);
            if (connected != null && connected.relist != null) {
                connected.relist.cancel(false);
            }
            if (connected != null && connected.surfaceRelist != null) {
                connected.surfaceRelist.cancel(false);
            }
            listings.remove(name);
            if (slices.remove(name) != null) {
                rebuildView(name);
            }
            if (pending != null || connected != null || run != null || sleeping != null) {
                fireStatus(name, ServerStatus.of(ServerStatus.State.DISCONNECTED));
            }
        }
        if (run != null) {
            cancel(run);
        }
        if (pending != null) {
            cancel(pending);
        }
        if (connected != null) {
            cancel(connected);
        }
    }

    private static void cancel(Server server) {
        server.cancelled = true;
        server.left.complete(null);
        McpClient client = server.client;
        if (client != null) {
            client.close();
        }
        Transport transport = server.transport;
        if (transport != null) {
            transport.close();
        }
    }

    /**
     * Disconnects every server, closing them concurrently, and clears every registry. Returns once
     * every process tree has ended (each close is bounded).
     */
    public void disconnectAll() {
        List<Server> all = new ArrayList<>();
        List<Reconnect> runs = new ArrayList<>();
        synchronized (lock) {
            all.addAll(pendingConnections.values());
            all.addAll(connections.values());
            all.stream().filter(server -> server.relist != null).forEach(server -> server.relist.cancel(false));
            all.stream().filter(server -> server.surfaceRelist != null)
                    .forEach(server -> server.surfaceRelist.cancel(false));
            surfaces.clearedLocked();
            List<String> names = new ArrayList<>(pendingConnections.keySet());
            names.addAll(connections.keySet());
            reconnects.keySet().stream().filter(name -> !names.contains(name)).forEach(names::add);
            dormant.keySet().stream().filter(name -> !names.contains(name)).forEach(names::add);
            dormant.clear();
            filling.clear();
            runs.addAll(reconnects.values());
            reconnects.clear();
            pendingConnections.clear();
            connections.clear();
            pendingToolLoads.clear();
            sources.clear();
            inactive.clear();
            listings.clear();
            boolean hadTools = !slices.isEmpty();
            slices.clear();
            if (hadTools) {
                rebuildView("*");
            }
            names.forEach(name -> fireStatus(name, ServerStatus.of(ServerStatus.State.DISCONNECTED)));
        }
        runs.forEach(McpManager::cancel);
        awaitClosed(all.stream().map(server -> CompletableFuture.runAsync(() -> cancel(server), ClientThreads.WORKERS))
                .toArray(CompletableFuture[]::new));
    }

    /** Waits for closes that run at once, each bounded by the transport's own close sequence, and all by 30 s. */
    private static void awaitClosed(CompletableFuture<?>[] closes) {
        try {
            CompletableFuture.allOf(closes).get(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            LOG.warn("Some MCP servers took more than 30 s to close");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            LOG.warn("Closing an MCP server failed: {}", e.getCause().toString());
        }
    }

    /** Disconnects every server; see {@link #disconnectAll()}. */
    @Override
    public void close() {
        disconnectAll();
        resultFiles.close();
    }

    // ------------------------------------------------------------------ view and events

    /** Rebuilds the tool view from the slices and tells the listeners. Called under the lock. */
    private void rebuildView(String changedServer) {
        List<ToolNames.Key> keys = new ArrayList<>();
        List<Map.Entry<String, ToolDefinition>> tools = new ArrayList<>();
        for (Map.Entry<String, Slice> slice : slices.entrySet()) {
            for (ToolDefinition tool : slice.getValue().tools()) {
                keys.add(new ToolNames.Key(slice.getKey(), tool.name()));
                tools.add(Map.entry(slice.getKey(), tool));
            }
        }
        List<String> names = ToolNames.assign(keys);
        List<BridgedTool> next = new ArrayList<>(tools.size());
        for (int i = 0; i < tools.size(); i++) {
            String server = tools.get(i).getKey();
            ToolDefinition tool = tools.get(i).getValue();
            Optional<SourceMetadata> source = Optional.ofNullable(sources.get(server));
            CallPolicy policy = Optional.ofNullable(configOf(server)).map(config -> config.callPolicy(tool))
                    .orElse(CallPolicy.DEFAULT);
            next.add(slices.get(server).deferred()
                    ? new DeferredMcpTool(this, names.get(i), server, tool, source, policy)
                    : new McpTool(this, names.get(i), server, tool, source, policy));
        }
        List<BridgedTool> snapshot = List.copyOf(next);
        view = snapshot;
        events.toolsChanged(changedServer, snapshot);
        surfaces.rebuildSurfaces(changedServer);
    }

    private void setInactive(String name, ServerStatus status) {
        inactive.put(name, status);
        fireStatus(name, status);
    }

    private void fireStatus(String name, ServerStatus status) {
        events.status(name, status);
    }

    static Throwable unwrap(Throwable error) {
        Throwable current = error;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    /** What the auth resolvers may consult: the manager's environment and the auth storage, if any. */
    private static final class ResolverContext implements AuthResolver.Context {
        private final Map<String, String> environment;
        private final Optional<AuthStorage> storage;

        ResolverContext(Map<String, String> environment, Optional<AuthStorage> storage) {
            this.environment = environment;
            this.storage = storage;
        }

        @Override
        public Map<String, String> environment() {
            return environment;
        }

        @Override
        public Optional<AuthStorage> authStorage() {
            return storage;
        }
    }

    /** Builds a {@link McpManager}. */
    public static final class Builder {
        private List<TransportProvider> transportProviders;
        private List<AuthResolver> authResolvers = List.of();
        private AuthServices authServices;
        private ToolCache toolCache;
        private Duration startupGate = DEFAULT_STARTUP_GATE;
        private Duration uncachedWait = DEFAULT_UNCACHED_WAIT;
        private Duration debounce = DEFAULT_LIST_CHANGED_DEBOUNCE;
        private Path workingDirectory = Path.of("").toAbsolutePath();
        private Map<String, String> environment = System.getenv();
        private Consumer<ClientOptions.Builder> clientSettings = options -> { };
        private int maxDescription = AgentText.DEFAULT_MAX_DESCRIPTION;
        private final List<ManagerListener> listeners = new ArrayList<>();
        private ToolPins toolPins;
        private boolean strictNewTools;
        private ConsentHandler consent = ConsentHandler.DENY_AND_REPORT;
        private ReconnectPolicy reconnect = ReconnectPolicy.DEFAULT;
        private CallLimits callLimits = CallLimits.NONE;
        private boolean allLazy;
        private Duration lazyIdleTimeout = mcp.api.LazyStart.DEFAULT_IDLE_TIMEOUT;
        private ServerLogFiles logFiles;
        private Path resultDirectory;
        private boolean keepResultFiles;

        private Builder() {
        }

        /**
         * @param files where every server's log messages are also written ({@link ServerLogFiles#forUser} for
         *     mcp-host's state directory)
         * @return this (default: none, the logs are kept in memory only)
         */
        public Builder serverLogFiles(ServerLogFiles files) {
            this.logFiles = Objects.requireNonNull(files, "files");
            return this;
        }

        /**
         * @param limits the idle timeout, the absolute cap and the reset on progress of every server's tool calls,
         *     where its config ({@link ServerConfig#callLimits()}) and the call's own options leave them unset
         * @return this (default {@link CallLimits#NONE}: no idle timeout; the cap is the timeout, or ten times it
         *     when the timeout restarts on progress; no reset)
         */
        public Builder callLimits(CallLimits limits) {
            this.callLimits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * @param parent where the session's directory of results too large for the agent's context is made
         *     ({@code mcp-host-results-<random>}, owner-only)
         * @return this (default: {@code java.io.tmpdir})
         */
        public Builder resultDirectory(Path parent) {
            this.resultDirectory = Objects.requireNonNull(parent, "parent");
            return this;
        }

        /**
         * @param keep whether {@link McpManager#close()} leaves the saved results (for a person to read them after
         *     the session)
         * @return this (default {@code false}: they are removed with their directory)
         */
        public Builder keepResultFiles(boolean keep) {
            this.keepResultFiles = keep;
            return this;
        }

        /**
         * @param policy how a server whose connection closes by itself is started again, unless its config sets
         *     its own ({@link ServerConfig#reconnect()}); {@link ReconnectPolicy#OFF} for never
         * @return this (default {@link ReconnectPolicy#DEFAULT})
         */
        public Builder reconnect(ReconnectPolicy policy) {
            this.reconnect = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * @param all whether every server is lazy, as if its config said {@code "lazy": true}: not started by
         *     {@link McpManager#connectServers}, its cached tools standing for it, started by the first call of one of
         *     them and stopped after {@link #lazyIdleTimeout} idle (one nothing is cached of is started once to fill
         *     the cache, then stopped)
         * @return this (default {@code false}: only the servers whose config says so)
         */
        public Builder lazy(boolean all) {
            this.allLazy = all;
            return this;
        }

        /**
         * @param idle how long a lazy server whose config sets no idle timeout may be idle (no request in flight,
         *     none for that long, no resource subscribed) before it is stopped
         * @return this (default {@link mcp.api.LazyStart#DEFAULT_IDLE_TIMEOUT}, 10 minutes)
         */
        public Builder lazyIdleTimeout(Duration idle) {
            Objects.requireNonNull(idle, "idle");
            if (idle.isNegative() || idle.isZero()) {
                throw new IllegalArgumentException("the lazy idle timeout must be positive, got " + idle);
            }
            this.lazyIdleTimeout = idle;
            return this;
        }

        /**
         * @param providers the transports to use; default: every {@link TransportProvider} found by
         *     {@link java.util.ServiceLoader}
         * @return this
         */
        public Builder transportProviders(List<TransportProvider> providers) {
            this.transportProviders = List.copyOf(providers);
            return this;
        }

        /** @return this, resolving secrets with these resolvers in order (default: none) */
        public Builder authResolvers(List<AuthResolver> resolvers) {
            this.authResolvers = List.copyOf(resolvers);
            return this;
        }

        /**
         * @param services the auth storage the resolvers read stored credentials from, and what a
         *     transport may use to obtain credentials itself (the HTTP transport's OAuth client)
         * @return this (default: none, so no stored credential is used and no transport obtains one)
         */
        public Builder authServices(AuthServices services) {
            this.authServices = Objects.requireNonNull(services, "services");
            return this;
        }

        /** @return this, with this tool cache (default: none, so slow servers are always waited for) */
        public Builder toolCache(ToolCache cache) {
            this.toolCache = Objects.requireNonNull(cache, "cache");
            return this;
        }

        /**
         * @param wait how long {@link #connectServers} waits for a server whose tools are not cached (nor vouched for
         *     by its pins) before it returns without them; never less than the startup gate, {@link Duration#ZERO}
         *     for no longer than the gate
         * @return this (default {@link #DEFAULT_UNCACHED_WAIT}, 10 s)
         */
        public Builder uncachedWait(Duration wait) {
            Objects.requireNonNull(wait, "wait");
            if (wait.isNegative()) {
                throw new IllegalArgumentException("the uncached wait must not be negative, got " + wait);
            }
            this.uncachedWait = wait;
            return this;
        }

        /** @return this, with this startup gate (default 250 ms) */
        public Builder startupGate(Duration gate) {
            this.startupGate = Objects.requireNonNull(gate, "gate");
            return this;
        }

        /** @return this, with this {@code tools/list_changed} debounce (default 100 ms) */
        public Builder listChangedDebounce(Duration value) {
            this.debounce = Objects.requireNonNull(value, "value");
            return this;
        }

        /** @return this, with the directory relative {@code cwd}s resolve against (default: the JVM's) */
        public Builder workingDirectory(Path directory) {
            this.workingDirectory = directory.toAbsolutePath();
            return this;
        }

        /** @return this, with the environment auth resolvers see (default: the JVM's) */
        public Builder environment(Map<String, String> env) {
            this.environment = Map.copyOf(env);
            return this;
        }

        /**
         * @param characters the most characters of a tool's description the agent gets (default
         *     {@value AgentText#DEFAULT_MAX_DESCRIPTION}); a longer one is cut, with a warning
         * @return this
         */
        public Builder maxDescriptionLength(int characters) {
            if (characters < 1) {
                throw new IllegalArgumentException("maxDescriptionLength must be at least 1, got " + characters);
            }
            this.maxDescription = characters;
            return this;
        }

        /** @return this, adjusting every client's options (roots, server request handlers, ...) */
        public Builder clientSettings(Consumer<ClientOptions.Builder> settings) {
            this.clientSettings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * @param pins where servers' tool definitions are pinned; a listing that differs withholds the
         *     changed tools (see {@link ToolPins})
         * @return this (default: none, so nothing is pinned or withheld)
         */
        public Builder toolPins(ToolPins pins) {
            this.toolPins = Objects.requireNonNull(pins, "pins");
            return this;
        }

        /**
         * @param strict whether a tool not pinned before (new, or renamed) is withheld until accepted, as a
         *     changed one is
         * @return this (default {@code false}: new tools are exposed, reported and pinned)
         */
        public Builder strictNewTools(boolean strict) {
            this.strictNewTools = strict;
            return this;
        }

        /**
         * @param handler asked whether to accept tool changes that withhold something
         *     ({@link ConsentHandler#acceptToolChanges})
         * @return this (default {@link ConsentHandler#DENY_AND_REPORT}: they stay withheld and reported)
         */
        public Builder consent(ConsentHandler handler) {
            this.consent = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /** @return this, with this listener */
        public Builder listener(ManagerListener listener) {
            this.listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * @return the manager
         * @throws mcp.api.ProviderException if two transport providers share an id
         */
        public McpManager build() {
            return new McpManager(this);
        }
    }
}
