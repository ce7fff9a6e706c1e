package mcp.gateway.internal;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;

/**
 * The input schemas of the tools a gateway's clients see, by the names they see them under: the server checks the
 * {@code Mcp-Param-*} headers of every stateless {@code tools/call} over HTTP against them, so they are kept from one
 * change of the view to the next rather than worked out per request. {@link #invalidate()} on every change of the
 * manager's tools or surfaces (a server's prompts count: they decide whether tool names carry a server prefix).
 *
 * <p>State: one volatile map, replaced whole; a lookup that races an invalidation may build the map twice, and either
 * is the view of a moment.
 */
public final class ToolSchemas {

    private final Supplier<Exposed> view;
    private volatile Map<String, JsonNode> schemas;

    /** @param view the view as the clients see it now */
    public ToolSchemas(Supplier<Exposed> view) {
        this.view = Objects.requireNonNull(view, "view");
    }

    /**
     * @param name a tool's name as the clients see it
     * @return its input schema, when a tool of that name is in view
     */
    public Optional<JsonNode> of(String name) {
        Map<String, JsonNode> current = schemas;
        if (current == null) {
            Map<String, JsonNode> built = new java.util.HashMap<>();
            view.get().tools().forEach((exposed, tool) -> built.put(exposed, tool.definition().inputSchema()));
            current = Map.copyOf(built);
            schemas = current;
        }
        return Optional.ofNullable(current.get(name));
    }

    /** The view changed: the next lookup reads it again. */
    public void invalidate() {
        schemas = null;
    }
}
