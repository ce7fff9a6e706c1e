package mcp.springai;

import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import mcp.api.CallPolicy;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.host.AgentTool;
import mcp.manager.ToolOutput;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.ToolExecutionException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * One tool of a {@link mcp.host.ToolSession} as a Spring AI {@link ToolCallback}: its session name, description and
 * input schema as the definition, and a call that goes through the session (so the manager's timeouts, reconnects,
 * result budget and deferred servers apply).
 *
 * <p>A tool whose result is an error, or that could not be called, throws a {@link ToolExecutionException} whose
 * message is the text mcp-host renders for the model: Spring AI's default exception processor hands that text to the
 * model, and {@code spring.ai.tools.throw-exception-on-error=true} makes it fail the request instead, as for any other
 * tool. A tool whose owner asks for a confirmation of each call ({@link CallPolicy.Decision#ASK}) is called only when
 * the {@link McpToolCallConfirmation} agrees.
 */
public final class McpToolCallback implements ToolCallback {

    private final AgentTool tool;
    private final ToolDefinition definition;
    private final McpToolCallConfirmation confirmation;

    /**
     * @param tool a tool of the session
     * @param confirmation asked before each call of a tool whose owner wants every call confirmed
     */
    public McpToolCallback(AgentTool tool, McpToolCallConfirmation confirmation) {
        this.tool = Objects.requireNonNull(tool, "tool");
        this.confirmation = Objects.requireNonNull(confirmation, "confirmation");
        this.definition = ToolDefinition.builder()
                .name(tool.name())
                .description(tool.description())
                .inputSchema(McpJson.mapper().writeValueAsString(tool.inputSchema()))
                .build();
    }

    /** @return the session's tool this callback calls */
    public AgentTool tool() {
        return tool;
    }

    @Override
    public ToolDefinition getToolDefinition() {
        return definition;
    }

    @Override
    public String call(String toolInput) {
        return call(toolInput, null);
    }

    /** The tool context is the application's, not the server's: nothing of it is sent. */
    @Override
    public String call(String toolInput, ToolContext toolContext) {
        JsonNode arguments = arguments(toolInput);
        if (tool.callPolicy().decision() == CallPolicy.Decision.ASK && !confirmation.confirm(tool, arguments)) {
            throw failure("The call of " + tool.name() + " was not confirmed: its owner asks for a confirmation of each"
                    + " call (" + tool.callPolicy().describe() + ")", null);
        }
        ToolOutput output = await(tool.call(arguments));
        if (output.isError()) {
            throw failure(output.text(), null);
        }
        return output.text();
    }

    /** Waits for the call, whose own bounds (the tool timeout, the call limits) are the manager's. */
    private ToolOutput await(Future<ToolOutput> call) {
        try {
            return call.get();
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw failure("The call of " + tool.name() + " was interrupted", e);
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw failure(ToolOutput.failureText(String.valueOf(cause.getMessage())), cause);
        } catch (CancellationException e) {
            throw failure("The call of " + tool.name() + " was cancelled", e);
        }
    }

    private JsonNode arguments(String toolInput) {
        if (toolInput == null || toolInput.isBlank()) {
            return McpJson.object();
        }
        try {
            return McpJson.mapper().readTree(toolInput);
        } catch (JacksonException e) {
            throw failure("The arguments of " + tool.name() + " are not JSON: " + e.getOriginalMessage(), e);
        }
    }

    private ToolExecutionException failure(String message, Throwable cause) {
        return new ToolExecutionException(definition, cause == null ? new McpException(message)
                : new McpException(message, cause));
    }

    @Override
    public String toString() {
        return "McpToolCallback[" + tool.name() + " from " + tool.origin() + "]";
    }
}
