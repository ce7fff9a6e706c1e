package mcp.search.embeddings;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import java.util.List;
import mcp.search.TextEmbeddings;
import mcp.search.embeddings.internal.LocalRankerProvider;
import mcp.search.spi.ToolRankerProvider;

/**
 * The local model of tool search: all-MiniLM-L6-v2, quantized (sentence-transformers, Apache-2.0; 384 dimensions,
 * reads 256 word pieces), run in process by ONNX Runtime. Chosen over bge-small-en-v1.5 and e5-small-v2 on the
 * ranker bench (BENCHMARKS.md, "Tool search"; docs/embeddings.md): as good as bge over both query sets, better on the
 * paraphrases, a smaller jar (16 MB against 25), and served at the LangChain4j version the rest of mcp-host uses.
 *
 * <p>The model is loaded when it first embeds, on the embedding thread or a query's ranker thread, never while a
 * session holds its locks; loading takes about a second.
 */
public final class LocalEmbeddings {

    /** The model's id: what the ranker reports and what its cache file is named by. */
    public static final String MODEL = "all-MiniLM-L6-v2-q";

    private static final Object LOCK = new Object();
    private static volatile EmbeddingModel model;

    private LocalEmbeddings() {
    }

    /**
     * The model's embeddings, to be built (with a cache directory, say) and turned into rankers.
     *
     * @return a builder with the model's id and function set (the model takes no query prefix)
     */
    public static TextEmbeddings.Builder builder() {
        return TextEmbeddings.builder(MODEL, LocalEmbeddings::embed);
    }

    /**
     * The provider ServiceLoader finds, for a host builder that is given its providers
     * ({@code McpHost.builder().serviceLoader(false).toolRanker(LocalEmbeddings.provider())}).
     *
     * @return a new provider; its rankers share one model and one set of vectors
     */
    public static ToolRankerProvider provider() {
        return new LocalRankerProvider();
    }

    private static List<float[]> embed(List<String> texts) {
        return model().embedAll(texts.stream().map(TextSegment::from).toList()).content().stream()
                .map(Embedding::vector).toList();
    }

    /** The model, loaded once per class loader (its weights take about 23 MB of native memory). */
    private static EmbeddingModel model() {
        EmbeddingModel loaded = model;
        if (loaded == null) {
            synchronized (LOCK) {
                loaded = model;
                if (loaded == null) {
                    // Run on the calling thread (the named embedding thread, or a query's ranker thread), not on the
                    // model's own pool of one thread per core: embedding ahead then takes one core of the user's
                    // machine, never all of them, and every thread that runs it is one of ours.
                    // LangChain4j reads the model's files through the thread's context class loader. In a module
                    // layer of the command's plugins that is not the loader of the model's jar, so the files are
                    // not found; the loader that defined the model's class finds them wherever it runs.
                    Thread thread = Thread.currentThread();
                    ClassLoader context = thread.getContextClassLoader();
                    thread.setContextClassLoader(AllMiniLmL6V2QuantizedEmbeddingModel.class.getClassLoader());
                    try {
                        loaded = new AllMiniLmL6V2QuantizedEmbeddingModel(Runnable::run);
                    } finally {
                        thread.setContextClassLoader(context);
                    }
                    model = loaded;
                }
            }
        }
        return loaded;
    }
}
