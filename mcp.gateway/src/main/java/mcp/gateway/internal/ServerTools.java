package mcp.gateway.internal;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import mcp.api.McpJson;
import mcp.api.ToolDefinition;
import mcp.gateway.OwnTool;
import mcp.gateway.ServerControl;
import mcp.server.RequestContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The deferred mode's tools for the servers themselves: {@value #LIST} and {@value #MANAGE}. A change is confirmed by
 * the client's user first where the client can ask (elicitation), since it holds for every client of the gateway.
 */
public final class ServerTools {

    /** The listing tool's name. */
    public static final String LIST = "list_servers";
    /** The managing tool's name. */
    public static final String MANAGE = "manage_server";

    private static final List<String> ACTIONS = List.of("disable", "enable", "reconnect");

    private ServerTools() {
    }

    /**
     * @param control the servers
     * @return the two tools
     */
    public static List<OwnTool> of(ServerControl control) {
        return List.of(listing(control), managing(control));
    }

    private static OwnTool listing(ServerControl control) {
        ObjectNode schema = McpJson.object().put("type", "object");
        schema.putObject("properties");
        ToolDefinition definition = new ToolDefinition(LIST, Optional.of("MCP servers and their state"),
                Optional.of("The MCP servers behind this gateway with their state (connected, connecting, failed,"
                        + " stopped until a call, disabled, pending approval) and how many tools each gives."),
                schema, Optional.empty(), Optional.empty());
        return new OwnTool() {
            @Override
            public Optional<ToolDefinition> definition() {
                return Optional.of(definition);
            }

            @Override
            public CompletableFuture<JsonNode> call(JsonNode arguments, RequestContext context) {
                // The states come from the manager and discovery, which reads files: not on the request's thread.
                return CompletableFuture.supplyAsync(() -> list(control), ServerTools::onItsOwnThread);
            }
        };
    }

    private static JsonNode list(ServerControl control) {
        StringBuilder text = new StringBuilder();
        ObjectNode result = McpJson.object();
        ArrayNode servers = result.putObject("structuredContent").putArray("servers");
        for (ServerControl.Server server : control.servers()) {
            text.append(server.name()).append(": ").append(server.state()).append(", ").append(server.tools())
                    .append(server.tools() == 1 ? " tool" : " tools");
            server.detail().ifPresent(detail -> text.append(" (").append(detail).append(")"));
            text.append("\n");
            ObjectNode entry = servers.addObject().put("name", server.name()).put("state", server.state())
                    .put("tools", server.tools());
            server.detail().ifPresent(detail -> entry.put("detail", detail));
        }
        result.putArray("content").addObject().put("type", "text")
                .put("text", text.length() == 0 ? "No MCP server." : text.toString().strip());
        return result;
    }

    private static void onItsOwnThread(Runnable task) {
        Thread thread = new Thread(task, "mcp-host-servers");
        thread.setDaemon(true);
        thread.start();
    }

    private static OwnTool managing(ServerControl control) {
        ObjectNode schema = McpJson.object().put("type", "object");
        ObjectNode properties = schema.putObject("properties");
        properties.putObject("server").put("type", "string").put("description", "The server's name, as "
                + LIST + " gives it.");
        ObjectNode action = properties.putObject("action").put("type", "string");
        ACTIONS.forEach(action.putArray("enum")::add);
        schema.putArray("required").add("server").add("action");
        ToolDefinition definition = new ToolDefinition(MANAGE, Optional.of("Disable, enable or reconnect an MCP server"),
                Optional.of("Disables an MCP server (its process stops, its tools go), enables it again, or reconnects"
                        + " it (a new process or session). The user is asked first where this client can ask; the"
                        + " change holds for every agent of this gateway until it restarts."),
                schema, Optional.empty(), Optional.empty());
        return new OwnTool() {
            @Override
            public Optional<ToolDefinition> definition() {
                return Optional.of(definition);
            }

            @Override
            public CompletableFuture<JsonNode> call(JsonNode arguments, RequestContext context) {
                String server = arguments.path("server").asString("");
                String what = arguments.path("action").asString("");
                if (!ACTIONS.contains(what)) {
                    return done(result(MANAGE + " needs \"action\": one of " + ACTIONS, true));
                }
                Optional<String> refusal = control.refusal(server);
                if (refusal.isPresent()) {
                    return done(result(refusal.get(), true));
                }
                if (!context.declares("elicitation")) {
                    return acting(control, what, server);
                }
                ObjectNode params = McpJson.object().put("mode", "form").put("message", capitalised(what)
                        + " the MCP server " + server + "? This holds for every agent of this gateway.");
                params.putObject("requestedSchema").put("type", "object").putObject("properties");
                return context.elicit(params).thenCompose(answer -> answer.path("action").asString("").equals("accept")
                        ? acting(control, what, server)
                        : done(result("The user did not confirm; " + server + " is as it was.", true)));
            }
        };
    }

    /** The change on a thread of its own: it stops and starts servers, which the request's thread must not wait for. */
    private static CompletableFuture<JsonNode> acting(ServerControl control, String what, String server) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return result(act(control, what, server), false);
            } catch (RuntimeException e) {
                return result(what + " " + server + " failed: " + e.getMessage(), true);
            }
        }, ServerTools::onItsOwnThread);
    }

    private static String act(ServerControl control, String what, String server) {
        return switch (what) {
            case "disable" -> control.disable(server);
            case "enable" -> control.enable(server);
            default -> control.reconnect(server);
        };
    }

    private static String capitalised(String word) {
        return Character.toUpperCase(word.charAt(0)) + word.substring(1);
    }

    private static CompletableFuture<JsonNode> done(JsonNode result) {
        return CompletableFuture.completedFuture(result);
    }

    private static JsonNode result(String text, boolean error) {
        return ToolResults.text(text, error);
    }
}
