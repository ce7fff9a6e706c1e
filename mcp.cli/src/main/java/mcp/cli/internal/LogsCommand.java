package mcp.cli.internal;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import mcp.api.LogLevel;
import mcp.api.ServerConfig;
import mcp.api.SourceMetadata;
import mcp.api.internal.Secrets;
import mcp.config.DiscoveryResult;
import mcp.host.McpHost;
import mcp.manager.ConnectResult;
import mcp.manager.ServerLog;
import mcp.manager.ServerLogEntry;
import mcp.manager.ServerLogFiles;
import mcp.manager.ServerStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code logs}: a server's log messages ({@code notifications/message}) as stored in its log file, so that they
 * outlive the process that received them; with {@code -f}, the server is connected (as {@code test} connects it:
 * discovery, approvals and the owning tools' decisions hold) and its new messages are printed as they come.
 */
@Command(name = "logs", description = {
    "Print the log messages a server sent (kept in mcp-host's state directory, logs/NAME.log).",
    "With -f, connect the server and print its new messages until interrupted (Ctrl-C) or --timeout."})
final class LogsCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @Parameters(index = "0", paramLabel = "NAME", description = "The server.")
    String name;

    @Option(names = "-f", description = "Connect the server and follow its new messages.")
    boolean follow;

    @Option(names = "-n", paramLabel = "N", description = "The last N stored messages (default ${DEFAULT-VALUE}; 0: all).")
    int last = 100;

    @Option(names = "--level", paramLabel = "LEVEL",
            description = "With -f: the least severe level asked of the server: debug, info, notice, warning, error,"
                    + " critical, alert, emergency (default ${DEFAULT-VALUE}).")
    String level = "info";

    @Option(names = "--timeout", paramLabel = "MS", description = "With -f: stop following after MS milliseconds"
            + " (default 0: until interrupted).")
    long timeoutMillis;

    @Override
    public Integer call() throws InterruptedException {
        CliContext context = root.context();
        LogLevel asked = LogLevel.parse(level).orElseThrow(() -> CliException.usage("--level must be one of debug,"
                + " info, notice, warning, error, critical, alert, emergency, not \"" + level + "\""));
        if (follow && context.shell().isPresent()) {
            throw CliException.usage("logs -f cannot run inside the shell; run it in another terminal");
        }
        ServerLogFiles files = ServerLogFiles.forUser(context.env(), context.home());
        if (!follow) {
            List<ServerLogEntry> entries = stored(files);
            if (entries.isEmpty() && !context.json()) {
                context.err().println("No log messages of \"" + name + "\" are stored (" + files.file(name) + ").");
            }
            print(context, entries);
            return ExitCodes.OK;
        }
        return follow(context, files, asked);
    }

    private List<ServerLogEntry> stored(ServerLogFiles files) {
        try {
            return files.read(name, last);
        } catch (IOException e) {
            throw new CliException(ExitCodes.FAILURE, "cannot read " + files.file(name) + ": " + e.getMessage());
        }
    }

    private int follow(CliContext context, ServerLogFiles files, LogLevel asked) throws InterruptedException {
        // A host of its own, as `test` has: following must not disturb other servers, nor answer from a cache.
        try (McpHost host = context.newHost(context.hostBuilder().cache(false).serverLogFiles(files)
                .clientSettings(options -> options.logLevel(asked)))) {
            DiscoveryResult discovery = CliContext.checked(host.discover());
            Map.Entry<ServerConfig, SourceMetadata> server = ServerLookup.find(discovery, name);
            // Listening before the connect: no message of this run is missed, and none is printed twice.
            LinkedBlockingQueue<ServerLogEntry> fresh = new LinkedBlockingQueue<>(10_000);
            ServerLog log = host.manager().serverLog(name);
            try (ServerLog.Subscription subscription = log.listen(fresh::offer)) {
                print(context, stored(files));
                ConnectResult result = Progress.around(context, host.manager(), () -> host.manager().connectServers(
                        Map.of(name, server.getKey()), Map.of(name, server.getValue()), CliContext.pinKey(discovery, name)));
                String error = result.errors().get(name);
                if (error != null) {
                    context.err().println("mcp-host: " + Secrets.maskText(error));
                    return ExitCodes.FAILURE;
                }
                if (!context.json()) {
                    context.err().println("Following " + name + " (" + asked.wire() + " and above); Ctrl-C to stop.");
                }
                long deadline = timeoutMillis > 0 ? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis)
                        : Long.MAX_VALUE;
                while (System.nanoTime() < deadline) {
                    long wait = Math.min(500, Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                    ServerLogEntry entry = fresh.poll(wait, TimeUnit.MILLISECONDS);
                    if (entry != null) {
                        print(context, List.of(entry));
                        continue;
                    }
                    ServerStatus.State state = host.manager().status(name).state();
                    if (state == ServerStatus.State.FAILED || state == ServerStatus.State.DISCONNECTED) {
                        context.err().println("mcp-host: MCP server \"" + name + "\" is "
                                + state.name().toLowerCase(java.util.Locale.ROOT)
                                + host.manager().status(name).error().map(e -> ": " + Secrets.maskText(e)).orElse(""));
                        return ExitCodes.FAILURE;
                    }
                }
                return ExitCodes.OK;
            }
        }
    }

    private static void print(CliContext context, List<ServerLogEntry> entries) {
        PrintStream out = context.out();
        for (ServerLogEntry entry : entries) {
            if (context.json()) {
                out.println(entry.toJson().toString());
            } else {
                out.println(entry.time() + " " + entry.level().wire()
                        + entry.logger().map(logger -> " [" + logger + "]").orElse("") + " " + entry.text());
            }
        }
        out.flush();
    }
}
