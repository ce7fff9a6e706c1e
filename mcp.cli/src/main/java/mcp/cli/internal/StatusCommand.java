package mcp.cli.internal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import mcp.api.McpJson;
import mcp.api.UserDirectories;
import mcp.api.internal.Secrets;
import mcp.config.SkippedServer;
import mcp.gateway.Attachment;
import mcp.gateway.SharedGateway;
import mcp.manager.McpManager;
import mcp.manager.ServerActivity;
import mcp.manager.ServerStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code status}: connect, wait for the servers still connecting after the startup gate (within a bound), then
 * each server's state and tool count.
 */
@Command(name = "status", description = {
    "Connect the servers, wait for those still connecting (each within its connect timeout, or --timeout),"
            + " and show each one's state and tool count.",
    "● connected  ◐ connecting  ↻ reconnecting (attempt k of n, next try in t)  ✗ failed  ○ disconnected",
    "◌ not started, with the reason (not approved, here or in the tool that owns its file; disabled; filtered;"
            + " no sandbox to be had).",
    "Tools whose definitions changed since they were pinned are withheld and shown on stderr."})
final class StatusCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @Option(names = "--timeout", paramLabel = "MS", description = "Wait at most MS for each server still connecting"
            + " after the startup gate (default: its connect timeout, 30000 unless configured; 0: the states at the"
            + " gate).")
    Long timeoutMillis;

    @Option(names = "--no-gateway", description = "Connect the servers here even when the user's shared gateway"
            + " runs (by default its view of this directory is shown, and nothing is started twice).")
    boolean noGateway;

    /**
     * One server's line; {@code withheld} counts the tools (and instructions) kept from the agent; {@code reconnect}
     * is where a reconnecting server is, else {@code null}; {@code activity} its counts, or {@code null} when they are
     * not known (a shared gateway of an older version).
     */
    record Line(String name, String status, int tools, String error, int withheld, ServerStatus.Reconnect reconnect,
            ServerActivity activity) {
        Line(String name, String status, int tools, String error, int withheld) {
            this(name, status, tools, error, withheld, null, null);
        }
    }

    @Override
    public Integer call() {
        CliContext context = root.context();
        if (timeoutMillis != null && timeoutMillis < 0) {
            throw CliException.usage("--timeout must be 0 or more, got " + timeoutMillis);
        }
        if (!noGateway && context.shell().isEmpty() && context.defaultHostOptions() && fromGateway(context)) {
            return ExitCodes.OK;
        }
        try (Loaded loaded = context.load()) {
            awaitConnecting(context, loaded.manager());
            List<Line> lines = lines(loaded);
            List<SkippedServer> notStarted = NotStarted.of(loaded.discovery(), null);
            if (context.json()) {
                ArrayNode array = McpJson.mapper().createArrayNode();
                for (Line line : lines) {
                    ObjectNode node = array.addObject();
                    node.put("name", line.name());
                    node.put("status", line.status());
                    node.put("tools", line.tools());
                    node.put("error", line.error());
                    node.put("withheld", line.withheld());
                    putActivity(node, line.activity());
                    if (line.reconnect() != null) {
                        ObjectNode reconnect = node.putObject("reconnect");
                        reconnect.put("attempt", line.reconnect().attempt());
                        reconnect.put("attempts", line.reconnect().attempts());
                        // null while the attempt is in flight
                        reconnect.put("nextTryMs", line.reconnect().nextTry()
                                .map(at -> Math.max(0, java.time.Duration.between(java.time.Instant.now(), at).toMillis()))
                                .orElse(null));
                    }
                }
                for (SkippedServer skipped : notStarted) {
                    ObjectNode node = array.addObject();
                    node.put("name", skipped.name());
                    node.put("status", NotStarted.status(skipped));
                    node.put("tools", 0);
                    node.put("error", skipped.detail());
                    NotStarted.describe(node, skipped);
                }
                context.printJson(array);
            } else if (lines.isEmpty() && notStarted.isEmpty()) {
                context.out().println("No MCP servers configured.");
            } else {
                print(context, lines, notStarted);
                ToolChangesOutput.print(context.err(), ToolChangesOutput.of(loaded.manager(), null));
            }
            context.printProblems(loaded.discovery(), null);
        }
        return ExitCodes.OK;
    }

    /**
     * The running shared gateway's view of this directory: its project's servers where an agent works here, else the
     * user's servers, each with its state there.
     *
     * @return whether a gateway answered (and the status is printed)
     */
    private static boolean fromGateway(CliContext context) {
        UserDirectories directories = UserDirectories.of(context.io().env(), context.io().home());
        Path socket = SharedGateway.directory(context.io().env(), directories).resolve(SharedGateway.SOCKET);
        Optional<JsonNode> answered = Attachment.status(socket, Duration.ofSeconds(5));
        if (answered.isEmpty()) {
            return false;
        }
        JsonNode status = answered.get();
        Map<String, JsonNode> states = new LinkedHashMap<>();
        status.path("servers").forEach(server -> states.put(server.path("name").asString(), server));
        Map<String, String> shown = new LinkedHashMap<>();
        String here = context.workingDirectory().toAbsolutePath().normalize().toString();
        boolean attached = false;
        for (JsonNode project : status.path("projects")) {
            if (project.path("directory").asString().equals(here)) {
                attached = true;
                project.path("servers").forEach(server -> shown.put(server.path("server").asString(),
                        server.path("name").asString()));
            }
        }
        if (!attached) {
            status.path("user").forEach(name -> shown.put(name.asString(), name.asString()));
        }
        List<Line> lines = new ArrayList<>();
        shown.forEach((server, name) -> {
            JsonNode state = states.getOrDefault(server, McpJson.object());
            String error = state.path("error").isString() ? state.path("error").asString() : null;
            lines.add(new Line(name, state.path("state").asString("disconnected"), state.path("tools").asInt(),
                    Secrets.maskText(error), 0, null, ServerActivity.fromJson(state.get("activity")).orElse(null)));
        });
        context.err().println("Served by mcp-host's shared gateway (pid " + status.path("pid").asLong() + ", "
                + status.path("clients").asInt() + " clients)" + (attached ? ", as its agents here see it"
                        : "; no agent works here, so the user's servers only") + "; --no-gateway to connect here.");
        if (context.json()) {
            ArrayNode array = McpJson.mapper().createArrayNode();
            lines.forEach(line -> putActivity(array.addObject().put("name", line.name()).put("status", line.status())
                    .put("tools", line.tools()).put("error", line.error()).put("withheld", 0), line.activity()));
            context.printJson(array);
        } else if (lines.isEmpty()) {
            context.out().println("No MCP servers in the shared gateway's view.");
        } else {
            print(context, lines, List.of());
        }
        return true;
    }

    /**
     * Waits for the servers still connecting: at the gate, a server the tool cache knows is served deferred and
     * goes on connecting, so its state then says nothing of how it is. Each wait is bounded.
     */
    private void awaitConnecting(CliContext context, McpManager manager) {
        Optional<Duration> bound = Optional.ofNullable(timeoutMillis).map(Duration::ofMillis);
        CompletableFuture<?>[] waits = manager.statuses().entrySet().stream()
                .filter(entry -> entry.getValue().state() == ServerStatus.State.CONNECTING)
                .map(entry -> manager.awaitConnect(entry.getKey(), bound))
                .toArray(CompletableFuture[]::new);
        if (waits.length > 0) {
            Progress.around(context, manager, () -> CompletableFuture.allOf(waits).join());
        }
    }

    /** Every discovered server in discovery order, then servers only the manager knows (the shell's later additions). */
    static List<Line> lines(Loaded loaded) {
        McpManager manager = loaded.manager();
        Map<String, ServerStatus> statuses = manager.statuses();
        Map<String, String> errors = loaded.errors();
        Set<String> names = new LinkedHashSet<>(loaded.discovery().configs().keySet());
        names.addAll(errors.keySet());
        names.addAll(statuses.keySet());
        List<Line> lines = new ArrayList<>();
        for (String name : names) {
            ServerStatus status = statuses.getOrDefault(name, manager.status(name));
            String state = status.state().name().toLowerCase(Locale.ROOT);
            String error = status.error().orElse(null);
            if (errors.containsKey(name) && status.state() != ServerStatus.State.CONNECTED
                    && status.state() != ServerStatus.State.CONNECTING) {
                state = "failed";
                error = errors.get(name);
            }
            int withheld = manager.toolChanges(name).map(changes -> changes.withheld().size()
                    + (changes.instructions().isPresent() ? 1 : 0)).orElse(0);
            lines.add(new Line(name, state, manager.toolsOf(name).size(), Secrets.maskText(error), withheld,
                    status.reconnect().orElse(null), manager.activity(name)));
        }
        return lines;
    }

    /** Adds a server's counts as {@code activity}, the same fields as the gateway's {@code GET /status}. */
    static void putActivity(ObjectNode node, ServerActivity activity) {
        if (activity != null) {
            node.set("activity", activity.toJson(true));
        }
    }

    private static void print(CliContext context, List<Line> lines, List<SkippedServer> notStarted) {
        int width = Stream.concat(lines.stream().map(Line::name), notStarted.stream().map(SkippedServer::name))
                .mapToInt(String::length).max().orElse(0);
        for (Line line : lines) {
            String mark = switch (line.status()) {
                case "connected" -> "●";
                case "connecting" -> "◐";
                case "reconnecting" -> "↻";
                case "failed" -> "✗";
                default -> "○";
            };
            String state = line.error() == null ? line.status() : line.status() + ": " + line.error();
            if (line.status().equals("stopped")) {
                // A lazy server between calls: not an error, its cached tools stand for it.
                state = "lazy, stopped, " + (line.tools() == 1 ? "1 tool" : line.tools() + " tools") + " cached"
                        + (line.error() == null ? "" : "; its last start failed: " + line.error());
            }
            if (line.reconnect() != null) {
                state = line.status() + " (" + line.reconnect().describe(java.time.Instant.now()) + ")"
                        + (line.error() == null ? "" : ": " + line.error());
            }
            String tools = (line.tools() == 1 ? "  (1 tool" : "  (" + line.tools() + " tools")
                    + (line.withheld() > 0 ? ", " + line.withheld() + " withheld)" : ")");
            boolean live = line.status().equals("connected") || line.status().equals("connecting")
                    || line.status().equals("reconnecting");
            // What it did, once it did something: "12 calls, 1 failed, 2 reconnects".
            String summary = line.activity() == null ? "" : line.activity().summary();
            String details = live ? (summary.isEmpty() ? tools : tools.substring(0, tools.length() - 1) + "; " + summary
                    + ")") : summary.isEmpty() ? "" : "  (" + summary + ")";
            context.out().println(mark + " " + line.name() + " ".repeat(width - line.name().length()) + "  " + state
                    + details);
        }
        // Inactive, as list marks them: what held each back, and what to do about it.
        for (SkippedServer skipped : notStarted) {
            context.out().println("◌ " + skipped.name() + " ".repeat(width - skipped.name().length()) + "  "
                    + NotStarted.line(skipped));
            NotStarted.printChanges(context.out(), skipped);
        }
    }
}
