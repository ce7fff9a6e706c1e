package mcp.cli.internal;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.UserDirectories;
import mcp.config.AgentConnection;
import mcp.gateway.Attachment;
import mcp.gateway.Gateway;
import mcp.gateway.ServerControl;
import mcp.gateway.SharedGateway;
import mcp.gateway.GatewayToken;
import mcp.host.LoadResult;
import mcp.host.McpHost;
import mcp.manager.ReconcileResult;
import mcp.resourceserver.OAuthResourceServer;
import mcp.server.HttpEndpoint;
import mcp.server.HttpOptions;
import mcp.server.McpServer;
import mcp.server.ReplicaKeys;
import mcp.server.ServerEndpoint;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code serve}: the host's servers as one MCP server ({@link Gateway}), over stdio (the agent starts it) or
 * Streamable HTTP (one process for every agent of the user).
 */
@Command(name = "serve", description = {
    "Serve the host's servers as one MCP server: every agent gets the same servers, mcp-host's consent and pins,"
            + " one process per server.",
    "--stdio (default): for an agent that starts it; --http: on 127.0.0.1 (--bind, --port), with the token of"
            + " `mcp-host serve --token` required, or OAuth access tokens of --oauth-issuer (MCP_HOST_OAUTH_*).",
    "--print-config AGENT prints what to put in claude, codex, gemini, cursor or vscode to use it."})
final class ServeCommand implements Callable<Integer> {

    /** How long an agent's first list waits for servers still starting: within its usual 10 s for the handshake. */
    private static final Duration LIST_WAIT = Duration.ofSeconds(5);

    /** The agents {@code --print-config} knows. */
    static final List<String> AGENTS = List.of("claude", "codex", "gemini", "cursor", "vscode");

    /** The environment variable that may hold the replicas' keys, in the form of a {@code --keys} file. */
    static final String KEYS_VARIABLE = "MCP_HOST_GATEWAY_KEYS";

    @ParentCommand
    McpHostCommand root;

    @Option(names = "--stdio", description = "Serve one client on standard input and output (the default).")
    boolean stdio;

    @Option(names = "--http", description = "Serve Streamable HTTP.")
    boolean http;

    @Option(names = "--bind", paramLabel = "ADDRESS", description = "The address to listen on (default 127.0.0.1;"
            + " anything else exposes the gateway to the network).")
    String bind = "127.0.0.1";

    @Option(names = "--port", paramLabel = "N", description = "The port (default 0: a free one, printed at start).")
    int port;

    @Option(names = "--servers", split = ",", paramLabel = "NAME", description = "Serve only these servers.")
    List<String> servers = List.of();

    @Option(names = "--tools", split = ",", paramLabel = "SERVER/TOOL", description = "Serve only these tools"
            + " (SERVER/TOOL or the tool's own name).")
    List<String> tools = List.of();

    @Option(names = "--search", description = "Tool search for agents that have none: each client gets the tools"
            + " always loaded (a server's \"alwaysLoad\" in mcp.json, --always-load) and search_tools; what a client"
            + " finds joins its own tool list (list_changed to it alone). Every tool stays callable by its name.")
    boolean search;

    @Option(names = "--always-load", split = ",", paramLabel = "NAME", description = "With --search: servers or"
            + " tools (SERVER/TOOL or the name clients see) always listed.")
    List<String> alwaysLoad = List.of();

    @Option(names = "--token", description = "Print the HTTP bearer token (made at the first start) and exit.")
    boolean printToken;

    @Option(names = "--no-token", description = "HTTP on loopback without a token, for clients that cannot send one"
            + " (any local process may then call the gateway; warned at every start).")
    boolean noToken;

    @Option(names = "--standalone", description = "Serve this stdio client in this process, not through the user's"
            + " shared gateway.")
    boolean standalone;

    @Option(names = "--shared", description = "Run the user's shared gateway, which stdio clients attach to (they start"
            + " it when none runs; it ends --idle seconds after its last client left).")
    boolean shared;

