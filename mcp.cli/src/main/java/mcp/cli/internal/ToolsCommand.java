package mcp.cli.internal;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import mcp.api.CallPolicy;
import mcp.api.McpJson;
import mcp.api.ToolChanges;
import mcp.api.ToolRule;
import mcp.config.DiscoveryResult;
import mcp.config.SkippedServer;
import mcp.host.ToolSearch;
import mcp.manager.BridgedTool;
import mcp.manager.McpManager;
import mcp.manager.ServerStatus;
import mcp.manager.TokenCounter;
import mcp.manager.WithheldTool;
import mcp.manager.internal.ToolNames;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code tools}: discovery, connect and the startup gate, then the tools the agent would get. */
@Command(name = "tools", description = {
    "Connect the servers (startup gate included) and list their tools, as mcp_<server>_<tool>.",
    "(deferred) marks tools from the cache whose server was still connecting at the gate.",
    "(always loaded) marks tools their server's alwaysLoad keeps in the agent's tool set under deferred loading.",
    "(app only) marks tools meant for an MCP App's view, which the agent never gets (their _meta.ui.visibility",
    "leaves out \"model\"); (no audience) those whose visibility is empty, for neither the agent nor an app.",
    "Ends with the definitions' estimated tokens (o200k_base) per server and for all, of the agent's tools only.",
    "Tools whose definitions changed since they were pinned are withheld and shown on stderr.",
    "Tools the tool owning their server's config denies (a Claude Code deny rule, Codex's disabled_tools, Gemini",
    "CLI's excludeTools, ...) are withheld and shown on stderr with the rule and its file; (asks first) and",
    "(allowed) mark the tools whose owner asks before each call or lets them run without asking.",
    "Servers not started (not approved, here or in the tool that owns their file; disabled; filtered) are shown"
            + " on stderr with the reason.",
    "A server nothing is cached of and still connecting after --uncached-wait is shown on stderr: its tools come"
            + " later, and are not in this list.",
    "Per-server errors are reported and do not change the exit code."})
