package com.example.mcp.langchain4j;

import dev.langchain4j.service.AiServices;
import java.nio.file.Path;
import mcp.host.McpHost;
import mcp.host.ToolSession;
import mcp.langchain4j.McpToolProvider;

/**
 * {@code agent [--config FILE] TOOL ARGS_JSON}: a LangChain4j AI service whose tools are the user's MCP servers (every
 * tool's config files, as {@code mcp-host list} shows them) or the servers of one native config file. Its model is
 * {@link ScriptedModel}, which asks for TOOL with ARGS_JSON and answers from the result; put any LangChain4j
 * {@code ChatModel} in its place. Prints the answer; every server process ends when the session closes.
 */
public final class Agent {

    /** The AI service: LangChain4j implements it. */
    interface Assistant {
        String chat(String question);
    }

    private Agent() {
    }

    public static void main(String[] args) {
        int first = 0;
        McpHost.Builder host = McpHost.builder()
                .workingDirectory(Path.of("").toAbsolutePath());     // project configs: from here up
        if (args.length > 1 && args[0].equals("--config")) {
            host.configFile(Path.of(args[1]));                       // this file only, no discovery
            first = 2;
        }
        if (args.length != first + 2) {
            System.err.println("usage: agent [--config FILE] TOOL ARGS_JSON");
            System.exit(2);
        }
        try (ToolSession session = host.build().openSession()) {    // discover, connect, 250 ms startup gate
            session.lastLoad().errors().forEach((server, error) ->
                    System.err.println("server " + server + " failed: " + error));
            Assistant assistant = AiServices.builder(Assistant.class)
                    .chatModel(new ScriptedModel(args[first], args[first + 1]))
                    .toolProvider(McpToolProvider.of(session))      // dynamic: the session's tools at every request
                    .build();
            System.out.println("answer: " + assistant.chat("Please use " + args[first] + "."));
        }                                                            // every server process tree ends here
    }
}
