package mcp.search.spi;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Makes {@link ToolRanker}s: the service that {@link java.util.ServiceLoader} finds ({@code provides
 * mcp.search.spi.ToolRankerProvider with ...} in a module descriptor, or a {@code META-INF/services} entry on the
 * class path), or that an embedder hands to its host's builder.
 *
 * <p>A host asks for one ranker per tool index (one per session), so a provider keeps what is costly to load (a
 * model) and what rankers can share (computed vectors) itself, and makes cheap rankers over it.
 */
public interface ToolRankerProvider {

    /**
     * The provider's id, unique among the providers found; the id of the rankers it makes, as a rule.
     *
     * @return the id
     */
    String id();

    /**
     * A ranker for one index.
     *
     * @param context where the ranker may keep what it computed between runs
     * @return a new ranker
     * @throws RuntimeException when the ranker cannot be made (its model cannot be loaded); the host then searches
     *     with words alone and logs why
     */
    ToolRanker create(Context context);

    /**
     * What a host tells a provider.
     *
     * @param cacheDirectory a directory for the provider's files between runs (it may have to create it), kept with
     *     the host's tool cache; empty when the host keeps no cache
     */
    record Context(Optional<Path> cacheDirectory) {
        /** Checks the field. */
        public Context {
            Objects.requireNonNull(cacheDirectory, "cacheDirectory");
        }
    }
}
