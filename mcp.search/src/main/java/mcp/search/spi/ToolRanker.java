package mcp.search.spi;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import mcp.search.Hit;
import mcp.search.IndexedTool;

/**
 * A second ranking of an index's tools, fused with the word index's ranking by {@link mcp.search.ToolIndex}: a dense
 * retriever (an embedding model) or a reranker. The index hands it every change of a server's tools, as it takes
 * them itself, and asks it for a ranking at each query in words.
 *
 * <p>The word index stays the default and the fallback: a ranking that throws, or that takes longer than the index's
 * bound ({@link mcp.search.ToolIndex.Builder#rankerTimeout}), is left out of that query's answer, which then is the
 * word index's alone. So {@link #put} must return quickly: a ranker that does expensive work per tool (embedding)
 * does it ahead, on a thread of its own, and ranks meanwhile over the tools it has taken so far.
 *
 * <p>Implementations are thread-safe: {@link #rank} runs on the index's ranker threads, concurrently with other
 * ranks and with updates.
 */
public interface ToolRanker {

    /**
     * A short name of this ranker for users and scripts ({@code mcp-host tools --search --json} reports it), such as
     * the model's name.
     *
     * @return the id
     */
    String id();

    /**
     * Replaces a server's tools with these (an empty collection removes the server). Called after the index took
     * them; returns quickly.
     *
     * @param server the server
     * @param tools its tools, each naming this server, ids distinct
     */
    void put(String server, Collection<IndexedTool> tools);

    /**
     * Drops a server's tools.
     *
     * @param server the server
     */
    void remove(String server);

    /**
     * The tools that best match a query, best first. Only the order counts (the index fuses ranks, not scores).
     *
     * @param query the user's or agent's words, stripped, not blank
     * @param limit the most hits, at least 1
     * @return the hits, best first; empty when the ranker has nothing to say
     * @throws RuntimeException when it cannot rank now (the index answers with its words alone and says why)
     */
    List<Hit> rank(String query, int limit);

    /**
     * Waits until this ranker has taken every tool it was given (a one-shot command that ranks once, right after
     * loading, waits; a session does not). The default has nothing to wait for.
     *
     * @param timeout the longest wait
     * @return whether every tool was taken in time
     * @throws InterruptedException if interrupted while waiting
     */
    default boolean awaitReady(Duration timeout) throws InterruptedException {
        return true;
    }
}
