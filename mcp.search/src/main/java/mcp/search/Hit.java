package mcp.search;

import java.util.Objects;

/**
 * One search result, best first in the list {@link ToolIndex#search} returns.
 *
 * @param id the {@link IndexedTool#id()} of the tool found
 * @param server the server that offers it
 * @param name the tool's name
 * @param score the relevance (higher is better); comparable only within one answer
 */
public record Hit(String id, String server, String name, double score) {
    /** Checks the fields. */
    public Hit {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(name, "name");
    }
}
