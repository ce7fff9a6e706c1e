package mcp.it;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;

/**
 * A chat model that needs no network: asked a question, it calls one tool by name with fixed arguments, as a real
 * model does (an assistant message with a tool call); given the tool's result, it answers with a text made from it.
 * The ChatClient's tool-calling advisor runs the tool in between. It notes the tools each request offered it.
 */
final class ScriptedSpringChatModel implements ChatModel {

    private final String toolName;
    private final String arguments;
    private final Function<String, String> answer;
    /** The tool names offered by each request, in order. */
    final List<List<String>> offered = new ArrayList<>();

    /**
     * @param toolName the tool to call
     * @param arguments its arguments, as JSON
     * @param answer the final text, made from the tool's result
     */
    ScriptedSpringChatModel(String toolName, String arguments, Function<String, String> answer) {
        this.toolName = Objects.requireNonNull(toolName);
        this.arguments = Objects.requireNonNull(arguments);
        this.answer = Objects.requireNonNull(answer);
    }

    @Override
    public ChatOptions getOptions() {
        // Tool-calling options, so that the ChatClient hands this model its tool callbacks.
        return ToolCallingChatOptions.builder().build();
    }

    @Override
    public synchronized ChatResponse call(Prompt prompt) {
        List<String> names = new ArrayList<>();
        if (prompt.getOptions() instanceof ToolCallingChatOptions options && options.getToolCallbacks() != null) {
            for (ToolCallback callback : options.getToolCallbacks()) {
                names.add(callback.getToolDefinition().name());
            }
        }
        offered.add(names);
        List<Message> messages = prompt.getInstructions();
        Message last = messages.get(messages.size() - 1);
        if (last instanceof ToolResponseMessage results) {
            String data = results.getResponses().get(0).responseData();
            return reply(AssistantMessage.builder().content(answer.apply(data)).build());
        }
        return reply(AssistantMessage.builder().content("")
                .toolCalls(List.of(new AssistantMessage.ToolCall("call-1", "function", toolName, arguments))).build());
    }

    private static ChatResponse reply(AssistantMessage message) {
        return new ChatResponse(List.of(new Generation(message)));
    }
}
