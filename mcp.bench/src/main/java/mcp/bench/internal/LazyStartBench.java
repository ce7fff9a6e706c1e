package mcp.bench.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import mcp.api.LazyStart;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.api.spi.ToolCache;
import mcp.api.spi.ToolCacheProvider;
import mcp.manager.BridgedTool;
import mcp.manager.McpClient;
import mcp.manager.McpManager;
import mcp.manager.ServerStatus;
import mcp.manager.ToolOutput;
import mcp.testkit.TestServers;

/**
 * A lazy server's first call (its start, connect and listing, then the call) against a warm call of the same tool
 * (BENCHMARKS.md, "Lazy servers"). One manager, one testkit server marked lazy with a short idle time, the tool cache
 * in a scratch directory: each round waits until the server is stopped, times one call of {@code echo} (the cold
 * call), then {@code --warm} calls one after another on the running server.
 *
 * <p>Usage: {@code LazyStartBench [--rounds N] [--warm N] [--idle-ms MS]}; prints a small Markdown table.
 */
public final class LazyStartBench {

    private LazyStartBench() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(option(args, "--rounds", "20"));
        int warmCalls = Integer.parseInt(option(args, "--warm", "20"));
        long idleMs = Long.parseLong(option(args, "--idle-ms", "300"));
        Path scratch = Files.createTempDirectory("mcp-lazy-bench");
        try {
            run(scratch, rounds, warmCalls, Duration.ofMillis(idleMs));
        } finally {
            deleteTree(scratch);
        }
        System.exit(0);
    }

    private static void run(Path scratch, int rounds, int warmCalls, Duration idle) throws Exception {
        ToolCacheProvider file = ServiceLoader.load(ToolCacheProvider.class, LazyStartBench.class.getClassLoader())
                .stream().map(ServiceLoader.Provider::get).filter(p -> p.id().equals("file")).findFirst()
                .orElseThrow(() -> new IllegalStateException("no file tool cache on the module path"));
        ToolCache cache = file.open(new ToolCacheProvider.Settings(Optional.of(scratch.resolve("cache")), scratch,
                Map.of(), Duration.ofDays(1)));
        List<String> command = TestServers.command("--tools", "20");
        StdioServerConfig config = StdioServerConfig.of(command.get(0), command.subList(1, command.size()))
                .withLazy(Optional.of(LazyStart.idle(idle)));
        double[] cold = new double[rounds];
        double[] warm = new double[rounds * warmCalls];
        String load = Runner.loadAverage();
        try (McpManager manager = McpManager.builder().workingDirectory(scratch).toolCache(cache).build()) {
            manager.connectServers(Map.of("kit", config), Map.of());
            for (int round = 0; round < rounds; round++) {
                // Started once to fill the cache before the first round; stopped after its idle time after each.
                awaitStopped(manager, Duration.ofSeconds(60));
                BridgedTool echo = manager.getTools().stream().filter(t -> t.name().equals("mcp_kit_echo"))
                        .findFirst().orElseThrow();
                long start = System.nanoTime();
                check(McpClient.await(echo.call(McpJson.object().put("message", "cold"))), "cold");
                cold[round] = (System.nanoTime() - start) / 1e6;
                BridgedTool live = manager.getTools().stream().filter(t -> t.name().equals("mcp_kit_echo"))
                        .findFirst().orElseThrow();
                for (int i = 0; i < warmCalls; i++) {
                    long begin = System.nanoTime();
                    check(McpClient.await(live.call(McpJson.object().put("message", "warm"))), "warm");
                    warm[round * warmCalls + i] = (System.nanoTime() - begin) / 1e6;
                }
            }
        }
        System.out.println("| call | runs | median (ms) | p90 (ms) |");
        System.out.println("|---|---:|---:|---:|");
        System.out.println(row("first call of a stopped lazy server (start + call)", cold));
        System.out.println(row("warm call of the running server", warm));
        System.out.println();
        System.out.println("testkit server (`--tools 20`, a JVM), idle time " + idle.toMillis() + " ms, "
                + Runtime.getRuntime().availableProcessors() + " cores, load average before: " + load
                + ", after: " + Runner.loadAverage());
    }

    private static void awaitStopped(McpManager manager, Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (manager.status("kit").state() != ServerStatus.State.STOPPED) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the lazy server did not stop: " + manager.status("kit"));
            }
            Thread.sleep(5);
        }
    }

    private static void check(ToolOutput output, String expected) {
        if (output.isError() || !output.text().equals(expected)) {
            throw new IllegalStateException("unexpected answer: " + output.text());
        }
    }

    private static String row(String what, double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        double p90 = sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.9) - 1)];
        return String.format(Locale.ROOT, "| %s | %d | %.1f | %.1f |", what, values.length, Report.median(values), p90);
    }

    private static String option(String[] args, String name, String fallback) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }

    private static void deleteTree(Path root) throws IOException {
        List<Path> paths = new ArrayList<>();
        try (var walk = Files.walk(root)) {
            walk.forEach(paths::add);
        }
        paths.sort(Comparator.reverseOrder());
        for (Path path : paths) {
            Files.deleteIfExists(path);
        }
    }
}
