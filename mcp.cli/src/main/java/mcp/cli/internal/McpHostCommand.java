package mcp.cli.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import mcp.api.spi.AuthStorage;
import mcp.manager.McpClient;
import mcp.manager.McpManager;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code mcp-host} command: the global options and the list of subcommands. Global options are
 * inherited, so they may also follow the subcommand ({@code mcp-host tools --json}); picocli then
 * sets them here, on the one root object every subcommand reads them from.
 */
@Command(name = "mcp-host",
        scope = ScopeType.INHERIT,
        mixinStandardHelpOptions = true,
        versionProvider = McpHostCommand.Version.class,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = "Discovers, connects and calls MCP servers: those of mcp-host's own config files and of"
                + " the tools you already use (Claude Code, Codex, Gemini CLI, opencode, goose, Cursor, VS Code, Zed, ...).",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success (per-server errors of tools/status are reported, not fatal)",
            "1:a tool call returned an error or failed; a read, prompt or completion failed; test could not connect;"
                    + " auth login failed",
            "2:usage or configuration error (unknown option, tool or server; bad JSON; invalid or unreadable"
                    + " config file)",
            "3:call refused by the tool's call policy (its owning tool denies it, or asks first and nobody"
                    + " confirmed)"})
final class McpHostCommand implements Callable<Integer> {

    /** The subcommands, in the order help lists them. */
    static final List<Class<?>> SUBCOMMANDS = List.of(
            ListCommand.class,
            ToolsCommand.class,
            CallCommand.class,
            ResourcesCommand.class,
            ReadCommand.class,
            PromptsCommand.class,
            PromptCommand.class,
            CompleteCommand.class,
            StatusCommand.class,
            TestCommand.class,
            LogsCommand.class,
            AddCommand.class,
            RemoveCommand.class,
            EnableCommand.class,
            DisableCommand.class,
            ApproveCommand.class,
            DenyCommand.class,
            ApprovalsCommand.class,
            AuthCommand.class,
            ShellCommand.class,
            ServeCommand.class,
            ConnectCommand.class,
            DisconnectCommand.class,
            DemoCommand.class,
            CommandLine.HelpCommand.class);

    /**
     * Adds the subcommands to the root's command line: only the one this line names, when it names one, else every
     * one (for help, usage and suggestions). Picocli builds a subcommand's model by reflection when it is added, and
     * all of them took about 100 ms of every run's start, an agent's {@code serve --stdio} included.
     *
     * @param root the command line of {@link McpHostCommand}, its own options already read from it
     * @param args the line
     */
    static void addSubcommands(CommandLine root, String[] args) {
        Class<?> named = named(root.getCommandSpec(), args);
        for (Class<?> type : SUBCOMMANDS) {
            if (named == null || type == named) {
                root.addSubcommand(type);
            }
        }
    }