final class ToolsCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    /**
     * How long the ranker (an embedding module, when present) may take the tools before a one-shot search: the first
     * run embeds every definition, later runs only new ones (its cache).
     */
    static final java.time.Duration RANKER_WAIT = java.time.Duration.ofSeconds(60);

    @Option(names = "--server", paramLabel = "NAME", description = "Connect and list only this server.")
    String server;

    @Option(names = "--search", paramLabel = "QUERY", description = {"List only the tools that best match QUERY, best "
            + "first, as an agent's search_tools finds them: words as a user says them, a tool's name, or /regex/."})
    String search;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "10",
            description = "With --search: at most N tools (1 to 50, default 10).")
    int limit;

    @Override
    public Integer call() {
        CliContext context = root.context();
        // The token totals need the encoding: load it while the servers connect, not after the listing.
        TokenCounter.preload();
        try (Loaded loaded = server == null ? context.load() : context.loadOne(server, context.hostBuilder())) {
            List<BridgedTool> tools = loaded.tools().stream()
                    .filter(tool -> server == null || tool.serverName().equals(server))
                    .toList();
            ToolSearch.Ranked ranked = null;
            if (search != null) {
                if (limit < 1 || limit > 50) {
                    throw new CliException(ExitCodes.USAGE, "--limit must be 1 to 50, got " + limit);
                }
                try {
                    List<BridgedTool> all = tools;
                    ranked = loaded.host().map(host -> host.searchTools(all, search, limit, RANKER_WAIT))
                            .orElseGet(() -> new ToolSearch.Ranked(ToolSearch.rank(all, search, limit),
                                    Optional.empty(), Optional.empty()));
                    tools = ranked.tools();
                } catch (IllegalArgumentException e) {
                    throw new CliException(ExitCodes.USAGE, "--search: " + e.getMessage());
                }
            }
            Map<String, String> errors = loaded.errors();
            if (server != null) {
                errors.keySet().retainAll(List.of(server));
            }
            Map<String, ToolChanges> changes = ToolChangesOutput.of(loaded.manager(), server);
            if (context.json()) {
                ObjectNode document = json(tools, errors, loaded.manager());
                if (ranked != null) {
                    document.put("ranker", ranked.ranker().orElse(null));
                    document.put("rankerSkipped", ranked.rankerSkipped().orElse(null));
                }
                ToolTokens.of(tools).json(document);
                document.set("pending", pendingJson(loaded.discovery(), server));
                ArrayNode notStarted = document.putArray("notStarted");
                NotStarted.of(loaded.discovery(), server).forEach(skipped -> notStarted.add(NotStarted.json(skipped)));
                ToolChangesOutput.json(document.putArray("withheld"), changes);
                ArrayNode byOwner = document.putArray("withheldByOwner");
                withheldByOwner(loaded.manager()).forEach(withheld -> byOwner.add(json(withheld)));
                context.printJson(document);
            } else {
                print(context.out(), tools, loaded.manager());
                if (ranked != null) {
                    ranked.rankerSkipped().ifPresent(why -> context.err().println("ranked by words alone: " + why));
                }
                ToolTokens.of(tools).print(context.out());
                errors.forEach((name, error) -> context.err().println("error: " + name + ": " + error));
                ToolChangesOutput.print(context.err(), changes);
                withheldByOwner(loaded.manager()).forEach(withheld -> context.err().println("withheld by its owner: "
                        + withheld.label() + ": " + withheld.rule().describe()));
            }
            printStillConnecting(context, loaded.manager(), server);
            context.printNotStarted(loaded.discovery(), server);
            context.printProblems(loaded.discovery(), server);
        }
        return ExitCodes.OK;
    }

    /**
     * The servers still connecting with no tool in the list (nothing cached of them, past the uncached wait, or
     * retrying their first connect): what the agent would miss at first, and why.
     */
    private static void printStillConnecting(CliContext context, McpManager manager, String onlyServer) {
        manager.statuses().forEach((name, status) -> {
            if ((onlyServer == null || onlyServer.equals(name)) && status.state() == ServerStatus.State.CONNECTING
                    && manager.toolsOf(name).isEmpty()) {
                context.err().println("still connecting: " + name + status.reconnect().map(r -> " (attempt "
                        + r.attempt() + " of " + r.attempts() + ")").orElse("") + "; nothing is cached of it, so its"
                        + " tools are not listed (they come when it is ready; --uncached-wait MS waits longer)");
            }
        });
    }

    private static ObjectNode json(List<BridgedTool> tools, Map<String, String> errors, McpManager manager) {
        ObjectNode document = McpJson.object();
        ArrayNode array = document.putArray("tools");
        for (BridgedTool tool : tools) {
            ObjectNode node = array.addObject();
            node.put("name", tool.name());
            node.put("server", tool.serverName());
            node.put("tool", tool.toolName());
            node.put("label", tool.label());
            node.put("description", tool.description());
            node.set("inputSchema", tool.inputSchema());
            node.put("deferred", tool.deferred());
            if (alwaysLoaded(tool, manager)) {
                node.put("alwaysLoad", true);
            }
            node.set("callPolicy", json(tool.callPolicy()));
            ArrayNode visibility = node.putArray("visibility");
            if (tool.definition().visibleToModel()) {
                visibility.add("model");
            }
            if (tool.definition().visibleToApp()) {
                visibility.add("app");
            }
        }
        ObjectNode errorNode = document.putObject("errors");
        errors.forEach(errorNode::put);
        return document;
    }

    /** The owner-withheld tools of the servers listed (one with {@code --server}). */
    private List<WithheldTool> withheldByOwner(McpManager manager) {
        return manager.withheldByOwner().stream().filter(tool -> server == null || tool.server().equals(server))
                .toList();
    }

    /** {@code {decision}}, with {@code owner}, {@code rule} and {@code file} when the owner decided it. */
    static ObjectNode json(CallPolicy policy) {
        ObjectNode node = McpJson.object();
        node.put("decision", policy.decision().id());
        policy.rule().ifPresent(rule -> rule(node, rule));
        return node;
    }

    private static void rule(ObjectNode node, ToolRule rule) {
        node.put("owner", rule.owner());
        node.put("rule", rule.rule());
        node.put("file", rule.file().map(Object::toString).orElse(null));
    }

    /** {@code {name, server, tool, label, owner, rule, file}}: the name is the one it would have. */
    private static ObjectNode json(WithheldTool withheld) {
        ObjectNode node = McpJson.object();
        node.put("name", ToolNames.baseName(withheld.server(), withheld.definition().name()));
        node.put("server", withheld.server());
        node.put("tool", withheld.definition().name());
        node.put("label", withheld.label());
        rule(node, withheld.rule());
        return node;
    }

    /** @return the project servers not started for want of an approval: {@code [{name, path, approval}]} */
    static ArrayNode pendingJson(DiscoveryResult discovery, String onlyServer) {
        ArrayNode array = McpJson.mapper().createArrayNode();
        for (SkippedServer skipped : discovery.skipped()) {
            if (skipped.reason() == SkippedServer.Reason.NOT_APPROVED && skipped.approval().isPresent()
                    && (onlyServer == null || onlyServer.equals(skipped.name()))) {
                ObjectNode node = array.addObject();
                node.put("name", skipped.name());
                node.put("path", skipped.source().path().map(Object::toString).orElse(null));
                node.set("approval", Listing.approvalJson(skipped.approval().get()));
            }
        }
        return array;
    }

    private static void print(PrintStream out, List<BridgedTool> tools, McpManager manager) {
        if (tools.isEmpty()) {
            out.println("No tools.");
            return;
        }
        int nameWidth = tools.stream().mapToInt(t -> t.name().length()).max().orElse(0);
        int labelWidth = tools.stream().mapToInt(t -> t.label().length()).max().orElse(0);
        for (BridgedTool tool : tools) {
            out.println(pad(tool.name(), nameWidth) + "  " + pad(tool.label(), labelWidth) + "  — "
                    + firstLine(tool.description()) + (tool.deferred() ? " (deferred)" : "")
                    + (alwaysLoaded(tool, manager) ? " (always loaded)" : "") + audience(tool) + policy(tool));
        }
    }

    /** An app-only tool is never loaded for the agent, whatever alwaysLoad says. */
    private static boolean alwaysLoaded(BridgedTool tool, McpManager manager) {
        return tool.definition().visibleToModel() && manager.alwaysLoad(tool.serverName()).includes(tool.toolName());
    }

    /** The mark of a call policy the tool's owner decided, else nothing. */
    private static String policy(BridgedTool tool) {
        CallPolicy policy = tool.callPolicy();
        if (!policy.decidedByOwner()) {
            return "";
        }
        return policy.decision() == CallPolicy.Decision.ASK ? " (asks first)" : " (allowed)";
    }

    /** The mark of a tool the agent never gets (MCP Apps), else nothing. */
    private static String audience(BridgedTool tool) {
        if (tool.definition().visibleToModel()) {
            return "";
        }
        return tool.definition().visibleToApp() ? " (app only)" : " (no audience)";
    }

    static String pad(String text, int width) {
        return text + " ".repeat(Math.max(0, width - text.length()));
    }

    /** A description's first line, shortened: a listing line per tool stays readable. */
    static String firstLine(String description) {
        String line = description.strip().lines().findFirst().orElse("");
        return line.length() > 100 ? line.substring(0, 99) + "…" : line;
    }
}
