package mcp.server;

import java.util.Map;
import mcp.api.LogLevel;
import mcp.api.McpJson;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import tools.jackson.databind.JsonNode;

/** The small servers the tests run. */
final class Fixtures {

    private Fixtures() {
    }

    private static final JsonNode OBJECT = Wire.json("{\"type\":\"object\"}");

    /**
     * A server with {@code echo} (the argument {@code text} back), {@code ask} (asks the user's name, key
     * {@code user_name}), {@code ask_twice} (two rounds), {@code flood} ({@code count} log messages of {@code size}
     * characters), {@code whoami} (the caller's subject and groups) and {@code slow} (sleeps {@code ms}).
     */
    static McpServer server(ServerLimits limits) {
        return builder(limits).build();
    }

    /** The builder of {@link #server}, for options of a test's own. */
    static McpServer.Builder builder(ServerLimits limits) {
        return McpServer.builder("test-server", "1.0").limits(limits)
                .tool(ToolDefinition.of("echo", "Echoes its text", OBJECT),
                        (arguments, context) -> ToolResult.text(arguments.path("text").asString("")))
                .tool(ToolDefinition.of("ask", "Asks the user's name", OBJECT), (arguments, context) -> {
                    JsonNode answer = context.ask("user_name", InputRequest.elicitation(Wire.json(
                            "{\"message\":\"Name?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"name\":"
                                    + "{\"type\":\"string\"}}}}"))).join();
                    return ToolResult.text("Hello, " + answer.path("content").path("name").asString("?"));
                })
                .tool(ToolDefinition.of("ask_twice", "Asks twice", OBJECT), (arguments, context) -> {
                    Map<String, JsonNode> first = context.ask(Map.of("a", InputRequest.roots())).join();
                    Map<String, JsonNode> second = context.ask(Map.of("b", InputRequest.roots())).join();
                    return ToolResult.text(first.keySet() + "" + second.keySet());
                })
                .tool(ToolDefinition.of("flood", "Logs a lot", OBJECT), (arguments, context) -> {
                    String text = "x".repeat(arguments.path("size").asInt(10));
                    for (int i = 0; i < arguments.path("count").asInt(1); i++) {
                        context.log(LogLevel.WARNING, "flood", McpJson.mapper().getNodeFactory().stringNode(text));
                    }
                    return ToolResult.text("flooded");
                })
                .tool(ToolDefinition.of("whoami", "Says who called", OBJECT), (arguments, context) ->
                        ToolResult.text(context.caller().subject() + " " + new java.util.TreeSet<>(context.caller()
                                .groups())))
                .tool(ToolDefinition.of("slow", "Sleeps", OBJECT), (arguments, context) -> {
                    Thread.sleep(arguments.path("ms").asLong(100));
                    return ToolResult.text("slept");
                });
    }
}
