package mcp.cli.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import mcp.api.internal.SystemBrowser;
import mcp.host.LoadResult;
import mcp.host.McpHost;
import mcp.host.ReloadResult;
import mcp.host.ToolSession;
import mcp.manager.ReconcileResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/**
 * {@code shell}: one host and session for many commands, like an agent's {@code /mcp} controller.
 * Each line runs the matching subcommand against the shell's servers.
 */
@Command(name = "shell", description = {
    "Interactive: keep the servers up and run /mcp list|status|reload|test|enable|disable|add|remove,"
            + " /tools, /call, /resources, /read, /prompts, /prompt, /complete, /logs, /help, /quit."})
final class ShellCommand implements Callable<Integer> {

    private static final String HELP = String.join(System.lineSeparator(),
            "/mcp list                 servers by source, with live states",
            "/mcp status               each server's state and tool count",
            "/mcp reload               discover again; restart only the servers whose config changed",
            "/mcp test NAME            connect NAME on its own and report",
            "/mcp enable NAME          enable NAME in its config file and start it",
            "/mcp disable NAME         disable NAME in its config file and stop it",
            "/mcp add NAME [options] (--url URL | -- COMMAND [ARGS...])   add a server and start it",
            "/mcp remove NAME          remove NAME from its config file and stop it",
            "/tools [--server NAME]    the tools of the session",
            "/call TOOL [JSON]         call a tool, e.g. /call mcp_git_status {\"repo_path\": \".\"}",
            "/resources [--server NAME] resources and resource templates, by server",
            "/read URI [-o FILE]       read a resource (binary contents only to a file, with -o)",
            "/prompts [--server NAME]  prompts as SERVER:PROMPT with their arguments (* required)",
            "/prompt NAME [JSON]       a prompt's messages, e.g. /prompt kit:greet {\"name\": \"Ada\"}",
            "/complete (--prompt NAME | --resource URI_TEMPLATE) ARGUMENT [VALUE] [--context K=V]...",
            "                          the values a server suggests for an argument",
            "/logs NAME [-n N]         the log messages NAME sent (stored; mcp-host logs NAME -f follows them)",
            "/help                     this list",
            "/quit                     leave (also end of input)");

    @ParentCommand
    McpHostCommand root;

    @Override
    public Integer call() throws IOException {
        CliContext context = root.context();
        if (context.shell().isPresent()) {
            throw CliException.usage("Already in the shell");
        }
        CliIo io = context.io();
        BufferedReader reader = new BufferedReader(new InputStreamReader(io.in(), StandardCharsets.UTF_8));
        // Asked before the servers start, on the shell's own input: a person at a terminal decides at once.
        ShellConsent consent = new ShellConsent(reader, io.out(), io.console() && !context.json());
        McpHost.Builder builder = context.hostBuilder().consentHandler(consent);
        if (io.console() && !context.json()) {
            // Servers may ask the person at this terminal, in the middle of a command, on the same input.
            builder.elicitationUi(new ShellElicitation(reader, io.out(), SystemBrowser::open));
        }
        try (McpHost host = context.newHost(builder)) {
            try (ToolSession session = Progress.around(context, host.manager(), host::openSession)) {
                ShellState state = new ShellState(host, session, context.plugins(), reader);
                summary(context.out(), session.lastLoad());
                context.printNotStarted(session.lastLoad().discovery(), null);
                context.out().println("Type /help for the commands, /quit to leave.");
                loop(context, state, reader);
            }
        }
        return ExitCodes.OK;
    }

    private void loop(CliContext context, ShellState state, BufferedReader reader) throws IOException {
        CliIo io = context.io();
        while (true) {
            if (io.console()) {
                io.out().print("mcp> ");
                io.out().flush();
            }
            String line = reader.readLine();
            if (line == null || !execute(context, state, line.strip())) {
                return;
            }
        }
    }

    /** @return whether to go on */
    private boolean execute(CliContext context, ShellState state, String line) {
        if (line.isEmpty()) {
            return true;
        }
        String[] parts = line.split("\\s+", 2);
        String rest = parts.length > 1 ? parts[1] : "";
        try {
            switch (parts[0]) {
                case "/quit", "/exit" -> {
                    return false;
                }
                case "/help" -> context.out().println(HELP);
                case "/tools" -> run(context, state, "tools", ShellWords.split(rest));
                case "/call" -> run(context, state, "call", ShellWords.splitCall(rest));
                case "/resources", "/read", "/prompts", "/complete" ->
                        run(context, state, parts[0].substring(1), ShellWords.split(rest));
                case "/prompt" -> run(context, state, "prompt", ShellWords.splitCall(rest));
                case "/logs" -> run(context, state, "logs", ShellWords.split(rest));
                case "/mcp" -> mcp(context, state, rest);
                default -> context.err().println("Unknown command \"" + parts[0] + "\". Type /help for the commands.");
            }
        } catch (CliException e) {
            // A bad line must not end the shell.
            context.err().println("mcp-host: " + e.getMessage());
        }
        return true;
    }

    private void mcp(CliContext context, ShellState state, String line) {
        List<String> words = ShellWords.split(line);
        String command = words.isEmpty() ? "" : words.get(0);
        List<String> args = words.isEmpty() ? List.of() : words.subList(1, words.size());
        switch (command) {
            case "list", "status", "test", "enable", "disable", "add", "remove" -> run(context, state, command, args);
            case "reload" -> {
                ReloadResult reload = Progress.around(context, state.host().manager(), state.session()::reloadChanged);
                changes(context.out(), reload);
                summary(context.out(), reload.load());
            }
            default -> context.err().println("Usage: /mcp list|status|reload|test NAME|enable NAME|disable NAME"
                    + "|add NAME ...|remove NAME. Type /help for more.");
        }
    }

    /** Runs a subcommand on the shell's servers, with the shell's global options as defaults. */
    private void run(CliContext context, ShellState state, String command, List<String> args) {
        List<String> argv = new ArrayList<>();
        argv.add(command);
        argv.addAll(args);
        Main.execute(new McpHostCommand(context.io(), state).withOptionsOf(root), argv.toArray(String[]::new));
    }

    /** What a reload did to the servers: a line for each kind of change, or one that says there was none. */
    private static void changes(PrintStream out, ReloadResult reload) {
        ReconcileResult changes = reload.changes();
        line(out, "started", changes.added());
        line(out, "restarted (config changed)", changes.changed());
        line(out, "stopped", changes.removed());
        line(out, "tried again", changes.retried());
        reload.held().forEach((server, problem) -> out.println("kept as it was: " + server + " (its file cannot be"
                + " read now: " + problem.describe() + ")"));
        if (!changes.changedAnything() && reload.held().isEmpty()) {
            out.println("no server changed");
        }
    }

    private static void line(PrintStream out, String what, List<String> servers) {
        if (!servers.isEmpty()) {
            out.println(what + ": " + String.join(", ", servers));
        }
    }

    private static void summary(PrintStream out, LoadResult load) {
        long deferred = load.tools().stream().filter(tool -> tool.deferred()).count();
        long servers = load.tools().stream().map(tool -> tool.serverName()).distinct().count();
        out.println(load.tools().size() + " tools from " + servers + (servers == 1 ? " server" : " servers")
                + (deferred > 0 ? " (" + deferred + " deferred, still connecting)" : "")
                + (load.errors().isEmpty() ? "" : "; " + load.errors().size() + " failed:"));
        for (Map.Entry<String, String> error : load.errors().entrySet()) {
            out.println("✗ " + error.getKey() + ": " + error.getValue());
        }
    }
}
