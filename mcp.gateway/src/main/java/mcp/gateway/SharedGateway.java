package mcp.gateway;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import mcp.api.McpException;
import mcp.api.ApprovalState;
import mcp.api.McpJson;
import mcp.api.UserDirectories;
import mcp.api.spi.ConsentHandler;
import mcp.config.DiscoveryResult;
import mcp.gateway.internal.Channels;
import mcp.gateway.internal.Composition;
import mcp.gateway.internal.ProjectApprovals;
import mcp.host.McpHost;
import mcp.manager.McpClient;
import mcp.manager.McpManager;
import mcp.manager.ReconcileResult;
import mcp.manager.ServerStatus;
import mcp.server.McpServer;
import mcp.server.ServerEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One gateway for every agent of a user: a process that agents' {@code mcp-host serve --stdio} attach to over a Unix
 * domain socket ({@link Attachment}), each from its project. The user's servers (user-level and managed configs) run
 * once for all; a project's own servers run once for that project, and only as discovery in that project decides
 * (consent, the owning tools' settings and policies). A client sees the user's servers and its own project's, never
 * another project's.
 *
 * <p>Why a Unix domain socket and not loopback HTTP: the socket's directory is the user's alone (0700), so no other
 * user reaches it and no token has to be kept, read and sent; there is no port to pick or collide on; and one line
 * of hello before the protocol's own newline-delimited JSON-RPC makes the attach a pipe, the same stream an agent's
 * stdio already is.
 *
 * <p>On the socket, the first line is a JSON object: {@code {"attach": {"project": "/abs/dir"}}} (answered
 * {@code {"attached": {"pid": N}}}, then MCP over stdio's framing), {@code {"status": {}}} (answered with one line,
 * {@link #status()}), or {@code {"stop": {}}}. The gateway reads the configs again every few seconds and reconciles:
 * a changed file restarts what it changes, and the clients that listen hear {@code list_changed}. It ends by itself
 * {@link Builder#idle(Duration) a while} after its last client left; a project's own servers stop that long after
 * the project's last client left. A gateway killed outright loses nothing (approvals, pins, credentials and the
 * cache are files) and leaves no stdio server behind (the stdio transport's watchdog ends them).
 */
public final class SharedGateway implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SharedGateway.class);

    /** The file of the socket in its directory. */
    public static final String SOCKET = "gateway.sock";
    /** The lock file beside it, held while a gateway runs, so that two never serve one user. */
    public static final String LOCK = "gateway.lock";

    /** How long a client's list waits for servers still starting: within an agent's usual 10 s for the handshake. */
    private static final Duration LIST_WAIT = Duration.ofSeconds(5);

    private final Function<Optional<Path>, McpHost.Builder> hosts;
    private final Path directory;
    private final Duration idle;
    private final Duration recheck;
    private final Instant started = Instant.now();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "mcp-host-shared-gateway");
        thread.setDaemon(true);
        return thread;
    });
    /** Guarded by this. */
    private final Map<ProjectKey, Project> projects = new LinkedHashMap<>();
    private McpHost base;
    private FileChannel lockFile;
    private FileLock lock;
    private ServerSocketChannel listener;
    /** Guarded by this. */
    private Composition applied;
    /** The servers (by the manager's name) a client disabled, run for no one until enabled. Guarded by this. */
    private final Set<String> held = new java.util.HashSet<>();
    /** The full composition before the held servers are left out: what the clients may enable. Guarded by this. */
    private Composition composed;
    /** The user's own servers, as last discovered. Guarded by this. */
    private List<String> userServers = List.of();
    /** Guarded by this; when the last client left, or the start. */
    private long idleSince = System.nanoTime();
    private volatile boolean closing;
    /** A client reconnected a server: the next composition reconciles even if no config changed. Timer thread only. */
    private boolean reconnecting;

    private SharedGateway(Builder builder) {
        this.hosts = builder.hosts;
        this.directory = builder.directory;
        this.idle = builder.idle;
        this.recheck = builder.recheck;
    }

    /**
     * @param hosts the settings of a host for a project's directory, or for the user's own servers (empty: the host
     *     discovers no project's files); each is used for discovery only, but the user's one, which runs every server
     * @param directory the directory of the socket and its lock, which is made the user's alone
     * @return a builder
     */
    public static Builder builder(Function<Optional<Path>, McpHost.Builder> hosts, Path directory) {
        return new Builder(hosts, directory);
    }

    /**
     * Where a user's shared gateway keeps its socket: {@code $XDG_RUNTIME_DIR/mcp-host} (when absolute: the
     * per-login directory the XDG spec makes the user's alone), else {@code run/} in mcp-host's state directory; a
     * directory in the system's temporary one when that path is too long for a socket's address.
     *
     * @param env the environment
     * @param directories the user's directories
     * @return the directory
     */
    public static Path directory(Map<String, String> env, UserDirectories directories) {
        String runtime = env.get("XDG_RUNTIME_DIR");
        Path directory = runtime != null && Path.of(runtime).isAbsolute() && Files.isDirectory(Path.of(runtime))
                ? Path.of(runtime, "mcp-host") : directories.state().resolve("run");
        // A socket's address holds about 107 bytes on Linux, 103 on macOS.
        if (directory.resolve(SOCKET).toString().getBytes(StandardCharsets.UTF_8).length > 100) {
            String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9_.-]", "_");
            directory = Path.of(System.getProperty("java.io.tmpdir"), "mcp-host-" + user + "-"
                    + Integer.toHexString(directory.toString().hashCode()));
        }
        return directory;
    }

    /** @return the socket's path */
    public Path socket() {
        return directory.resolve(SOCKET);
    }

    /**
     * Takes the lock, binds the socket and starts the user's servers.
     *
     * @throws McpException if another gateway holds the lock, or the socket cannot be made
     */
    public void start() {
        try {
            Files.createDirectories(directory);
            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwx------"));
            lockFile = FileChannel.open(directory.resolve(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            lock = lockFile.tryLock();
            if (lock == null) {
                lockFile.close();
                throw new McpException("a shared gateway already runs for this user (" + socket() + ")");
            }
            Files.deleteIfExists(socket());
            listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            listener.bind(UnixDomainSocketAddress.of(socket()));
            Files.setPosixFilePermissions(socket(), PosixFilePermissions.fromString("rw-------"));
        } catch (IOException | UnsupportedOperationException e) {
            releaseFiles();
            throw new McpException("cannot open the shared gateway's socket " + socket() + ": " + e.getMessage(), e);
        }
        base = hosts.apply(Optional.empty()).clientSettings(Gateway.clientSettings()).build();
        // Clients are taken at once; the servers start on the timer's thread, and a client's first list waits a
        // little for them (an agent that waits too long for its server's handshake gives up on it).
        Thread accepting = new Thread(this::accept, "mcp-host-shared-gateway-accept");
        accepting.setDaemon(true);
        accepting.start();
        timer.execute(this::recompose);
        long every = recheck.toMillis();
        timer.scheduleWithFixedDelay(this::tick, every, every, TimeUnit.MILLISECONDS);
        LOG.info("Shared gateway listening on {}", socket());
    }

    /**
     * @param bound the longest wait
     * @return whether the gateway has ended (by {@link #close()}, a stop request or its idle time)
     * @throws InterruptedException if interrupted
     */
    public boolean awaitStopped(Duration bound) throws InterruptedException {
        return stopped.await(bound.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** @return the manager that runs every server; for status and tests */
    public McpManager manager() {
        return base.manager();
    }

    /**
     * @return the gateway's state as its status line gives it: pid, start, socket, the projects with their clients and
     *     servers, and every server with its state and its counts since the gateway started ({@code activity})
     */
    public synchronized ObjectNode status() {
        ObjectNode status = McpJson.object().put("pid", ProcessHandle.current().pid())
                .put("started", started.toString()).put("socket", socket().toString());
        ArrayNode list = status.putArray("projects");
        int clients = 0;
        for (Project project : projects.values()) {
            clients += project.clients;
            ObjectNode entry = list.addObject().put("directory", project.directory.toString())
                    .put("clients", project.clients);
            ArrayNode servers = entry.putArray("servers");
            Composition.View view = applied == null ? null : applied.views().get(project.directory);
            if (view != null) {
                view.servers().forEach(name -> servers.addObject().put("name", view.shown().getOrDefault(name, name))
                        .put("server", name));
            }
        }
        status.put("clients", clients);
        ArrayNode user = status.putArray("user");
        userServers.forEach(user::add);
        ArrayNode servers = status.putArray("servers");
        McpManager manager = base.manager();
        // The socket is the user's own (owner-only): the user sees every server's counts and last errors, masked.
        manager.statuses().forEach((name, state) -> servers.addObject().put("name", name)
                .put("state", state.state().name().toLowerCase(java.util.Locale.ROOT))
                .put("tools", manager.toolsOf(name).size())
                .put("error", state.error().orElse(null))
                .set("activity", manager.activity(name).toJson(true)));
        return status;
    }

    /**
     * Reads every config again and makes the running servers and each project's view what they say now. On the
     * timer's one thread only, so compositions never overlap; discovery and the servers' start run outside the lock.
     */
    private void recompose() {
        try {
            Map<ProjectKey, Project> open;
            Composition before;
            synchronized (this) {
                if (closing) {
                    return;
                }
                open = new LinkedHashMap<>(projects);
                before = applied;
            }
            DiscoveryResult user = base.discover();
            if (user.hardFailed()) {
                LOG.warn("Shared gateway: discovery failed, the servers run as they were: {}",
                        user.problems().get(0).message());
                return;
            }
            Map<Path, DiscoveryResult> found = new LinkedHashMap<>();
            for (Project project : open.values()) {
                // A directory served in two modes (with and without search) is discovered once.
                DiscoveryResult discovery = found.containsKey(project.directory) ? found.get(project.directory)
                        : project.host.discover();
                if (discovery.hardFailed()) {
                    LOG.warn("Shared gateway: discovery in {} failed, its servers run as they were: {}",
                            project.directory, discovery.problems().get(0).message());
                    return;
                }
                found.put(project.directory, discovery);
                if (project.approvals.update(discovery)) {
                    project.gateway.ownToolsChanged();
                }
            }
            Composition full = Composition.of(user, found);
            Composition next;
            synchronized (this) {
                composed = full;
                next = full.without(held);
                userServers = List.copyOf(user.configs().keySet());
                // The views first: a client's list shows each server's tools as they come.
                open.values().forEach(project -> {
                    Composition.View view = next.views().get(project.directory);
                    project.gateway.changeView(view.servers(), view.shown());
                });
            }
            if (before == null || reconnecting || !next.configs().equals(before.configs())
                    || !next.pinKeys().equals(before.pinKeys())) {
                reconnecting = false;
                ReconcileResult changes = base.manager().reconcileServers(next.configs(), next.sources(),
                        next.pinKeys());
                if (changes.changedAnything()) {
                    LOG.info("Shared gateway: started {}, restarted {}, stopped {}", changes.added(),
                            changes.changed(), changes.removed());
                }
            }
            synchronized (this) {
                applied = next;
            }
            open.values().forEach(project -> project.ready.complete(null));
        } catch (RuntimeException e) {
            if (!closing) {
                LOG.warn("Shared gateway: reading the configs again failed: {}", e.getMessage(), e);
            }
        }
    }

    /**
     * Approves project servers as {@code mcp-host approve} run in the project does (the definition the file writes
     * now), then composes again so that they start.
     *
     * @return the servers approved now
     */
    private Set<String> approve(Path project, Set<String> names) {
        Set<String> approved = new java.util.TreeSet<>();
        try (McpHost deciding = hosts.apply(Optional.of(project)).consentHandler(server -> names.contains(server.name())
                ? ConsentHandler.Decision.APPROVE : ConsentHandler.Decision.LEAVE_PENDING).build()) {
            DiscoveryResult after = deciding.discover();
            names.forEach(name -> {
                ApprovalState state = after.approvals().get(name);
                if (state != null && state.startsServer()) {
                    approved.add(name);
                }
            });
        }
        LOG.info("Shared gateway: approved in {} by its client's user: {}", project, approved);
        timer.execute(this::recompose);
        return approved;
    }

    private void tick() {
        if (closing) {
            return;
        }
        boolean end;
        synchronized (this) {
            long now = System.nanoTime();
            projects.values().removeIf(project -> {
                if (project.clients == 0 && now - project.leftAt > idle.toNanos()) {
                    LOG.info("Shared gateway: no client in {} for {}, its own servers stop", project.directory, idle);
                    project.close();
                    return true;
                }
                return false;
            });
            end = projects.values().stream().allMatch(project -> project.clients == 0)
                    && now - idleSince > idle.toNanos();
        }
        if (end) {
            LOG.info("Shared gateway: no client for {}, ending", idle);
            close();
            return;
        }
        recompose();
    }

    private void accept() {
        while (!closing) {
            SocketChannel channel;
            try {
                channel = listener.accept();
            } catch (IOException e) {
                if (!closing) {
                    LOG.warn("Shared gateway: accept failed, ending: {}", e.getMessage());
                    close();
                }
                return;
            }
            Thread thread = new Thread(() -> serve(channel), "mcp-host-shared-gateway-client");
            thread.setDaemon(true);
            thread.start();
        }
    }

    /** One connection: its hello, then what it asked for. */
    private void serve(SocketChannel channel) {
        try (channel) {
            InputStream in = Channels.in(channel);
            OutputStream out = Channels.out(channel);
            Optional<String> line = Channels.readLine(in);
            if (line.isEmpty()) {
                return;
            }
            JsonNode hello;
            try {
                hello = McpJson.mapper().readTree(line.get());
            } catch (RuntimeException e) {
                reply(out, McpJson.object().put("error", "the first line is not JSON"));
                return;
            }
            if (hello.has("status")) {
                reply(out, status());
            } else if (hello.has("stop")) {
                reply(out, McpJson.object().put("stopping", true));
                Thread stopper = new Thread(this::close, "mcp-host-shared-gateway-stop");
                stopper.start();
            } else if (hello.path("attach").path("project").isString()) {
                JsonNode attach = hello.path("attach");
                java.util.Set<String> alwaysLoad = new java.util.TreeSet<>();
                attach.path("alwaysLoad").forEach(name -> alwaysLoad.add(name.asString()));
                attached(Path.of(attach.path("project").asString()), attach.path("search").asBoolean(false),
                        alwaysLoad, in, out);
            } else {
                reply(out, McpJson.object().put("error", "expected attach, status or stop"));
            }
        } catch (IOException | RuntimeException e) {
            if (!closing) {
                LOG.debug("Shared gateway: a connection ended: {}", e.toString());
            }
        }
    }

    private void attached(Path requested, boolean search, Set<String> alwaysLoad, InputStream in, OutputStream out)
            throws IOException {
        if (!requested.isAbsolute()) {
            reply(out, McpJson.object().put("error", "the project must be an absolute path: " + requested));
            return;
        }
        Path project = requested.normalize();
        Project joined;
        synchronized (this) {
            if (closing) {
                reply(out, McpJson.object().put("error", "the shared gateway is ending"));
                return;
            }
            ProjectKey key = new ProjectKey(project, search, Set.copyOf(alwaysLoad));
            joined = projects.get(key);
            if (joined == null) {
                Path directory = project;
                joined = new Project(key, hosts.apply(Optional.of(project)).build(), base.manager(),
                        names -> approve(directory, names), new ProjectServers(directory));
                projects.put(key, joined);
                timer.execute(this::recompose);
            }
            joined.clients++;
        }
        LOG.info("Shared gateway: a client attached in {}", project);
        try {
            reply(out, McpJson.object().set("attached", McpJson.object().put("pid", ProcessHandle.current().pid())));
            ServerEndpoint endpoint = joined.server.serveStdio(in, out);
            try {
                while (!endpoint.awaitClosed(Duration.ofSeconds(1)) && !closing) {
                    // The endpoint ends with its client's input, or with the gateway.
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            endpoint.close();
        } finally {
            synchronized (this) {
                joined.clients--;
                joined.leftAt = System.nanoTime();
                if (projects.values().stream().allMatch(p -> p.clients == 0)) {
                    idleSince = System.nanoTime();
                }
            }
            LOG.info("Shared gateway: a client left {}", project);
        }
    }

    private static void reply(OutputStream out, JsonNode line) throws IOException {
        out.write((line.toString() + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** Ends every client's session and every server, removes the socket and releases the lock. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
        }
        timer.shutdownNow();
        try {
            if (listener != null) {
                listener.close();
            }
        } catch (IOException e) {
            LOG.debug("Closing the socket: {}", e.toString());
        }
        // The next gateway may start while this one's servers end.
        releaseFiles();
        List<Project> open;
        synchronized (this) {
            open = new ArrayList<>(projects.values());
            projects.clear();
        }
        open.forEach(Project::close);
        if (base != null) {
            base.close();
        }
        stopped.countDown();
    }

    private void releaseFiles() {
        try {
            Files.deleteIfExists(socket());
        } catch (IOException e) {
            LOG.debug("Removing the socket: {}", e.toString());
        }
        try {
            if (lock != null) {
                lock.release();
            }
            if (lockFile != null) {
                lockFile.close();
            }
        } catch (IOException e) {
            LOG.debug("Releasing the lock: {}", e.toString());
        }
    }

    /**
     * The servers as one project's clients see them, for the deferred mode's tools: a change holds for every client of
     * the gateway (a user server disabled is disabled for every project), and runs on the timer's thread as every
     * composition does.
     */
    private final class ProjectServers implements ServerControl {
        private final Path directory;

        ProjectServers(Path directory) {
            this.directory = directory;
        }

        /** The manager's name of each server the project's clients know, by the name they know it by. */
        private Map<String, String> known() {
            Map<String, String> known = new LinkedHashMap<>();
            synchronized (SharedGateway.this) {
                Composition.View view = composed == null ? null : composed.views().get(directory);
                if (view != null) {
                    view.servers().forEach(server -> known.put(view.shown().getOrDefault(server, server), server));
                }
            }
            return known;
        }

        private Set<String> pending() {
            for (Project project : projectsIn(directory)) {
                return project.approvals.pendingNames();
            }
            return Set.of();
        }

        @Override
        public List<Server> servers() {
            McpManager manager = base.manager();
            List<Server> servers = new ArrayList<>();
            Set<String> disabled;
            synchronized (SharedGateway.this) {
                disabled = Set.copyOf(held);
            }
            known().forEach((name, server) -> {
                if (disabled.contains(server)) {
                    servers.add(new Server(name, "disabled", 0, Optional.of("disabled by a client; "
                            + "manage_server enables it")));
                } else {
                    ServerStatus status = manager.status(server);
                    servers.add(new Server(name, status.state().name().toLowerCase(java.util.Locale.ROOT),
                            manager.toolsOf(server).size(), status.error()));
                }
            });
            pending().forEach(name -> servers.add(new Server(name, "pending approval", 0, Optional.of(
                    "the user approves it: " + ProjectApprovals.TOOL + ", or `mcp-host approve " + name + "` in "
                            + directory))));
            return servers;
        }

        @Override
        public Optional<String> refusal(String name) {
            if (pending().contains(name)) {
                return Optional.of(name + " waits for the user's approval, which a client cannot give: "
                        + ProjectApprovals.TOOL + " asks the user, or the user runs `mcp-host approve " + name
                        + "` in " + directory + ".");
            }
            if (!known().containsKey(name)) {
                return Optional.of("No MCP server named " + name + "; list_servers gives their names.");
            }
            return Optional.empty();
        }

        @Override
        public String disable(String name) {
            String server = known().get(name);
            synchronized (SharedGateway.this) {
                held.add(server);
            }
            composeNow(false);
            return "Disabled " + name + " for every agent of the shared gateway: it is stopped and its tools are gone"
                    + " until it is enabled (or the gateway restarts).";
        }

        @Override
        public String enable(String name) {
            String server = known().get(name);
            synchronized (SharedGateway.this) {
                held.remove(server);
            }
            composeNow(false);
            return "Enabled " + name + ": " + base.manager().status(server).state().name().toLowerCase(
                    java.util.Locale.ROOT) + ".";
        }

        @Override
        public String reconnect(String name) {
            String server = known().get(name);
            base.manager().disconnectServer(server);
            composeNow(true);
            return "Reconnected " + name + ": " + base.manager().status(server).state().name().toLowerCase(
                    java.util.Locale.ROOT) + ".";
        }
    }

    /** The open projects of a directory, in any mode. */
    private synchronized List<Project> projectsIn(Path directory) {
        return projects.values().stream().filter(project -> project.directory.equals(directory)).toList();
    }

    /** A composition on the timer's thread, waited for (bounded): what a client's change needs done before it answers. */
    private void composeNow(boolean reconnect) {
        try {
            timer.submit(() -> {
                reconnecting |= reconnect;
                recompose();
            }).get(2, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.warn("Shared gateway: a client's change did not finish: {}", e.toString());
        }
    }

    /**
     * A project as its clients asked for it: its directory, and whether they get the deferred mode (each client's
     * list, search_tools), with which tools always listed. Clients that ask alike share one gateway.
     */
    private record ProjectKey(Path directory, boolean search, Set<String> alwaysLoad) {
    }

    /** A project with clients: its discovery host, and one gateway and server for its clients. */
    private static final class Project {
        final Path directory;
        final McpHost host;
        final Gateway gateway;
        final McpServer server;
        /** Guarded by the shared gateway. */
        int clients;
        /** Guarded by the shared gateway. */
        long leftAt = System.nanoTime();
        /** Completes when the first composition with this project has started its servers. */
        final CompletableFuture<Void> ready = new CompletableFuture<>();

        final ProjectApprovals approvals;

        Project(ProjectKey key, McpHost host, McpManager manager, Function<Set<String>, Set<String>> approve,
                ServerControl control) {
            this.directory = key.directory();
            this.host = host;
            this.approvals = new ProjectApprovals(directory, approve);
            // Nothing in view until the first composition says what the project sees.
            this.gateway = Gateway.builder(manager).ready(ready, LIST_WAIT).ownTool(approvals)
                    .search(key.search()).alwaysLoad(key.alwaysLoad()).toolFinder(host.toolFinder())
                    .serverControl(control).build();
            gateway.changeView(Set.of(), Map.of());
            this.server = McpServer.builder("mcp-host", McpClient.VERSION).handler(gateway).build();
            gateway.attach(server);
        }

        void close() {
            server.close();
            gateway.close();
            host.close();
        }
    }

    /** Builds a {@link SharedGateway}. */
    public static final class Builder {
        private final Function<Optional<Path>, McpHost.Builder> hosts;
        private final Path directory;
        private Duration idle = Duration.ofMinutes(10);
        private Duration recheck = Duration.ofSeconds(2);

        private Builder(Function<Optional<Path>, McpHost.Builder> hosts, Path directory) {
            this.hosts = Objects.requireNonNull(hosts, "hosts");
            this.directory = Objects.requireNonNull(directory, "directory").toAbsolutePath().normalize();
        }

        /**
         * @param time how long the gateway runs on after its last client left, and a project's own servers after
         *     the project's last client left (default 10 minutes)
         * @return this builder
         */
        public Builder idle(Duration time) {
            this.idle = Objects.requireNonNull(time, "time");
            return this;
        }

        /**
         * @param every how often the configs are read again (default 2 s)
         * @return this builder
         */
        public Builder recheck(Duration every) {
            if (every.isNegative() || every.isZero()) {
                throw new IllegalArgumentException("recheck must be positive");
            }
            this.recheck = every;
            return this;
        }

        /** @return the gateway, not started */
        public SharedGateway build() {
            return new SharedGateway(this);
        }
    }
}
