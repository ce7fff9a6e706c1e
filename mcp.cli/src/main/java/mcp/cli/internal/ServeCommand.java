package mcp.cli.internal;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Callable;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.UserDirectories;
import mcp.gateway.Gateway;
import mcp.gateway.GatewayToken;
import mcp.host.LoadResult;
import mcp.host.McpHost;
import mcp.manager.ReconcileResult;
import mcp.server.HttpEndpoint;
import mcp.server.HttpOptions;
import mcp.server.McpServer;
import mcp.server.ServerEndpoint;
import picocli.CommandLine.Command;
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
            + " `mcp-host serve --token` required.",
    "--print-config AGENT prints what to put in claude, codex, gemini, cursor or vscode to use it."})
final class ServeCommand implements Callable<Integer> {

    /** The agents {@code --print-config} knows. */
    static final List<String> AGENTS = List.of("claude", "codex", "gemini", "cursor", "vscode");

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

    @Option(names = "--token", description = "Print the HTTP bearer token (made at the first start) and exit.")
    boolean printToken;

    @Option(names = "--no-token", description = "HTTP on loopback without a token, for clients that cannot send one"
            + " (any local process may then call the gateway; warned at every start).")
    boolean noToken;

    @Option(names = "--lazy", description = "Start no server until the first call of one of its tools; stop it again"
            + " when idle (--lazy-idle). Its cached tools are served meanwhile.")
    boolean lazy;

    @Option(names = "--lazy-idle", paramLabel = "MS", description = "How long a lazy server may be idle before it is"
            + " stopped, unless its entry sets lazy.idleTimeout (default 600000: 10 minutes).")
    Long lazyIdle;

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
        if (printToken) {
            context.out().println(GatewayToken.loadOrCreate(directories.state()));
            return ExitCodes.OK;
        }
        if (printConfig != null) {
            context.out().print(snippet(printConfig.toLowerCase(Locale.ROOT), launcher(context)));
            return ExitCodes.OK;
        }
        if (noToken && !http) {
            throw CliException.usage("--no-token is an HTTP option");
        }
        if (noToken && !isLoopback(bind)) {
            throw CliException.usage("--no-token is allowed on a loopback address only, not " + bind);
        }
        if (lazyIdle != null && lazyIdle <= 0) {
            throw CliException.usage("--lazy-idle must be a positive number of milliseconds");
        }
        McpHost.Builder builder = context.hostBuilder().clientSettings(Gateway.clientSettings()).lazy(lazy);
        if (lazyIdle != null) {
            builder.lazyIdleTimeout(Duration.ofMillis(lazyIdle));
        }
        McpHost host = context.newHost(builder);
        try (host) {
            LoadResult loaded = host.load();
            CliContext.checked(loaded.discovery());
            loaded.errors().forEach((server, error) -> context.err().println("mcp-host serve: " + server + ": " + error));
            try (Gateway gateway = Gateway.builder(host.manager()).servers(Set.copyOf(servers))
                    .tools(new LinkedHashSet<>(tools)).build();
                    McpServer server = McpServer.builder("mcp-host", mcp.manager.McpClient.VERSION).handler(gateway).build()) {
                gateway.attach(server);
                // A changed config file restarts the servers it changes only; the gateway's clients hear list_changed.
                watch(context, host);
                CountDownLatch stop = new CountDownLatch(1);
                Thread hook = new Thread(stop::countDown, "mcp-host-serve-stop");
                Runtime.getRuntime().addShutdownHook(hook);
                ServerEndpoint endpoint;
                if (http) {
                    HttpOptions options = HttpOptions.LOOPBACK.withBindAddress(bind).withPort(port);
                    if (!noToken) {
                        options = options.withBearerToken(GatewayToken.loadOrCreate(directories.state()));
                    }
                    HttpEndpoint listening = server.serveHttp(options);
                    endpoint = listening;
                    context.err().println("mcp-host serve: listening on " + listening.uri()
                            + (noToken ? "; WARNING: no token is required, so any local process may call it"
                                    : " (bearer token: mcp-host serve --token)"));
                } else {
                    // The protocol's own streams: nothing else of the CLI writes to stdout while it serves.
                    endpoint = server.serveStdio(context.io().in(), context.io().out());
                }
                // Until the client leaves (stdio) or the process is told to stop (SIGTERM, SIGINT).
                while (!endpoint.awaitClosed(Duration.ofMillis(200)) && stop.getCount() > 0) {
                    // The endpoint's own wait is the bound of each round.
                }
            }
        }
        return ExitCodes.OK;
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
    private static String launcher(CliContext context) {
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
            case "codex" -> "# Codex: add to ~/.codex/config.toml\n[mcp_servers.mcp-host]\ncommand = "
                    + McpJson.mapper().writeValueAsString(command) + "\nargs = [\"serve\", \"--stdio\"]\n";
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
