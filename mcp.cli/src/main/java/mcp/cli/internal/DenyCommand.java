package mcp.cli.internal;

import java.util.List;
import java.util.concurrent.Callable;
import mcp.api.ApprovalState;
import mcp.api.spi.ConsentHandler;
import mcp.config.DiscoveryResult;
import mcp.config.SkippedServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Parameters;

/** {@code deny}: keeps project servers from starting, and from being asked about, until approved. */
@Command(name = "deny", description = {
    "Deny project servers: they do not start, and the shell does not ask about them, until approved again."})
final class DenyCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @Parameters(paramLabel = "NAME", arity = "1..*", description = "The servers.")
    List<String> names;

    @Override
    public Integer call() {
        CliContext context = root.context();
        DiscoveryResult after = Consents.decide(context, names, false, ConsentHandler.Decision.DENY).after();
        for (SkippedServer skipped : after.skipped()) {
            if (names.contains(skipped.name()) && skipped.approval().map(a -> a.kind() == ApprovalState.Kind.DENIED)
                    .orElse(false)) {
                context.out().println("Denied " + skipped.name() + " (" + ServerLookup.describe(skipped.source()) + ")");
            }
        }
        return ExitCodes.OK;
    }
}