    @Option(names = "--idle", paramLabel = "SECONDS", description = "How long the shared gateway runs on after its last"
            + " client left, and a project's own servers after the project's last client (default 600).")
    long idleSeconds = 600;

    @Option(names = "--stop", description = "End the user's shared gateway, and every server it runs.")
    boolean stop;

    @Option(names = "--drain-timeout", paramLabel = "MS", description = "On SIGTERM or SIGINT, no new requests are"
            + " taken and the calls in flight get MS milliseconds to finish (default 10000: 10 s); those still running"
            + " then are cancelled, their clients told why. A second signal stops at once.")
    long drainTimeout = 10_000;

    @Option(names = "--tasks", description = "Let clients have every call run as a task of the gateway (2025-11-25's"
            + " task parameter, the 2026-07-28 tasks extension). Without it, only the tools whose servers run them as"
            + " tasks may be, and none on a replica (--keys).")
    boolean tasks;

    @Option(names = "--lazy", description = "Start no server until the first call of one of its tools; stop it again"
            + " when idle (--lazy-idle). Its cached tools are served meanwhile.")
    boolean lazy;

    @Option(names = "--lazy-idle", paramLabel = "MS", description = "How long a lazy server may be idle before it is"
            + " stopped, unless its entry sets lazy.idleTimeout (default 600000: 10 minutes).")
    Long lazyIdle;

    @Option(names = "--policy", paramLabel = "FILE", description = "A policy file (JSON, or YAML named .yaml): which servers, tools,"
            + " resources and prompts each caller sees and may call, and rate limits per client and per tool; re-read"
            + " when it changes (default: $MCP_HOST_POLICY; none: everything, no limit). See docs/gateway-policy.md.")
    Path policy;

    @Option(names = "--keys", paramLabel = "FILE", description = "With --http: run as one of several replicas behind a"
            + " load balancer, with the keys in FILE (one ID:BASE64 a line, at least 32 random bytes each; the first"
            + " seals, all open): session ids are sealed so that any replica serves any session, and request states"
            + " are retried on any replica. Or the keys in the environment variable " + KEYS_VARIABLE + ".")
    Path keys;

    @Option(names = "--allowed-host", split = ",", paramLabel = "HOST[:PORT]", description = "With --http: a Host"
            + " value to accept besides loopback and the bind address (the name clients and the balancer use).")
    List<String> allowedHosts = List.of();

    @Option(names = "--allowed-origin", split = ",", paramLabel = "ORIGIN", description = "With --http: an Origin"
            + " to accept besides those of the accepted hosts (e.g. https://mcp.example.com).")
    List<String> allowedOrigins = List.of();

    /** The OAuth resource server mode of --http: tokens of the team's identity provider instead of serve's own. */
    @Mixin
    ServeOAuth oauth = new ServeOAuth();

    @Option(names = "--print-config", paramLabel = "AGENT", description = "Print the config that makes AGENT (claude,"
            + " codex, gemini, cursor, vscode) use this gateway, and exit.")
    String printConfig;

