package mcp.host;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import mcp.api.ConsultedFile;
import mcp.api.McpException;
import mcp.api.ProviderException;
import mcp.api.ServerConfig;
import mcp.api.SourceMetadata;
import mcp.api.UserDirectories;
import mcp.api.spi.AuthResolver;
import mcp.api.spi.AuthServices;
import mcp.api.spi.AuthStorage;
import mcp.api.spi.AuthorizationUi;
import mcp.api.spi.CapabilitySource;
import mcp.api.spi.ConfigFilter;
import mcp.api.spi.ConsentHandler;
import mcp.api.spi.ElicitationUi;
import mcp.api.spi.Providers;
import mcp.api.spi.ToolCache;
import mcp.api.spi.ToolCacheProvider;
import mcp.api.spi.TransportProvider;
import mcp.config.ConfigFiles;
import mcp.consent.Approvals;
import mcp.config.Discovery;
import mcp.config.DiscoveryProblem;
import mcp.config.DiscoveryResult;
import mcp.consent.ToolPins;
import mcp.manager.ServerLogFiles;
import mcp.manager.ClientOptions;
import mcp.manager.ElicitationHandlers;
import mcp.manager.ConnectResult;
import mcp.manager.McpManager;
import mcp.manager.ReconcileResult;
import mcp.search.spi.ToolRanker;
import mcp.search.spi.ToolRankerProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole life of an agent's MCP servers in one object: {@link #load()} discovers configs and
 * connects every server within the startup gate; {@link #reloadChanged()} discovers again after configs
 * changed and restarts only the servers whose config did ({@link #reload()} restarts them all);
 * {@link #watchConfigs} does that by itself whenever a config file changes; {@link #close()} ends every server
 * and its process tree.
 *
 * <pre>{@code
 * try (McpHost host = McpHost.builder().workingDirectory(project).build()) {
 *     LoadResult loaded = host.load();
 *     loaded.errors().forEach((server, error) -> log.warn("{}: {}", server, error));
 *     for (BridgedTool tool : loaded.tools()) { ... } // app-only tools too: a model gets ToolSession.tools()
 * }
 * }</pre>
 *
 * <p>Every file a host reads or writes by default is under the user's directories of its builder's
 * {@link Builder#home(Path) home} and {@link Builder#environment(Map) environment}, by the rule of
 * {@link UserDirectories}: the home is the environment's {@code $HOME} when absolute, else {@code user.home}
 * (which the JVM takes from the password database, whatever {@code HOME} says); the config, state and cache
 * directories are the environment's absolute {@code XDG_CONFIG_HOME}, {@code XDG_STATE_HOME} and
 * {@code XDG_CACHE_HOME}, else {@code ~/.config}, {@code ~/.local/state} and {@code ~/.cache}. So the user's
 * config files, the approvals, the tool pins, the server logs, the tool cache and the {@code file} auth
 * storage all move together when an embedder sets the two (a test, a sandbox, an agent that runs for another
 * user); {@code docs/architecture.md} ("Directories") lists each file. A store given to the builder
 * ({@link Builder#approvals}, {@link Builder#toolPins}, {@link Builder#serverLogFiles},
 * {@link Builder#cacheDirectory}, {@link Builder#authStorage}) is used where it is.
 *
 * <p>A host not closed when the JVM shuts down (SIGTERM, SIGINT, SIGHUP, {@code System.exit}) is closed by
 * a shutdown hook of its own: every server gets the normal close sequence, all in parallel, within the
 * manager's bound, without "disconnected" warnings. The stdio transport's JVM shutdown hook closes every
 * child process tree still open in the same way, bounded, even if the host was never closed.
 */
public final class McpHost implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(McpHost.class);

    /** The id of the auth storage found by ServiceLoader when the builder names none. */
    private static final String DEFAULT_AUTH_STORAGE = "file";

    private final Builder settings;
    private final McpManager manager;
    /** Closes the host at JVM shutdown if it is still open; removed by {@link #close()}. */
    private final Thread shutdownHook;
    /** The second ranking of tool search: the builder's, else the one ServiceLoader found, else none. */
    private final Optional<ToolRankerProvider> rankerProvider;
    /** Set once a ranker could not be made: logged once, then searches use words alone without asking again. */
    private volatile boolean rankerBroken;

    /**
     * How long a load, a reload or {@link #close()} waits for another one in flight, whose own work is bounded
     * (discovery, the closes, the startup gate and the wait for uncached servers) but for a consent handler that
     * asks a person.
     */
    private static final Duration LOAD_WAIT = Duration.ofMinutes(2);
    /** Held by a load or reload from its discovery to its last connect: one discovery is applied at a time. */
    private final ReentrantLock loading = new ReentrantLock();
    /** What the last load or reload applied; null before the first. Written under {@link #loading}. */
    private volatile Applied applied;
    private volatile boolean closed;
    /** The running watcher, if any; guarded by this host's monitor. */
    private ConfigWatcher watcher;

    /**
     * What a load or reload gave the manager, and from what.
     *
     * @param discovery the discovery it applied (its consulted files are what a watcher watches)
     * @param servers what the manager was given to run, by name: the discovery's winners, and the servers held
     * @param seen how each consulted file looked right after the discovery read it
     */
    record Applied(DiscoveryResult discovery, Map<String, Given> servers, Map<Path, FileStamp> seen) {
    }

    /** One server as the manager was given it. */
    record Given(ServerConfig config, Optional<SourceMetadata> source, Optional<String> pinKey) {
    }

    private McpHost(Builder builder) {
        this.settings = builder;
        McpManager.Builder managerBuilder = McpManager.builder()
                .startupGate(builder.startupGate)
                .uncachedWait(builder.uncachedWait)
                .workingDirectory(builder.workingDirectory)
                .environment(builder.environment)
                .clientSettings(elicitation(builder).andThen(builder.clientSettings))
                .authResolvers(authResolvers(builder))
                .reconnect(builder.reconnect)
                .lazy(builder.lazy)
                .lazyIdleTimeout(builder.lazyIdleTimeout)
                .callLimits(builder.callLimits)
                .keepResultFiles(builder.keepResultFiles);
        if (builder.resultDirectory != null) {
            managerBuilder.resultDirectory(builder.resultDirectory);
        }
        List<TransportProvider> transports = new ArrayList<>(builder.transportProviders);
        if (builder.serviceLoader) {
            transports.addAll(Providers.load(TransportProvider.class, McpHost.class.getClassLoader()));
        }
        managerBuilder.transportProviders(distinctById(transports));
        openCache(builder).ifPresent(managerBuilder::toolCache);
        authStorage(builder).map(storage -> storage.forUser(builder.environment, builder.home))
                .ifPresent(storage -> managerBuilder.authServices(
                new AuthServices(storage, Optional.ofNullable(builder.authorizationUi))));
        if (builder.toolPinning) {
            managerBuilder.toolPins(builder.toolPins != null ? builder.toolPins
                    : ToolPins.forUser(builder.environment, builder.home)).strictNewTools(builder.strictNewTools);
        }
        if (builder.serverLogsToFiles) {
            managerBuilder.serverLogFiles(builder.serverLogFiles != null ? builder.serverLogFiles
                    : ServerLogFiles.forUser(builder.environment, builder.home));
        }
        // The embedder's UI decides about changed tool definitions as about pending servers.
        managerBuilder.consent(builder.consentHandler);
        this.rankerProvider = rankerProvider(builder.toolRankerProvider, builder.serviceLoader,
                McpHost.class.getClassLoader());
        rankerProvider.ifPresent(provider -> LOG.debug("Tool search ranker: {}", provider.id()));
        this.manager = managerBuilder.build();
        Thread hook = new Thread(manager::close, "mcp-host-shutdown");
        try {
            Runtime.getRuntime().addShutdownHook(hook);
        } catch (IllegalStateException e) {
            hook = null; // built during the JVM's shutdown: nothing can be registered any more
        }
        this.shutdownHook = hook;
    }

    /**
     * Every client's elicitation handler: the builder's UI, else the one ServiceLoader finds, else the handler that
     * declares no capability and declines. Set before the embedder's client settings, which may replace it.
     */
    private static Consumer<ClientOptions.Builder> elicitation(Builder builder) {
        ElicitationUi ui = builder.elicitationUi;
        if (ui == null && builder.serviceLoader) {
            Map<String, ElicitationUi> found = Providers.byId(ElicitationUi.class,
                    Providers.load(ElicitationUi.class, McpHost.class.getClassLoader()), ElicitationUi::id);
            if (found.size() > 1) {
                throw new ProviderException("More than one ElicitationUi was found (" + String.join(", ", found.keySet())
                        + "): pass the one to use with McpHost.Builder.elicitationUi(...), or remove the others from"
                        + " the module path.");
            }
            ui = found.values().stream().findFirst().orElse(null);
        }
        if (ui == null) {
            LOG.debug("No elicitation UI: servers' requests for user input are declined");
            return options -> options.handler(ClientOptions.ELICITATION_METHOD,
                    ElicitationHandlers.withoutUi(options.serverName()));
        }
        ElicitationUi chosen = ui;
        LOG.debug("Elicitation UI: {}", chosen.id());
        return options -> options.handler(ClientOptions.ELICITATION_METHOD,
                ElicitationHandlers.forUi(options.serverName(), chosen));
    }

    /**
     * The builder's store, else ServiceLoader's {@code file} store, else none; the caller places it under the
     * builder's home and environment ({@link AuthStorage#forUser}), which moves only a store made for the default
     * place (ServiceLoader's, {@code AuthProviders.defaultAuthStorage()}).
     */
    private static Optional<AuthStorage> authStorage(Builder builder) {
        if (builder.authStorage != null) {
            return Optional.of(builder.authStorage);
        }
        if (!builder.serviceLoader) {
            return Optional.empty();
        }
        List<AuthStorage> found = Providers.load(AuthStorage.class, McpHost.class.getClassLoader());
        Optional<AuthStorage> file = Optional.ofNullable(
                Providers.byId(AuthStorage.class, found, AuthStorage::id).get(DEFAULT_AUTH_STORAGE));
        if (file.isEmpty()) {
            LOG.debug("No \"{}\" auth storage found (module mcp.auth); stored credentials are not used",
                    DEFAULT_AUTH_STORAGE);
        }
        return file;
    }

    /** The builder's resolvers, then ServiceLoader's (such as {@code values}) of other ids, in that order. */
    private static List<AuthResolver> authResolvers(Builder builder) {
        Map<String, AuthResolver> byId = new LinkedHashMap<>();
        builder.authResolvers.forEach(resolver -> byId.putIfAbsent(resolver.id(), resolver));
        if (builder.serviceLoader) {
            Providers.load(AuthResolver.class, McpHost.class.getClassLoader())
                    .forEach(resolver -> byId.putIfAbsent(resolver.id(), resolver));
        }
        return List.copyOf(byId.values());
    }

    /** Explicit providers win over ServiceLoader's of the same id (the builder's promise). */
    private static List<TransportProvider> distinctById(List<TransportProvider> providers) {
        Map<String, TransportProvider> byId = new LinkedHashMap<>();
        providers.forEach(provider -> byId.putIfAbsent(provider.id(), provider));
        return List.copyOf(byId.values());
    }

    private static Optional<ToolCache> openCache(Builder builder) {
        if (!builder.cacheEnabled) {
            return Optional.empty();
        }
        ToolCacheProvider provider = builder.toolCacheProvider;
        if (provider == null) {
            List<ToolCacheProvider> found = builder.serviceLoader
                    ? Providers.load(ToolCacheProvider.class, McpHost.class.getClassLoader()) : List.of();
            provider = Providers.require(ToolCacheProvider.class,
                    Providers.byId(ToolCacheProvider.class, found, ToolCacheProvider::id), "file");
        }
        return Optional.of(provider.open(new ToolCacheProvider.Settings(Optional.ofNullable(builder.cacheDirectory),
                builder.home, builder.environment, Duration.ofDays(30))));
    }

    /**
     * The ranker provider of tool search: the given one, else the one ServiceLoader finds (none is normal: the word
     * index alone); two found fail, as two of any service with one role do.
     */
    static Optional<ToolRankerProvider> rankerProvider(ToolRankerProvider explicit, boolean serviceLoader,
            ClassLoader loader) {
        if (explicit != null || !serviceLoader) {
            return Optional.ofNullable(explicit);
        }
        Map<String, ToolRankerProvider> found = Providers.byId(ToolRankerProvider.class,
                Providers.load(ToolRankerProvider.class, loader), ToolRankerProvider::id);
        if (found.size() > 1) {
            throw new ProviderException("More than one tool search ranker was found (" + String.join(", ",
                    found.keySet()) + "): pass the one to use with McpHost.Builder.toolRanker(...), or remove the"
                    + " others from the module or class path.");
        }
        return found.values().stream().findFirst();
    }

    /**
     * A new ranker for one tool index (one session's, or one ranking of {@link #searchTools}), if the host has a
     * provider and it works: a provider that fails is logged once and not asked again.
     */
    Optional<ToolRanker> newRanker() {
        if (rankerProvider.isEmpty() || rankerBroken) {
            return Optional.empty();
        }
        ToolRankerProvider provider = rankerProvider.get();
        Optional<java.nio.file.Path> dir = settings.cacheEnabled ? Optional.of(settings.cacheDirectory != null
                ? settings.cacheDirectory.resolveSibling("rankers")
                : UserDirectories.of(settings.environment, settings.home).cache().resolve("rankers"))
                : Optional.empty();
        try {
            return Optional.of(provider.create(new ToolRankerProvider.Context(dir)));
        } catch (RuntimeException e) {
            rankerBroken = true;
            LOG.warn("The tool search ranker {} could not be made, so tool search uses words alone: {}",
                    provider.id(), e.toString());
            return Optional.empty();
        }
    }

    /** @return how long a search waits for the ranker */
    Duration rankerTimeout() {
        return settings.toolRankerTimeout;
    }

    /**
     * Ranks tools as a session's search does, with the host's ranker when it has one (the word index alone
     * otherwise): for a one-shot listing such as {@code mcp-host tools --search}. The ranker is given up to
     * {@code wait} to embed (or otherwise take) the tools first, and as long for the query (at least the host's
     * {@link Builder#toolRankerTimeout}); a definition it has seen before, in this run or an earlier one (its cache),
     * costs nothing then.
     *
     * @param tools the tools (those meant for an app's view only are left out)
     * @param query words, a tool's name, or {@code /regex/}
     * @param limit the most tools, at least 1
     * @param wait how long the ranker may take the tools first
     * @return the best matches, best first, and which ranker answered
     * @throws IllegalArgumentException for a {@code /regex/} that is invalid or too costly
     */
    public ToolSearch.Ranked searchTools(List<mcp.manager.BridgedTool> tools, String query, int limit,
            Duration wait) {
        // One query, asked by a person who already waited for the embeddings: the ranker gets as long for it.
        Duration bound = wait.compareTo(rankerTimeout()) > 0 ? wait : rankerTimeout();
        return SessionIndex.rank(tools, query, limit, newRanker(), bound, wait);
    }

    /**
     * A tool search kept between queries, over tools the caller chooses (a gateway's view, say), with the host's
     * ranker when it has one: unlike {@link #searchTools}, the index and the ranker's embeddings are kept, so only
     * what changed is indexed again.
     *
     * @return a new finder; its ranker is made at its first search
     */
    public ToolFinder toolFinder() {
        return new ToolFinder(new SessionIndex(this::newRanker, rankerTimeout()));
    }

    /** @return a builder with every default set */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Discovers configs without connecting anything.
     *
     * @return the configs, their sources, the Exa keys, the problems and the skipped servers; a hard
     *     failure of discovery itself is {@link DiscoveryResult#hardFailure}
     */
    public DiscoveryResult discover() {
        try {
            Discovery.Builder discovery = Discovery.builder()
                    .workingDirectory(settings.workingDirectory)
                    .home(settings.home)
                    .environment(settings.environment)
                    .projectConfig(settings.projectConfig)
                    .exaFilter(settings.exaFilter)
                    .filters(settings.configFilters)
                    .loadFilters(settings.serviceLoader);
            if (settings.managedPolicy != null) {
                discovery.managedPolicy(settings.managedPolicy);
            }
            if (settings.approvals != null) {
                discovery.approvals(settings.approvals);
            }
            discovery.consent(settings.consentHandler).approveProjectServers(settings.approveProjectServers)
                    .sandboxProjectServers(settings.sandboxProjectServers);
            if (settings.bubblewrap != null) {
                discovery.bubblewrap(settings.bubblewrap);
            }
            if (settings.configFile != null) {
                discovery.sources(List.of(ConfigFiles.nativeFile(settings.configFile))).loadSources(false);
            } else {
                discovery.sources(settings.capabilitySources).loadSources(settings.serviceLoader);
            }
            return discovery.build().discover();
        } catch (RuntimeException e) {
            LOG.warn("MCP discovery failed: {}", e.getMessage(), e);
            return DiscoveryResult.hardFailure(e.getMessage() == null ? e.toString() : e.getMessage());
        }
    }

    /**
     * Discovers and connects: every server in parallel, returning at the startup gate. With MCP
     * disabled nothing is discovered or started.
     *
     * @return the tools, the per-server errors, the manager and the Exa keys
     */
    public LoadResult load() {
        return whileLoading(this::loadLocked);
    }

    private LoadResult loadLocked() {
        if (!settings.mcpEnabled) {
            return disabledLoad();
        }
        DiscoveryResult discovery = discover();
        if (discovery.hardFailed()) {
            String message = discovery.problems().get(0).message();
            return new LoadResult(List.of(), Map.of(".mcp.json", message), manager, List.of(), discovery);
        }
        Map<Path, FileStamp> seen = FileStamp.of(discovery.consultedFiles());
        Map<String, String> errors = discoveryErrors(discovery);
        ConnectResult connected;
        try {
            connected = manager.connectServers(discovery.configs(), discovery.sources(), discovery.definitions());
        } catch (McpException e) {
            return new LoadResult(manager.getTools(), Map.of(".mcp.json", e.getMessage()), manager,
                    discovery.exaApiKeys(), discovery);
        } finally {
            applied = new Applied(discovery, given(discovery, Map.of(), null), seen);
        }
        errors.putAll(connected.errors());
        return new LoadResult(connected.tools(), errors, manager, discovery.exaApiKeys(), discovery);
    }

    private LoadResult disabledLoad() {
        return new LoadResult(List.of(), Map.of(), manager, List.of(), new DiscoveryResult(Map.of(), Map.of(),
                List.of(), List.of(), List.of()));
    }

    /** The servers discovery found invalid, by name: the first error of each. */
    private static Map<String, String> discoveryErrors(DiscoveryResult discovery) {
        Map<String, String> errors = new LinkedHashMap<>();
        for (DiscoveryProblem problem : discovery.problems()) {
            if (problem.severity() == DiscoveryProblem.Severity.ERROR && !problem.server().isEmpty()) {
                errors.putIfAbsent(problem.server(), problem.message());
            }
        }
        return errors;
    }

    /**
     * Reloads: disconnects every server, discovers again (with the same options, so a project config
     * switched off stays off) and connects. {@link #reloadChanged()} restarts only what changed.
     *
     * @return the new load
     */
    public LoadResult reload() {
        return whileLoading(() -> {
            manager.disconnectAll();
            return loadLocked();
        });
    }

    /**
     * Reloads what changed: discovers again with this host's options (consent handler, approvals, policies, project
     * config, filters), as {@link #load()} does, then makes the running servers exactly the ones found
     * ({@link McpManager#reconcileServers}): a server no longer configured (or no longer approved, or now blocked) is
     * stopped, one whose config or approved definition changed is restarted with the new one, a new one is started,
     * one whose connect had failed is tried again, and every other server runs on untouched, the same process and
     * the same tools. Sessions and {@link mcp.manager.ManagerListener}s hear of the tools that leave and come as they
     * do for any connect and disconnect.
     *
     * <p>A file caught half written does not cost its servers: a server whose file cannot be read or parsed now
     * ({@link ConsultedFile.State#UNREADABLE}, a problem in the discovery names the file and where) keeps running as
     * it was, and is reported in {@link ReloadResult#held()}, until a reload finds the file readable again. What
     * only decides about servers is taken as it reads: a managed policy that cannot be read blocks every server, and
     * an owning tool's settings that cannot be read approve nothing, as in a load. A discovery that fails as a whole
     * (a broken provider) changes nothing: the error is in the result, and every server runs on.
     *
     * @return the load as {@link #load()} returns it, what changed, and the servers held
     * @throws McpException if the host is closed, or another load is still running after two minutes
     */
    public ReloadResult reloadChanged() {
        return whileLoading(this::reloadChangedLocked);
    }

    private ReloadResult reloadChangedLocked() {
        if (closed) {
            throw new McpException("The MCP host is closed");
        }
        if (!settings.mcpEnabled) {
            return new ReloadResult(disabledLoad(), unchanged(List.of()), Map.of());
        }
        Applied before = applied;
        DiscoveryResult discovery = discover();
        if (discovery.hardFailed()) {
            List<String> running = before == null ? List.of() : List.copyOf(before.servers().keySet());
            return new ReloadResult(new LoadResult(manager.getTools(), Map.of(".mcp.json",
                    discovery.problems().get(0).message()), manager, List.of(), discovery), unchanged(running), Map.of());
        }
        Map<Path, FileStamp> seen = FileStamp.of(discovery.consultedFiles());
        Map<String, DiscoveryProblem> held = held(before, discovery);
        Map<String, Given> servers = given(discovery, held, before);
        Map<String, ServerConfig> configs = new LinkedHashMap<>();
        Map<String, SourceMetadata> sources = new LinkedHashMap<>();
        Map<String, String> pinKeys = new LinkedHashMap<>();
        servers.forEach((name, server) -> {
            configs.put(name, server.config());
            server.source().ifPresent(source -> sources.put(name, source));
            server.pinKey().ifPresent(key -> pinKeys.put(name, key));
        });
        Map<String, String> errors = discoveryErrors(discovery);
        ReconcileResult changes;
        try {
            changes = manager.reconcileServers(configs, sources, pinKeys);
        } catch (McpException e) {
            return new ReloadResult(new LoadResult(manager.getTools(), Map.of(".mcp.json", e.getMessage()), manager,
                    discovery.exaApiKeys(), discovery), unchanged(List.copyOf(configs.keySet())), held);
        } finally {
            applied = new Applied(discovery, servers, seen);
        }
        errors.putAll(changes.connect().errors());
        held.forEach((name, problem) -> LOG.warn("MCP server \"{}\" keeps running as it was: {}; it follows its file"
                + " again once the file reads", name, problem.describe()));
        if (changes.changedAnything()) {
            LOG.info("MCP servers reloaded: started {}, stopped {}, restarted {}, tried again {}; {} unchanged",
                    changes.added(), changes.removed(), changes.changed(), changes.retried(), changes.kept().size());
        }
        return new ReloadResult(new LoadResult(changes.connect().tools(), errors, manager, discovery.exaApiKeys(),
                discovery), changes, held);
    }

    /** What a reload that changed nothing says: these servers kept. */
    private ReconcileResult unchanged(List<String> kept) {
        return new ReconcileResult(List.of(), List.of(), List.of(), kept, List.of(),
                new ConnectResult(manager.getTools(), Map.of()));
    }

    /**
     * The servers to keep as they run although discovery did not find them again: those whose file it could not
     * read or parse this time, by name, with the problem that says why.
     */
    private static Map<String, DiscoveryProblem> held(Applied before, DiscoveryResult discovery) {
        Map<String, DiscoveryProblem> held = new LinkedHashMap<>();
        if (before == null) {
            return held;
        }
        Set<Path> unreadable = new HashSet<>();
        discovery.consultedFiles().stream().filter(file -> file.state() == ConsultedFile.State.UNREADABLE)
                .forEach(file -> unreadable.add(file.path()));
        before.servers().forEach((name, server) -> {
            Optional<Path> file = server.source().flatMap(SourceMetadata::path)
                    .map(path -> path.toAbsolutePath().normalize());
            if (file.isEmpty() || !unreadable.contains(file.get())) {
                return;
            }
            DiscoveryProblem problem = discovery.problems().stream()
                    .filter(p -> p.file().equals(file) && p.server().isEmpty()).findFirst()
                    .orElse(new DiscoveryProblem(DiscoveryProblem.Severity.WARNING, file, "", "", "cannot be read"));
            held.put(name, problem);
        });
        return held;
    }

    /** The discovery's winners, then the servers held as {@code before} gave them (winning over a new namesake). */
    private static Map<String, Given> given(DiscoveryResult discovery, Map<String, DiscoveryProblem> held,
            Applied before) {
        Map<String, Given> servers = new LinkedHashMap<>();
        discovery.configs().forEach((name, config) -> servers.put(name, new Given(config,
                Optional.ofNullable(discovery.sources().get(name)), Optional.ofNullable(discovery.definitions()
                        .get(name)))));
        held.keySet().forEach(name -> servers.put(name, before.servers().get(name)));
        return servers;
    }

    /** @return what the last load or reload applied, or null before the first */
    Applied applied() {
        return applied;
    }

    /**
     * Watches the config files of this host's latest load ({@link DiscoveryResult#consultedFiles()}) and runs
     * {@link #reloadChanged()} when they change, debounced by {@link ConfigWatcher#DEFAULT_DEBOUNCE}. See
     * {@link ConfigWatcher}.
     *
     * @param listener told of each reload the watcher ran, on the watcher's thread
     * @return the running watcher; closing the host closes it
     * @throws McpException if this host already has a watcher running, is closed, or files cannot be watched here
     */
    public ConfigWatcher watchConfigs(ConfigWatcher.Listener listener) {
        return watchConfigs(ConfigWatcher.DEFAULT_DEBOUNCE, listener);
    }

    /**
     * Watches the config files as {@link #watchConfigs(ConfigWatcher.Listener)} does.
     *
     * @param debounce how long the files must stay quiet before a reload: a burst of writes (an editor's save, an
     *     agent's {@code mcp add}) is one reload. A burst that never stops is reloaded after ten times as long
     * @param listener told of each reload the watcher ran, on the watcher's thread
     * @return the running watcher; closing the host closes it
     * @throws McpException if this host already has a watcher running, is closed, or files cannot be watched here
     */
    public synchronized ConfigWatcher watchConfigs(Duration debounce, ConfigWatcher.Listener listener) {
        Objects.requireNonNull(debounce, "debounce");
        Objects.requireNonNull(listener, "listener");
        if (closed) {
            throw new McpException("The MCP host is closed");
        }
        if (watcher != null && watcher.isRunning()) {
            throw new McpException("This MCP host already watches its configs; close that watcher first");
        }
        watcher = ConfigWatcher.start(this, debounce, listener);
        return watcher;
    }

    /** Runs a load or reload alone: never two discoveries applied at once, nor one while the host closes. */
    private <T> T whileLoading(Supplier<T> load) {
        boolean locked;
        try {
            locked = loading.tryLock(LOAD_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new McpException("Interrupted while waiting for another MCP load to finish", e);
        }
        if (!locked) {
            throw new McpException("Another MCP load or reload is still running after " + LOAD_WAIT.toSeconds()
                    + " s");
        }
        try {
            return load.get();
        } finally {
            loading.unlock();
        }
    }

    /** @return the manager that runs the servers */
    public McpManager manager() {
        return manager;
    }

    /** @return the sessions' deferred loading settings */
    ToolSearch toolSearch() {
        return settings.toolSearch;
    }

    /**
     * Opens a session: loads (discover + connect), then keeps the session's MCP tools current.
     *
     * @return the session, with the load's result in {@link ToolSession#lastLoad()}
     */
    public ToolSession openSession() {
        return ToolSession.open(this);
    }

    /**
     * Ends every server (each close bounded) and its process tree, after the config watcher, if any, and after a
     * load or reload in flight on another thread (bounded), so that nothing is started once it returns.
     */
    @Override
    public void close() {
        closed = true;
        ConfigWatcher running;
        synchronized (this) {
            running = watcher;
        }
        if (running != null) {
            running.close();
        }
        if (shutdownHook != null && Thread.currentThread() != shutdownHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException e) {
                // The JVM is shutting down: the hook runs (or ran) the same close.
            }
        }
        boolean locked = false;
        try {
            locked = loading.tryLock(LOAD_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            manager.close();
        } finally {
            if (locked) {
                loading.unlock();
            }
        }
    }

    /** Builds a {@link McpHost}. Every setting has a default; see each method. */
    public static final class Builder {
        private Path workingDirectory = Path.of("").toAbsolutePath();
        /** {@code null} until set: then {@link UserDirectories#home(Map)} of the environment, at {@link #build()}. */
        private Path home;
        private Map<String, String> environment = System.getenv();
        private boolean mcpEnabled = true;
        private boolean projectConfig = true;
        private boolean exaFilter = true;
        private boolean cacheEnabled = true;
        private Path cacheDirectory;
        private Path configFile;
        private Path managedPolicy;
        private Approvals approvals;
        private ConsentHandler consentHandler = ConsentHandler.DENY_AND_REPORT;
        private boolean approveProjectServers;
        private boolean sandboxProjectServers;
        private Path bubblewrap;
        private Duration startupGate = McpManager.DEFAULT_STARTUP_GATE;
        private Duration uncachedWait = McpManager.DEFAULT_UNCACHED_WAIT;
        private boolean serviceLoader = true;
        private final List<TransportProvider> transportProviders = new ArrayList<>();
        private final List<CapabilitySource> capabilitySources = new ArrayList<>();
        private final List<ConfigFilter> configFilters = new ArrayList<>();
        private final List<AuthResolver> authResolvers = new ArrayList<>();
        private ToolCacheProvider toolCacheProvider;
        private AuthStorage authStorage;
        private AuthorizationUi authorizationUi;
        private ElicitationUi elicitationUi;
        private Consumer<ClientOptions.Builder> clientSettings = options -> { };
        private boolean toolPinning = true;
        private ToolPins toolPins;
        private boolean strictNewTools;
        private boolean serverLogsToFiles = true;
        private ServerLogFiles serverLogFiles;
        private mcp.api.ReconnectPolicy reconnect = mcp.api.ReconnectPolicy.DEFAULT;
        private boolean lazy;
        private Duration lazyIdleTimeout = mcp.api.LazyStart.DEFAULT_IDLE_TIMEOUT;
        private mcp.api.CallLimits callLimits = mcp.api.CallLimits.NONE;
        private ToolSearch toolSearch = ToolSearch.OFF;
        private ToolRankerProvider toolRankerProvider;
        private Duration toolRankerTimeout = mcp.search.ToolIndex.DEFAULT_RANKER_TIMEOUT;
        private Path resultDirectory;
        private boolean keepResultFiles;

        private Builder() {
        }

        /** @return this, with the project directory (default: the JVM's working directory) */
        public Builder workingDirectory(Path directory) {
            this.workingDirectory = directory.toAbsolutePath().normalize();
            return this;
        }

        /**
         * @param directory the user's home directory: user-level configs are read under it and, unless the
         *     environment's XDG variables say otherwise, approvals, tool pins, server logs, the tool cache and
         *     stored credentials are kept under it (made absolute; it wins over {@code HOME} in the environment)
         * @return this (default: {@link UserDirectories#home(Map)} of this builder's {@link #environment(Map)}
         *     when built, i.e. its {@code $HOME} when that is an absolute path, else {@code user.home})
         */
        public Builder home(Path directory) {
            this.home = directory.toAbsolutePath().normalize();
            return this;
        }

        /**
         * @param env the environment for discovery, {@code ${VAR}} and secrets, and for the user's directories
         *     ({@code HOME} unless {@link #home(Path)} is set, {@code XDG_CONFIG_HOME}, {@code XDG_STATE_HOME},
         *     {@code XDG_CACHE_HOME}, {@code MCP_HOST_CREDENTIALS_DIR}; see {@link UserDirectories}), copied
         * @return this (default: the JVM's, {@link System#getenv()})
         */
        public Builder environment(Map<String, String> env) {
            this.environment = Map.copyOf(env);
            return this;
        }

        /** @return this; with {@code false} nothing is discovered or started (default {@code true}) */
        public Builder mcpEnabled(boolean enabled) {
            this.mcpEnabled = enabled;
            return this;
        }

        /** @return this; with {@code false} project-level config files are ignored (default {@code true}) */
        public Builder projectConfig(boolean enabled) {
            this.projectConfig = enabled;
            return this;
        }

        /** @return this; with {@code true} Exa servers are filtered out and their keys returned (default {@code true}) */
        public Builder exaFilter(boolean enabled) {
            this.exaFilter = enabled;
            return this;
        }

        /** @return this; with {@code false} no tool cache is read or written (default {@code true}) */
        public Builder cache(boolean enabled) {
            this.cacheEnabled = enabled;
            return this;
        }

        /**
         * @return this, keeping the tool cache in this directory (default: {@code $XDG_CACHE_HOME/mcp-host/tools} of
         *     this builder's environment, else {@code ~/.cache/mcp-host/tools} under its home)
         */
        public Builder cacheDirectory(Path directory) {
            this.cacheDirectory = directory.toAbsolutePath();
            return this;
        }

        /** @return this, reading only this file (native {@code mcpServers} format) instead of discovering */
        public Builder configFile(Path file) {
            this.configFile = file.toAbsolutePath();
            return this;
        }

        /**
         * @return this, with mcp-host's managed policy read from this file instead of the platform's
         *     ({@code /etc/mcp-host/managed-mcp.json} on Linux); the policy binds every source, {@code --config}
         *     included
         */
        public Builder managedPolicy(Path file) {
            this.managedPolicy = file.toAbsolutePath();
            return this;
        }

        /**
         * @return this, keeping the user's approvals of project servers in this store (default:
         *     {@code $XDG_STATE_HOME/mcp-host/approvals.json} of this builder's environment, else under
         *     {@code ~/.local/state})
         */
        public Builder approvals(Approvals store) {
            this.approvals = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * @param handler asked, during each load, about every project server that has no approval in its
         *     current definition: an agent asks its user in its own UI, and what is approved or denied is
         *     saved
         * @return this (default {@link ConsentHandler#DENY_AND_REPORT}: such a server does not start, and
         *     the load's {@link DiscoveryResult#skipped()} says it is pending and what changed)
         */
        public Builder consentHandler(ConsentHandler handler) {
            this.consentHandler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /**
         * @param trusted whether project servers start without an approval, for automation that trusts its
         *     checkout; nothing is saved, and denials, the owning tools' declines and the managed policy
         *     still hold
         * @return this (default {@code false})
         */
        public Builder approveProjectServers(boolean trusted) {
            this.approveProjectServers = trusted;
            return this;
        }

        /**
         * @param sandboxed whether every stdio server of a project-level file runs in a sandbox (Linux, bubblewrap):
         *     the working directory and a state directory of its own ({@code $XDG_STATE_HOME/mcp-host/sandboxes/
         *     <server>}) writable, the rest of the home and the system read-only, no network unless its own
         *     {@code sandbox} grants it; where no sandbox can be had such a server is not started, and discovery
         *     lists it as inactive with the reason (see {@code docs/sandbox.md})
         * @return this (default {@code false}: only servers that ask for a sandbox run in one)
         */
        public Builder sandboxProjectServers(boolean sandboxed) {
            this.sandboxProjectServers = sandboxed;
            return this;
        }

        /**
         * @param program the bubblewrap program that runs sandboxed servers; one that does not exist leaves every
         *     server that needs a sandbox inactive
         * @return this (default {@code bwrap} on the environment's {@code PATH})
         */
        public Builder bubblewrap(Path program) {
            this.bubblewrap = Objects.requireNonNull(program, "program");
            return this;
        }

        /** @return this, with the startup gate (default 250 ms) */
        public Builder startupGate(Duration gate) {
            this.startupGate = Objects.requireNonNull(gate, "gate");
            return this;
        }

        /**
         * @param wait how long a load waits for a server whose tools the cache does not hold (nor its pins vouch for)
         *     before it goes on without them; they come later, as a tool-list change ({@link
         *     ToolSession#onToolsChanged}). Never less than the startup gate; {@link Duration#ZERO}: no longer
         *     than the gate
         * @return this (default {@link McpManager#DEFAULT_UNCACHED_WAIT}, 10 s)
         */
        public Builder uncachedWait(Duration wait) {
            Objects.requireNonNull(wait, "wait");
            if (wait.isNegative()) {
                throw new IllegalArgumentException("the uncached wait must not be negative, got " + wait);
            }
            this.uncachedWait = wait;
            return this;
        }

        /** @return this; with {@code false} only the provider instances given here are used (default {@code true}) */
        public Builder serviceLoader(boolean enabled) {
            this.serviceLoader = enabled;
            return this;
        }

        /** @return this, with a transport provider (wins over a ServiceLoader one of the same id) */
        public Builder transportProvider(TransportProvider provider) {
            transportProviders.add(Objects.requireNonNull(provider, "provider"));
            return this;
        }

        /** @return this, with a capability source */
        public Builder capabilitySource(CapabilitySource source) {
            capabilitySources.add(Objects.requireNonNull(source, "source"));
            return this;
        }

        /** @return this, with a config filter */
        public Builder configFilter(ConfigFilter filter) {
            configFilters.add(Objects.requireNonNull(filter, "filter"));
            return this;
        }

        /** @return this, with an auth resolver (applied in the order given) */
        public Builder authResolver(AuthResolver resolver) {
            authResolvers.add(Objects.requireNonNull(resolver, "resolver"));
            return this;
        }

        /** @return this, with the tool cache provider to use instead of ServiceLoader's {@code file} */
        public Builder toolCacheProvider(ToolCacheProvider provider) {
            this.toolCacheProvider = Objects.requireNonNull(provider, "provider");
            return this;
        }

        /**
         * @param storage where stored credentials are read from (by the auth resolvers: bearer tokens
         *     of {@code auth} configs) and where the HTTP transport's OAuth client keeps what it obtains
         * @return this (default: the {@code file} store found by ServiceLoader, placed under this builder's home
         *     and environment ({@link AuthStorage#forUser}): {@code $MCP_HOST_CREDENTIALS_DIR}, else
         *     {@code $XDG_CONFIG_HOME/mcp-host/credentials}, else {@code ~/.config/mcp-host/credentials}; none
         *     when ServiceLoader is off or finds none). A store given here is placed the same way, which moves
         *     only one made for the default place ({@code AuthProviders.defaultAuthStorage()})
         */
        public Builder authStorage(AuthStorage storage) {
            this.authStorage = Objects.requireNonNull(storage, "storage");
            return this;
        }

        /**
         * @param ui how to let the user authorize a server that needs a new OAuth login (a browser)
         * @return this (default: none, so a load never opens a browser: a server that needs a new
         *     authorization fails with a message that says how to log in). Used only with an auth storage.
         */
        public Builder authorizationUi(AuthorizationUi ui) {
            this.authorizationUi = Objects.requireNonNull(ui, "ui");
            return this;
        }

        /**
         * @param ui how to ask the user what a server wants to know ({@code elicitation/create}: a form, or a URL to
         *     open), in both protocol eras; its modes are declared as every client's {@code elicitation} capability
         * @return this (default: the one {@link ElicitationUi} ServiceLoader finds, when discovery is on; with none,
         *     no capability is declared and a request that comes anyway is declined and logged at INFO; two or more
         *     found fail the build of the host with their ids). {@link #clientSettings} may still set another
         *     handler for a server.
         */
        public Builder elicitationUi(ElicitationUi ui) {
            this.elicitationUi = Objects.requireNonNull(ui, "ui");
            return this;
        }

        /** @return this, adjusting every client's options (roots, sampling/elicitation handlers, ...) */
        public Builder clientSettings(Consumer<ClientOptions.Builder> settings) {
            this.clientSettings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * @param enabled whether servers' tool definitions are pinned and a changed tool withheld from the
         *     agent until accepted ({@code mcp-host approve NAME --tools}, {@link McpManager#acceptToolChanges})
         * @return this (default {@code true})
         */
        public Builder toolPinning(boolean enabled) {
            this.toolPinning = enabled;
            return this;
        }

        /**
         * @param pins where tool definitions are pinned
         * @return this (default: {@link ToolPins#forUser} of this builder's environment and home, i.e.
         *     {@code $XDG_STATE_HOME/mcp-host/pins}, else {@code ~/.local/state/mcp-host/pins}); unused when
         *     {@linkplain #toolPinning(boolean) pinning is off}
         */
        public Builder toolPins(ToolPins pins) {
            this.toolPins = Objects.requireNonNull(pins, "pins");
            return this;
        }

        /**
         * @param enabled whether servers' log messages ({@link McpManager#serverLog}) are also written to files
         * @return this (default {@code true})
         */
        public Builder serverLogsToFiles(boolean enabled) {
            this.serverLogsToFiles = enabled;
            return this;
        }

        /**
         * @param files where servers' log messages are written
         * @return this (default: {@link ServerLogFiles#forUser} of this builder's environment and home, i.e.
         *     {@code $XDG_STATE_HOME/mcp-host/logs}, else {@code ~/.local/state/mcp-host/logs}); unused when
         *     {@linkplain #serverLogsToFiles(boolean) off}
         */
        public Builder serverLogFiles(ServerLogFiles files) {
            this.serverLogFiles = Objects.requireNonNull(files, "files");
            return this;
        }

        /**
         * @param strict whether a tool not pinned before (new or renamed) is withheld until accepted too
         * @return this (default {@code false}: new tools are exposed, reported and pinned)
         */
        public Builder strictNewTools(boolean strict) {
            this.strictNewTools = strict;
            return this;
        }

        /**
         * @param policy how a server whose connection closes by itself (process exit, a transport that closes on a failure)
         *     is started again, and how often a first connect that failed for a passing reason is tried again
         *     ({@link mcp.api.ReconnectPolicy#startupRetries()}), unless its config sets its own ({@code reconnect}
         *     in the native format); {@link mcp.api.ReconnectPolicy#OFF} for never
         * @return this (default {@link mcp.api.ReconnectPolicy#DEFAULT}: 5 attempts, 500 ms doubling to 30 s, 20 %
         *     jitter, a death within 10 s of a reconnect is a crash loop; 3 retries of a first connect)
         */
        public Builder reconnect(mcp.api.ReconnectPolicy policy) {
            this.reconnect = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * Makes every server lazy, as if its entry said {@code "lazy": true}: a load starts none of them (only those
         * approved are ever started, as always); their cached tools are listed and searchable, the first call of one
         * starts its server (the call waiting for it within its connect bound), and a server idle for
         * {@link #lazyIdleTimeout} is stopped again. A server nothing is cached of is started once to fill the cache,
         * then stopped. See {@code docs/embedding.md}.
         *
         * @param all whether every server is lazy
         * @return this (default {@code false}: only the servers whose entry says {@code lazy})
         */
        public Builder lazy(boolean all) {
            this.lazy = all;
            return this;
        }

        /**
         * @param idle how long a lazy server whose entry sets no {@code lazy.idleTimeout} may be idle (no request in
         *     flight, none for that long, no resource subscribed) before it is stopped
         * @return this (default {@link mcp.api.LazyStart#DEFAULT_IDLE_TIMEOUT}: 10 minutes)
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
         * Deferred loading of the sessions' tools ({@link ToolSearch}): off by default; on, or automatic above a
         * share of a stated context window, the agent gets the search tool instead of every MCP definition.
         *
         * @param settings when and how
         * @return this
         */
        public Builder toolSearch(ToolSearch settings) {
            this.toolSearch = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * A second ranking for tool search, fused with the word index's (docs/tool-search.md): an embedding model,
         * say. Without one, the provider ServiceLoader finds is used (such as module {@code mcp.search.embeddings}'s
         * when it is on the module or class path), unless {@link #serviceLoader(boolean)} is off; without any, the
         * words rank alone.
         *
         * @param provider the provider; its rankers are made per session, when the session first searches
         * @return this
         */
        public Builder toolRanker(ToolRankerProvider provider) {
            this.toolRankerProvider = Objects.requireNonNull(provider, "provider");
            return this;
        }

        /**
         * @param timeout how long a search waits for the ranker before the words answer alone, more than zero
         * @return this (default {@link mcp.search.ToolIndex#DEFAULT_RANKER_TIMEOUT}, 50 ms)
         */
        public Builder toolRankerTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("the ranker timeout must be more than zero, got " + timeout);
            }
            this.toolRankerTimeout = timeout;
            return this;
        }

        /**
         * @param limits the idle timeout, the absolute cap and the reset on progress of every server's tool calls,
         *     unless its config sets its own ({@code idleTimeout}, {@code maxTotalTimeout},
         *     {@code resetTimeoutOnProgress} in the native format) or the call does (docs/long-calls.md)
         * @return this (default {@link mcp.api.CallLimits#NONE}: no idle timeout; the cap is the tool-call timeout, or
         *     ten times it when the timeout restarts on progress; no reset)
         */
        public Builder callLimits(mcp.api.CallLimits limits) {
            this.callLimits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * @param parent where the session's directory of results too large for the agent's context is made
         *     ({@code mcp-host-results-<random>}, owner-only; see docs/context-budget.md)
         * @return this (default: {@code java.io.tmpdir})
         */
        public Builder resultDirectory(Path parent) {
            this.resultDirectory = Objects.requireNonNull(parent, "parent");
            return this;
        }

        /**
         * @param keep whether closing the host (or its session) leaves the results saved for being too large
         * @return this (default {@code false}: they are removed with their directory)
         */
        public Builder keepResultFiles(boolean keep) {
            this.keepResultFiles = keep;
            return this;
        }

        /**
         * @return the host; nothing is discovered or started until {@link McpHost#load()}
         * @throws mcp.api.ProviderException if a needed provider is missing or two share an id
         */
        public McpHost build() {
            // A snapshot: reusing this builder afterwards never changes the host built here.
            return new McpHost(copy());
        }

        private Builder copy() {
            Builder copy = new Builder();
            copy.workingDirectory = workingDirectory;
            copy.environment = environment;
            // Decided here, not in home(): an environment set after the home default still moves it.
            copy.home = home != null ? home : UserDirectories.home(environment);
            copy.mcpEnabled = mcpEnabled;
            copy.projectConfig = projectConfig;
            copy.exaFilter = exaFilter;
            copy.cacheEnabled = cacheEnabled;
            copy.cacheDirectory = cacheDirectory;
            copy.configFile = configFile;
            copy.managedPolicy = managedPolicy;
            copy.approvals = approvals;
            copy.consentHandler = consentHandler;
            copy.approveProjectServers = approveProjectServers;
            copy.sandboxProjectServers = sandboxProjectServers;
            copy.bubblewrap = bubblewrap;
            copy.startupGate = startupGate;
            copy.uncachedWait = uncachedWait;
            copy.serviceLoader = serviceLoader;
            copy.transportProviders.addAll(transportProviders);
            copy.capabilitySources.addAll(capabilitySources);
            copy.configFilters.addAll(configFilters);
            copy.authResolvers.addAll(authResolvers);
            copy.toolCacheProvider = toolCacheProvider;
            copy.authStorage = authStorage;
            copy.authorizationUi = authorizationUi;
            copy.elicitationUi = elicitationUi;
            copy.clientSettings = clientSettings;
            copy.toolPinning = toolPinning;
            copy.toolPins = toolPins;
            copy.strictNewTools = strictNewTools;
            copy.serverLogsToFiles = serverLogsToFiles;
            copy.serverLogFiles = serverLogFiles;
            copy.reconnect = reconnect;
            copy.callLimits = callLimits;
            copy.toolSearch = toolSearch;
            copy.toolRankerProvider = toolRankerProvider;
            copy.toolRankerTimeout = toolRankerTimeout;
            copy.resultDirectory = resultDirectory;
            copy.keepResultFiles = keepResultFiles;
            return copy;
        }
    }
}
