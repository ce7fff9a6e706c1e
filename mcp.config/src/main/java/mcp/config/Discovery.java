package mcp.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import mcp.api.ApprovalState;
import mcp.api.ConsultedFile;
import mcp.api.OwnerState;
import mcp.api.PendingServer;
import mcp.api.ProviderException;
import mcp.api.Sandbox;
import mcp.api.ServerConfig;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;
import mcp.api.StdioServerConfig;
import mcp.api.UserDirectories;
import mcp.api.spi.CapabilitySource;
import mcp.api.spi.ConfigFilter;
import mcp.api.spi.ConsentHandler;
import mcp.api.spi.Providers;
import mcp.config.internal.EnabledFilter;
import mcp.config.internal.ExaFilter;
import mcp.config.internal.Expansion;
import mcp.config.internal.ProjectFilter;
import mcp.config.internal.SandboxProbe;
import mcp.config.internal.SelfReference;
import mcp.config.internal.Validation;
import mcp.config.internal.sources.ManagedPolicy;
import mcp.consent.Approvals;
import mcp.consent.ServerDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects MCP server configs from every capability source and merges them (SPEC §3).
 *
 * <p>{@link #discover()} works in this order:
 * <ol>
 *   <li><b>Sources.</b> The explicit sources, then (unless {@link Builder#loadSources(boolean)} is off)
 *       those {@link java.util.ServiceLoader} finds. They are ordered by {@link CapabilitySource#priority()},
 *       highest first; sources of equal priority keep the <em>provider order</em>: explicit ones first,
 *       in the order given, then ServiceLoader's order. Two sources with one id fail discovery as a
 *       whole ({@link DiscoveryResult#hardFailure(String)}).</li>
 *   <li><b>Reading.</b> Each source is asked for its entries. A source that throws becomes one warning
 *       and the others go on; the problems a source reports become warnings.</li>
 *   <li><b>Per entry</b>, in source order and then the source's own order: {@code ${VAR}} expansion
 *       (see {@code mcp.config.internal.Expansion}), then every filter in id order (a filter that throws
 *       is a warning and the entry is kept), then the check that the entry is not mcp-host's own gateway
 *       ({@code mcp-host serve}, directly or through a wrapper: {@link SkippedServer.Reason#SELF}), then
 *       validation. Warnings about unset variables are reported only for entries that no filter dropped.</li>
 *   <li><b>Merging.</b> Only then are entries de-duplicated by name (case-sensitive): the first valid
 *       entry wins whole, without field merging; later valid entries of that name are
 *       {@link SkippedServer.Reason#SHADOWED}. An invalid or filtered entry therefore never hides a
 *       valid one. An invalid entry is one {@link DiscoveryProblem.Severity#ERROR} problem and
 *       {@link SkippedServer.Reason#INVALID}.</li>
 *   <li><b>Sandbox.</b> A would-be winner that must run in a sandbox (its own {@code sandbox} or VS Code's
 *       {@code sandboxEnabled}; with {@link Builder#sandboxProjectServers(boolean)}, every stdio server of a
 *       project-level file) gets it only if one can be had here (Linux, bubblewrap, a probe run of it, rules it can
 *       enforce); otherwise it is {@link SkippedServer.Reason#NO_SANDBOX}, never started without it, and hides no
 *       other entry of its name.</li>
 *   <li><b>Approval.</b> A would-be winner from a project-level file needs mcp-host's approval of its
 *       definition as written ({@link Builder#approvals(Approvals)}); without one the
 *       {@link Builder#consent(ConsentHandler) consent handler} is asked, and an entry still not approved
 *       is {@link SkippedServer.Reason#NOT_APPROVED} and hides no other entry of its name. The owning
 *       tool's decline and the managed policy came before: no approval overrides them.</li>
 * </ol>
 *
 * <p>A {@code Discovery} is immutable and can be run again (a reload) and from several threads, as
 * far as its sources and filters allow (the SPI asks them to be thread-safe). It logs at DEBUG what it
 * finds, with server names and sources, never env or header values.
 */
public final class Discovery {

    private static final Logger LOG = LoggerFactory.getLogger(Discovery.class);

    private final Path workingDirectory;
    private final Path home;
    private final Map<String, String> environment;
    private final Map<String, Boolean> options;
    private final List<CapabilitySource> explicitSources;
    private final List<ConfigFilter> explicitFilters;
    private final boolean loadSources;
    private final boolean loadFilters;
    private final Path managedPolicy;
    private final Approvals approvals;
    private final ConsentHandler consent;
    private final boolean approveProjectServers;
    private final boolean sandboxProjectServers;
    private final Optional<Path> bubblewrap;

    private Discovery(Builder b) {
        this.workingDirectory = b.workingDirectory;
        this.home = b.home;
        this.environment = b.environment;
        this.options = Map.of(ProjectFilter.OPTION, b.projectConfig, ExaFilter.OPTION, b.exaFilter);
        this.explicitSources = b.sources;
        this.explicitFilters = b.filters;
        this.loadSources = b.loadSources;
        this.loadFilters = b.loadFilters;
        this.managedPolicy = b.managedPolicy;
        this.approvals = b.approvals;
        this.consent = b.consent;
        this.approveProjectServers = b.approveProjectServers;
        this.sandboxProjectServers = b.sandboxProjectServers;
        this.bubblewrap = Optional.ofNullable(b.bubblewrap);
    }

    /** @return where the approvals of project servers are kept */
    public Approvals approvals() {
        return approvals;
    }

    /** @return a builder with every setting at its default */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Runs discovery. Never throws for bad input: unreadable files, failing sources or filters and
     * invalid servers are problems in the result. A hard failure of discovery itself (a provider that
     * cannot be loaded, two providers with one id, an unexpected failure) gives
     * {@link DiscoveryResult#hardFailure(String)}.
     *
     * @return what was found
     */
    public DiscoveryResult discover() {
        try {
            return new Run().execute();
        } catch (ProviderException e) {
            LOG.warn("MCP discovery failed: {}", e.getMessage());
            return DiscoveryResult.hardFailure(e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("MCP discovery failed", e);
            return DiscoveryResult.hardFailure("Discovery failed: " + describe(e));
        }
    }

    private static String describe(Throwable e) {
        return e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** The state of one {@link #discover()} call; thrown away afterwards. */
    private final class Run {
        private final Map<String, ServerConfig> configs = new LinkedHashMap<>();
        private final Map<String, SourceMetadata> sources = new LinkedHashMap<>();
        private final Map<String, OwnerState> owners = new LinkedHashMap<>();
        private final Map<String, ApprovalState> approvalStates = new LinkedHashMap<>();
        private final Map<String, String> definitions = new LinkedHashMap<>();
        private final Set<String> exaApiKeys = new LinkedHashSet<>();
        private final List<DiscoveryProblem> problems = new ArrayList<>();
        private final List<SkippedServer> skipped = new ArrayList<>();
        /** What every source, the policy and the approvals consulted, by path, in the order first consulted. */
        private final Map<Path, ConsultedFile> consulted = new LinkedHashMap<>();

        /** The administrator's policy: it binds every source, and no builder setting turns it off. */
        private ManagedPolicy policy;
        /** The approvals as they were when this discovery began; read on the first project-level entry. */
        private Approvals.Snapshot approved;
        /** Whether a sandbox can be had here; probed on the first entry that needs one. */
        private SandboxProbe.Verdict sandboxVerdict;

        DiscoveryResult execute() {
            ManagedPolicy.Read read = ManagedPolicy.read(managedPolicy, environment);
            policy = read.policy();
            read.consultedFiles().forEach(this::consulted);
            for (CapabilitySource.Problem p : read.problems()) {
                problems.add(new DiscoveryProblem(policy.broken() ? DiscoveryProblem.Severity.ERROR
                        : DiscoveryProblem.Severity.WARNING, Optional.of(p.file()), p.location(), p.server(), p.message()));
            }
            List<CapabilitySource> orderedSources = new ArrayList<>();
            orderedSources.add(policy.source());
            orderedSources.addAll(orderedSources());
            List<ConfigFilter> orderedFilters = orderedFilters();
            LOG.debug("MCP discovery in {}: sources {}, filters {}", workingDirectory,
                    orderedSources.stream().map(CapabilitySource::id).toList(),
                    orderedFilters.stream().map(ConfigFilter::id).toList());
            CapabilitySource.Context context = new CapabilitySource.Context(workingDirectory, home, environment);
            for (CapabilitySource source : orderedSources) {
                for (ServerSpec spec : read(source, context)) {
                    process(spec, orderedFilters);
                }
            }
            LOG.debug("MCP discovery done: {} servers {}, {} skipped, {} problems", configs.size(), configs.keySet(),
                    skipped.size(), problems.size());
            return new DiscoveryResult(configs, sources, new ArrayList<>(exaApiKeys), problems, skipped, owners,
                    approvalStates, definitions, new ArrayList<>(consulted.values()));
        }

        private void consulted(ConsultedFile file) {
            consulted.merge(file.path(), file, ConsultedFile::merge);
        }

        /** Explicit first, then ServiceLoader's; by priority, highest first; a stable sort keeps that order on ties. */
        private List<CapabilitySource> orderedSources() {
            List<CapabilitySource> all = new ArrayList<>(explicitSources);
            if (loadSources) {
                all.addAll(Providers.load(CapabilitySource.class, Discovery.class.getClassLoader()));
            }
            Providers.byId(CapabilitySource.class, all, CapabilitySource::id); // throws on a duplicate id
            // Ask each source for its priority once, so a source cannot change its place mid-sort.
            Map<CapabilitySource, Integer> priority = new IdentityHashMap<>();
            all.forEach(s -> priority.put(s, s.priority()));
            all.sort(Comparator.comparing((CapabilitySource s) -> priority.get(s)).reversed());
            return all;
        }

        /** Explicit and ServiceLoader's filters, in id order: deterministic whatever the module path order. */
        private List<ConfigFilter> orderedFilters() {
            List<ConfigFilter> all = new ArrayList<>(explicitFilters);
            if (loadFilters) {
                all.addAll(Providers.load(ConfigFilter.class, Discovery.class.getClassLoader()));
            }
            List<ConfigFilter> ordered = new ArrayList<>(Providers.byId(ConfigFilter.class, all, ConfigFilter::id)
                    .values());
            ordered.sort(Comparator.comparing(ConfigFilter::id));
            return ordered;
        }

        /** One source's entries; its failure and its problems become warnings. */
        private List<ServerSpec> read(CapabilitySource source, CapabilitySource.Context context) {
            CapabilitySource.Result result;
            try {
                result = source.discover(context);
                if (result == null) {
                    throw new IllegalStateException("it returned no result");
                }
            } catch (RuntimeException e) {
                LOG.debug("Capability source {} failed", source.id(), e);
                problems.add(new DiscoveryProblem(DiscoveryProblem.Severity.WARNING, Optional.empty(), "", "",
                        "Capability source \"" + source.id() + "\" failed: " + describe(e)));
                return List.of();
            }
            LOG.debug("Capability source {} ({}) found {} servers and {} problems", source.id(),
                    source.displayName(), result.servers().size(), result.problems().size());
            result.consultedFiles().forEach(this::consulted);
            for (CapabilitySource.Problem p : result.problems()) {
                problems.add(new DiscoveryProblem(DiscoveryProblem.Severity.WARNING, Optional.of(p.file()),
                        p.location(), p.server(), p.message()));
            }
            // Never expanded, filtered or validated: such an entry is not ours to start, whatever it says.
            for (CapabilitySource.Inactive inactive : result.inactive()) {
                skip(inactive.server(), SkippedServer.Reason.NOT_CONSENTED, inactive.reason());
            }
            return result.servers();
        }

        /** Expansion, filters, validation, de-duplication of one entry; every entry ends in configs or skipped. */
        private void process(ServerSpec asWritten, List<ConfigFilter> filters) {
            ServerSpec spec = asWritten;
            try {
                Expansion.Expanded expanded = Expansion.expand(asWritten, environment);
                spec = expanded.spec();
                for (ConfigFilter filter : filters) {
                    Optional<ServerSpec> kept = applyFilter(filter, spec);
                    if (kept.isEmpty()) {
                        return;
                    }
                    spec = kept.get();
                }
                // Not a filter: a host without ServiceLoader discovery must not connect to itself either.
                Optional<String> self = SelfReference.of(spec);
                if (self.isPresent()) {
                    skip(spec, SkippedServer.Reason.SELF, self.get());
                    return;
                }
                Optional<OwnerState> blocked = policy.decide(spec);
                if (blocked.isPresent()) {
                    skip(spec.withOwner(blocked.get()), SkippedServer.Reason.NOT_CONSENTED, blocked.get().reason());
                    return;
                }
                // Only now: a dropped entry's unset variables are nobody's concern.
                for (Expansion.Unset unset : expanded.unset()) {
                    warn(spec, unset.message(spec.name()));
                }
                Validation.Result validation = Validation.toConfig(spec);
                if (!validation.valid()) {
                    invalid(spec, validation.joinedErrors());
                    return;
                }
                merge(spec, validation.config().orElseThrow(), ServerDefinition.of(asWritten));
            } catch (RuntimeException e) {
                // A fault of discovery itself on one odd entry must not cost the other servers.
                LOG.warn("MCP discovery could not process server {} from {}", spec.name(), spec.source().providerId(), e);
                invalid(spec, "Server \"" + spec.name() + "\": could not be processed: " + describe(e));
            }
        }

        /** @return the entry to go on with, or empty when the filter dropped it (already recorded) */
        private Optional<ServerSpec> applyFilter(ConfigFilter filter, ServerSpec spec) {
            FilterContext context = new FilterContext();
            ConfigFilter.Decision decision;
            try {
                decision = filter.apply(spec, context);
                if (decision == null) {
                    throw new IllegalStateException("it returned no decision");
                }
            } catch (RuntimeException e) {
                LOG.debug("Config filter {} failed on server {} from {}", filter.id(), spec.name(),
                        spec.source().providerId(), e);
                warn(spec, "Config filter \"" + filter.id() + "\" failed on server \"" + spec.name() + "\": "
                        + describe(e) + "; the server is kept");
                return Optional.of(spec);
            }
            // Extracted values count only from a filter that finished.
            exaApiKeys.addAll(context.exaApiKeys);
            if (decision.kept().isPresent()) {
                return decision.kept();
            }
            String reason = decision.reason().isBlank() ? "dropped" : decision.reason();
            if (filter instanceof EnabledFilter) {
                skip(spec, SkippedServer.Reason.DISABLED, reason);
            } else if (filter instanceof ProjectFilter) {
                skip(spec, SkippedServer.Reason.PROJECT_CONFIG_OFF, reason);
            } else if (filter instanceof ExaFilter) {
                skip(spec, SkippedServer.Reason.EXA, reason);
            } else {
                skip(spec, SkippedServer.Reason.FILTERED, "filter \"" + filter.id() + "\": " + reason);
            }
            return Optional.empty();
        }

        private void merge(ServerSpec spec, ServerConfig config, ServerDefinition definition) {
            SourceMetadata winner = sources.get(spec.name());
            if (winner != null) {
                skip(spec, SkippedServer.Reason.SHADOWED, "shadowed by the entry from " + winner.providerName()
                        + winner.path().map(p -> " (" + p + ")").orElse(""));
                return;
            }
            Optional<Sandbox> sandbox = sandboxOf(spec, config);
            if (sandbox.isPresent()) {
                Optional<String> problem = sandbox.get().unenforceable();
                if (problem.isEmpty()) {
                    if (sandboxVerdict == null) {
                        sandboxVerdict = SandboxProbe.check(bubblewrap, environment);
                    }
                    problem = sandboxVerdict.problem();
                }
                if (problem.isPresent()) {
                    skip(spec, SkippedServer.Reason.NO_SANDBOX, "must run in a sandbox, and none can be had: "
                            + problem.get() + "; it is not started without one (see docs/sandbox.md)");
                    return;
                }
            }
            Optional<ApprovalState> approval = approval(spec, definition);
            if (approval.isPresent() && !approval.get().startsServer()) {
                skipped.add(new SkippedServer(spec.name(), spec.source(), spec.location(),
                        SkippedServer.Reason.NOT_APPROVED, approval.get().reason(), spec.owner(), approval));
                LOG.debug("Server {} from {} not started: {}", spec.name(), spec.source().providerId(),
                        approval.get().reason());
                return;
            }
            if (sandbox.isPresent()) {
                config = stateOf(spec, (StdioServerConfig) config).withSandbox(Optional.of(sandbox.get()
                        .withBubblewrap(sandboxVerdict.program().orElseThrow())));
            }
            configs.put(spec.name(), config);
            sources.put(spec.name(), spec.source());
            definitions.put(spec.name(), definition.hash());
            approval.ifPresent(state -> approvalStates.put(spec.name(), state));
            spec.owner().ifPresent(owner -> owners.put(spec.name(), owner));
            LOG.debug("Server {} [{}] from {} ({}){}", spec.name(), config.type(), spec.source().providerName(),
                    spec.source().level(), spec.source().path().map(p -> " " + p).orElse(""));
        }

        /**
         * The sandbox a stdio server runs in: its own, and for a project-level server under
         * {@link Builder#sandboxProjectServers(boolean)} the host's rule besides (the project directory and the
         * server's own state directory writable); {@code ~} expanded with the discovery's home.
         */
        private Optional<Sandbox> sandboxOf(ServerSpec spec, ServerConfig config) {
            if (!(config instanceof StdioServerConfig stdio)) {
                return Optional.empty();
            }
            boolean policy = sandboxProjectServers && spec.source().level() == SourceMetadata.Level.PROJECT;
            if (stdio.sandbox().isEmpty() && !policy) {
                return Optional.empty();
            }
            Sandbox rules = stdio.sandbox().orElse(Sandbox.DEFAULT);
            if (policy) {
                rules = rules.with(new Sandbox(new Sandbox.Filesystem(List.of(workingDirectory.toString(),
                        stateDirectory(spec.name()).toString()), List.of(), List.of()), Sandbox.Network.NONE));
            }
            return Optional.of(new Sandbox(new Sandbox.Filesystem(home(rules.filesystem().allowWrite()),
                    home(rules.filesystem().denyRead()), home(rules.filesystem().denyWrite())), rules.network(),
                    rules.bubblewrap()));
        }

        private List<String> home(List<String> paths) {
            return paths.stream().map(path -> path.equals("~") ? home.toString()
                    : path.startsWith("~/") ? home.resolve(path.substring(2)).toString() : path).toList();
        }

        /** Where a sandboxed project server keeps its own state: its only writable place under the home. */
        private Path stateDirectory(String server) {
            return UserDirectories.of(environment, home).state().resolve("sandboxes").resolve(server);
        }

        /**
         * Under the host's rule for project servers, the server's own state directory, created, and its
         * {@code XDG_STATE_HOME}, {@code XDG_CACHE_HOME} and {@code XDG_DATA_HOME} pointing into it unless the
         * entry sets them: programs that follow those variables then write where the sandbox lets them.
         */
        private StdioServerConfig stateOf(ServerSpec spec, StdioServerConfig config) {
            if (!(sandboxProjectServers && spec.source().level() == SourceMetadata.Level.PROJECT)) {
                return config;
            }
            Path state = stateDirectory(spec.name());
            Map<String, String> env = new LinkedHashMap<>(config.env());
            try {
                for (String part : List.of("state", "cache", "data")) {
                    Files.createDirectories(state.resolve(part));
                }
                env.putIfAbsent("XDG_STATE_HOME", state.resolve("state").toString());
                env.putIfAbsent("XDG_CACHE_HOME", state.resolve("cache").toString());
                env.putIfAbsent("XDG_DATA_HOME", state.resolve("data").toString());
            } catch (IOException | RuntimeException e) {
                warn(spec, "Server \"" + spec.name() + "\": its state directory " + state + " cannot be created ("
                        + e.getMessage() + "); it runs with nothing writable in the home");
            }
            return config.withEnv(env);
        }

        /**
         * mcp-host's approval of an entry from a project-level file: the stored decision about this
         * definition, else the consent handler's; empty for the entries that need none.
         */
        private Optional<ApprovalState> approval(ServerSpec spec, ServerDefinition definition) {
            if (spec.source().level() != SourceMetadata.Level.PROJECT) {
                return Optional.empty();
            }
            if (approved == null) {
                approved = approvals.snapshot();
                // An approval given meanwhile (`mcp-host approve`) starts the server at the next reload.
                consulted(new ConsultedFile(approvals.file(), approved.problem().isPresent()
                        ? ConsultedFile.State.UNREADABLE : Files.exists(approvals.file())
                        ? ConsultedFile.State.READ : ConsultedFile.State.MISSING));
                approved.problem().ifPresent(problem -> problems.add(new DiscoveryProblem(
                        DiscoveryProblem.Severity.ERROR, Optional.of(approvals.file()), "", "",
                        "mcp-host's approvals could not be read, so no project server is approved: " + problem)));
            }
            Path file = spec.source().path().orElse(workingDirectory);
            ApprovalState state = approved.stateOf(file, spec.name(), definition);
            if (state.startsServer() || state.kind() == ApprovalState.Kind.DENIED) {
                return Optional.of(state);
            }
            if (approved.problem().isPresent()) {
                return Optional.of(state); // fail closed: nothing is approved, not even for this run
            }
            if (approveProjectServers) {
                return Optional.of(new ApprovalState(ApprovalState.Kind.TRUSTED_CHECKOUT, state.definitionHash(),
                        state.definition(), state.changes(), "started without approval: the checkout is trusted"
                        + " (--approve-project-servers)"));
            }
            ConsentHandler.Decision decision;
            try {
                decision = consent.decide(new PendingServer(spec.name(), spec.source(), spec.location(), state));
            } catch (RuntimeException e) {
                LOG.warn("The consent handler failed on MCP server {}; it stays pending", spec.name(), e);
                decision = ConsentHandler.Decision.LEAVE_PENDING;
            }
            if (decision == null || decision == ConsentHandler.Decision.LEAVE_PENDING) {
                return Optional.of(state);
            }
            try {
                if (decision == ConsentHandler.Decision.APPROVE) {
                    approvals.approve(file, spec.name(), definition);
                    return Optional.of(new ApprovalState(ApprovalState.Kind.APPROVED, state.definitionHash(),
                            state.definition(), List.of(), "approved in mcp-host just now"));
                }
                approvals.deny(file, spec.name(), definition);
                return Optional.of(new ApprovalState(ApprovalState.Kind.DENIED, state.definitionHash(),
                        state.definition(), List.of(), "denied in mcp-host just now: run `mcp-host approve "
                        + spec.name() + "` to allow it"));
            } catch (IOException e) {
                warn(spec, "Server \"" + spec.name() + "\": the decision could not be saved: " + e.getMessage());
                // An approval that cannot be kept still holds for this run; a denial too.
                return Optional.of(new ApprovalState(decision == ConsentHandler.Decision.APPROVE
                        ? ApprovalState.Kind.APPROVED : ApprovalState.Kind.DENIED, state.definitionHash(),
                        state.definition(), List.of(), "decided in mcp-host just now, not saved: " + e.getMessage()));
            }
        }

        private void invalid(ServerSpec spec, String messages) {
            problems.add(new DiscoveryProblem(DiscoveryProblem.Severity.ERROR, spec.source().path(), spec.location(),
                    spec.name(), messages));
            skip(spec, SkippedServer.Reason.INVALID, messages);
        }

        private void skip(ServerSpec spec, SkippedServer.Reason reason, String detail) {
            skipped.add(new SkippedServer(spec.name(), spec.source(), spec.location(), reason, detail, spec.owner()));
            LOG.debug("Server {} from {} skipped ({}): {}", spec.name(), spec.source().providerId(), reason, detail);
        }

        private void warn(ServerSpec spec, String message) {
            problems.add(new DiscoveryProblem(DiscoveryProblem.Severity.WARNING, spec.source().path(), spec.location(),
                    spec.name(), message));
        }
    }

    /** What one filter call sees: the options, and a buffer for what it extracts. */
    private final class FilterContext implements ConfigFilter.Context {
        private final List<String> exaApiKeys = new ArrayList<>();

        @Override
        public boolean option(String name, boolean defaultValue) {
            return options.getOrDefault(name, defaultValue);
        }

        @Override
        public void extract(String kind, String value) {
            if (ExaFilter.EXTRACT_KIND.equals(kind) && value != null && !value.isBlank()) {
                exaApiKeys.add(value);
            } else {
                // Never the value: it is a secret.
                LOG.debug("A config filter extracted a value of kind {}, which discovery does not use", kind);
            }
        }
    }

    /**
     * Settings of a {@link Discovery}. Every setting has a default; {@link #build()} can be called at once.
     */
    public static final class Builder {
        private Path workingDirectory;
        private Path home;
        private Map<String, String> environment;
        private boolean projectConfig = true;
        private boolean exaFilter = true;
        private List<CapabilitySource> sources = List.of();
        private List<ConfigFilter> filters = List.of();
        private boolean loadSources = true;
        private boolean loadFilters = true;
        private Path managedPolicy;
        private Approvals approvals;
        private ConsentHandler consent = ConsentHandler.DENY_AND_REPORT;
        private boolean approveProjectServers;
        private boolean sandboxProjectServers;
        private Path bubblewrap;

        private Builder() {
        }

        /**
         * @param sandboxed whether every stdio server of a project-level file runs in a sandbox: its own rules, if
         *     it has some, plus the project directory (the working directory) and a state directory of its own
         *     ({@code $XDG_STATE_HOME/mcp-host/sandboxes/<server>}) writable, the rest of the home and the system
         *     read-only, no network unless its rules grant it; where no sandbox can be had such a server is
         *     {@link SkippedServer.Reason#NO_SANDBOX}; default {@code false}
         * @return this builder
         */
        public Builder sandboxProjectServers(boolean sandboxed) {
            this.sandboxProjectServers = sandboxed;
            return this;
        }

        /**
         * @param program the bubblewrap program that runs sandboxed servers; default {@code bwrap} on the
         *     environment's {@code PATH}. A program that does not exist makes every server that needs a sandbox
         *     {@link SkippedServer.Reason#NO_SANDBOX}
         * @return this builder
         */
        public Builder bubblewrap(Path program) {
            this.bubblewrap = Objects.requireNonNull(program, "program");
            return this;
        }

        /**
         * @param store where mcp-host keeps the user's approvals of project servers; default
         *     {@link Approvals#forUser(Map, Path)} of this builder's environment and home
         * @return this builder
         */
        public Builder approvals(Approvals store) {
            this.approvals = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * @param handler asked about each project server that is not approved in its current definition
         *     (and not denied); what it approves or denies is saved; default
         *     {@link ConsentHandler#DENY_AND_REPORT}
         * @return this builder
         */
        public Builder consent(ConsentHandler handler) {
            this.consent = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /**
         * @param trusted whether every project server that is not denied starts without an approval, for
         *     automation that trusts its checkout (nothing is saved); the owning tools' declines and the
         *     managed policy still hold; default {@code false}
         * @return this builder
         */
        public Builder approveProjectServers(boolean trusted) {
            this.approveProjectServers = trusted;
            return this;
        }

        /**
         * @param dir the project's working directory, where project-level files are looked for
         *     (made absolute); default: the JVM's working directory ({@code user.dir})
         * @return this builder
         */
        public Builder workingDirectory(Path dir) {
            this.workingDirectory = Objects.requireNonNull(dir, "dir");
            return this;
        }

        /**
         * @param home the user's home directory, where user-level files are looked for (made
         *     absolute); default: {@link UserDirectories#home(Map)} of the environment, i.e. its {@code HOME}
         *     when that is an absolute path, else {@code user.home}
         * @return this builder
         */
        public Builder home(Path home) {
            this.home = Objects.requireNonNull(home, "home");
            return this;
        }

        /**
         * @param env the environment variables, for sources and {@code ${VAR}} expansion (copied);
         *     default: {@link System#getenv()} as it is at {@link #build()}
         * @return this builder
         */
        public Builder environment(Map<String, String> env) {
            this.environment = Map.copyOf(Objects.requireNonNull(env, "env"));
            return this;
        }

        /**
         * @param enabled whether project-level files are used (filter option {@code projectConfig});
         *     default {@code true}
         * @return this builder
         */
        public Builder projectConfig(boolean enabled) {
            this.projectConfig = enabled;
            return this;
        }

        /**
         * @param enabled whether Exa servers are dropped and their API keys returned (filter option
         *     {@code exaFilter}); default {@code true}
         * @return this builder
         */
        public Builder exaFilter(boolean enabled) {
            this.exaFilter = enabled;
            return this;
        }

        /**
         * @param sources source instances to use, in addition to ServiceLoader's unless
         *     {@link #loadSources(boolean)} is off; among sources of equal priority these come first,
         *     in this order; default none
         * @return this builder
         */
        public Builder sources(List<CapabilitySource> sources) {
            this.sources = List.copyOf(Objects.requireNonNull(sources, "sources"));
            return this;
        }

        /**
         * @param filters filter instances to use, in addition to ServiceLoader's unless
         *     {@link #loadFilters(boolean)} is off; all filters run in id order; default none
         * @return this builder
         */
        public Builder filters(List<ConfigFilter> filters) {
            this.filters = List.copyOf(Objects.requireNonNull(filters, "filters"));
            return this;
        }

        /**
         * @param file mcp-host's managed policy file, instead of the platform's
         *     ({@code /etc/mcp-host/managed-mcp.json} on Linux): for tests, and for an embedder that keeps its
         *     administrator's policy elsewhere
         * @return this builder
         */
        public Builder managedPolicy(Path file) {
            this.managedPolicy = Objects.requireNonNull(file, "file");
            return this;
        }

        /**
         * @param useServiceLoader whether to add the capability sources {@link java.util.ServiceLoader}
         *     finds (the built-in ones and plugins); default {@code true}
         * @return this builder
         */
        public Builder loadSources(boolean useServiceLoader) {
            this.loadSources = useServiceLoader;
            return this;
        }

        /**
         * @param useServiceLoader whether to add the config filters {@link java.util.ServiceLoader}
         *     finds (the built-in {@code enabled}, {@code project} and {@code exa}, and plugins);
         *     default {@code true}
         * @return this builder
         */
        public Builder loadFilters(boolean useServiceLoader) {
            this.loadFilters = useServiceLoader;
            return this;
        }

        /**
         * Fills in the defaults that were not set. Providers are looked up later, by each
         * {@link Discovery#discover()}, so that a provider failure is a result, not an exception here.
         *
         * @return the discovery
         */
        public Discovery build() {
            Builder b = new Builder();
            b.workingDirectory = (workingDirectory != null ? workingDirectory : Path.of(System.getProperty("user.dir")))
                    .toAbsolutePath().normalize();
            b.environment = environment != null ? environment : Map.copyOf(System.getenv());
            b.home = (home != null ? home : UserDirectories.home(b.environment)).toAbsolutePath().normalize();
            b.projectConfig = projectConfig;
            b.exaFilter = exaFilter;
            b.sources = sources;
            b.filters = filters;
            b.loadSources = loadSources;
            b.loadFilters = loadFilters;
            b.approvals = approvals != null ? approvals : Approvals.forUser(b.environment, b.home);
            b.consent = consent;
            b.approveProjectServers = approveProjectServers;
            b.sandboxProjectServers = sandboxProjectServers;
            b.bubblewrap = bubblewrap;
            b.managedPolicy = managedPolicy != null ? managedPolicy.toAbsolutePath().normalize() : ManagedPolicy.defaultFile();
            return new Discovery(b);
        }
    }
}
