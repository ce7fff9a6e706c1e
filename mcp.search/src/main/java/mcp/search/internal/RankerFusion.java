package mcp.search.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import mcp.search.Hit;
import mcp.search.IndexedTool;
import mcp.search.SearchResult;
import mcp.search.spi.ToolRanker;

/**
 * A {@link ToolRanker} beside the word index: hands it the index's updates, asks it at each query under a time
 * bound, and fuses its ranking with the words' by reciprocal rank fusion.
 *
 * <p>Why reciprocal rank fusion (each ranking gives a tool {@code 1 / (k + rank)}, the sums rank) and not a weighted
 * sum of scores: BM25F scores are unbounded and vary with the query's words, a cosine lies in [-1, 1] and bunches
 * near its model's own mean, so a sum needs both normalised per query and a weight fitted on labelled queries; ranks
 * need neither, and k = 60 (Cormack, Clarke and Büttcher 2009) is the constant the semantic bench measured untuned.
 * A tool only one ranking found still counts, which is what a second ranking is for.
 */
public final class RankerFusion {

    /** The constant of reciprocal rank fusion. */
    public static final double K = 60;
    /** How deep each ranking is read for fusion: a tool below it in both adds too little to matter. */
    static final int DEPTH = 50;

    private final ToolRanker ranker;
    private final long timeoutNanos;
    /**
     * Two ranks at most at once (permits), on two threads that end when idle, so an index needs no close. A rank
     * past its bound is not interrupted (a model's native call would not hear it anyway): it runs to its end and its
     * answer is dropped, holding its permit until then, so a hung ranker occupies both and later queries are
     * answered by words at once ("busy"), never queued behind it.
     */
    private final ThreadPoolExecutor threads;
    private final Semaphore permits = new Semaphore(2);
    /** The servers whose last update the ranker refused: its answers would miss them, so it is left out. */
    private final Map<String, String> refused = new ConcurrentHashMap<>();

    /**
     * @param ranker the ranker
     * @param timeout its bound per query
     */
    public RankerFusion(ToolRanker ranker, Duration timeout) {
        this.ranker = ranker;
        this.timeoutNanos = timeout.toNanos();
        AtomicInteger count = new AtomicInteger();
        this.threads = new ThreadPoolExecutor(2, 2, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
            Thread thread = new Thread(task, "mcp-search-ranker-" + ranker.id() + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        threads.allowCoreThreadTimeOut(true);
    }

    /** @return the ranker's id */
    public String id() {
        return ranker.id();
    }

    /** @return the ranker */
    public ToolRanker ranker() {
        return ranker;
    }

    /**
     * Hands a server's new tools to the ranker; a ranker that throws is left out of answers until it takes that
     * server's tools.
     *
     * @param server the server
     * @param tools its tools
     */
    public void put(String server, Collection<IndexedTool> tools) {
        try {
            ranker.put(server, tools);
            refused.remove(server);
        } catch (RuntimeException e) {
            refused.put(server, describe(e));
        }
    }

    /**
     * Drops a server's tools from the ranker.
     *
     * @param server the server
     */
    public void remove(String server) {
        refused.remove(server);
        try {
            ranker.remove(server);
        } catch (RuntimeException e) {
            refused.put(server, describe(e));
        }
    }

    /**
     * Answers a query in words: the ranker's ranking, asked first and waited for up to the bound, fused with the
     * words'.
     *
     * @param query the query, stripped
     * @param limit the most hits
     * @param words the word index's ranking for a depth
     * @return the answer
     */
    public SearchResult search(String query, int limit, IntFunction<List<Hit>> words) {
        int depth = Math.max(DEPTH, limit);
        if (!refused.isEmpty()) {
            Map.Entry<String, String> first = refused.entrySet().iterator().next();
            return wordsOnly(words.apply(limit), "it failed to take the tools of " + first.getKey() + ": "
                    + first.getValue());
        }
        if (query.isEmpty()) {
            return wordsOnly(words.apply(limit), null);
        }
        long start = System.nanoTime();
        if (!permits.tryAcquire()) {
            return wordsOnly(words.apply(limit), "busy: its earlier queries are still running past their bound");
        }
        CompletableFuture<List<Hit>> ranked = new CompletableFuture<>();
        try {
            threads.execute(() -> {
                List<Hit> hits = null;
                Throwable failure = null;
                try {
                    hits = ranker.rank(query, depth);
                } catch (Throwable e) {
                    failure = e;
                } finally {
                    // Before the answer is handed over: the caller's next query must find this permit free.
                    permits.release();
                }
                if (failure == null) {
                    ranked.complete(hits);
                } else {
                    ranked.completeExceptionally(failure);
                }
            });
        } catch (RejectedExecutionException e) {
            permits.release();
            return wordsOnly(words.apply(limit), "busy: " + e.getMessage());
        }
        List<Hit> byWords = words.apply(depth);
        List<Hit> byRanker;
        try {
            long left = timeoutNanos - (System.nanoTime() - start);
            byRanker = ranked.get(Math.max(0, left), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return wordsOnly(cut(byWords, limit), "timed out after " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                    + " ms");
        } catch (ExecutionException e) {
            return wordsOnly(cut(byWords, limit), "failed: " + describe(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return wordsOnly(cut(byWords, limit), "interrupted");
        }
        if (byRanker == null) {
            return wordsOnly(cut(byWords, limit), "failed: it returned no ranking");
        }
        return new SearchResult(fuse(List.of(byWords, byRanker), limit), Optional.of(ranker.id()), Optional.empty());
    }

    /**
     * Reciprocal rank fusion of rankings: a tool's score is the sum of {@code 1 / (K + rank)} over the rankings
     * that hold it (rank from 1); ties by id.
     *
     * @param rankings the rankings, best first each
     * @param limit the most hits
     * @return the fused hits, best first, scored by their sums
     */
    public static List<Hit> fuse(List<List<Hit>> rankings, int limit) {
        Map<String, Double> sums = new HashMap<>();
        Map<String, Hit> hits = new LinkedHashMap<>();
        for (List<Hit> ranking : rankings) {
            Set<String> seen = new java.util.HashSet<>();
            for (int r = 0; r < ranking.size(); r++) {
                Hit hit = ranking.get(r);
                if (seen.add(hit.id())) {
                    sums.merge(hit.id(), 1.0 / (K + r + 1), Double::sum);
                    hits.putIfAbsent(hit.id(), hit);
                }
            }
        }
        List<Hit> fused = new ArrayList<>(hits.size());
        hits.forEach((id, hit) -> fused.add(new Hit(id, hit.server(), hit.name(), sums.get(id))));
        fused.sort((a, b) -> a.score() != b.score() ? Double.compare(b.score(), a.score()) : a.id().compareTo(b.id()));
        return cut(fused, limit);
    }

    private static List<Hit> cut(List<Hit> hits, int limit) {
        return hits.size() <= limit ? hits : List.copyOf(hits.subList(0, limit));
    }

    private SearchResult wordsOnly(List<Hit> hits, String why) {
        return new SearchResult(hits, Optional.empty(), Optional.ofNullable(why).map(w -> ranker.id() + " " + w));
    }

    private static String describe(Throwable e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
