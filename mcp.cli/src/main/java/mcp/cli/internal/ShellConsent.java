package mcp.cli.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import mcp.api.ApprovalState;
import mcp.api.PendingServer;
import mcp.api.spi.ConsentHandler;

/**
 * The shell's consent: on a terminal, asks once per pending project server and definition whether it may
 * start ({@code y} approve and remember, {@code n} deny and remember, {@code s} show the definition); what
 * is not answered (end of input, not a terminal) stays pending.
 */
final class ShellConsent implements ConsentHandler {

    private final BufferedReader in;
    private final PrintStream out;
    private final boolean console;
    /** Name and definition hash of every server already asked about in this shell. */
    private final Set<String> asked = ConcurrentHashMap.newKeySet();

    ShellConsent(BufferedReader in, PrintStream out, boolean console) {
        this.in = in;
        this.out = out;
        this.console = console;
    }

    @Override
    public synchronized Decision decide(PendingServer server) {
        if (!console || !asked.add(server.name() + "\u0000" + server.state().definitionHash())) {
            return Decision.LEAVE_PENDING;
        }
        ApprovalState state = server.state();
        out.println();
        out.println((state.kind() == ApprovalState.Kind.CHANGED ? "Project server \"" + server.name()
                + "\" changed since you approved it" : "Project server \"" + server.name() + "\" is not approved yet")
                + " (" + ServerLookup.describe(server.source()) + ").");
        state.changes().forEach(change -> out.println("    changed: " + change));
        while (true) {
            out.print("Start it? [y]es, remember / [n]o, remember / [s]how its definition: ");
            out.flush();
            String answer;
            try {
                answer = in.readLine();
            } catch (IOException e) {
                answer = null;
            }
            if (answer == null) {
                out.println();
                return Decision.LEAVE_PENDING;
            }
            switch (answer.strip().toLowerCase(Locale.ROOT)) {
                case "y", "yes" -> {
                    return Decision.APPROVE;
                }
                case "n", "no" -> {
                    return Decision.DENY;
                }
                case "s", "show" -> state.definition().forEach(line -> out.println("    " + line));
                default -> out.println("Please answer y, n or s.");
            }
        }
    }
}
