package com.example.mcp.springai;

import java.util.List;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/**
 * A chat model with no network: asked anything, it calls one tool as a real model does (an assistant message with a
 * tool call); given the tool's result, it answers with it. The ChatClient runs the tool in between.
 */
final class ScriptedChatModel implements ChatModel {

    private final String tool;
    private final String arguments;

    /**
     * @param tool the tool to ask for
     * @param arguments its arguments, as JSON
     */
    ScriptedChatModel(String tool, String arguments) {
        this.tool = tool;
        this.arguments = arguments;
    }

    @Override
    public ChatOptions getOptions() {
        // Tool-calling options, so that the ChatClient hands this model its tools.
        return ToolCallingChatOptions.builder().build();
    }

    @Override
    public ChatResponse call(Prompt prompt) {
        List<Message> messages = prompt.getInstructions();
        if (messages.get(messages.size() - 1) instanceof ToolResponseMessage results) {
            String result = results.getResponses().get(0).responseData();
            return reply(AssistantMessage.builder().content(result).build());
        }
        AssistantMessage.ToolCall call = new AssistantMessage.ToolCall("call-1", "function", tool, arguments);
        return reply(AssistantMessage.builder().content("").toolCalls(List.of(call)).build());
    }

    private static ChatResponse reply(AssistantMessage message) {
        return new ChatResponse(List.of(new Generation(message)));
    }
}
