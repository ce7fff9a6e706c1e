package mcp.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import mcp.search.spi.ToolRanker;
import org.junit.jupiter.api.Test;

/** The fusion of a second ranking with the words', and the words alone when the ranker fails or is slow. */
class RankerFusionTest {

    private static IndexedTool tool(String server, String name, String description) {
        return new IndexedTool(server + "__" + name, server, name, null, description, List.of());
    }

    private static final List<IndexedTool> GIT = List.of(
            tool("git", "git_stash", "Stash the changes in the working directory"),
            tool("git", "git_commit", "Record changes to the repository"),
            tool("git", "git_log", "Show the commit logs"));

    /** A ranker that answers a fixed order of ids for every query, or misbehaves as told. */
    private static final class FixedRanker implements ToolRanker {
        private final Map<String, IndexedTool> tools = new ConcurrentHashMap<>();
        private final List<String> order;
        private final long sleepMillis;
        private final boolean fail;
        private final boolean failPut;

        FixedRanker(List<String> order, long sleepMillis, boolean fail, boolean failPut) {
            this.order = order;
            this.sleepMillis = sleepMillis;
            this.fail = fail;
            this.failPut = failPut;
        }

        @Override
        public String id() {
            return "fixed";
        }

        @Override
        public void put(String server, Collection<IndexedTool> given) {
            if (failPut) {
                throw new IllegalStateException("cannot take " + server);
            }
            given.forEach(t -> tools.put(t.id(), t));
        }

        @Override
        public void remove(String server) {
            tools.values().removeIf(t -> t.server().equals(server));
        }

        @Override
        public List<Hit> rank(String query, int limit) {
            if (sleepMillis > 0) {
                try {
                    Thread.sleep(sleepMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (fail) {
                throw new IllegalStateException("model broken");
            }
            List<Hit> hits = new ArrayList<>();
            for (String id : order) {
                IndexedTool t = tools.get(id);
                if (t != null && hits.size() < limit) {
                    hits.add(new Hit(id, t.server(), t.name(), 1.0 / (hits.size() + 1)));
                }
            }
            return hits;
        }
    }

    private static ToolIndex index(FixedRanker ranker, Duration timeout) {
        ToolIndex index = ToolIndex.builder().ranker(ranker).rankerTimeout(timeout).build();
        index.put("git", GIT);
        return index;
    }

    @Test
    void aToolOnlyTheRankerFindsIsInTheAnswerAndTheRankerIsNamed() {
        ToolIndex words = ToolIndex.builder().build();
        words.put("git", GIT);
        assertTrue(words.search("shelve edits", 5).stream().noneMatch(h -> h.id().equals("git__git_log")));

        ToolIndex index = index(new FixedRanker(List.of("git__git_log"), 0, false, false), Duration.ofSeconds(5));
        SearchResult result = index.find("shelve edits", 5);
        assertEquals(Optional.of("fixed"), result.ranker());
        assertEquals(Optional.empty(), result.rankerSkipped());
        assertTrue(result.hits().stream().anyMatch(h -> h.id().equals("git__git_log")), result.toString());
    }

    @Test
    void bothRankingsFirstBeatsEitherAlone() {
        // Words put git_stash first; the ranker puts git_commit first and git_stash second: git_stash, in both
        // near the top, wins (1/61 + 1/62 against 1/61 + the words' rank of git_commit).
        ToolIndex index = index(new FixedRanker(List.of("git__git_commit", "git__git_stash"), 0, false, false),
                Duration.ofSeconds(5));
        List<Hit> hits = index.find("stash", 3).hits();
        assertEquals("git__git_stash", hits.get(0).id());
        assertEquals("git__git_commit", hits.get(1).id());
        assertEquals(1.0 / 61 + 1.0 / 62, hits.get(0).score(), 1e-12);
    }

    @Test
    void aSlowRankerIsSkippedAndTheWordsAnswerWithinTheBound() {
        ToolIndex index = index(new FixedRanker(List.of("git__git_log"), 10_000, false, false), Duration.ofMillis(50));
        SearchResult result = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> index.find("stash", 5));
        assertEquals(Optional.empty(), result.ranker());
        assertTrue(result.rankerSkipped().orElseThrow().contains("timed out after 50 ms"), result.toString());
        assertEquals("git__git_stash", result.hits().get(0).id());
        assertEquals(List.of("git__git_stash"), result.hits().stream().map(Hit::id).toList());
    }

    @Test
    void aRankerThatHangsOnEveryQueryNeverQueuesTheNextOnes() {
        ToolIndex index = index(new FixedRanker(List.of(), 10_000, false, false), Duration.ofMillis(20));
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            for (int i = 0; i < 5; i++) {
                SearchResult result = index.find("stash", 5);
                assertTrue(result.rankerSkipped().isPresent());
                assertEquals("git__git_stash", result.hits().get(0).id());
            }
        });
    }

    @Test
    void aFailingRankerIsSkippedWithItsReason() {
        ToolIndex index = index(new FixedRanker(List.of(), 0, true, false), Duration.ofSeconds(5));
        SearchResult result = index.find("stash", 5);
        assertEquals(Optional.empty(), result.ranker());
        assertEquals(Optional.of("fixed failed: model broken"), result.rankerSkipped());
        assertEquals("git__git_stash", result.hits().get(0).id());
        assertEquals(result.hits(), index.search("stash", 5));
    }

    @Test
    void aRankerThatRefusedAServersToolsIsLeftOutUntilItTakesThem() {
        ToolIndex index = index(new FixedRanker(List.of(), 0, false, true), Duration.ofSeconds(5));
        SearchResult result = index.find("stash", 5);
        assertTrue(result.rankerSkipped().orElseThrow().contains("cannot take git"), result.toString());
        assertEquals("git__git_stash", result.hits().get(0).id());
    }

    @Test
    void aRegularExpressionIsTheWordIndexsAlone() {
        ToolIndex index = index(new FixedRanker(List.of("git__git_log"), 0, false, false), Duration.ofSeconds(5));
        SearchResult result = index.find("/stash/", 5);
        assertEquals(List.of("git__git_stash"), result.hits().stream().map(Hit::id).toList());
        assertEquals(Optional.empty(), result.ranker());
    }

    @Test
    void withoutARankerTheAnswerIsTheWordsAndSaysNothingWasSkipped() {
        ToolIndex index = ToolIndex.builder().build();
        index.put("git", GIT);
        SearchResult result = index.find("stash", 5);
        assertEquals(Optional.empty(), result.ranker());
        assertEquals(Optional.empty(), result.rankerSkipped());
        assertEquals(index.search("stash", 5), result.hits());
    }
}
