package mcp.cli.internal;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import mcp.api.ToolChanges;
import mcp.manager.McpManager;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * How {@code tools} and {@code status} show tools whose definitions differ from their pins: for people on
 * stderr (which server and tool, which fields, a short diff, and the command that accepts them), for
 * scripts as the {@code withheld} array of {@code --json}.
 */
final class ToolChangesOutput {

    /** The diff lines shown per tool on stderr; {@code --json} has all of them. */
    private static final int SHOWN_DIFF_LINES = 8;

    private ToolChangesOutput() {
    }

    /**
     * @param manager the servers
     * @param server only this server's, or {@code null} for all
     * @return the changes of every connected server whose last listing differs from its pins
     */
    static Map<String, ToolChanges> of(McpManager manager, String server) {
        Map<String, ToolChanges> all = manager.toolChanges();
        if (server != null) {
            all.keySet().retainAll(List.of(server));
        }
        return all;
    }

    /**
     * Fills {@code withheld}: {@code [{server, tool, kind, fields, diff}]}, {@code previousName} for a
     * renamed tool; changed instructions are an entry of kind {@code instructions} with {@code tool: null}.
     */
    static void json(ArrayNode withheld, Map<String, ToolChanges> changes) {
        changes.forEach((server, report) -> {
            for (ToolChanges.ToolChange change : report.withheld()) {
                ObjectNode node = withheld.addObject();
                node.put("server", server);
                node.put("tool", change.tool());
                node.put("kind", change.kind().name().toLowerCase(Locale.ROOT));
                change.previousName().ifPresent(name -> node.put("previousName", name));
                change.fields().forEach(node.putArray("fields")::add);
                change.diff().forEach(node.putArray("diff")::add);
            }
            report.instructions().ifPresent(instructions -> {
                ObjectNode node = withheld.addObject();
                node.put("server", server);
                node.putNull("tool");
                node.put("kind", "instructions");
                node.putArray("fields").add("instructions");
                instructions.diff().forEach(node.putArray("diff")::add);
            });
        });
    }

    /** Prints every difference for people, withheld ones with what to run. */
    static void print(PrintStream err, Map<String, ToolChanges> changes) {
        changes.forEach((server, report) -> {
            report.problem().ifPresent(problem -> err.println("withheld: every tool of " + server
                    + ": its pinned definitions cannot be read (" + problem + ")"));
            for (ToolChanges.ToolChange change : report.tools()) {
                String tool = server + "/" + safe(change.tool());
                switch (change.kind()) {
                    case CHANGED -> err.println("withheld: " + tool + " changed since it was pinned ("
                            + String.join(", ", change.fields()) + "):");
                    case ADDED -> err.println((change.withheld() ? "withheld: " : "note: ") + tool
                            + " is new" + (change.withheld() ? " (strict mode)" : " (pinned now)"));
                    case RENAMED -> err.println((change.withheld() ? "withheld: " : "note: ") + server + "/"
                            + safe(change.previousName().orElse("")) + " was renamed " + safe(change.tool())
                            + (change.withheld() ? " (strict mode)" : ""));
                    case REMOVED -> err.println("note: " + tool + " is no longer listed");
                    case UNVERIFIED -> {
                        // Covered by the problem line above.
                    }
                }
                if (change.kind() == ToolChanges.Kind.CHANGED) {
                    diff(err, change.diff());
                }
            }
            report.instructions().ifPresent(instructions -> {
                err.println("withheld: the instructions of " + server + " changed since they were pinned:");
                diff(err, instructions.diff());
            });
            if (report.hasWithheld()) {
                err.println("  check them, then run `mcp-host approve " + server + " --tools` to accept them");
            }
        });
    }

    private static void diff(PrintStream err, List<String> lines) {
        lines.stream().limit(SHOWN_DIFF_LINES).forEach(line -> err.println("    " + line));
        if (lines.size() > SHOWN_DIFF_LINES) {
            err.println("    ... " + (lines.size() - SHOWN_DIFF_LINES) + " more (see --json)");
        }
    }

    /** A server's tool name, with anything that could act on a terminal or hide shown as an escape. */
    static String safe(String text) {
        StringBuilder out = new StringBuilder();
        text.codePoints().forEach(cp -> {
            if (Character.isISOControl(cp) || Character.getType(cp) == Character.FORMAT) {
                out.append("\\u{").append(Integer.toHexString(cp).toUpperCase(Locale.ROOT)).append('}');
            } else {
                out.appendCodePoint(cp);
            }
        });
        return out.toString();
    }
}
