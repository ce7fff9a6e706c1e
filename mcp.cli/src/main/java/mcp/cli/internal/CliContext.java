package mcp.cli.internal;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.ServerConfig;
import mcp.api.SourceMetadata;
import mcp.api.UserDirectories;
import mcp.api.internal.Secrets;
import mcp.api.spi.AuthStorage;
import mcp.api.spi.ConsentHandler;
import mcp.api.spi.Providers;
import mcp.config.DiscoveryProblem;
import mcp.config.DiscoveryResult;
import mcp.config.SkippedServer;
import mcp.host.LoadResult;
import mcp.host.McpHost;
import mcp.manager.ConnectResult;
import tools.jackson.databind.JsonNode;

/**
 * What a command needs: the streams, the options as parsed, the paths they resolve to, and the
 * hosts built from them. Inside the shell, {@link #load()} hands out the shell's host instead of
 * starting new servers.
 */
final class CliContext {

    /** The id of the credential store the CLI uses. */
    static final String FILE_AUTH_STORAGE = "file";

    private final CliIo io;
    private final McpHostCommand options;
    private final ShellState shell;
    private Plugins plugins;
    /** Standard input as lines, made on the first question of a one-shot command. */
    private BufferedReader input;

    CliContext(CliIo io, McpHostCommand options, ShellState shell) {
        this.io = io;
        this.options = options;
        this.shell = shell;
    }

    PrintStream out() {
        return io.out();
    }

    PrintStream err() {
        return io.err();
    }

    CliIo io() {
        return io;
    }

    boolean json() {
        return options.json;
    }

    boolean verbose() {
        return options.verbose;
    }

    /** Progress lines only for a person at a terminal: scripts and {@code --json} get clean output. */
    boolean showProgress() {
        return io.console() && !options.json;
    }

