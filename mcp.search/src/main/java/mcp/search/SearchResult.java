package mcp.search;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An answer of {@link ToolIndex#find}: the hits and which rankings made them.
 *
 * @param hits the hits, best first
 * @param ranker the id of the {@link mcp.search.spi.ToolRanker} whose ranking was fused with the word index's; empty
 *     when the words alone answered
 * @param rankerSkipped why the index's ranker was left out of this answer (it failed, took too long, had not taken
 *     the tools yet, or the query was a regular expression); empty when it answered or the index has none
 */
public record SearchResult(List<Hit> hits, Optional<String> ranker, Optional<String> rankerSkipped) {
    /** Checks and copies the fields. */
    public SearchResult {
        hits = List.copyOf(hits);
        Objects.requireNonNull(ranker, "ranker");
        Objects.requireNonNull(rankerSkipped, "rankerSkipped");
    }
}
