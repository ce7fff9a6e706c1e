package mcp.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * CI's check of the tool search bench: the real corpus ({@code bench/toolcorpus}, or the directory in the
 * system property {@code toolcorpus}) and a fixed subset of its queries (the first 40 in file order), every
 * searcher of the bench except Lucene. It checks the loading and the split, and that mcp-host's search keeps
 * its lead on that subset; no timing is asserted (bench/search.sh measures).
 */
class SearchBenchSmokeTest {

    private static final Path TARGET = Path.of(System.getProperty("bench.target", "target"));

    private static Path corpusDir() {
        return Path.of(System.getProperty("toolcorpus", TARGET.resolve("../../bench/toolcorpus").toString()));
    }

    private static SearchBench.Corpus corpus() {
        Path dir = corpusDir();
        assumeTrue(Files.isRegularFile(dir.resolve("queries.json")), "no tool corpus at " + dir.toAbsolutePath());
        SearchBench.Corpus all = SearchBench.load(dir);
        return new SearchBench.Corpus(all.servers(), all.queries().subList(0, Math.min(40, all.queries().size())));
    }

    @Test
    void theCorpusLoadsAndEveryExpectedToolIsInIt() {
        SearchBench.Corpus corpus = corpus();
        assertTrue(corpus.tools() >= 100, "tools: " + corpus.tools());
        assertEveryExpectedToolIsIn(corpus);
    }

    @Test
    void theSampledQuerySetLoadsAndEveryExpectedToolIsInTheCorpus() {
        Path dir = corpusDir();
        assumeTrue(Files.isRegularFile(dir.resolve("queries-sampled.json")), "no sampled query set");
        SearchBench.Corpus sampled = SearchBench.load(dir, dir.resolve("queries-sampled.json"));
        assertTrue(sampled.queries().size() >= 100, "queries: " + sampled.queries().size());
        assertEveryExpectedToolIsIn(sampled);
    }

    private static void assertEveryExpectedToolIsIn(SearchBench.Corpus corpus) {
        List<String> ids = corpus.servers().values().stream().flatMap(List::stream).map(t -> t.id()).toList();
        for (SearchBench.Query q : corpus.queries()) {
            assertTrue(!q.expected().isEmpty() && ids.containsAll(q.expected()), q.id() + " expects " + q.expected());
        }
    }

    @Test
    void theSplitIsFixedBySeedAndCoversEveryQueryOnce() {
        SearchBench.Corpus corpus = corpus();
        List<SearchBench.Query> tune = SearchBench.half(corpus.queries(), SearchBench.SEED, 0);
        List<SearchBench.Query> heldOut = SearchBench.half(corpus.queries(), SearchBench.SEED, 1);
        assertEquals(corpus.queries().size(), tune.size() + heldOut.size());
        assertTrue(tune.stream().noneMatch(heldOut::contains));
        assertEquals(tune, SearchBench.half(corpus.queries(), SearchBench.SEED, 0), "same seed, same half");
    }

    @Test
    void mcpHostsSearchBeatsPlainBm25AndTheSubstringBaseline() {
        SearchBench.Corpus corpus = corpus();
        Map<String, Map<String, SearchBench.Score>> quality = SearchBench.quality(corpus, SearchBench.SEED, false);
        String table = SearchBench.qualityTable(quality);
        double host = quality.get("mcp-host").get("all").recall();
        double plain = quality.get("plain BM25").get("all").recall();
        double substring = quality.get("substring").get("all").recall();
        assertEquals(corpus.queries().size(), quality.get("mcp-host").get("all").queries());
        // A floor under the measured figure (0.775 on these 40 queries; 0.625 before the tuning of
        // issue 19): a regression of two queries fails it.
        assertTrue(host >= 0.75, "mcp-host recall@5 on the subset: " + host + "\n" + table);
        assertTrue(host > plain && host > substring, table);
        assertTrue(quality.get("mcp-host").get("all").mrr() > quality.get("plain BM25").get("all").mrr(), table);
    }

    @Test
    void everyQueryIsEasyOrSynonymAndTheOtherKindsFollowTheirRules() {
        SearchBench.Corpus corpus = corpus();
        Map<String, List<SearchBench.Query>> kinds = SearchBench.byKind(corpus, corpus.queries());
        for (SearchBench.Query q : corpus.queries()) {
            assertTrue(kinds.get("easy").contains(q) != kinds.get("synonym").contains(q), q.id());
            assertTrue(!q.noSharedWord() || kinds.get("synonym").contains(q), q.id() + " shares no word, so none of the name's");
        }
        assertEquals(corpus.queries().stream().filter(SearchBench.Query::noSharedWord).toList(), kinds.get("noSharedWord"));
        assertEquals("item", SearchBench.kindStem("items"));
        assertEquals(List.of("gitlab", "ci", "yml", "valid"), SearchBench.kindWords("is my .gitlab-ci.yml valid"));
    }

    @Test
    void theReplicatedCorpusHasRenamedServersAndDistinctIds() {
        SearchBench.Corpus corpus = corpus();
        SearchBench.Corpus big = SearchBench.replicate(corpus, 3 * corpus.tools());
        assertTrue(big.tools() >= 3 * corpus.tools());
        long distinct = big.servers().values().stream().flatMap(List::stream).map(t -> t.id()).distinct().count();
        assertEquals(big.tools(), distinct);
    }
}
