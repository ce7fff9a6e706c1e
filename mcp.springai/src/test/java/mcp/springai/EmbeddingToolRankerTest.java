package mcp.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.IntStream;
import mcp.search.IndexedTool;
import mcp.search.SearchResult;
import mcp.search.ToolIndex;
import mcp.search.spi.ToolRanker;
import mcp.search.spi.ToolRankerProvider;
import org.junit.jupiter.api.Test;
import org.springframework.ai.document.Document;
import org.springframework.ai.embedding.Embedding;
import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.ai.embedding.EmbeddingRequest;
import org.springframework.ai.embedding.EmbeddingResponse;

/** A Spring AI EmbeddingModel ranks the tool index through the adapter: a deterministic model stands in. */
class EmbeddingToolRankerTest {

    /** A bag of words hashed into 32 dimensions, "rain" standing for "weather": a model in miniature. */
    static final class BagModel implements EmbeddingModel {
        @Override
        public List<float[]> embed(List<String> texts) {
            return texts.stream().map(BagModel::vector).toList();
        }

        @Override
        public float[] embed(Document document) {
            return vector(document.getText());
        }

        @Override
        public EmbeddingResponse call(EmbeddingRequest request) {
            List<String> texts = request.getInstructions();
            return new EmbeddingResponse(IntStream.range(0, texts.size())
                    .mapToObj(i -> new Embedding(vector(texts.get(i)), i)).toList());
        }

        private static float[] vector(String text) {
            float[] v = new float[32];
            for (String word : text.toLowerCase(Locale.ROOT).split("[^a-z]+")) {
                if (!word.isEmpty()) {
                    v[Math.floorMod((word.equals("rain") ? "weather" : word).hashCode(), 32)] += 1;
                }
            }
            return v;
        }
    }

    @Test
    void theModelsRankingIsFusedAndNamed() throws Exception {
        ToolRankerProvider provider = new EmbeddingToolRanker("bag", new BagModel());
        ToolRanker ranker = provider.create(new ToolRankerProvider.Context(Optional.empty()));
        ToolIndex index = ToolIndex.builder().ranker(ranker).rankerTimeout(Duration.ofSeconds(10)).build();
        index.put("weather", List.of(new IndexedTool("weather__forecast", "weather", "forecast", null,
                "Weather forecast for a city", List.of())));
        index.put("mail", List.of(new IndexedTool("mail__send", "mail", "send", null, "Send an email", List.of())));
        assertTrue(ranker.awaitReady(Duration.ofSeconds(10)));

        SearchResult result = index.find("will it rain", 2);
        assertEquals(Optional.of("bag"), result.ranker(), result.toString());
        assertEquals("weather__forecast", result.hits().get(0).id());
    }
}
