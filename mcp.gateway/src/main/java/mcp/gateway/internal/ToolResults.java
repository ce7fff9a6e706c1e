package mcp.gateway.internal;

import mcp.api.McpJson;
import tools.jackson.databind.node.ObjectNode;

/** The {@code tools/call} results the gateway makes itself: one text, an error or not. */
public final class ToolResults {

    private ToolResults() {
    }

    /**
     * @param text the result's one text
     * @param error whether it is an error result ({@code isError})
     * @return the result
     */
    public static ObjectNode text(String text, boolean error) {
        ObjectNode result = McpJson.object();
        result.putArray("content").addObject().put("type", "text").put("text", text);
        if (error) {
            result.put("isError", true);
        }
        return result;
    }
}