    @Override
    public Integer call() throws Exception {
        CliContext context = root.context();
        if (context.shell().isPresent()) {
            throw CliException.usage("serve runs on its own, not in the shell");
        }
        if (stdio && http) {
            throw CliException.usage("--stdio and --http exclude each other");
        }
        UserDirectories directories = UserDirectories.of(context.io().env(), context.io().home());
        if (printToken && oauth.anyOption()) {
            throw CliException.usage("--token prints serve's own token; with --oauth-issuer the tokens come from the "
                    + "issuer");
        }
        if (printToken) {
            context.out().println(GatewayToken.loadOrCreate(directories.state()));
            return ExitCodes.OK;
        }
        if (printConfig != null) {
            context.out().print(snippet(printConfig.toLowerCase(Locale.ROOT), launcher(context)));
            return ExitCodes.OK;
        }
        Optional<String> parent = UpstreamMarker.startedBy(context.io().env());
        if (parent.isPresent()) {
            // Before any server starts: a gateway that is a server of a gateway (or of any mcp-host) would start
            // every server again, and a wrapper script that runs this one again, without end.
            throw new CliException(ExitCodes.USAGE, "serve refuses to start: it was started as an MCP server of "
                    + "mcp-host (pid " + parent.get() + ", " + UpstreamMarker.VARIABLE + " is set), so it would serve "
                    + "that mcp-host's servers to itself and start them all again. Remove the entry that runs it (or a "
                    + "script that runs mcp-host serve) from that mcp-host's config, or unset " + UpstreamMarker.VARIABLE
                    + " if this is not such a loop.");
        }
        if (!alwaysLoad.isEmpty() && !search) {
            throw CliException.usage("--always-load is a --search option");
        }
        if (drainTimeout < 0) {
            throw CliException.usage("--drain-timeout is a number of milliseconds, 0 or more; not " + drainTimeout);
        }
        if (shared && (http || stdio || standalone)) {
            throw CliException.usage("--shared runs the user's shared gateway: not with --http, --stdio or --standalone");
        }
        if (standalone && http) {
            throw CliException.usage("--standalone is a stdio option");
        }
        if (noToken && !http) {
            throw CliException.usage("--no-token is an HTTP option");
        }
        if (noToken && !isLoopback(bind)) {
            throw CliException.usage("--no-token is allowed on a loopback address only, not " + bind);
        }
        if (!http && (keys != null || !allowedHosts.isEmpty() || !allowedOrigins.isEmpty())) {
            throw CliException.usage("--keys, --allowed-host and --allowed-origin are HTTP options");
        }
        Optional<ReplicaKeys> replicaKeys = http ? replicaKeys(context) : Optional.empty();
        Optional<OAuthResourceServer> resourceServer = resourceServer(context);
        if (lazyIdle != null && lazyIdle <= 0) {
            throw CliException.usage("--lazy-idle must be a positive number of milliseconds");
        }
        Path sharedDirectory = SharedGateway.directory(context.io().env(), directories);
        if (stop) {
            boolean answered = Attachment.stop(sharedDirectory.resolve(SharedGateway.SOCKET), Duration.ofSeconds(5));
            context.err().println(answered ? "mcp-host serve: the shared gateway is ending"
                    : "mcp-host serve: no shared gateway runs");
            return ExitCodes.OK;
        }
        if (idleSeconds <= 0) {
            throw CliException.usage("--idle must be positive");
        }
        Path policyFile = policy != null ? policy : Optional.ofNullable(context.io().env().get("MCP_HOST_POLICY"))
                .filter(value -> !value.isBlank()).map(Path::of).orElse(null);
        if (policyFile != null && !policyFile.isAbsolute()) {
            policyFile = context.workingDirectory().resolve(policyFile);
        }
        if (shared) {
            if (policy != null) {
                throw CliException.usage("--policy is for a gateway of its own (--http or --standalone), not the "
                        + "user's shared one");
            }
            return runShared(context, sharedDirectory);
        }
        if (!http && !standalone && policyFile == null && servers.isEmpty() && tools.isEmpty() && !lazy && lazyIdle == null && !tasks
                && context.defaultHostOptions()) {
            // An agent's stdio session goes to the user's one gateway: one process per server for every agent.
            Attachment.builder(sharedDirectory.resolve(SharedGateway.SOCKET), context.workingDirectory())
                    .starter(() -> startShared(context, directories))
                    .fallback(() -> inProcess(context))
                    .warnings(context.err())
                    .search(search, new LinkedHashSet<>(alwaysLoad))
                    .build().run(context.io().in(), context.io().out());
            return ExitCodes.OK;
        }
        McpHost host = context.newHost(hostBuilder(context).clientSettings(Gateway.clientSettings()));
        try (host) {
            // Over HTTP the servers start before the port opens (a broken config fails the command); an agent's stdio
            // gets its handshake at once, and its first list waits for them a little.
            CompletableFuture<LoadResult> loaded = http ? CompletableFuture.completedFuture(load(context, host))
                    : loadInBackground(context, host);
            Gateway.Builder builder = Gateway.builder(host.manager()).servers(Set.copyOf(servers))
                    .tools(new LinkedHashSet<>(tools)).search(search).alwaysLoad(Set.copyOf(alwaysLoad))
                    .toolFinder(host.toolFinder())
                    .serverControl(ServerControl.of(host, context.workingDirectory())).tasks(tasks)
                    // A replica's tasks are its own, and a balancer sends a poll anywhere: only when asked for.
                    .upstreamTasks(replicaKeys.isEmpty()).ready(loaded, LIST_WAIT);
            if (policyFile != null) {
                builder.policyFile(policyFile)
                        .policyProblems(problem -> context.err().println("mcp-host serve: " + problem));
            }
            try (Gateway gateway = builder.build();
                    McpServer server = serverBuilder(gateway, replicaKeys).build()) {
                gateway.attach(server);
                CountDownLatch stop = new CountDownLatch(1);
                AtomicReference<String> signal = new AtomicReference<>();
                try (StopSignals.Registration signals = StopSignals.onStop(name -> {
                    signal.set(name);
                    stop.countDown();
                })) {
                    ServerEndpoint endpoint;
                    if (http) {
                        HttpOptions options = HttpOptions.LOOPBACK.withBindAddress(bind).withPort(port)
                                .withAllowed(allowedHosts, allowedOrigins);
                        if (resourceServer.isPresent()) {
                            options = withResourceServer(context, options, resourceServer.get());
                        } else if (!noToken) {
                            options = options.withBearerToken(GatewayToken.loadOrCreate(directories.state()));
                        }
                        HttpEndpoint listening = server.serveHttp(options);
                        endpoint = listening;
                        replicaKeys.ifPresent(ring -> context.err().println("mcp-host serve: replica keys "
                                + ring.ids() + " (" + ring.currentId() + " seals): sessions and request states are "
                                + "shared with the other replicas"));
                        context.err().println("mcp-host serve: listening on " + listening.uri()
                                + (resourceServer.isPresent() ? " (OAuth: tokens of " + resourceServer.get().settings()
                                        .issuer() + " for " + resourceServer.get().settings().audience() + ")"
                                        : noToken ? "; WARNING: no token is required, so any local process may call it"
                                        : " (bearer token: mcp-host serve --token)"));
                    } else {
                        // The protocol's own streams: nothing else of the CLI writes to stdout while it serves.
                        endpoint = server.serveStdio(context.io().in(), context.io().out());
                    }
                    // Until the client leaves (stdio) or the process is told to stop (SIGTERM, SIGINT).
                    while (!endpoint.awaitClosed(Duration.ofMillis(200)) && stop.getCount() > 0) {
                        // The endpoint's own wait is the bound of each round.
                    }
                    if (stop.getCount() == 0) {
                        drain(context, server, signal.get());
                    }
                }
            }
        }
        return ExitCodes.OK;
    }

