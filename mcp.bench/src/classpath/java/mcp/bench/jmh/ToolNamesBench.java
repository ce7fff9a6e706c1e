package mcp.bench.jmh;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import mcp.manager.internal.ToolNames;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The tool naming rule ({@code mcp.manager.internal.ToolNames}, internal to the module: these
 * benchmarks run on the class path, where module encapsulation does not apply).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ToolNamesBench {

    private final List<ToolNames.Key> keys = new ArrayList<>();
    private int next;

    @Setup
    public void setup() {
        // 50 servers with 200 tools each, as servers name them: plain names, mixed case and dots, names that
        // repeat the server's name (the prefix is dropped), and pairs that differ only in case and
        // punctuation, so that they collide after the rule and get hash suffixes.
        for (int s = 0; s < 50; s++) {
            String server = "server-" + s;
            for (int j = 0; j < 200; j++) {
                String tool = switch (j % 4) {
                    case 0 -> "tool_" + j;
                    case 1 -> "Get-Thing." + j;
                    case 2 -> "server_" + s + "_search_" + j;
                    default -> (j % 8 == 3 ? "Do Thing " : "do-thing-") + (j / 8);
                };
                keys.add(new ToolNames.Key(server, tool));
            }
        }
    }

    /** One name under the rule. */
    @Benchmark
    public String baseName() {
        ToolNames.Key key = keys.get(next++ % keys.size());
        return ToolNames.baseName(key.server(), key.tool());
    }

    /** Naming 10,000 tools with collision handling, as every registry rebuild does. */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public List<String> assign10k() {
        return ToolNames.assign(keys);
    }
}
