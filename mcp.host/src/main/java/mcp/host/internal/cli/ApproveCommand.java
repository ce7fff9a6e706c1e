package mcp.host.internal.cli;

import java.util.List;
import java.util.concurrent.Callable;
import mcp.api.ApprovalState;
import mcp.api.spi.ConsentHandler;
import mcp.config.DiscoveryResult;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Parameters;

/** {@code approve}: lets project servers start, in the definition their file writes now. */
@Command(name = "approve", description = {
    "Approve project servers in their current definition (what their file says: command, args, env, cwd, url,"
            + " headers, type), so that they start. A changed definition needs a new approval.",
    "The approval is kept in $XDG_STATE_HOME/mcp-host/approvals.json (else ~/.local/state/mcp-host/)."})
final class ApproveCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @ArgGroup(multiplicity = "1")
    Which which;

    static final class Which {
        @Parameters(paramLabel = "NAME", arity = "1..*", description = "The servers.")
        List<String> names;

        @Option(names = "--all", required = true, description = "Every pending project server (not the denied ones).")
        boolean all;
    }

    @Override
    public Integer call() {
        CliContext context = root.context();
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
}
