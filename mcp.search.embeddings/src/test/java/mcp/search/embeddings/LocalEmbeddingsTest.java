package mcp.search.embeddings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import mcp.search.Hit;
import mcp.search.IndexedTool;
import mcp.search.SearchResult;
import mcp.search.ToolIndex;
import mcp.search.spi.ToolRanker;
import mcp.search.spi.ToolRankerProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real model on a small index: it finds by meaning what the words miss, and it is found by ServiceLoader. */
class LocalEmbeddingsTest {

    private static IndexedTool tool(String server, String name, String description) {
        return new IndexedTool(server + "__" + name, server, name, null, description, List.of());
    }

    private static final List<IndexedTool> TOOLS = List.of(
            tool("git", "git_stash", "Stash the changes in a dirty working directory away"),
            tool("git", "git_commit", "Record changes to the repository"),
            tool("github", "create_issue", "Create a new issue in a GitHub repository"),
            tool("mail", "send_email", "Send an email message to recipients"),
            tool("weather", "get_forecast", "Get the weather forecast for a location"),
            tool("calendar", "create_event", "Create an event in the user's calendar"));

    @Test
    void theServicesFileNamesTheProvider() {
        List<String> ids = ServiceLoader.load(ToolRankerProvider.class).stream().map(p -> p.get().id()).toList();
        assertEquals(List.of(LocalEmbeddings.MODEL), ids);
    }

    @Test
    void findsByMeaningAndKeepsTheVectorsBetweenRuns(@TempDir Path cache) throws Exception {
        ToolRankerProvider provider = ServiceLoader.load(ToolRankerProvider.class).findFirst().orElseThrow();
        ToolRanker ranker = provider.create(new ToolRankerProvider.Context(Optional.of(cache)));
        ToolIndex index = ToolIndex.builder().ranker(ranker).rankerTimeout(Duration.ofSeconds(30)).build();
        index.put("git", TOOLS.subList(0, 2));
        index.put("github", TOOLS.subList(2, 3));
        index.put("mail", TOOLS.subList(3, 4));
        index.put("weather", TOOLS.subList(4, 5));
        index.put("calendar", TOOLS.subList(5, 6));
        assertTrue(ranker.awaitReady(Duration.ofMinutes(2)), "every tool embedded");

        // No word of these is in its tool's text: the model alone can rank them.
        assertEquals("weather__get_forecast", ranker.rank("will it rain tomorrow in Paris", 1).get(0).id());
        // The small model puts the mail tool first for this one (meetings are also arranged by mail); the calendar
        // tool must still be in its first two.
        assertTrue(ranker.rank("book a meeting with Anna on Monday", 2).stream()
                .anyMatch(hit -> hit.id().equals("calendar__create_event")));
        assertEquals("mail__send_email", ranker.rank("write to Bob", 1).get(0).id());

        SearchResult result = index.find("will it rain tomorrow", 3);
        assertEquals(Optional.of(LocalEmbeddings.MODEL), result.ranker(), result.toString());
        assertEquals("weather__get_forecast", result.hits().get(0).id());
        assertTrue(Files.size(cache.resolve(LocalEmbeddings.MODEL + ".vectors")) >= 6L * (32 + 4 + 4 * 384),
                "six vectors of 384 floats in the cache file");
        List<Hit> hits = index.search("/stash/", 3);
        assertEquals("git__git_stash", hits.get(0).id());
    }
}
