package mcp.cli.internal;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import mcp.api.ApprovalState;
import mcp.api.ToolChanges;
import mcp.api.spi.ConsentHandler;
import mcp.config.DiscoveryResult;
import mcp.consent.ToolPins;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Parameters;

/** {@code approve}: lets project servers start, in the definition their file writes now. */
@Command(name = "approve", description = {
    "Approve project servers in their current definition (what their file says: command, args, env, cwd, url,"
            + " headers, type), so that they start. A changed definition needs a new approval.",
    "With --tools: accept the changed tool definitions a server's last listing reported and withheld.",
    "The approval is kept in $XDG_STATE_HOME/mcp-host/approvals.json (else ~/.local/state/mcp-host/)."})
final class ApproveCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @ArgGroup(multiplicity = "1")
    Which which;

    @Option(names = "--tools", description = {
        "Accept the tool definitions (and instructions) these running servers' last listing changed and that were"
                + " withheld from the agent, as they were reported; with --all, of every server."})
    boolean tools;

    static final class Which {
        @Parameters(paramLabel = "NAME", arity = "1..*", description = "The servers.")
        List<String> names;

        @Option(names = "--all", required = true, description = "Every pending project server (not the denied ones).")
        boolean all;
    }

    @Override
    public Integer call() {
        CliContext context = root.context();
        if (tools) {
            return acceptTools(context);
        }
        List<String> names = which.all ? List.of() : which.names;
        Consents.Outcome outcome = Consents.decide(context, names, which.all, ConsentHandler.Decision.APPROVE);
        DiscoveryResult after = outcome.after();
        for (String name : outcome.decided()) {
            ApprovalState state = after.approvals().get(name);
            if (state != null && state.kind() == ApprovalState.Kind.APPROVED) {
                context.out().println("Approved " + name + " (" + ServerLookup.describe(after.sources().get(name)) + "):");
                state.definition().forEach(line -> context.out().println("    " + line));
            }
        }
        if (which.all && outcome.decided().isEmpty()) {
            context.out().println("No project server is pending approval.");
        }
        context.printPending(after, null);
        return ExitCodes.OK;
    }

    /** {@code --tools}: the withheld listing of each server becomes its pins, without connecting it. */
    private int acceptTools(CliContext context) {
        DiscoveryResult discovery = context.discover(ConsentHandler.DENY_AND_REPORT);
        List<String> names = which.all ? List.copyOf(discovery.configs().keySet()) : which.names;
        ToolPins pins = ToolPins.forUser(context.env(), context.home());
        for (String name : names) {
            String key = discovery.definitions().get(name);
            if (key == null) {
                ServerLookup.find(discovery, name); // throws with why the server is not used
            }
            Optional<ToolChanges> accepted;
            try {
                accepted = pins.accept(key);
            } catch (IOException e) {
                throw CliException.usage("MCP server \"" + name + "\": " + e.getMessage());
            }
            if (accepted.isPresent()) {
                context.out().println("Accepted the tool definitions of " + name + " as last listed:");
                for (ToolChanges.ToolChange change : accepted.get().tools()) {
                    context.out().println("    " + change.kind().name().toLowerCase(Locale.ROOT) + " "
                            + ToolChangesOutput.safe(change.tool()) + (change.fields().isEmpty() ? ""
                                    : " (" + String.join(", ", change.fields()) + ")"));
                }
                accepted.get().instructions().ifPresent(i -> context.out().println("    changed instructions"));
            } else if (!which.all) {
                context.out().println("Nothing of " + name + " is withheld.");
            }
        }
        return ExitCodes.OK;
    }
}