    private static McpServer.Builder serverBuilder(Gateway gateway, Optional<ReplicaKeys> keys) {
        McpServer.Builder builder = McpServer.builder("mcp-host", mcp.manager.McpClient.VERSION).handler(gateway);
        keys.ifPresent(builder::replicaKeys);
        return builder;
    }

    /**
     * The replicas' keys: from --keys FILE, else from the environment variable, else none. Never printed: errors name
     * the file or variable and the entry, not a key.
     */
    private Optional<ReplicaKeys> replicaKeys(CliContext context) {
        try {
            if (keys != null) {
                Path file = keys.isAbsolute() ? keys : context.workingDirectory().resolve(keys);
                String text;
                try {
                    text = Files.readString(file);
                } catch (IOException e) {
                    throw CliException.usage("--keys: cannot read " + file + ": " + e.getMessage());
                }
                return Optional.of(ReplicaKeys.parse(text, file.toString()));
            }
            String value = context.io().env().get(KEYS_VARIABLE);
            return value == null || value.isBlank() ? Optional.empty()
                    : Optional.of(ReplicaKeys.parse(value, "the environment variable " + KEYS_VARIABLE));
        } catch (IllegalArgumentException e) {
            throw CliException.usage(e.getMessage());
        }
    }

    /**
     * The OAuth resource server that the --oauth-* options or the MCP_HOST_OAUTH_* variables describe, checked before
     * any server starts; empty: serve's own token (or --no-token) as before.
     */
    private Optional<OAuthResourceServer> resourceServer(CliContext context) {
        if (oauth.anyOption() && !http) {
            throw CliException.usage("the --oauth-* options are --http options");
        }
        Optional<String> issuer = http ? oauth.issuer(context.io().env()) : Optional.empty();
        if (issuer.isEmpty()) {
            if (oauth.anyOption()) {
                throw CliException.usage("the --oauth-* options need --oauth-issuer (or " + ServeOAuth.ISSUER + ")");
            }
            return Optional.empty();
        }
        if (noToken) {
            throw CliException.usage("--no-token and --oauth-issuer exclude each other: with an issuer every request "
                    + "needs one of its tokens");
        }
        boolean audienceGiven = oauth.audienceGiven(context.io().env());
        if (!audienceGiven && port == 0) {
            throw CliException.usage("with --oauth-issuer, give --port or --oauth-audience: a token names the URL it "
                    + "is for, so that URL must be known before the port opens");
        }
        if (!audienceGiven && (bind.equals("0.0.0.0") || bind.equals("::") || bind.equals("[::]"))) {
            throw CliException.usage("with --bind " + bind + ", give --oauth-audience: the URL clients reach this "
                    + "gateway at (and tokens are issued for)");
        }
        String host = bind.contains(":") && !bind.startsWith("[") ? "[" + bind + "]" : bind;
        URI served = URI.create("http://" + host + ":" + port + HttpOptions.LOOPBACK.path());
        return Optional.of(oauth.build(context.io().env(), served));
    }

