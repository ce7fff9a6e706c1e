package mcp.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A chat model that answers from a script, with no network: each step sees the request (the tools offered, the
 * messages so far) and gives the model's answer. Every request is kept for the test to inspect.
 */
final class ScriptedChatModel implements ChatModel {

    private final Deque<Function<ChatRequest, AiMessage>> steps = new ConcurrentLinkedDeque<>();
    final List<ChatRequest> requests = new CopyOnWriteArrayList<>();

    /** Asks for one tool by name with these arguments; fails the turn if the tool was not offered. */
    ScriptedChatModel call(String tool, String argumentsJson) {
        steps.add(request -> {
            List<String> offered = request.toolSpecifications().stream().map(spec -> spec.name()).toList();
            if (!offered.contains(tool)) {
                throw new AssertionError("the model was not offered " + tool + ": " + offered);
            }
            return AiMessage.from(ToolExecutionRequest.builder().id("call-" + requests.size()).name(tool)
                    .arguments(argumentsJson).build());
        });
        return this;
    }

    /** Any step of the test's own. */
    ScriptedChatModel then(Function<ChatRequest, AiMessage> step) {
        steps.add(step);
        return this;
    }

    /** Answers with text built from the last tool result, as a model that read it would. */
    ScriptedChatModel answer(Function<ToolExecutionResultMessage, String> text) {
        steps.add(request -> AiMessage.from(text.apply(lastResult(request))));
        return this;
    }

    static ToolExecutionResultMessage lastResult(ChatRequest request) {
        List<ChatMessage> messages = new ArrayList<>(request.messages());
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i) instanceof ToolExecutionResultMessage result) {
                return result;
            }
        }
        throw new AssertionError("no tool result in " + messages);
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        requests.add(request);
        Function<ChatRequest, AiMessage> step = steps.poll();
        if (step == null) {
            throw new AssertionError("the script has no step left for " + request.messages());
        }
        return ChatResponse.builder().aiMessage(step.apply(request)).build();
    }
}
