package com.example.mcp.springai;

import java.util.List;
import mcp.host.ToolSession;
import mcp.springai.McpToolCallbackProvider;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * {@code spring-ai [--mcp-host.PROPERTY=VALUE]... TOOL [ARGS_JSON]}: a Spring Boot application whose ChatClient gets
 * every tool of the user's MCP servers from mcp-host's auto-configuration. The model here is scripted (it asks for
 * TOOL with ARGS_JSON, then answers with the result), so the example runs without a network or a key; a real
 * application takes the ChatModel of a Spring AI model starter instead, and nothing else changes.
 */
@SpringBootApplication
public class Application {

    public static void main(String[] args) {
        if (List.of(args).stream().allMatch(arg -> arg.startsWith("--"))) {
            System.err.println("usage: spring-ai [--mcp-host.config-file=FILE] TOOL [ARGS_JSON]");
            System.exit(2);
        }
        // The context closes when the runner is done: the host with it, and every server process tree.
        System.exit(SpringApplication.exit(SpringApplication.run(Application.class, args)));
    }

    /** Stands in for a real model: it asks for the tool named on the command line. */
    @Bean
    ChatModel chatModel(ApplicationArguments arguments) {
        List<String> words = arguments.getNonOptionArgs();
        return new ScriptedChatModel(words.get(0), words.size() > 1 ? words.get(1) : "{}");
    }

    /**
     * @param model the chat model
     * @param mcpTools every MCP tool of the session, from mcp-host's auto-configuration
     * @param session the session, for what it loaded
     * @return the one question this application asks
     */
    @Bean
    CommandLineRunner ask(ChatModel model, McpToolCallbackProvider mcpTools, ToolSession session) {
        return arguments -> {
            ChatClient chat = ChatClient.builder(model)
                    .defaultToolCallbacks(mcpTools)              // asked on every request: late servers are in
                    .build();
            System.out.println("tools: " + mcpTools.getToolCallbacks().length);
            String answer = chat.prompt("Please use the tool.").call().content();
            System.out.println("answer: " + answer);
        };
    }
}
