package com.example.mcp.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.List;

/**
 * A chat model with no network, as a real one behaves in a tool turn: first it asks for one tool by name with
 * arguments (refusing when the tool was not offered), then, given the tool's result, it answers with it.
 */
final class ScriptedModel implements ChatModel {

    private final String tool;
    private final String arguments;

    ScriptedModel(String tool, String arguments) {
        this.tool = tool;
        this.arguments = arguments;
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        List<ChatMessage> messages = request.messages();
        AiMessage answer;
        if (messages.get(messages.size() - 1) instanceof ToolExecutionResultMessage result) {
            answer = AiMessage.from((Boolean.TRUE.equals(result.isError()) ? "the tool failed: " : "") + result.text());
        } else if (request.toolSpecifications().stream().anyMatch(spec -> spec.name().equals(tool))) {
            answer = AiMessage.from(ToolExecutionRequest.builder().id("1").name(tool).arguments(arguments).build());
        } else {
            answer = AiMessage.from("I was not offered " + tool + ".");
        }
        return ChatResponse.builder().aiMessage(answer).build();
    }
}
