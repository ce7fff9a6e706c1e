package mcp.manager;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import java.util.Objects;
import mcp.api.McpJson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Token estimates: how much of a model's context a text or a tool definition takes. Counted with a real
 * tokenizer, OpenAI's {@code o200k_base} byte-pair encoding (JTokkit); other model families (Claude, Gemini)
 * tokenize differently, typically within some ten to twenty percent of it, so every count here is an estimate,
 * good for comparing and for budgets, not for billing.
 *
 * <p>A tool definition is counted as an agent sends it to a model API: the compact JSON object
 * {@code {"name", "description", "input_schema"}} (see {@link #definitionJson}); the API's own framing around each
 * tool is not counted. Thread-safe; the encoding is loaded once, on first use.
 */
public final class TokenCounter {

    /** The encoding the estimates use. */
    public static final String ENCODING = "o200k_base";

    private static final class Holder {
        static final TokenCounter INSTANCE = new TokenCounter(
                Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.O200K_BASE));
    }

    private static final java.util.concurrent.atomic.AtomicBoolean PRELOADING =
            new java.util.concurrent.atomic.AtomicBoolean();

    private final Encoding encoding;

    private TokenCounter(Encoding encoding) {
        this.encoding = encoding;
    }

    /**
     * Starts loading the encoding on a daemon thread (a few hundred milliseconds of CPU), so that a caller that will
     * count later, such as a command that first connects its servers, does not wait for it then. Only the first call
     * starts it.
     */
    public static void preload() {
        if (PRELOADING.getAndSet(true)) {
            return;
        }
        Thread loader = new Thread(TokenCounter::get, "mcp-token-counter-load");
        loader.setDaemon(true);
        loader.start();
    }

    /** @return the shared counter ({@value #ENCODING}); the first call loads the encoding */
    public static TokenCounter get() {
        return Holder.INSTANCE;
    }

    /**
     * @param text any text; special-token markers such as {@code <|endoftext|>} count as the ordinary text they are
     * @return its token count
     */
    public int count(String text) {
        Objects.requireNonNull(text, "text");
        return text.isEmpty() ? 0 : encoding.countTokensOrdinary(text);
    }

    /**
     * @param name the tool's name as the agent sees it
     * @param description its description
     * @param inputSchema its argument schema
     * @return the estimated tokens of the definition as sent to a model ({@link #definitionJson})
     */
    public int countDefinition(String name, String description, JsonNode inputSchema) {
        return count(McpJson.mapper().writeValueAsString(definitionJson(name, description, inputSchema)));
    }

    /**
     * @param tool a tool as the agent sees it
     * @return the estimated tokens of its definition
     */
    public int countDefinition(BridgedTool tool) {
        return countDefinition(tool.name(), tool.description(), tool.inputSchema());
    }

    /**
     * @param name the tool's name
     * @param description its description
     * @param inputSchema its argument schema
     * @return {@code {"name": ..., "description": ..., "input_schema": ...}}, the shape model APIs take a tool in
     */
    public static ObjectNode definitionJson(String name, String description, JsonNode inputSchema) {
        ObjectNode json = McpJson.object();
        json.put("name", Objects.requireNonNull(name, "name"));
        json.put("description", Objects.requireNonNull(description, "description"));
        json.set("input_schema", Objects.requireNonNull(inputSchema, "inputSchema"));
        return json;
    }
}
