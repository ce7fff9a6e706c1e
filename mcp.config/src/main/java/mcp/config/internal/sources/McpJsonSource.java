package mcp.config.internal.sources;

import java.util.List;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * A plain {@code mcp.json} in the project ({@code mcp-json}, priority 5): servers under
 * {@code mcpServers} (Claude's layout) or, when there is no {@code mcpServers}, under
 * {@code servers} (VS Code's layout), in the common shape. The lowest priority, since the name is
 * generic: the file may be a copy of another tool's config.
 */
public final class McpJsonSource extends FileSource {

    /** Creates the source; ServiceLoader calls this. */
    public McpJsonSource() {
        super("mcp-json", "MCP Config", 5);
    }

    @Override
    List<String> projectFiles() {
        return List.of("mcp.json");
    }

    @Override
    Optional<String> container(ObjectNode root) {
        return Optional.of(root.has("mcpServers") ? "mcpServers" : "servers");
    }
}
