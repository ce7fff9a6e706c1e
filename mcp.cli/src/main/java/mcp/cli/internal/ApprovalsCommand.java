package mcp.cli.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import mcp.api.McpJson;
import mcp.consent.Approvals;
import mcp.consent.ServerDefinition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code approvals}: what mcp-host keeps of the user's approvals and denials; {@code approvals revoke} forgets some. */
@Command(name = "approvals", description = {
    "List the approvals and denials of project servers, by config file (definitions with secrets masked).",
    "Kept in $XDG_STATE_HOME/mcp-host/approvals.json (else ~/.local/state/mcp-host/)."},
        subcommands = ApprovalsCommand.Revoke.class)
final class ApprovalsCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @Override
    public Integer call() {
        CliContext context = root.context();
        Approvals.Snapshot snapshot = Consents.store(context).snapshot();
        if (snapshot.problem().isPresent()) {
            throw CliException.usage("mcp-host's approvals could not be read: " + snapshot.problem().get());
        }
        if (context.json()) {
            ArrayNode array = McpJson.mapper().createArrayNode();
            for (Approvals.Entry entry : snapshot.entries()) {
                ObjectNode node = array.addObject();
                node.put("file", entry.configFile().toString());
                node.put("server", entry.server());
                node.put("decision", entry.decision().name().toLowerCase(java.util.Locale.ROOT));
                node.put("sha256", entry.definitionHash());
                node.put("at", entry.at().toString());
                node.set("definition", entry.definition());
            }
            context.printJson(array);
            return ExitCodes.OK;
        }
        if (snapshot.entries().isEmpty()) {
            context.out().println("No approvals. Project servers start once approved: mcp-host approve NAME");
            return ExitCodes.OK;
        }
        Map<Path, List<Approvals.Entry>> byFile = new LinkedHashMap<>();
        snapshot.entries().forEach(e -> byFile.computeIfAbsent(e.configFile(), f -> new java.util.ArrayList<>()).add(e));
        byFile.forEach((file, entries) -> {
            context.out().println(file);
            for (Approvals.Entry entry : entries) {
                boolean approved = entry.decision() == Approvals.Decision.APPROVED;
                context.out().println("  " + (approved ? "✓ " : "✗ ") + entry.server() + "  "
                        + (approved ? "approved " : "denied ") + entry.at().toString().substring(0, 10)
                        + (approved ? "  sha256 " + entry.definitionHash().substring(0, 12) : ""));
                if (approved) {
                    ServerDefinition.describe(entry.definition()).forEach(line -> context.out().println("      " + line));
                }
            }
        });
        return ExitCodes.OK;
    }

    /** {@code approvals revoke}: forgets decisions, so the servers are pending again. */
    @Command(name = "revoke", description = "Forget the approval or denial of these servers: they are pending again.")
    static final class Revoke implements Callable<Integer> {

        @ParentCommand
        ApprovalsCommand parent;

        @Parameters(paramLabel = "NAME", arity = "1..*", description = "The servers.")
        List<String> names;

        @Option(names = "--file", paramLabel = "FILE",
                description = "The config file that defines them, when a name has decisions in several files.")
        Path file;

        @Override
        public Integer call() {
            CliContext context = parent.root.context();
            Approvals store = Consents.store(context);
            Approvals.Snapshot snapshot = store.snapshot();
            if (snapshot.problem().isPresent()) {
                throw CliException.usage("mcp-host's approvals could not be read: " + snapshot.problem().get());
            }
            Path only = file == null ? null : context.workingDirectory().resolve(file).normalize();
            for (String name : names) {
                List<Approvals.Entry> matching = snapshot.entries().stream()
                        .filter(e -> e.server().equals(name) && (only == null || snapshot.find(only, name).orElse(null) == e))
                        .toList();
                if (matching.isEmpty()) {
                    throw CliException.usage("No approval or denial of \"" + name + "\"" + (only == null ? "" : " in " + only)
                            + "." + Suggestions.didYouMean(name, snapshot.entries().stream().map(Approvals.Entry::server).toList()));
                }
                if (matching.size() > 1) {
                    throw CliException.usage("\"" + name + "\" has decisions in several files; name one with --file: "
                            + matching.stream().map(e -> e.configFile().toString()).toList());
                }
                try {
                    store.revoke(matching.get(0).configFile(), name);
                } catch (IOException e) {
                    throw CliException.usage(e.getMessage());
                }
                context.out().println("Revoked " + name + " (" + matching.get(0).configFile() + "): pending again");
            }
            return ExitCodes.OK;
        }
    }
}
