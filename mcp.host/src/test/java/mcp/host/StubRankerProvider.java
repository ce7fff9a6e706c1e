package mcp.host;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import mcp.search.Hit;
import mcp.search.IndexedTool;
import mcp.search.spi.ToolRanker;
import mcp.search.spi.ToolRankerProvider;

/**
 * A ranker provider for tests: its rankers put every tool whose name contains "pid" first, whatever the query, and
 * remember the cache directory they were given. Self-contained (mcp.search types only), so that a test can load it
 * in a class loader of its own, as a class-path jar's provider.
 */
public final class StubRankerProvider implements ToolRankerProvider {

    /** The contexts of the rankers made, for assertions. */
    public static final List<Context> CONTEXTS = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** The public no-argument constructor ServiceLoader needs. */
    public StubRankerProvider() {
    }

    @Override
    public String id() {
        return "stub";
    }

    @Override
    public ToolRanker create(Context context) {
        CONTEXTS.add(context);
        return new ToolRanker() {
            private final Map<String, IndexedTool> tools = new ConcurrentHashMap<>();

            @Override
            public String id() {
                return "stub";
            }

            @Override
            public void put(String server, Collection<IndexedTool> given) {
                remove(server);
                given.forEach(tool -> tools.put(tool.id(), tool));
            }

            @Override
            public void remove(String server) {
                tools.values().removeIf(tool -> tool.server().equals(server));
            }

            @Override
            public List<Hit> rank(String query, int limit) {
                List<Hit> hits = new ArrayList<>();
                tools.values().stream().filter(tool -> tool.name().contains("pid")).limit(limit)
                        .forEach(tool -> hits.add(new Hit(tool.id(), tool.server(), tool.name(), 1)));
                return hits;
            }
        };
    }
}