    /**
     * Options that ask the resource server on every request, and accept the {@code Host} of its canonical URL (a
     * proxy's or load balancer's name). Its issuer is read now, so that a wrong one shows at start; one that cannot
     * be reached yet costs a warning, and requests get 503 until it can.
     */
    private static HttpOptions withResourceServer(CliContext context, HttpOptions options,
            OAuthResourceServer resourceServer) {
        URI resource = resourceServer.settings().resource();
        List<String> hosts = new ArrayList<>(options.allowedHosts());
        String authority = resource.getRawAuthority().toLowerCase(Locale.ROOT);
        hosts.add(authority);
        if (resource.getPort() == -1) {
            hosts.add(authority + ":" + (resource.getScheme().equalsIgnoreCase("https") ? 443 : 80));
        }
        try {
            resourceServer.prefetch();
        } catch (McpException e) {
            context.err().println("mcp-host serve: WARNING: OAuth: " + e.getMessage() + "; requests are answered "
                    + "503 until it can be read");
        }
        return options.withAllowed(hosts, options.allowedOrigins()).withAuthenticator(resourceServer);
    }

    /** The host's settings with this command's lazy start. */
    private McpHost.Builder hostBuilder(CliContext context) {
        McpHost.Builder builder = context.hostBuilder().lazy(lazy);
        if (lazyIdle != null) {
            builder.lazyIdleTimeout(Duration.ofMillis(lazyIdle));
        }
        return builder;
    }

