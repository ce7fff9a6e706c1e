package mcp.manager;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import mcp.api.Content;
import mcp.api.PromptResult;
import mcp.api.ResourceResult;
import mcp.manager.internal.ResultRenderer;
import tools.jackson.databind.JsonNode;

/**
 * What a bridged tool gives the agent: the result rendered as text, and the details.
 *
 * @param text the rendered result (SPEC §9): content items joined by a blank line, {@code Error: }
 *     before an error result, {@code MCP error: <message>} when the call itself failed
 * @param isError whether the tool or the call failed
 * @param details the server, the tool, and the raw result
 */
public record ToolOutput(String text, boolean isError, Details details) {

    /** The start of every failed call's text ({@link #failureText}). */
    public static final String FAILURE = "MCP error";

    /** Validates. */
    public ToolOutput {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(details, "details");
    }

    /**
     * @param serverName the server's name
     * @param toolName the tool's name on the server
     * @param isError whether the tool or the call failed
     * @param content the raw content items (empty when the call failed)
     * @param structuredContent the structured result, if any
     * @param providerId the id of the capability source the server came from, if known
     * @param providerName its display name, if known
     */
    public record Details(String serverName, String toolName, boolean isError, List<Content> content,
            Optional<JsonNode> structuredContent, Optional<String> providerId, Optional<String> providerName) {
        /** Validates and copies. */
        public Details {
            Objects.requireNonNull(serverName, "serverName");
            Objects.requireNonNull(toolName, "toolName");
            content = List.copyOf(content);
            Objects.requireNonNull(structuredContent, "structuredContent");
            Objects.requireNonNull(providerId, "providerId");
            Objects.requireNonNull(providerName, "providerName");
        }
    }

    /**
     * A resource read rendered for the agent as a tool result is: text contents as {@code [Resource: <uri>]} and
     * the text, binary ones as {@code [Resource: <uri> (<mime>, <n> bytes)]}; the items in the details.
     *
     * @param serverName the server read from
     * @param result the read's result
     * @return the output
     */
    public static ToolOutput ofResource(String serverName, ResourceResult result) {
        return ResultRenderer.render(result, new Details(serverName, "resources/read", false, List.of(),
                Optional.empty(), Optional.empty(), Optional.empty()));
    }

    /**
     * A prompt's messages rendered for the agent: its description, then each message as {@code <role>: } and its
     * content rendered as a tool result's is; the contents in the details.
     *
     * @param serverName the prompt's server
     * @param promptName the prompt's name on the server
     * @param result the prompt's result
     * @return the output
     */
    public static ToolOutput ofPrompt(String serverName, String promptName, PromptResult result) {
        return ResultRenderer.render(result, new Details(serverName, promptName, false, List.of(), Optional.empty(),
                Optional.empty(), Optional.empty()));
    }

    /**
     * The text of a call that failed (not a tool's error result): {@code MCP error: <message>}, with the prefix
     * once, so a protocol error's own message ({@code MCP error -32603: ...}) is not prefixed again.
     *
     * @param message why the call failed
     * @return the text the agent gets
     */
    public static String failureText(String message) {
        String text = message == null ? "unknown failure" : message;
        return text.startsWith(FAILURE) ? text : FAILURE + ": " + text;
    }
}
