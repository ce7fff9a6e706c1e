package mcp.search.embeddings.internal;

import mcp.search.TextEmbeddings;
import mcp.search.embeddings.LocalEmbeddings;
import mcp.search.spi.ToolRanker;
import mcp.search.spi.ToolRankerProvider;

/**
 * The local model as the host's ranker provider (found through {@code META-INF/services}). All rankers of one
 * provider share one {@link TextEmbeddings}: one model, one embedding thread, one set of vectors, kept in
 * {@code <cache directory>/<model>.vectors} under the directory of the first context (the host's, which is the same
 * for all its sessions).
 */
public final class LocalRankerProvider implements ToolRankerProvider {

    private final ToolRankerProvider shared = TextEmbeddings.provider(LocalEmbeddings.MODEL, LocalEmbeddings::builder);

    /** The public no-argument constructor ServiceLoader needs. */
    public LocalRankerProvider() {
    }

    @Override
    public String id() {
        return shared.id();
    }

    @Override
    public ToolRanker create(Context context) {
        return shared.create(context);
    }
}