    /** The user's shared gateway, in the foreground, until it ends (idle, --stop, SIGTERM). */
    private int runShared(CliContext context, Path directory) throws InterruptedException {
        Path home = context.io().home();
        SharedGateway gateway = SharedGateway.builder(project -> project
                .map(dir -> hostBuilder(context).workingDirectory(dir))
                // The user's own servers: no project's files.
                .orElseGet(() -> hostBuilder(context).workingDirectory(home).projectConfig(false)), directory)
                .idle(Duration.ofSeconds(idleSeconds)).build();
        try {
            gateway.start();
        } catch (McpException e) {
            // Two agents that started one each at once: the second one ends here.
            context.err().println("mcp-host serve: " + e.getMessage());
            return ExitCodes.OK;
        }
        Thread hook = new Thread(gateway::close, "mcp-host-shared-gateway-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        context.err().println("mcp-host serve: shared gateway listening on " + gateway.socket());
        while (!gateway.awaitStopped(Duration.ofSeconds(1))) {
            // Ends by itself when idle, on --stop, or through the hook.
        }
        return ExitCodes.OK;
    }

    /**
     * Starts the user's shared gateway in the background: in a session of its own (setsid, where there is one), so
     * that the signal an agent sends its server's process group does not end every agent's gateway; its log goes to
     * the state directory.
     */
    private void startShared(CliContext context, UserDirectories directories) {
        List<String> command = new ArrayList<>();
        if (onPath(context, "setsid")) {
            command.add("setsid");
        }
        command.addAll(selfCommand(context));
        command.addAll(List.of("serve", "--shared", "--idle", Long.toString(idleSeconds)));
        try {
            Files.createDirectories(directories.state());
            ProcessBuilder builder = new ProcessBuilder(command).directory(context.io().home().toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(directories.state().resolve("serve-shared.log")
                            .toFile()));
            builder.environment().clear();
            builder.environment().putAll(context.io().env());
            builder.start();
        } catch (IOException e) {
            throw new McpException("cannot start " + String.join(" ", command) + ": " + e.getMessage(), e);
        }
    }

    /** How to run this program again: the image's launcher, or this JVM with its module path. */
    private static List<String> selfCommand(CliContext context) {
        String launcher = context.io().env().get("MCP_HOST_LAUNCHER");
        if (launcher != null && !launcher.isBlank()) {
            return List.of(launcher);
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String modulePath = System.getProperty("jdk.module.path");
        if (modulePath != null && !modulePath.isBlank()) {
            command.addAll(List.of("-p", modulePath));
        }
        command.addAll(List.of("-m", "mcp.cli/mcp.cli.Main"));
        return command;
    }

    private static boolean onPath(CliContext context, String program) {
        String path = context.io().env().getOrDefault("PATH", "");
        for (String entry : path.split(File.pathSeparator)) {
            if (!entry.isEmpty() && Files.isExecutable(Path.of(entry, program))) {
                return true;
            }
        }
        return false;
    }

    /** This session's gateway in this process, for when the shared one cannot be reached. */
    private Attachment.Link inProcess(CliContext context) {
        McpHost host = context.newHost(context.hostBuilder().clientSettings(Gateway.clientSettings()));
        Gateway gateway = Gateway.builder(host.manager()).ready(loadInBackground(context, host), LIST_WAIT)
                .search(search).alwaysLoad(Set.copyOf(alwaysLoad)).toolFinder(host.toolFinder())
                .serverControl(ServerControl.of(host, context.workingDirectory())).tasks(tasks).build();
        McpServer server = McpServer.builder("mcp-host", mcp.manager.McpClient.VERSION).handler(gateway).build();
        gateway.attach(server);
        return Attachment.inProcess(server, () -> {
            server.close();
            gateway.close();
            host.close();
        });
    }

    /** Starts the servers, says which failed, and watches the config files. */
    private static LoadResult load(CliContext context, McpHost host) {
        LoadResult loaded = host.load();
        CliContext.checked(loaded.discovery());
        loaded.errors().forEach((server, error) -> context.err().println("mcp-host serve: " + server + ": " + error));
        // A changed config file restarts the servers it changes only; the gateway's clients hear list_changed.
        watch(context, host);
        return loaded;
    }

    /** {@link #load} on a thread of its own; a failure is said on stderr, and the gateway serves what there is. */
    private static CompletableFuture<LoadResult> loadInBackground(CliContext context, McpHost host) {
        CompletableFuture<LoadResult> loaded = new CompletableFuture<>();
        Thread loading = new Thread(() -> {
            try {
                loaded.complete(load(context, host));
            } catch (RuntimeException e) {
                context.err().println("mcp-host serve: " + e.getMessage());
                loaded.completeExceptionally(e);
            }
        }, "mcp-host-serve-load");
        loading.setDaemon(true);
        loading.start();
        return loaded;
    }

    /**
     * Stops gracefully: no new request is taken, the calls in flight get {@link #drainTimeout} to finish and are
     * answered; those still running then are cancelled upstream and their clients told why. The caller then closes
     * the server, the gateway and the host, which ends every upstream.
     */
    private void drain(CliContext context, McpServer server, String signal) throws InterruptedException {
        context.err().println("mcp-host serve: " + signal + ": taking no new requests; the calls in flight get "
                + drainTimeout + " ms to finish (a second signal stops at once)");
        int cancelled = server.drain(Duration.ofMillis(drainTimeout));
        if (cancelled > 0) {
            context.err().println("mcp-host serve: cancelled " + cancelled + (cancelled == 1 ? " call" : " calls")
                    + " still running after " + drainTimeout + " ms");
        }
        context.err().println("mcp-host serve: stopping every server");
    }

    /**
     * Watches the config files: a changed file restarts what it changes only, and the gateway's clients hear
     * list_changed. A file system that cannot be watched costs the live reload, not the gateway.
     */
    private static void watch(CliContext context, McpHost host) {
        try {
            host.watchConfigs((files, result) -> {
                if (result.changedAnything()) {
                    ReconcileResult changes = result.changes();
                    context.err().println("mcp-host serve: configs changed: started " + changes.added()
                            + ", restarted " + changes.changed() + ", stopped " + changes.removed()
                            + (result.held().isEmpty() ? "" : ", held (unreadable file) " + result.held().keySet()));
                }
            });
        } catch (McpException e) {
            context.err().println("mcp-host serve: " + e.getMessage() + "; config changes need a restart");
        }
    }

    private static boolean isLoopback(String address) {
        return address.equals("127.0.0.1") || address.equals("::1") || address.equals("localhost")
                || address.startsWith("127.");
    }

    /** The command an agent runs: this launcher, when the image's launcher said where it is. */
    static String launcher(CliContext context) {
        String launcher = context.io().env().get("MCP_HOST_LAUNCHER");
        return launcher == null || launcher.isBlank() ? "mcp-host" : launcher;
    }

    /**
     * @param agent one of {@link #AGENTS}
     * @param command the launcher
     * @return what the agent's config needs, as that agent writes it
     */
    static String snippet(String agent, String command) {
        ObjectNode entry = McpJson.object().put("type", "stdio").put("command", command);
        entry.putArray("args").add("serve").add("--stdio");
        ObjectNode plain = entry.deepCopy();
        plain.remove("type");
        return switch (agent) {
            case "claude" -> "# Claude Code: run this (user scope: every project)\nclaude mcp add-json --scope user "
                    + "mcp-host " + shellQuote(entry.toString()) + "\n";
            // Codex passes a server only a few variables: the table names those that say where the gateway is.
            case "codex" -> "# Codex: add to ~/.codex/config.toml\n"
                    + AgentConnection.codexTable(List.of(command, "serve", "--stdio"));
            case "gemini" -> "# Gemini CLI: add to ~/.gemini/settings.json\n"
                    + pretty(McpJson.object().set("mcpServers", McpJson.object().set("mcp-host", plain)));
            case "cursor" -> "# Cursor: add to ~/.cursor/mcp.json\n"
                    + pretty(McpJson.object().set("mcpServers", McpJson.object().set("mcp-host", plain)));
            case "vscode" -> "# VS Code: add to .vscode/mcp.json (or the user's mcp.json)\n"
                    + pretty(McpJson.object().set("servers", McpJson.object().set("mcp-host", entry)));
            default -> throw CliException.usage("--print-config knows " + String.join(", ", AGENTS) + "; not "
                    + agent);
        };
    }

    private static String pretty(ObjectNode json) {
        return McpJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n";
    }

    private static String shellQuote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }
}
