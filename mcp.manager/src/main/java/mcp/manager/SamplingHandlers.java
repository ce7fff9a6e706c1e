package mcp.manager;

import java.util.Objects;
import java.util.function.Function;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Ready answers to {@code sampling/createMessage}, the server asking the host's model for a
 * completion. Register one with {@link ClientOptions.Builder#handler(String, ServerRequestHandler)}
 * under {@link ClientOptions#SAMPLING_METHOD} (or through the host's {@code clientSettings}); only
 * then does the client declare the {@code sampling} capability.
 *
 * <pre>{@code
 * ClientOptions options = ClientOptions.builder("server")
 *         .handler(ClientOptions.SAMPLING_METHOD, SamplingHandlers.text("my-model", params -> myModel.complete(params)))
 *         .build();
 * }</pre>
 */
public final class SamplingHandlers {

    /** The JSON-RPC error code the specification gives for a sampling request the user rejected. */
    public static final int USER_REJECTED = -1;

    private SamplingHandlers() {
    }

    /**
     * Answers with a text completion: {@code {"role": "assistant", "content": {"type": "text", "text": ...},
     * "model": model, "stopReason": "endTurn"}}. {@code complete} gets the request's params (messages,
     * system prompt, preferences, max tokens) and may block; returning {@code null} rejects the request.
     *
     * @param model the model name to report
     * @param complete the text for a request's params, or {@code null} to reject it
     * @return the handler
     */
    public static ServerRequestHandler text(String model, Function<JsonNode, String> complete) {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(complete, "complete");
        return params -> {
            String text = complete.apply(params);
            if (text == null) {
                throw rejected();
            }
            ObjectNode result = McpJson.object().put("role", "assistant");
            result.putObject("content").put("type", "text").put("text", text);
            result.put("model", model).put("stopReason", "endTurn");
            return result;
        };
    }

    /** @return a handler that rejects every request ({@value #USER_REJECTED}, {@code User rejected sampling request}) */
    public static ServerRequestHandler reject() {
        return params -> {
            throw rejected();
        };
    }

    private static McpProtocolException rejected() {
        return new McpProtocolException(USER_REJECTED, "User rejected sampling request", null);
    }
}
