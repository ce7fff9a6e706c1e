package mcp.host;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import mcp.api.McpJson;
import mcp.api.ResourceDefinition;
import mcp.api.ResourceTemplate;
import mcp.manager.CallOptions;
import mcp.manager.McpManager;
import mcp.manager.SurfaceSlice;
import mcp.manager.ToolOutput;
import tools.jackson.databind.JsonNode;

/**
 * The MCP resources of a session as two tools the agent can call, beside the MCP tools: {@value #LIST} (the
 * resources and templates of every server that offers any, or of one) and {@value #READ} (one resource of one
 * server, rendered as a tool result). Neither exists while no server offers resources; a server without any is
 * left out of the list and refused by the read. Their names do not start with {@code mcp_}, so no MCP tool can
 * take them.
 */
final class ResourceTools {

    /** The tool that lists resources. */
    static final String LIST = "list_mcp_resources";
    /** The tool that reads one. */
    static final String READ = "read_mcp_resource";

    private ResourceTools() {
    }

    /** @return the two tools if a server of the manager offers resources, else none */
    static List<AgentTool> of(McpManager manager) {
        if (manager.surfaces().stream().noneMatch(slice -> slice.surface().hasResources())) {
            return List.of();
        }
        return List.of(new ListTool(manager), new ReadTool(manager));
    }

    /** @return a failure's message, unwrapped from the future's wrappers */
    static String message(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause.getMessage() == null ? cause.toString() : cause.getMessage();
    }

    /** @return an output of a session tool: an error gets one {@code MCP error: } prefix */
    static ToolOutput output(String server, String tool, String text, boolean error) {
        return new ToolOutput(error ? ToolOutput.failureText(text) : text, error,
                new ToolOutput.Details(server, tool, error, List.of(), Optional.empty(), Optional.empty(),
                        Optional.empty()));
    }

    private static JsonNode schema(String json) {
        return McpJson.mapper().readTree(json);
    }

    /** @return a non-blank string argument, if given */
    static Optional<String> text(JsonNode arguments, String field) {
        JsonNode value = arguments == null ? null : arguments.get(field);
        return value != null && value.isString() && !value.asString().isBlank() ? Optional.of(value.asString())
                : Optional.empty();
    }

    private record ListTool(McpManager manager) implements AgentTool {
        @Override
        public String name() {
            return LIST;
        }

        @Override
        public String label() {
            return "List MCP resources";
        }

        @Override
        public String description() {
            return "Lists the resources (and resource templates) that the connected MCP servers offer: files, "
                    + "documents, records. Give \"server\" to list one server's only. Read one with " + READ + ".";
        }

        @Override
        public JsonNode inputSchema() {
            return schema("{\"type\":\"object\",\"properties\":{\"server\":{\"type\":\"string\","
                    + "\"description\":\"Only this MCP server's resources\"}}}");
        }

        @Override
        public String origin() {
            return "mcp:resources";
        }

        @Override
        public boolean isMcp() {
            return true;
        }

        @Override
        public CompletableFuture<ToolOutput> call(JsonNode arguments) {
            Optional<String> only = text(arguments, "server");
            List<SurfaceSlice> slices = manager.surfaces().stream().filter(slice -> slice.surface().hasResources())
                    .filter(slice -> only.map(slice.server()::equals).orElse(true)).toList();
            if (slices.isEmpty()) {
                return CompletableFuture.completedFuture(output(only.orElse(""), LIST, only.map(server ->
                        "MCP server \"" + server + "\" offers no resources").orElse("No MCP server offers resources"),
                        only.isPresent()));
            }
            List<String> parts = new ArrayList<>();
            for (SurfaceSlice slice : slices) {
                StringBuilder part = new StringBuilder("Server ").append(slice.server())
                        .append(slice.deferred() ? " (connecting)" : "").append(':');
                for (ResourceDefinition resource : slice.surface().resources()) {
                    part.append("\n- ").append(resource.uri()).append(" (").append(resource.name())
                            .append(resource.mimeType().map(m -> ", " + m).orElse(""))
                            .append(resource.size().isPresent() ? ", " + resource.size().getAsLong() + " bytes" : "")
                            .append(')').append(resource.description().map(d -> ": " + d).orElse(""));
                }
                for (ResourceTemplate template : slice.surface().templates()) {
                    part.append("\n- template ").append(template.uriTemplate()).append(" (").append(template.name())
                            .append(template.mimeType().map(m -> ", " + m).orElse("")).append(')')
                            .append(template.description().map(d -> ": " + d).orElse(""));
                }
                parts.add(part.toString());
            }
            return CompletableFuture.completedFuture(output(only.orElse(""), LIST, String.join("\n\n", parts), false));
        }
    }

    private record ReadTool(McpManager manager) implements AgentTool {
        @Override
        public String name() {
            return READ;
        }

        @Override
        public String label() {
            return "Read an MCP resource";
        }

        @Override
        public String description() {
            return "Reads one resource of an MCP server by its URI (one that " + LIST + " shows, or one made from a "
                    + "template by filling in its {placeholders}).";
        }

        @Override
        public JsonNode inputSchema() {
            return schema("{\"type\":\"object\",\"properties\":{\"server\":{\"type\":\"string\",\"description\":"
                    + "\"The MCP server that offers the resource\"},\"uri\":{\"type\":\"string\",\"description\":"
                    + "\"The resource's URI\"}},\"required\":[\"server\",\"uri\"]}");
        }

        @Override
        public String origin() {
            return "mcp:resources";
        }

        @Override
        public boolean isMcp() {
            return true;
        }

        @Override
        public CompletableFuture<ToolOutput> call(JsonNode arguments) {
            Optional<String> server = text(arguments, "server");
            Optional<String> uri = text(arguments, "uri");
            if (server.isEmpty() || uri.isEmpty()) {
                return CompletableFuture.completedFuture(output(server.orElse(""), READ,
                        "read_mcp_resource needs \"server\" and \"uri\" (strings)", true));
            }
            if (manager.surfaceOf(server.get()).filter(slice -> slice.surface().hasResources()).isEmpty()) {
                return CompletableFuture.completedFuture(output(server.get(), READ, "MCP server \"" + server.get()
                        + "\" offers no resources", true));
            }
            return manager.readResource(server.get(), uri.get(), CallOptions.DEFAULT)
                    .thenApply(result -> ToolOutput.ofResource(server.get(), result))
                    .exceptionally(error -> output(server.get(), READ, message(error), true));
        }
    }
}
