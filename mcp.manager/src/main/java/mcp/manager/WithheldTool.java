package mcp.manager;

import java.util.Objects;
import mcp.api.ToolDefinition;
import mcp.api.ToolRule;
import mcp.manager.internal.AgentText;

/**
 * A tool its server lists that the agent never gets because the tool owning the server's config denies it (a Claude
 * Code {@code permissions.deny} rule, Codex's {@code disabled_tools}, Gemini CLI's {@code excludeTools}, ...): not in
 * {@link McpManager#getTools()}, nor in any session, search or subagent built on it; its calls are refused.
 *
 * @param server the server's name
 * @param definition the tool as the server listed it
 * @param rule the owner's rule that denies it, with its file
 */
public record WithheldTool(String server, ToolDefinition definition, ToolRule rule) {

    /** Validates. */
    public WithheldTool {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(definition, "definition");
        Objects.requireNonNull(rule, "rule");
    }

    /** @return {@code <server>/<tool>}, the tool's name cleaned for a terminal, as {@link BridgedTool#label()} */
    public String label() {
        return server + "/" + AgentText.clean(definition.name(), 128).text();
    }
}
