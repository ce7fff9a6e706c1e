package mcp.langchain4j;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import mcp.search.TextEmbeddings;
import mcp.search.spi.ToolRanker;
import mcp.search.spi.ToolRankerProvider;

/**
 * A LangChain4j {@link EmbeddingModel} as the ranker of mcp-host's tool search: its vectors of the tools' texts and
 * of the query, fused with the word index (docs/tool-search.md). Every ranker this provider makes shares one
 * {@link TextEmbeddings}: a tool definition is embedded once, ahead of the searches, on a thread of its own, and its
 * vector kept in the host's cache directory; a query is embedded on the search's ranker thread, within the host's
 * bound ({@code McpHost.Builder.toolRankerTimeout}), past which the words answer alone.
 *
 * <pre>{@code
 * McpHost host = McpHost.builder()
 *         .toolRanker(new EmbeddingToolRanker("text-embedding-3-small", openAiEmbeddingModel))
 *         .toolSearch(ToolSearch.OFF.withMode(ToolSearch.Mode.ON))
 *         .build();
 * }</pre>
 *
 * <p>A remote model costs a request per query and per batch of new tools; a local one (langchain4j's in-process ONNX
 * models) costs none. mcp-host's own local model is module {@code mcp.search.embeddings} (docs/embeddings.md).
 */
public final class EmbeddingToolRanker implements ToolRankerProvider {

    private final EmbeddingModel model;
    private final ToolRankerProvider shared;

    /**
     * @param id the model's name, reported as the ranker and naming its cache file: change it when the model changes
     * @param model the model
     */
    public EmbeddingToolRanker(String id, EmbeddingModel model) {
        this(id, model, UnaryOperator.identity());
    }

    /**
     * @param id the model's name, reported as the ranker and naming its cache file: change it when the model changes
     * @param model the model
     * @param settings changes to the embeddings' settings (a query prefix the model was trained with, the batch
     *     size, the text of a tool)
     */
    public EmbeddingToolRanker(String id, EmbeddingModel model, UnaryOperator<TextEmbeddings.Builder> settings) {
        Objects.requireNonNull(id, "id");
        this.model = Objects.requireNonNull(model, "model");
        Objects.requireNonNull(settings, "settings");
        this.shared = TextEmbeddings.provider(id, () -> settings.apply(TextEmbeddings.builder(id, this::embed)));
    }

    @Override
    public String id() {
        return shared.id();
    }

    @Override
    public ToolRanker create(Context context) {
        return shared.create(context);
    }

    private List<float[]> embed(List<String> texts) {
        return model.embedAll(texts.stream().map(TextSegment::from).toList()).content().stream()
                .map(Embedding::vector).toList();
    }
}
