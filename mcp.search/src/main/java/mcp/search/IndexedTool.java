package mcp.search;

import java.util.List;
import java.util.Objects;

/**
 * One tool as the index sees it: the text an agent's user might search for, and the id the caller
 * resolves a hit with.
 *
 * @param id the caller's unique id of the tool (for example {@code server__name}); hits carry it back
 * @param server the server (or application) that offers the tool; {@link ToolIndex#put} groups by it
 * @param name the tool's name as the server gives it
 * @param title the human title; empty when the tool has none ({@code null} is taken as empty)
 * @param description the description; empty when the tool has none ({@code null} is taken as empty)
 * @param params the top-level input parameters, in schema order
 */
public record IndexedTool(String id, String server, String name, String title, String description,
        List<Param> params) {

    /**
     * One input parameter.
     *
     * @param name the property name in the input schema
     * @param description its description; empty when it has none ({@code null} is taken as empty)
     */
    public record Param(String name, String description) {
        /** Checks the name and turns an absent description into an empty one. */
        public Param {
            Objects.requireNonNull(name, "name");
            description = description == null ? "" : description;
        }
    }

    /** Checks the required fields, turns absent texts into empty ones and copies the parameters. */
    public IndexedTool {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(name, "name");
        title = title == null ? "" : title;
        description = description == null ? "" : description;
        params = params == null ? List.of() : List.copyOf(params);
    }
}
