package mcp.manager;

import static mcp.manager.TestServerProcesses.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.HttpServerConfig;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.api.ToolResult;
import mcp.api.spi.Providers;
import mcp.api.spi.ToolCache;
import mcp.api.spi.ToolCacheProvider;
import mcp.manager.internal.AuthContext;
import mcp.manager.internal.ConfigHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The caching hints of the 2026-07-28 revision ({@code ttlMs}, {@code cacheScope}) on {@code tools/list},
 * against the testkit server in the modern era: read over every page, kept in the tool cache with the
 * tools, and a warm start within the time to live lists no tools, unless the list was private to another
 * authorization context.
 */
class ListCachingTest {

    @TempDir
    Path temp;

    private final List<AutoCloseable> open = new ArrayList<>();

    /** A gate long enough that connectServers returns with every tool list loaded: no race with received. */
    private static final Duration SETTLED = Duration.ofSeconds(30);

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        TestServerProcesses.assertNoChildProcessLeft();
    }

    private static List<String> received(McpClient client) {
        ToolResult result = client.callToolBlocking("received", McpJson.object());
        JsonNode array = McpJson.mapper().readTree(((mcp.api.Content.Text) result.content().get(0)).text());
        List<String> methods = new ArrayList<>();
        array.forEach(m -> methods.add(m.asString()));
        return methods;
    }

    private ToolCache fileCache() {
        ToolCacheProvider file = Providers.require(ToolCacheProvider.class, Providers.byId(ToolCacheProvider.class,
                Providers.load(ToolCacheProvider.class, getClass().getClassLoader()), ToolCacheProvider::id), "file");
        return file.open(new ToolCacheProvider.Settings(Optional.of(temp), temp, Map.of(), Duration.ofDays(1)));
    }

    @Test
    void theHintsOfEveryPageAreSummedAndOnlyInTheStatelessEra() {
        McpClient modern = connect("m", "--era", "modern", "--tools", "5", "--page-size", "2",
                "--list-ttl-ms", "90000", "--list-scope", "private");
        open.add(modern);
        ToolListing listing = modern.listToolsWithHints().join();
        assertEquals(5, listing.tools().stream().filter(t -> t.name().startsWith("tool_")).count(), "every page read");
        assertEquals(Duration.ofSeconds(90), listing.ttl());
        assertFalse(listing.shared());

        McpClient negative = connect("n", "--era", "modern", "--list-ttl-ms", "-5");
        open.add(negative);
        assertEquals(Duration.ZERO, negative.listToolsWithHints().join().ttl(), "a negative ttlMs floors to 0");

        McpClient huge = connect("h", "--era", "modern", "--list-ttl-ms", String.valueOf(Long.MAX_VALUE),
                "--list-scope", "public");
        open.add(huge);
        ToolListing capped = huge.listToolsWithHints().join();
        assertEquals(ToolListing.MAX_TTL, capped.ttl());
        assertTrue(capped.shared());

        McpClient legacy = connect("l", "--era", "legacy");
        open.add(legacy);
        assertEquals(ToolListing.unhinted(legacy.listTools().join()), legacy.listToolsWithHints().join());
    }

    @Test
    void aWarmStartWithinTheTimeToLiveListsNoTools() throws Exception {
        ToolCache cache = fileCache();
        StdioServerConfig fresh = TestServerProcesses.config("--era", "modern", "--list-ttl-ms", "600000",
                "--list-scope", "private");
        StdioServerConfig stale = TestServerProcesses.config("--era", "modern", "--list-ttl-ms", "0");
        try (McpManager first = McpManager.builder().transportProviders(List.of(TestServerProcesses.stdio()))
                .toolCache(cache).startupGate(SETTLED).build()) {
            first.connectServers(Map.of("fresh", fresh, "stale", stale), Map.of());
            assertTrue(received(first.waitForConnection("fresh").join()).contains("tools/list"));
        }
        ToolCache.Entry saved = cache.readEntry("fresh", ConfigHash.of(fresh)).orElseThrow();
        ToolCache.Freshness freshness = saved.freshness().orElseThrow();
        assertFalse(freshness.shared());
        assertTrue(freshness.until().isAfter(Instant.now().plusSeconds(500)), freshness::toString);
        assertEquals(Optional.empty(), cache.readEntry("stale", ConfigHash.of(stale)).orElseThrow().freshness(),
                "ttlMs 0: stale at once");

        try (McpManager warm = McpManager.builder().transportProviders(List.of(TestServerProcesses.stdio()))
                .toolCache(cache).startupGate(SETTLED).build()) {
            warm.connectServers(Map.of("fresh", fresh, "stale", stale), Map.of());
            List<String> methods = received(warm.waitForConnection("fresh").join());
            assertFalse(methods.contains("tools/list"), "fresh: not listed again: " + methods);
            assertEquals(saved.tools().size(), warm.toolsOf("fresh").size());
            assertTrue(received(warm.waitForConnection("stale").join()).contains("tools/list"), "stale: listed");
            // A list change still lists again: hints and notifications coexist.
            warm.refreshServerTools("fresh").join();
            assertTrue(received(warm.waitForConnection("fresh").join()).contains("tools/list"));
        }
    }

    @Test
    void aPrivateListOfAnotherAuthorizationContextOrAnExpiredOneIsListedAgain() throws Exception {
        ToolCache cache = fileCache();
        StdioServerConfig config = TestServerProcesses.config("--era", "modern", "--list-ttl-ms", "600000",
                "--list-scope", "private");
        String hash = ConfigHash.of(config);
        List<mcp.api.ToolDefinition> tools = List.of(mcp.api.ToolDefinition.fromJson(McpJson.mapper().readTree(
                "{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}}")));
        for (ToolCache.Freshness freshness : List.of(
                new ToolCache.Freshness(Instant.now().plusSeconds(600), false, "another context"),
                new ToolCache.Freshness(Instant.now().minusSeconds(1), true, ""))) {
            cache.write("s", hash, new ToolCache.Entry(tools, Optional.of(McpClient.MODERN_PROTOCOL_VERSION),
                    Optional.of(freshness)));
            try (McpManager manager = McpManager.builder().transportProviders(List.of(TestServerProcesses.stdio()))
                    .toolCache(cache).startupGate(SETTLED).build()) {
                manager.connectServers(Map.of("s", config), Map.of());
                assertTrue(manager.toolsOf("s").size() > 1, "the server's own list replaced the cached one");
                List<String> methods = received(manager.waitForConnection("s").join());
                assertTrue(methods.contains("tools/list"), freshness + ": " + methods);
            }
        }
    }

    @Test
    void theAuthorizationContextFollowsTheValuesSentAndIsUnknownBeforeAnOAuthFlow() {
        StdioServerConfig a = TestServerProcesses.config("--era", "modern");
        StdioServerConfig withKey = new StdioServerConfig(a.command(), a.args(), Map.of("API_KEY", "one"),
                Optional.empty(), Optional.empty(), a.timeout(), Optional.empty(), true, Optional.empty(),
                Optional.empty(), List.of(), false);
        StdioServerConfig otherKey = new StdioServerConfig(a.command(), a.args(), Map.of("API_KEY", "two"),
                Optional.empty(), Optional.empty(), a.timeout(), Optional.empty(), true, Optional.empty(),
                Optional.empty(), List.of(), false);
        Map<String, String> env = Map.of("PATH", "/bin", "GITHUB_TOKEN", "t1");
        String context = AuthContext.of(withKey, env, true);
        assertEquals(context, AuthContext.of(withKey, Map.of("PATH", "/usr/bin", "GITHUB_TOKEN", "t1"), true),
                "what is not a credential does not count");
        assertNotEquals(context, AuthContext.of(otherKey, env, true));
        assertNotEquals(context, AuthContext.of(withKey, Map.of("PATH", "/bin", "GITHUB_TOKEN", "t2"), true));
        assertFalse(context.contains("one") || context.contains("t1"));

        HttpServerConfig http = HttpServerConfig.of("http://127.0.0.1:1/mcp");
        assertEquals(AuthContext.of(http, env, false), AuthContext.of(http, env, false));
        assertNotEquals(AuthContext.of(http, env, true), AuthContext.of(http, env, true),
                "credentials from an OAuth flow: no context known before it, a private list is never reused");
    }
}
