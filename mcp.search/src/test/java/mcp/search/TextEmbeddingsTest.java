package mcp.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.search.spi.ToolRanker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generic embedding ranker, with a deterministic stand-in model: ranking, embedding ahead, the vector file. */
class TextEmbeddingsTest {

    /** A bag of words hashed into 64 dimensions, with "shelve" made a synonym of "stash": a model in miniature. */
    private static float[] embed(String text) {
        float[] v = new float[64];
        for (String word : text.toLowerCase(Locale.ROOT).split("[^a-z]+")) {
            if (!word.isEmpty()) {
                v[Math.floorMod((word.equals("shelve") ? "stash" : word).hashCode(), 64)] += 1;
            }
        }
        return v;
    }

    private static List<float[]> embedAll(List<String> texts, AtomicInteger tools) {
        List<float[]> vectors = new ArrayList<>();
        for (String text : texts) {
            if (!text.startsWith("q:")) {
                tools.incrementAndGet();
            }
            vectors.add(embed(text));
        }
        return vectors;
    }

    private static final List<IndexedTool> GIT = List.of(
            new IndexedTool("git__git_stash", "git", "git_stash", null, "Put the working changes aside", List.of()),
            new IndexedTool("git__git_commit", "git", "git_commit", null, "Record changes to the repository",
                    List.of()),
            new IndexedTool("git__git_log", "git", "git_log", null, "Show the commit logs", List.of()));

    @Test
    void ranksByCosineAndFusedWithTheWordsFindsWhatTheWordsMiss(@TempDir Path dir) throws Exception {
        AtomicInteger embedded = new AtomicInteger();
        try (TextEmbeddings embeddings = TextEmbeddings.builder("bag", texts -> embedAll(texts, embedded))
                .queryPrefix("q: ").build()) {
            ToolRanker ranker = embeddings.ranker();
            ToolIndex index = ToolIndex.builder().ranker(ranker).rankerTimeout(Duration.ofSeconds(10)).build();
            index.put("git", GIT);
            assertTrue(ranker.awaitReady(Duration.ofSeconds(10)));
            assertEquals(3, embedded.get());
            assertEquals("git__git_stash", ranker.rank("shelve", 3).get(0).id());
            SearchResult result = index.find("shelve", 3);
            assertEquals(Optional.of("bag"), result.ranker());
            assertEquals("git__git_stash", result.hits().get(0).id());
            index.remove("git");
            assertEquals(Optional.of("bag no tools"), index.find("shelve", 3).rankerSkipped().map(s -> s
                    .replace("failed: ", "")));
        }
    }

    @Test
    void aDefinitionIsEmbeddedOnceAcrossRankersAndRuns(@TempDir Path dir) throws Exception {
        AtomicInteger first = new AtomicInteger();
        try (TextEmbeddings embeddings = TextEmbeddings.builder("bag/1", texts -> embedAll(texts, first))
                .cacheDirectory(dir).build()) {
            ToolRanker a = embeddings.ranker();
            ToolRanker b = embeddings.ranker();
            a.put("git", GIT);
            b.put("git", GIT);
            assertTrue(a.awaitReady(Duration.ofSeconds(10)));
            assertTrue(b.awaitReady(Duration.ofSeconds(10)));
            assertEquals(3, first.get());
        }
        assertTrue(Files.size(dir.resolve("bag_1.vectors")) > 0);
        AtomicInteger second = new AtomicInteger();
        try (TextEmbeddings embeddings = TextEmbeddings.builder("bag/1", texts -> embedAll(texts, second))
                .cacheDirectory(dir).build()) {
            assertEquals(3, embeddings.vectors());
            ToolRanker ranker = embeddings.ranker();
            List<IndexedTool> changed = new ArrayList<>(GIT);
            changed.set(2, new IndexedTool("git__git_log", "git", "git_log", null, "Show the history", List.of()));
            ranker.put("git", changed);
            assertTrue(ranker.awaitReady(Duration.ofSeconds(10)));
            assertEquals(1, second.get(), "only the changed definition is embedded again");
            assertEquals("git__git_log", ranker.rank("history", 1).get(0).id());
        }
    }

    @Test
    void aModelThatFailsLeavesTheWordsToAnswer() throws Exception {
        try (TextEmbeddings embeddings = TextEmbeddings.builder("broken", texts -> {
            throw new IllegalStateException("no model file");
        }).build()) {
            ToolIndex index = ToolIndex.builder().ranker(embeddings.ranker()).rankerTimeout(Duration.ofSeconds(10))
                    .build();
            index.put("git", GIT);
            assertTrue(!index.ranker().orElseThrow().awaitReady(Duration.ofSeconds(10)));
            SearchResult result = index.find("commit", 3);
            assertEquals(Optional.empty(), result.ranker());
            assertTrue(result.rankerSkipped().orElseThrow().contains("no model file"), result.toString());
            assertEquals("git__git_commit", result.hits().get(0).id());
        }
    }
}
