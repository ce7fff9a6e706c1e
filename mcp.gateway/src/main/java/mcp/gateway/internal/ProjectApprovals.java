package mcp.gateway.internal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import mcp.api.McpJson;
import mcp.api.ToolDefinition;
import mcp.config.DiscoveryResult;
import mcp.config.SkippedServer;
import mcp.api.ApprovalState;
import mcp.gateway.OwnTool;
import mcp.server.RequestContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A project's servers that wait for the user's approval, offered to the project's clients as one tool, listed while
 * any waits: calling it asks the client's user (elicitation), never the model, which servers to start, and records the
 * answer as {@code mcp-host approve} run in the project would. A client that cannot ask its user gets an error that
 * names the command to run instead.
 */
public final class ProjectApprovals implements OwnTool {

    /** The tool's name. */
    public static final String TOOL = "approve_project_servers";

    private final Path project;
    private final Function<Set<String>, Set<String>> approve;
    /** The servers waiting, with their definitions as the user approves them. */
    private volatile Map<String, List<String>> pending = Map.of();

    /**
     * @param project the project's directory
     * @param approve approves these servers in the project, and gives those that are approved now
     */
    public ProjectApprovals(Path project, Function<Set<String>, Set<String>> approve) {
        this.project = project;
        this.approve = approve;
    }

    /**
     * @param discovery the project's discovery now
     * @return whether the servers waiting changed
     */
    public boolean update(DiscoveryResult discovery) {
        Map<String, List<String>> now = new LinkedHashMap<>();
        for (SkippedServer skipped : discovery.skipped()) {
            if (skipped.reason() == SkippedServer.Reason.NOT_APPROVED && skipped.approval()
                    .map(state -> state.kind() != ApprovalState.Kind.DENIED).orElse(false)) {
                now.put(skipped.name(), skipped.approval().get().definition());
            }
        }
        boolean changed = !now.keySet().equals(pending.keySet());
        pending = Map.copyOf(now);
        return changed;
    }

    /** @return the servers waiting now */
    public Set<String> pendingNames() {
        return pending.keySet();
    }

    @Override
    public Optional<ToolDefinition> definition() {
        Map<String, List<String>> waiting = pending;
        if (waiting.isEmpty()) {
            return Optional.empty();
        }
        ObjectNode schema = McpJson.object().put("type", "object");
        schema.putObject("properties");
        return Optional.of(new ToolDefinition(TOOL, Optional.of("Approve this project's MCP servers"),
                Optional.of("MCP servers of this project wait for the user's approval before they start: "
                        + String.join(", ", new TreeSet<>(waiting.keySet())) + ". Calling this asks the user which"
                        + " to start (the user decides, not the model); their tools follow once approved."),
                schema, Optional.empty(), Optional.empty()));
    }

    @Override
    public CompletableFuture<JsonNode> call(JsonNode arguments, RequestContext context) {
        Map<String, List<String>> waiting = pending;
        if (waiting.isEmpty()) {
            return CompletableFuture.completedFuture(result("No server of this project waits for approval.", false));
        }
        if (!context.declares("elicitation")) {
            return CompletableFuture.completedFuture(result("This client cannot ask its user, and only the user"
                    + " approves a project's servers. Ask the user to run `mcp-host approve "
                    + String.join(" ", waiting.keySet()) + "` in " + project + " (it shows each definition first)."
                    + describe(waiting), true));
        }
        ObjectNode params = McpJson.object().put("mode", "form").put("message", "MCP servers of the project " + project
                + " start only once you approve them. Tick the ones to start." + describe(waiting));
        ObjectNode properties = params.putObject("requestedSchema").put("type", "object").putObject("properties");
        waiting.keySet().forEach(name -> properties.putObject(name).put("type", "boolean").put("title", "Start " + name)
                .put("default", false));
        // Approving runs discovery and starts servers: not on the thread that delivered the answer.
        return context.elicit(params).thenApplyAsync(answer -> {
            if (!answer.path("action").asString("").equals("accept")) {
                return result("The user approved nothing; the servers still wait.", false);
            }
            Set<String> chosen = new TreeSet<>();
            answer.path("content").properties().forEach(entry -> {
                if (waiting.containsKey(entry.getKey()) && entry.getValue().asBoolean(false)) {
                    chosen.add(entry.getKey());
                }
            });
            if (chosen.isEmpty()) {
                return result("The user approved nothing; the servers still wait.", false);
            }
            Set<String> approved = approve.apply(chosen);
            List<String> missed = new ArrayList<>(chosen);
            missed.removeAll(approved);
            return result("Approved: " + String.join(", ", approved) + "; their tools follow as they start."
                    + (missed.isEmpty() ? "" : " Not approved (their definition changed meanwhile, or their owning"
                            + " tool declines them): " + String.join(", ", missed) + "."), !missed.isEmpty());
        }, runnable -> {
            Thread approving = new Thread(runnable, "mcp-host-approve");
            approving.setDaemon(true);
            approving.start();
        });
    }

    private static String describe(Map<String, List<String>> waiting) {
        StringBuilder text = new StringBuilder();
        waiting.forEach((name, definition) -> {
            text.append("\n").append(name).append(":");
            definition.forEach(line -> text.append("\n    ").append(line));
        });
        return text.toString();
    }

    private static JsonNode result(String text, boolean error) {
        return ToolResults.text(text, error);
    }
}
