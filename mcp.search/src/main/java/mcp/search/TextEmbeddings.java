package mcp.search;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import mcp.search.internal.EmbeddingRanker;
import mcp.search.internal.VectorStore;
import mcp.search.spi.ToolRanker;
import mcp.search.spi.ToolRankerProvider;

/**
 * A text-embedding model as a source of {@link ToolRanker}s: a dense retriever that ranks tools by the cosine of
 * their text's vector and the query's. What a model adapter supplies is the function from texts to vectors
 * ({@link Embedder}); this class does the rest, the same for every model: the text of a tool, embedding ahead on a
 * thread of its own, a vector per definition computed once and kept (in memory, and in a file per model when given a
 * directory), and the ranking.
 *
 * <p>One instance per model, shared by every ranker made from it ({@link #ranker()}, one per index): they share the
 * model, the vectors and the thread. A tool's vector is keyed by the SHA-256 of the text embedded, so an unchanged
 * definition is never embedded twice, whichever server, session or run brings it.
 *
 * <pre>{@code
 * TextEmbeddings embeddings = TextEmbeddings.builder("my-model", texts -> model.embedAll(texts))
 *         .cacheDirectory(dir).build();
 * ToolIndex index = ToolIndex.builder().ranker(embeddings.ranker()).build();
 * }</pre>
 */
public final class TextEmbeddings implements AutoCloseable {

    /**
     * A text-embedding model: the vectors of a batch of texts. It need not normalise them, and is called from one
     * thread at a time for tools but from several at once for queries.
     */
    @FunctionalInterface
    public interface Embedder {
        /**
         * @param texts one or more texts
         * @return one vector per text, in order, all of one dimension
         */
        List<float[]> embed(List<String> texts);
    }

    private final String id;
    private final Embedder embedder;
    private final String queryPrefix;
    private final String documentPrefix;
    private final Function<IndexedTool, String> toolText;
    private final int batchSize;
    private final VectorStore store;
    /** Keys queued or being embedded, so that two rankers asking for one text embed it once. */
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    /** One thread, ending when idle: tools are embedded in the order they came, off every query's path. */
    private final ThreadPoolExecutor worker;
    private final Object progress = new Object();
    private volatile String lastFailure;

