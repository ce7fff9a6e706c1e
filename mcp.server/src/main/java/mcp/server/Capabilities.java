package mcp.server;

import java.util.Objects;
import mcp.api.McpJson;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a {@link RequestHandler} serves, which the server declares to clients ({@code capabilities} of the answer to
 * {@code initialize} and of {@code server/discover}). The server adds what it serves itself ({@code logging}).
 *
 * @param tools whether it serves {@code tools/list} and {@code tools/call}
 * @param toolsListChanged whether it tells clients when its tools change ({@link McpServer#toolsChanged()})
 * @param resources whether it serves {@code resources/list}, {@code resources/templates/list} and {@code resources/read}
 * @param resourcesSubscribe whether clients may subscribe to resource updates ({@link McpServer#resourceUpdated})
 * @param resourcesListChanged whether it tells clients when its resources change
 * @param prompts whether it serves {@code prompts/list} and {@code prompts/get}
 * @param promptsListChanged whether it tells clients when its prompts change
 * @param completions whether it serves {@code completion/complete}
 * @param extensions the extensions it offers ({@code capabilities.extensions}), by name; empty for none
 * @param tasks whether tool calls may run as tasks ({@link RequestHandler#taskSupport}): the server then declares
 *     and serves tasks as each era defines them ({@code capabilities.tasks} of 2025-11-25, the extension
 *     {@code io.modelcontextprotocol/tasks} of 2026-07-28)
 */
public record Capabilities(boolean tools, boolean toolsListChanged, boolean resources, boolean resourcesSubscribe,
        boolean resourcesListChanged, boolean prompts, boolean promptsListChanged, boolean completions,
        ObjectNode extensions, boolean tasks) {

    /** Nothing at all. */
    public static final Capabilities NONE = new Capabilities(false, false, false, false, false, false, false, false,
            McpJson.object(), false);

    /** Capabilities without tasks. */
    public Capabilities(boolean tools, boolean toolsListChanged, boolean resources, boolean resourcesSubscribe,
            boolean resourcesListChanged, boolean prompts, boolean promptsListChanged, boolean completions,
            ObjectNode extensions) {
        this(tools, toolsListChanged, resources, resourcesSubscribe, resourcesListChanged, prompts, promptsListChanged,
                completions, extensions, false);
    }

    /** @return a copy that runs tool calls as tasks where the handler allows it */
    public Capabilities withTasks() {
        return new Capabilities(tools, toolsListChanged, resources, resourcesSubscribe, resourcesListChanged, prompts,
                promptsListChanged, completions, extensions, true);
    }

    /** Validates and copies. */
    public Capabilities {
        Objects.requireNonNull(extensions, "extensions");
        extensions = extensions.deepCopy();
        if (toolsListChanged && !tools || (resourcesSubscribe || resourcesListChanged) && !resources
                || promptsListChanged && !prompts || tasks && !tools) {
            throw new IllegalArgumentException("a list change or subscription of a feature that is not served");
        }
    }

    /**
     * @return the capabilities as MCP writes them ({@code ServerCapabilities}), without {@code logging} and without
     *     tasks (the server adds them in the shape of each era)
     */
    public ObjectNode toJson() {
        ObjectNode json = McpJson.object();
        if (tools) {
            json.putObject("tools").put("listChanged", toolsListChanged);
        }
        if (resources) {
            json.putObject("resources").put("subscribe", resourcesSubscribe).put("listChanged", resourcesListChanged);
        }
        if (prompts) {
            json.putObject("prompts").put("listChanged", promptsListChanged);
        }
        if (completions) {
            json.putObject("completions");
        }
        if (!extensions.isEmpty()) {
            json.set("extensions", extensions.deepCopy());
        }
        return json;
    }
}
