package mcp.springai;

import mcp.host.AgentTool;
import tools.jackson.databind.JsonNode;

/**
 * Asked before each call of a tool whose owning tool's config wants every call confirmed by the user
 * ({@link mcp.api.CallPolicy.Decision#ASK}, e.g. a Claude Code {@code permissions.ask} rule). An application with a
 * user at hand asks them; a bean of this type replaces {@link #REFUSE}, the auto-configuration's default.
 */
@FunctionalInterface
public interface McpToolCallConfirmation {

    /**
     * Refuses every such call: with nobody to ask, the owner's rule is kept. The model is told that the call was not
     * confirmed, and by which rule.
     */
    McpToolCallConfirmation REFUSE = (tool, arguments) -> false;

    /**
     * @param tool the tool about to be called ({@link AgentTool#callPolicy()} says who asks and why)
     * @param arguments the arguments the model gave
     * @return whether to call it
     */
    boolean confirm(AgentTool tool, JsonNode arguments);
}