    /**
     * Reads what a person typed, for a question a command asks at a terminal (a call to confirm): from the shell's
     * input in the shell (its next line is the answer), else from standard input.
     *
     * @return the line, or empty at the end of the input
     */
    Optional<String> readLine() {
        BufferedReader reader = shell != null ? shell.input() : input;
        if (reader == null) {
            input = new BufferedReader(new InputStreamReader(io.in(), StandardCharsets.UTF_8));
            reader = input;
        }
        try {
            return Optional.ofNullable(reader.readLine());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** @return the shell this command runs in, if any */
    Optional<ShellState> shell() {
        return Optional.ofNullable(shell);
    }

    /** @return the project directory: {@code -C}, resolved against the start directory */
    Path workingDirectory() {
        return options.directory == null ? io.cwd() : io.cwd().resolve(options.directory).normalize();
    }

    Path home() {
        return io.home();
    }

    Map<String, String> env() {
        return io.env();
    }

    /** @return the {@code --config} file, resolved against the project directory like every relative path */
    Optional<Path> configFile() {
        return Optional.ofNullable(options.configFile).map(file -> workingDirectory().resolve(file).normalize());
    }

    /** @return the user's directories: the home and the XDG directories of this run's environment */
    UserDirectories directories() {
        return UserDirectories.of(io.env(), io.home());
    }

    /**
     * @return mcp-host's user-level config: {@code $XDG_CONFIG_HOME/mcp-host/mcp.json}, else under {@code ~/.config}
     *     (the file the native capability source reads)
     */
    Path userConfigFile() {
        return directories().config().resolve("mcp.json");
    }

    /** @return the user's plugin folder: {@code plugins} beside {@link #userConfigFile()} */
    Path userPluginFolder() {
        return userConfigFile().resolveSibling("plugins");
    }

    /**
     * @return the plugins of the user's plugin folder and of {@code --plugin-path} (relative entries resolved against
     *     the project directory), loaded once per command; in the shell, the shell's
     */
    Plugins plugins() {
        if (shell != null) {
            return shell.plugins();
        }
        if (plugins == null) {
            List<Path> entries = options.pluginPath == null ? List.of()
                    : Stream.of(options.pluginPath.split(Pattern.quote(File.pathSeparator)))
                            .filter(entry -> !entry.isBlank())
                            .map(entry -> workingDirectory().resolve(entry).normalize()).toList();
            plugins = Plugins.load(userPluginFolder(), entries);
        }
        return plugins;
    }

    /** @return mcp-host's project-level config in the project directory */
    Path projectConfigFile() {
        return workingDirectory().resolve(".mcp-host").resolve("mcp.json");
    }

    /** @return a host builder with every global option applied */
    /**
     * @return whether the host options are the user's defaults, so that a shared gateway, which serves every agent
     *     with the user's configs as they are, serves this one as it asked
     */
    boolean defaultHostOptions() {
        return options.configFile == null && !options.noProjectConfig && !options.approveProjectServers
                && !options.sandboxProjectServers && options.bubblewrap == null && options.cacheDir == null
                && !options.noCache && options.pluginPath == null && options.authStorage == null;
    }

    McpHost.Builder hostBuilder() {
        McpHost.Builder builder = McpHost.builder()
                .workingDirectory(workingDirectory())
                .home(io.home())
                .environment(io.env())
                .projectConfig(!options.noProjectConfig)
                .approveProjectServers(options.approveProjectServers)
                .sandboxProjectServers(options.sandboxProjectServers)
                .cache(!options.noCache)
                .startupGate(Duration.ofMillis(Math.max(0, options.gateMillis)))
                .uncachedWait(Duration.ofMillis(Math.max(0, options.uncachedWaitMillis)))
                // Every server it starts knows it is one, so that an mcp-host serve among them refuses to start.
                .authResolver(new UpstreamMarker(ProcessHandle.current().pid()));
        plugins().addTo(builder);
        if (options.cacheDir != null) {
            builder.cacheDirectory(workingDirectory().resolve(options.cacheDir));
        }
        if (options.bubblewrap != null) {
            builder.bubblewrap(workingDirectory().resolve(options.bubblewrap));
        }
        if (options.authStorage != null) {
            builder.authStorage(options.authStorage);
        }
        configFile().ifPresent(file -> {
            // Discovery is silent about missing files; one named on the command line is a mistake.
            if (!Files.isRegularFile(file)) {
                throw CliException.usage("--config " + file + ": no such file");
            }
            builder.configFile(file);
        });
        return builder;
    }

    /** Builds a host; a missing or duplicated provider is a configuration error. */
    McpHost newHost(McpHost.Builder builder) {
        try {
            return builder.build();
        } catch (McpException e) {
            throw CliException.usage(e.getMessage());
        }
    }

    /**
     * Discovers without connecting anything.
     *
     * @throws CliException when discovery failed as a whole
     */
    DiscoveryResult discover() {
        if (shell != null) {
            return checked(shell.host().discover());
        }
        try (McpHost host = newHost(hostBuilder())) {
            return checked(host.discover());
        }
    }

    /** @throws CliException when discovery failed as a whole */
    static DiscoveryResult checked(DiscoveryResult discovery) {
        if (discovery.hardFailed()) {
            throw CliException.usage("MCP discovery failed: " + discovery.problems().get(0).message());
        }
        return discovery;
    }

    /**
     * Discovers and connects every server (or, in the shell, takes the shell's servers).
     *
     * @return the servers, to be closed by the caller
     * @throws CliException when discovery failed as a whole
     */
    Loaded load() {
        return load(hostBuilder());
    }

    /**
     * Discovers and connects every server with these host settings (in the shell: takes the shell's servers,
     * started with the shell's settings).
     *
     * @param builder the host settings
     * @return the servers, to be closed by the caller
     * @throws CliException when discovery failed as a whole
     */
    Loaded load(McpHost.Builder builder) {
        if (shell != null) {
            return Loaded.shared(shell.currentLoad());
        }
        McpHost host = newHost(builder);
        try {
            LoadResult result = Progress.around(this, host.manager(), host::load);
            checked(result.discovery());
            return Loaded.owned(host, result);
        } catch (RuntimeException e) {
            host.close();
            throw e;
        }
    }

    /**
     * Connects what a command with a {@code --server} option needs: that server alone, or every server.
     *
     * @param onlyServer the server of {@code --server}, or {@code null} for all
     * @param builder the host settings
     * @return the servers, to be closed by the caller
     * @throws CliException when discovery failed or no usable server has that name
     */
    Loaded load(String onlyServer, McpHost.Builder builder) {
        return onlyServer == null ? load(builder) : loadOne(onlyServer, builder);
    }

    /**
     * Discovers, then connects only the named server (in the shell: takes the shell's servers).
     *
     * @param name the server
     * @param builder the host settings
     * @return the server's load, to be closed by the caller
     * @throws CliException when discovery failed or no usable server has that name
     */
    Loaded loadOne(String name, McpHost.Builder builder) {
        if (shell != null) {
            ServerLookup.find(checked(shell.host().discover()), name);
            return Loaded.shared(shell.currentLoad());
        }
        McpHost host = newHost(builder);
        try {
            DiscoveryResult discovery = checked(host.discover());
            Map.Entry<ServerConfig, SourceMetadata> server = ServerLookup.find(discovery, name);
            ConnectResult connected = Progress.around(this, host.manager(), () -> host.manager().connectServers(
                    Map.of(name, server.getKey()), Map.of(name, server.getValue()), pinKey(discovery, name)));
            Map<String, String> errors = new LinkedHashMap<>(connected.errors());
            return Loaded.owned(host, new LoadResult(connected.tools(), errors, host.manager(),
                    discovery.exaApiKeys(), discovery));
        } catch (RuntimeException e) {
            host.close();
            throw e;
        }
    }

    /**
     * @param discovery what discovery found
     * @param name a server it found
     * @return the key of that server's pinned tool definitions, by name (empty when discovery has none)
     */
    static Map<String, String> pinKey(DiscoveryResult discovery, String name) {
        String key = discovery.definitions().get(name);
        return key == null ? Map.of() : Map.of(name, key);
    }

    /**
     * @return where credentials are kept: the one the command line was given (tests), else the
     *     {@code file} store found by ServiceLoader, placed under this run's home and environment as a host
     *     places it
     * @throws CliException (usage) when no {@code file} store is installed
     */
    AuthStorage authStorage() {
        if (options.authStorage != null) {
            return options.authStorage;
        }
        Map<String, AuthStorage> byId = Providers.byId(AuthStorage.class,
                Providers.load(AuthStorage.class, CliContext.class.getClassLoader()), AuthStorage::id);
        AuthStorage file;
        try {
            file = Providers.require(AuthStorage.class, byId, FILE_AUTH_STORAGE);
        } catch (McpException e) {
            throw CliException.usage(e.getMessage());
        }
        return file.forUser(io.env(), io.home());
    }

    /** Prints the one JSON document of this command. */
    void printJson(JsonNode document) {
        io.out().println(McpJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(document));
        io.out().flush();
    }

    /**
     * Prints discovery's warnings on stderr (unreadable files, unset variables, failed sources),
     * and errors not already shown as an invalid server's own line or error.
     *
     * @param discovery what discovery found
     * @param onlyServer print only what concerns this server (and no server), or {@code null} for all
     */
    void printProblems(DiscoveryResult discovery, String onlyServer) {
        Set<String> invalid = discovery.skipped().stream()
                .filter(s -> s.reason() == SkippedServer.Reason.INVALID)
                .map(SkippedServer::name)
                .collect(Collectors.toSet());
        for (DiscoveryProblem problem : discovery.problems()) {
            if (onlyServer != null && !problem.server().isEmpty() && !problem.server().equals(onlyServer)) {
                continue;
            }
            if (problem.severity() == DiscoveryProblem.Severity.WARNING) {
                warn(Secrets.maskText(problem.describe()));
            } else if (!invalid.contains(problem.server())) {
                io.err().println("error: " + Secrets.maskText(problem.describe()));
            }
        }
    }

    /**
     * Says on stderr which project servers did not start for want of mcp-host's approval, what changed
     * since an approval, and what to run: one-shot commands never ask.
     *
     * @param discovery what discovery found
     * @param onlyServer only this server, or {@code null} for all
     */
    void printPending(DiscoveryResult discovery, String onlyServer) {
        NotStarted.of(discovery, onlyServer).stream()
                .filter(skipped -> skipped.reason() == SkippedServer.Reason.NOT_APPROVED)
                .forEach(this::printNotStarted);
    }

    /**
     * Says on stderr which configured servers were not started and why, whichever decision held them back
     * (see {@link NotStarted}), with what changed since an approval.
     *
     * @param discovery what discovery found
     * @param onlyServer only this server, or {@code null} for all
     */
    void printNotStarted(DiscoveryResult discovery, String onlyServer) {
        NotStarted.of(discovery, onlyServer).forEach(this::printNotStarted);
    }

    private void printNotStarted(SkippedServer skipped) {
        io.err().println("not started: " + skipped.name() + " (" + ServerLookup.describe(skipped.source()) + "): "
                + skipped.detail());
        NotStarted.printChanges(io.err(), skipped);
    }

    /**
     * Discovers without connecting, asking this handler about pending project servers (approve, deny);
     * outside the shell's host, so the shell's own handler does not ask in between.
     */
    DiscoveryResult discover(ConsentHandler handler) {
        try (McpHost host = newHost(hostBuilder().approveProjectServers(false).consentHandler(handler))) {
            return checked(host.discover());
        }
    }

    /** Prints a warning for people on stderr. */
    void warn(String message) {
        io.err().println("warning: " + message);
    }
}