    /**
     * @return the subcommand that the first word of the line that is neither an option nor an option's value names;
     *     {@code null} when there is none, it names none, or it is {@code help} (which may name any of them)
     */
    private static Class<?> named(CommandSpec spec, String[] args) {
        Map<String, Class<?>> byName = new HashMap<>();
        for (Class<?> type : SUBCOMMANDS) {
            Command command = type.getAnnotation(Command.class);
            byName.put(command.name(), type);
            for (String alias : command.aliases()) {
                byName.put(alias, type);
            }
        }
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--")) {
                return null;
            }
            if (arg.startsWith("-")) {
                OptionSpec option = arg.contains("=") ? null : spec.findOption(arg);
                if (option != null && option.arity().min() > 0) {
                    i++; // its value, which may be any word
                }
                continue;
            }
            Class<?> type = byName.get(arg);
            return type == CommandLine.HelpCommand.class ? null : type;
        }
        return null;
    }

    @Option(names = "--config", paramLabel = "FILE", scope = ScopeType.INHERIT,
            description = "Use only this file (native mcpServers format) instead of discovery; add, remove, enable"
                    + " and disable edit it.")
    Path configFile;

    @Option(names = "--no-project-config", scope = ScopeType.INHERIT,
            description = "Ignore project-level config files.")
    boolean noProjectConfig;

    @Option(names = "--approve-project-servers", scope = ScopeType.INHERIT,
            description = "Start project servers without an approval (automation that trusts its checkout);"
                    + " nothing is saved, and denials, the owning tools' declines and the managed policy still hold.")
    boolean approveProjectServers;

    @Option(names = "--sandbox-project-servers", scope = ScopeType.INHERIT,
            description = "Run every stdio server of a project-level file in a sandbox (Linux, bubblewrap): the project"
                    + " directory and its own state directory writable, the rest read-only, no network unless its"
                    + " sandbox grants it; where none can be had it is not started (see docs/sandbox.md).")
    boolean sandboxProjectServers;

    @Option(names = "--bwrap", paramLabel = "FILE", scope = ScopeType.INHERIT,
            description = "The bubblewrap program that runs sandboxed servers (default: bwrap on the PATH).")
    Path bubblewrap;

    @Option(names = "--cache-dir", paramLabel = "DIR", scope = ScopeType.INHERIT,
            description = "Keep the tool cache here (default: $XDG_CACHE_HOME/mcp-host/tools).")
    Path cacheDir;

    @Option(names = "--no-cache", scope = ScopeType.INHERIT,
            description = "Neither read nor write the tool cache.")
    boolean noCache;

    @Option(names = "--json", scope = ScopeType.INHERIT,
            description = "Print one JSON document on stdout, for scripts.")
    boolean json;

    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT,
            description = "Debug logging on stderr.")
    boolean verbose;

    @Option(names = {"-C", "--directory"}, paramLabel = "DIR", scope = ScopeType.INHERIT,
            description = "Run as if started in DIR (the project directory; relative paths of other options too).")
    Path directory;

    @Option(names = "--gate", paramLabel = "MS", scope = ScopeType.INHERIT,
            description = "Startup gate: how long to wait for servers before using cached tools (default: 250).")
    long gateMillis = 250;

    @Option(names = "--uncached-wait", paramLabel = "MS", scope = ScopeType.INHERIT,
            description = "How long to wait for a server nothing is cached of before going on without its tools,"
                    + " which come later (default: 10000; never less than --gate).")
    long uncachedWaitMillis = McpManager.DEFAULT_UNCACHED_WAIT.toMillis();

    @Option(names = "--plugin-path", paramLabel = "PATH", scope = ScopeType.INHERIT,
            description = "Plugin jars, or folders of them, separated by '${sys:path.separator}', loaded besides the"
                    + " user's plugin folder ($XDG_CONFIG_HOME/mcp-host/plugins, else ~/.config/mcp-host/plugins).")
    String pluginPath;

    @Spec
    CommandLine.Model.CommandSpec spec;

    /** Where {@code auth} keeps credentials; {@code null}: the {@code file} store found by ServiceLoader. Tests set it. */
    AuthStorage authStorage;

    private final CliIo io;
    private final ShellState shell;

    /**
     * @param io the process's streams and environment
     * @param shell the running shell whose host the commands share, or {@code null} outside the shell
     */
    McpHostCommand(CliIo io, ShellState shell) {
        this.io = io;
        this.shell = shell;
    }

    /** Takes the global option values of the command that started the shell, as defaults for one shell line. */
    McpHostCommand withOptionsOf(McpHostCommand base) {
        configFile = base.configFile;
        noProjectConfig = base.noProjectConfig;
        approveProjectServers = base.approveProjectServers;
        sandboxProjectServers = base.sandboxProjectServers;
        bubblewrap = base.bubblewrap;
        cacheDir = base.cacheDir;
        noCache = base.noCache;
        json = base.json;
        verbose = base.verbose;
        directory = base.directory;
        gateMillis = base.gateMillis;
        uncachedWaitMillis = base.uncachedWaitMillis;
        pluginPath = base.pluginPath;
        authStorage = base.authStorage;
        return this;
    }

    /** @return the context of the command being run, with the options as parsed */
    CliContext context() {
        CliContext context = new CliContext(io, this, shell);
        if (!Files.isDirectory(context.workingDirectory())) {
            throw CliException.usage("-C " + directory + ": no such directory");
        }
        return context;
    }

    CliIo io() {
        return io;
    }

    /** Without a subcommand: the usage, and a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(io.err());
        return ExitCodes.USAGE;
    }

    /** {@code mcp-host <version>}, the version the client announces to servers. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"mcp-host " + McpClient.VERSION};
        }
    }
}
