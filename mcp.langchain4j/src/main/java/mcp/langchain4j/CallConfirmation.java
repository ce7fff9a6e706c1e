package mcp.langchain4j;

import mcp.host.AgentTool;
import tools.jackson.databind.JsonNode;

/**
 * The application's way to ask its user before a call of a tool whose owner wants each call confirmed
 * ({@link mcp.api.CallPolicy.Decision#ASK}: a Claude Code {@code permissions.ask} rule, a Codex
 * {@code approval_mode}, ...). It runs on the thread that executes the tool and may block while the user decides.
 */
@FunctionalInterface
public interface CallConfirmation {

    /**
     * @param tool the tool about to be called; {@link AgentTool#callPolicy()} says who asked for confirmation
     * @param arguments the arguments the model gave
     * @return whether the user allows this call
     */
    boolean confirm(AgentTool tool, JsonNode arguments);
}