    private TextEmbeddings(Builder builder) {
        this.id = builder.id;
        this.embedder = builder.embedder;
        this.queryPrefix = builder.queryPrefix;
        this.documentPrefix = builder.documentPrefix;
        this.toolText = builder.toolText;
        this.batchSize = builder.batchSize;
        this.store = new VectorStore(Optional.ofNullable(builder.cacheDirectory)
                .map(dir -> dir.resolve(builder.id.replaceAll("[^A-Za-z0-9._-]", "_") + ".vectors")));
        this.worker = new ThreadPoolExecutor(0, 1, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
            Thread thread = new Thread(task, "mcp-search-embed-" + builder.id);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * @param id the model's name, which rankers report and the cache file is named by: change it when the vectors
     *     change (another model, another version)
     * @param embedder the model
     * @return a builder
     */
    public static Builder builder(String id, Embedder embedder) {
        return new Builder(id, embedder);
    }

    /**
     * A provider whose rankers all share one {@link TextEmbeddings}, built at the first ranker: one model, one
     * embedding thread, one set of vectors, kept under the cache directory of the first context (the host's, the same
     * for all its sessions). What the local model's provider and the frameworks' adapters are made of.
     *
     * @param id the provider's id (the model's name, as {@link #builder} takes it)
     * @param builder the embeddings' builder, without a cache directory: the context gives that
     * @return the provider
     */
    public static ToolRankerProvider provider(String id, Supplier<Builder> builder) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(builder, "builder");
        return new ToolRankerProvider() {
            private TextEmbeddings embeddings;

            @Override
            public String id() {
                return id;
            }

            @Override
            public synchronized ToolRanker create(Context context) {
                if (embeddings == null) {
                    Builder made = builder.get();
                    Optional.ofNullable(context).flatMap(Context::cacheDirectory).ifPresent(made::cacheDirectory);
                    embeddings = made.build();
                }
                return embeddings.ranker();
            }
        };
    }

    /**
     * The text of a tool that is embedded by default: {@code "<server>: <name in words>. <title>. <description>"},
     * the description cut at 1,000 characters (small models read 256 to 512 word pieces).
     *
     * @param tool a tool
     * @return its text
     */
    public static String defaultText(IndexedTool tool) {
        String name = tool.name().replaceAll("([a-z0-9])([A-Z])", "$1 $2").replaceAll("[_\\-.]+", " ")
                .toLowerCase(Locale.ROOT);
        String description = tool.description().length() > 1000 ? tool.description().substring(0, 1000)
                : tool.description();
        return tool.server() + ": " + name + ". " + (tool.title().isEmpty() ? "" : tool.title() + ". ") + description;
    }

    /** @return the model's name */
    public String id() {
        return id;
    }

    /** @return a new ranker over this model, for one index */
    public ToolRanker ranker() {
        return new EmbeddingRanker(this);
    }

    /** @return how many vectors are held (embedded in this run or read from the cache file) */
    public int vectors() {
        return store.size();
    }

    /** @return why the cache file is not written, if it is not (the vectors are then kept in memory only) */
    public Optional<String> cacheProblem() {
        return store.fileProblem();
    }

    /** Stops the embedding thread; rankers made from this keep ranking over what was embedded. */
    @Override
    public void close() {
        worker.shutdownNow();
    }

    /**
     * The key of a tool's vector.
     *
     * @param tool a tool
     * @return the key of its text as embedded
     */
    public String key(IndexedTool tool) {
        return VectorStore.key(documentPrefix + toolText.apply(tool));
    }

    /**
     * @param key a tool's key
     * @return its unit vector, or null while it is not embedded
     */
    public float[] vector(String key) {
        return store.get(key);
    }

    /** @return a counter that grows when vectors are added */
    public long version() {
        return store.version();
    }

    /** @return the last failure of the model on tools, if any */
    public Optional<String> lastFailure() {
        return Optional.ofNullable(lastFailure);
    }

    /**
     * Embeds a query now, on the calling thread.
     *
     * @param query the query
     * @return its unit vector
     */
    public float[] embedQuery(String query) {
        List<float[]> vectors = embedder.embed(List.of(queryPrefix + query));
        if (vectors.size() != 1) {
            throw new IllegalStateException(id + " returned " + vectors.size() + " vectors for one query");
        }
        return VectorStore.normalise(vectors.get(0));
    }

    /**
     * Queues the tools whose vectors are missing, to be embedded on this instance's thread.
     *
     * @param tools tools
     */
    public void embedAhead(Collection<IndexedTool> tools) {
        List<String> keys = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        for (IndexedTool tool : tools) {
            String text = documentPrefix + toolText.apply(tool);
            String key = VectorStore.key(text);
            if (store.get(key) == null && pending.add(key)) {
                keys.add(key);
                texts.add(text);
            }
        }
        if (!keys.isEmpty()) {
            worker.execute(() -> embed(keys, texts));
        }
    }

    private void embed(List<String> keys, List<String> texts) {
        try {
            for (int i = 0; i < keys.size(); i += batchSize) {
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
                List<String> batchKeys = keys.subList(i, Math.min(keys.size(), i + batchSize));
                List<String> batchTexts = texts.subList(i, Math.min(keys.size(), i + batchSize));
                try {
                    store.addAll(batchKeys, embedder.embed(batchTexts));
                } catch (RuntimeException e) {
                    lastFailure = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                }
                batchKeys.forEach(pending::remove);
                synchronized (progress) {
                    progress.notifyAll();
                }
            }
        } finally {
            keys.forEach(pending::remove);
            synchronized (progress) {
                progress.notifyAll();
            }
        }
    }

    /**
     * Waits until none of these keys is queued or being embedded.
     *
     * @param keys tools' keys
     * @param timeoutNanos the longest wait
     * @return whether they all were embedded (a failed one counts as not)
     * @throws InterruptedException if interrupted
     */
    public boolean await(Collection<String> keys, long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        synchronized (progress) {
            while (keys.stream().anyMatch(pending::contains)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(progress, left);
            }
        }
        return keys.stream().allMatch(key -> store.get(key) != null);
    }

    /** The settings of a model's embeddings. */
    public static final class Builder {
        private final String id;
        private final Embedder embedder;
        private String queryPrefix = "";
        private String documentPrefix = "";
        private Function<IndexedTool, String> toolText = TextEmbeddings::defaultText;
        private int batchSize = 32;
        private Path cacheDirectory;

        private Builder(String id, Embedder embedder) {
            if (Objects.requireNonNull(id, "id").isBlank()) {
                throw new IllegalArgumentException("the model's id must not be blank");
            }
            this.id = id;
            this.embedder = Objects.requireNonNull(embedder, "embedder");
        }

        /**
         * What a query is prefixed with before it is embedded, for models trained with one (e5: {@code "query: "};
         * bge: {@code "Represent this sentence for searching relevant passages: "}). Default none.
         *
         * @param prefix the prefix
         * @return this builder
         */
        public Builder queryPrefix(String prefix) {
            this.queryPrefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /**
         * What a tool's text is prefixed with before it is embedded (e5: {@code "passage: "}). Default none.
         *
         * @param prefix the prefix
         * @return this builder
         */
        public Builder documentPrefix(String prefix) {
            this.documentPrefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /**
         * The text of a tool that is embedded (default {@link TextEmbeddings#defaultText}).
         *
         * @param text the function
         * @return this builder
         */
        public Builder toolText(Function<IndexedTool, String> text) {
            this.toolText = Objects.requireNonNull(text, "text");
            return this;
        }

        /**
         * How many tool texts the model is given at once (default 32).
         *
         * @param size 1 or more
         * @return this builder
         */
        public Builder batchSize(int size) {
            if (size < 1) {
                throw new IllegalArgumentException("batch size must be at least 1, was " + size);
            }
            this.batchSize = size;
            return this;
        }

        /**
         * Keeps the vectors in a file in this directory ({@code <id>.vectors}, created when needed), so that a
         * later run embeds only the definitions it has not seen. Default: in memory only.
         *
         * @param directory the directory
         * @return this builder
         */
        public Builder cacheDirectory(Path directory) {
            this.cacheDirectory = Objects.requireNonNull(directory, "directory");
            return this;
        }

        /**
         * The embeddings; the cache file, if any, is read here.
         *
         * @return them
         */
        public TextEmbeddings build() {
            return new TextEmbeddings(this);
        }
    }
}
