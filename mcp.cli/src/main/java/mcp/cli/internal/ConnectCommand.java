package mcp.cli.internal;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import mcp.api.McpException;
import mcp.config.AgentConnection;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code connect AGENT}: the agent's own MCP entries (the user's, or the project's) replaced by the one entry that
 * starts {@code mcp-host serve}, the replaced ones kept in mcp-host's config, after the change was shown and
 * confirmed. {@code disconnect AGENT} undoes it.
 */
@Command(name = "connect", description = {
    "Put an agent (claude, codex, gemini, cursor, vscode, opencode, goose, zed) behind mcp-host: its MCP servers"
            + " move into mcp-host's config and its file gets the one entry that starts `mcp-host serve`, written by the"
            + " agent's own CLI where it is on the PATH and can (claude, gemini), otherwise directly. The change is"
            + " shown on stderr and asked about at the terminal (--yes: without asking; no terminal and no --yes: nothing changes).",
    "The original file is kept in mcp-host's state folder; `mcp-host disconnect AGENT` puts it back."})
final class ConnectCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @Parameters(index = "0", paramLabel = "AGENT",
            description = "claude, codex, gemini, cursor, vscode, opencode, goose or zed.")
    String agent;

    @Option(names = "--project", description = "The project's file (in the working directory) and mcp-host's project"
            + " file, instead of the user's.")
    boolean project;

    @Option(names = "--yes", description = "Make the change without asking.")
    boolean yes;

    @Override
    public Integer call() {
        CliContext context = root.context();
        String name = agent.toLowerCase(Locale.ROOT);
        if (!AgentConnection.AGENTS.contains(name)) {
            throw CliException.usage("connect knows " + String.join(", ", AgentConnection.AGENTS) + "; not " + agent);
        }
        Connections connections = new Connections(context);
        Path file;
        try {
            file = AgentConnection.file(name, project, context.home(), context.workingDirectory(), context.io().env());
        } catch (McpException e) {
            throw CliException.usage(e.getMessage());
        }
        Path state = connections.stateFile(name, project, file);
        if (Files.exists(state)) {
            throw CliException.usage(name + " is connected already (" + file + "); `mcp-host disconnect " + name
                    + (project ? " --project" : "") + "` first");
        }
        AgentConnection.Plan plan;
        try {
            plan = AgentConnection.plan(name, file, List.of(ServeCommand.launcher(context), "serve", "--stdio"));
        } catch (McpException e) {
            throw CliException.usage(e.getMessage());
        }
        Path ownConfig = project ? context.projectConfigFile() : context.userConfigFile();
        ConfigFileEditor own = ConfigFileEditor.open(ownConfig);
        for (Map.Entry<String, ObjectNode> moved : plan.moved().entrySet()) {
            if (own.server(moved.getKey()).isPresent() && !own.server(moved.getKey()).get().equals(moved.getValue())) {
                throw CliException.usage("mcp-host's " + ownConfig + " already has a server named " + moved.getKey()
                        + "; rename or remove one of them first; nothing was changed");
            }
        }
        Map<String, String> cliEnv = new LinkedHashMap<>(context.io().env());
        // The CLI must find the same files as connect: its home is this run's.
        cliEnv.put("HOME", context.home().toString());
        AgentCli.Route route = AgentCli.route(plan, project, cliEnv, context.home());
        show(context.err(), plan, ownConfig, route);
        confirm(context, plan);

        Optional<byte[]> ownBefore = read(ownConfig);
        connections.save(state, plan, ownConfig, Connections.sha256(plan.connected()), "direct");
        String way;
        try {
            for (Map.Entry<String, ObjectNode> moved : plan.moved().entrySet()) {
                own.putServer(moved.getKey(), moved.getValue());
            }
            if (!plan.moved().isEmpty()) {
                own.save();
            }
            Optional<String> failed = Optional.empty();
            boolean byCli = false;
            if (route instanceof AgentCli.Through through) {
                failed = AgentCli.run(through, plan.command(), context.workingDirectory(), cliEnv);
                byCli = failed.isEmpty();
            }
            if (byCli) {
                way = "written by " + name + "'s own CLI: " + String.join("; ", ((AgentCli.Through) route)
                        .commandLines());
            } else {
                Connections.write(file, plan.connected());
                way = "written directly: " + failed.orElseGet(() -> ((AgentCli.Direct) route).why());
            }
            connections.save(state, plan, ownConfig, Connections.sha256(Files.readAllBytes(file)),
                    byCli ? name + " mcp" : "direct");
        } catch (IOException | RuntimeException e) {
            List<String> left = new ArrayList<>();
            putBack(file, plan.original(), left);
            putBack(ownConfig, ownBefore, left);
            putBack(state, Optional.empty(), left);
            throw new CliException(ExitCodes.FAILURE, "connect " + name + " failed: " + e.getMessage() + "; "
                    + (left.isEmpty() ? "nothing was changed" : "and could not put back " + String.join("; ", left)));
        }
        context.err().println("mcp-host connect: " + file + " " + way);
        context.out().println("Connected " + name + ": " + file + " starts mcp-host serve"
                + (plan.moved().isEmpty() ? "" : "; its servers " + plan.moved().keySet() + " are in " + ownConfig)
                + ". Undo: mcp-host disconnect " + name + (project ? " --project" : ""));
        return ExitCodes.OK;
    }

    private static Optional<byte[]> read(Path file) {
        try {
            return Files.exists(file) ? Optional.of(Files.readAllBytes(file)) : Optional.empty();
        } catch (IOException e) {
            throw CliException.usage(file + ": cannot read: " + e.getMessage() + "; nothing was changed");
        }
    }

    /** After a connect that failed midway: the file as it was (its bytes, or no file). */
    private static void putBack(Path file, Optional<byte[]> bytes, List<String> problems) {
        try {
            if (bytes.isPresent()) {
                Connections.write(file, bytes.get());
            } else {
                Files.deleteIfExists(file);
            }
        } catch (IOException | RuntimeException e) {
            problems.add(file + " (" + e.getMessage() + ")");
        }
    }

    /**
     * The change, diff-like: each entry of the agent's file that goes ({@code -}) and the one that comes ({@code +}).
     * Commands and URLs are shown with secret-looking values masked; env and header values not at all.
     */
    private static void show(PrintStream err, AgentConnection.Plan plan, Path ownConfig, AgentCli.Route route) {
        err.println("mcp-host connect " + plan.agent() + ": " + plan.file() + (plan.original().isEmpty() ? " (new)" : ""));
        plan.moved().forEach((server, entry) -> err.println("- " + server + "  " + Connections.describe(entry)
                + (plan.disabled().contains(server) ? "  (off in " + plan.agent() + ", stays off)" : "")));
        err.println("+ " + AgentConnection.GATEWAY + "  " + String.join(" ", plan.command()));
        if (!plan.moved().isEmpty()) {
            err.println("The servers marked - move into mcp-host's " + ownConfig + "; the rest of the file stays as"
                    + " it is.");
        }
        if (route instanceof AgentCli.Through through) {
            err.println("Written by " + plan.agent() + "'s own CLI, which may reformat the file: "
                    + String.join("; ", through.commandLines()) + " (should it fail: undone, and written directly)");
        } else if (route instanceof AgentCli.Direct direct) {
            err.println("Written directly: " + direct.why());
        }
    }

    private void confirm(CliContext context, AgentConnection.Plan plan) {
        if (yes) {
            return;
        }
        if (!context.io().console()) {
            throw new CliException(ExitCodes.REFUSED, "Refused: connect changes " + plan.file() + " and there is no"
                    + " terminal to ask at: pass --yes to make the change; nothing was changed.");
        }
        context.err().print("Make this change? [y/N] ");
        context.err().flush();
        String answer = context.readLine().orElse("").strip().toLowerCase(Locale.ROOT);
        if (!answer.equals("y") && !answer.equals("yes")) {
            throw new CliException(ExitCodes.REFUSED, "Not connected (answered no); nothing was changed.");
        }
    }
}
