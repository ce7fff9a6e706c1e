package mcp.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.McpJson;
import mcp.manager.ToolOutput;
import mcp.search.spi.ToolRankerProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The host's tool search ranker: found by ServiceLoader (as a class-path jar brings it) or given to the builder, used
 * by a session's search and by a one-shot ranking, and reported as the ranker that answered.
 */
class ToolRankerTest {

    @TempDir
    Path temp;

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        HostFixtures.awaitNoProcessLeft();
    }

    /**
     * A class loader that holds the stub provider in an unnamed module of its own, with a {@code META-INF/services}
     * entry naming it: what a provider's jar on the class path is. (The copy patched into mcp.host is in a named
     * module, which ServiceLoader does not take from a services file.)
     */
    private ClassLoader classPathJar() throws IOException {
        Path dir = Files.createDirectories(temp.resolve("jar/META-INF/services"));
        Files.writeString(dir.resolve(ToolRankerProvider.class.getName()),
                StubRankerProvider.class.getName() + "\n");
        return new URLClassLoader(new URL[] {temp.resolve("jar").toUri().toURL()}, getClass().getClassLoader()) {
            private final Map<String, Class<?>> defined = new java.util.HashMap<>();

            @Override
            protected synchronized Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                // The stub and its inner classes, from their bytes: in this loader's unnamed module.
                if (!name.startsWith(StubRankerProvider.class.getName())) {
                    return super.loadClass(name, resolve);
                }
                Class<?> found = defined.get(name);
                if (found == null) {
                    String file = name.substring(name.lastIndexOf('.') + 1) + ".class";
                    try (InputStream in = StubRankerProvider.class.getResourceAsStream(file)) {
                        if (in == null) {
                            throw new ClassNotFoundException(name);
                        }
                        byte[] bytes = in.readAllBytes();
                        found = defineClass(name, bytes, 0, bytes.length);
                        defined.put(name, found);
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                return found;
            }
        };
    }

    @Test
    void serviceLoaderFindsAClassPathProviderAndNoneIsNoRanker() throws Exception {
        Optional<ToolRankerProvider> found = McpHost.rankerProvider(null, true, classPathJar());
        assertEquals("stub", found.orElseThrow().id());
        assertTrue(!found.get().getClass().getModule().isNamed(), "the class-path copy was found");
        assertEquals(List.of(), found.get().create(new ToolRankerProvider.Context(Optional.empty())).rank("x", 3),
                "and it works from there");
        assertEquals(Optional.empty(), McpHost.rankerProvider(null, true, McpHost.class.getClassLoader()),
                "no ranker module here: the words alone");
        assertEquals(Optional.empty(), McpHost.rankerProvider(null, false, classPathJar()),
                "discovery off: only the builder's");
        ToolRankerProvider given = new StubRankerProvider();
        assertEquals(Optional.of(given), McpHost.rankerProvider(given, true, classPathJar()),
                "the builder's wins over the one found");
    }

    private McpHost.Builder host(ToolRankerProvider ranker) throws IOException {
        McpHost.Builder builder = McpHost.builder().configFile(HostFixtures.config(temp, Map.of("kit", List.of())))
                .home(temp).workingDirectory(temp).cacheDirectory(temp.resolve("cache").resolve("tools"))
                .startupGate(Duration.ofSeconds(60)).toolRankerTimeout(Duration.ofSeconds(10));
        // No ranker module is on mcp.host's test path: without one given, ServiceLoader finds none.
        return ranker == null ? builder : builder.toolRanker(ranker);
    }

    @Test
    void aSessionsSearchFusesTheRankerAndSaysSo() throws Exception {
        StubRankerProvider.CONTEXTS.clear();
        try (ToolSession session = host(new StubRankerProvider())
                .toolSearch(ToolSearch.OFF.withMode(ToolSearch.Mode.ON)).build().openSession()) {
            ToolSession.Found found = session.findTools("repeat my words back", 3);
            assertEquals(Optional.of("stub"), found.ranker(), found.toString());
            assertTrue(found.tools().stream().anyMatch(tool -> tool.name().equals("mcp_kit_pid")), found.toString());
            assertEquals(List.of(Optional.of(temp.resolve("cache").resolve("rankers").toAbsolutePath())),
                    StubRankerProvider.CONTEXTS.stream().map(ToolRankerProvider.Context::cacheDirectory).toList(),
                    "one ranker per session, its files beside the tool cache");
            ToolSession.Found regex = session.findTools("/echo/", 3);
            assertEquals(Optional.empty(), regex.ranker());

            // The agent's search_tools: the text is the agent's, which ranker answered is the application's.
            ToolOutput output = mcp.manager.McpClient.await(session.tool(ToolSearch.TOOL).orElseThrow()
                    .call(McpJson.mapper().readTree("{\"query\":\"repeat my words back\",\"limit\":3}")));
            assertTrue(output.text().contains("mcp_kit_pid"), output.text());
            assertFalse(output.text().contains("stub"), "the agent's text does not name the ranker");
            JsonNode details = output.details().structuredContent().orElseThrow();
            assertEquals("stub", details.path("ranker").asString(), details.toString());
            assertTrue(details.path("rankerSkipped").isNull(), details.toString());
        }
    }

    @Test
    void aOneShotRankingUsesTheHostsRanker() throws Exception {
        try (McpHost host = host(new StubRankerProvider()).build()) {
            LoadResult load = host.load();
            ToolSearch.Ranked ranked = host.searchTools(load.tools(), "repeat my words back", 3, Duration.ofSeconds(5));
            assertEquals(Optional.of("stub"), ranked.ranker());
            assertTrue(ranked.tools().stream().anyMatch(tool -> tool.toolName().equals("pid")), ranked.toString());
        }
        try (McpHost host = host(null).build()) {
            LoadResult load = host.load();
            ToolSearch.Ranked ranked = host.searchTools(load.tools(), "echo", 3, Duration.ofSeconds(5));
            assertEquals(Optional.empty(), ranked.ranker());
            assertEquals(Optional.empty(), ranked.rankerSkipped());
            assertEquals("echo", ranked.tools().get(0).toolName());
        }
    }
}
