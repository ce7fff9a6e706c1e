package mcp.cli.internal;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.concurrent.Callable;
import mcp.api.SourceMetadata;
import mcp.config.DiscoveryResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code list}: what discovery finds, without connecting anything (in the shell: with live states). */
@Command(name = "list", description = {
    "List the configured servers by source, without connecting them.",
    "○ not connected  ◌ inactive (disabled, project config off, shadowed, Exa, not approved or"
            + " not trusted in its own tool, no sandbox to be had)  ✗ invalid;"
            + " in the shell also ● connected, ◐ connecting, ✗ failed."})
final class ListCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @Override
    public Integer call() {
        CliContext context = root.context();
        DiscoveryResult discovery = context.discover();
        Map<SourceMetadata, List<Listing.Entry>> groups = Listing.of(discovery,
                context.shell().map(shell -> shell.host().manager()).orElse(null));
        if (context.json()) {
            context.printJson(Listing.toJson(groups));
        } else {
            print(context.out(), groups);
        }
        context.printProblems(discovery, null);
        return ExitCodes.OK;
    }

    private static void print(PrintStream out, Map<SourceMetadata, List<Listing.Entry>> groups) {
        if (groups.isEmpty()) {
            out.println("No MCP servers configured. Add one with: mcp-host add NAME -- COMMAND [ARGS...]");
            return;
        }
        groups.forEach((source, entries) -> {
            out.println(Listing.heading(source));
            for (Listing.Entry entry : entries) {
                StringBuilder line = new StringBuilder("  ").append(entry.mark()).append(' ').append(entry.name());
                if (entry.type() != null) {
                    line.append(" [").append(entry.type()).append(']');
                }
                if (entry.lazy() != null) {
                    line.append("  (").append(entry.lazy()).append(')');
                }
                if (entry.error() != null) {
                    line.append("  ").append(entry.error());
                } else {
                    // Approved or trusted in its tool, then approved in mcp-host: each decision that let it start.
                    StringJoiner decisions = new StringJoiner("; ", "  ", "").setEmptyValue("");
                    Optional.ofNullable(entry.owner()).ifPresent(owner -> decisions.add(owner.reason()));
                    Optional.ofNullable(entry.approval()).ifPresent(approval -> decisions.add(approval.reason()));
                    line.append(decisions);
                }
                out.println(line);
                if (entry.approval() != null) {
                    entry.approval().changes().forEach(change -> out.println("      changed: " + change));
                }
            }
        });
    }
}
