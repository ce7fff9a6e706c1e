package mcp.cli.internal.demo;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.McpJson;
import mcp.host.AgentTool;
import mcp.host.LoadResult;
import mcp.host.McpHost;
import mcp.host.ToolSession;
import mcp.manager.BridgedTool;
import mcp.manager.McpClient;
import mcp.manager.ToolOutput;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code mcp-host demo}: a cold start that waits, a warm start where the startup gate returns
 * deferred tools from the cache while a slow server is still connecting, tool calls, a live reload
 * after a config change, and teardown. The servers are mcp-host's own test server
 * ({@code mcp.testkit}), started as child processes from the same Java runtime, so the demo needs
 * nothing but what mcp-host ships with. Every step checks what it shows; the exit code is 0 only if
 * every check held.
 */
public final class Demo {

    private static final String SLOW = "archive";
    private static final String TESTKIT = "mcp.testkit";
    private static final String TESTKIT_MAIN = "mcp.testkit.TestServer";

    private final PrintStream out;
    private final Path workDir;
    private final Path configFile;
    private int failures;

    private Demo(PrintStream out, Path workDir) {
        this.out = out;
        this.workDir = workDir;
        this.configFile = workDir.resolve("mcp.json");
    }

    /**
     * Runs the demo in a fresh temporary directory (config and tool cache), deleted afterwards.
     *
     * @param out where the story goes
     * @param err where failures go
     * @return 0 when every step did what it shows, 1 otherwise
     */
    public static int run(PrintStream out, PrintStream err) {
        Path workDir;
        try {
            workDir = Files.createTempDirectory("mcp-host-demo-");
        } catch (IOException e) {
            err.println("mcp-host demo: cannot create a temporary directory: " + e.getMessage());
            return 1;
        }
        try {
            return new Demo(out, workDir).run();
        } catch (RuntimeException e) {
            err.println("mcp-host demo failed: " + e);
            return 1;
        } finally {
            deleteTree(workDir);
        }
    }

    private int run() {
        out.println("mcp-host demo: the whole lifecycle on test servers that ship with mcp-host");
        out.println("  config and tool cache in " + workDir);
        writeConfig(Map.of(
                "notes", List.of("--name", "notes", "--tools", "3"),
                "calc", List.of("--name", "calc"),
                SLOW, List.of("--name", SLOW, "--init-delay-ms", "2500")));
        out.println("  servers: notes, calc (ready as soon as they start), " + SLOW
                + " (takes 2.5 s to answer initialize)");

        step(1, "Cold start: nothing cached yet");
        try (McpHost host = host()) {
            long start = System.nanoTime();
            LoadResult cold = host.load();
            double seconds = seconds(start);
            report(cold);
            check(cold.errors().isEmpty(), "no server failed");
            check(cold.tools().stream().noneMatch(BridgedTool::deferred), "every tool is live");
            check(seconds >= 2.5, String.format(Locale.ROOT,
                    "load took %.2f s: with nothing cached for %s, correctness beats speed and the gate waits", seconds,
                    SLOW));
            out.println("  closing: every server process ends");
        }

        step(2, "Warm start: the tool cache knows every server's tools");
        ToolSession session;
        McpHost host = host();
        long start = System.nanoTime();
        session = host.openSession();
        double gate = seconds(start);
        LoadResult warm = session.lastLoad();
        report(warm);
        List<BridgedTool> deferred = warm.tools().stream().filter(BridgedTool::deferred).toList();
        out.println("  (these test servers are JVMs that need about half a second to start, so at a 250 ms gate"
                + " even the quick ones may still be connecting: their cached tools stand in for them)");
        check(gate < 2.0, String.format(Locale.ROOT,
                "the gate returned after %.2f s, long before %s is ready", gate, SLOW));
        check(deferred.stream().anyMatch(t -> t.serverName().equals(SLOW)),
                SLOW + "'s tools came from the cache as deferred tools");

        step(3, "Tool calls");
        call(session, "mcp_calc_add", "{\"a\":2,\"b\":40}", "42");
        call(session, "mcp_notes_echo", "{\"message\":\"hello from notes\"}", "hello from notes");
        long callStart = System.nanoTime();
        call(session, "mcp_archive_echo", "{\"message\":\"worth the wait\"}", "worth the wait");
        out.printf(Locale.ROOT, "  (that call waited %.2f s for %s to finish connecting)%n", seconds(callStart), SLOW);
        call(session, "mcp_calc_fail", null, "Error: tool failed on purpose");
        awaitLive(session);
        check(session.lastLoad().manager().getTools().stream().noneMatch(BridgedTool::deferred)
                && session.tools().stream().filter(AgentTool::isMcp).count() == warm.tools().size(),
                "once " + SLOW + " connected, the session re-bound its tools by itself (now live)");

        step(4, "Live reload after a config change: calc removed, search added");
        Set<String> before = names(session);
        writeConfig(Map.of(
                "notes", List.of("--name", "notes", "--tools", "3"),
                "search", List.of("--name", "search", "--tools", "2"),
                SLOW, List.of("--name", SLOW, "--init-delay-ms", "2500")));
        long reloadStart = System.nanoTime();
        LoadResult reloaded = session.reload();
        out.printf(Locale.ROOT, "  reloaded in %.2f s%n", seconds(reloadStart));
        Set<String> after = names(session);
        out.println("  tools gone:  " + difference(before, after));
        out.println("  tools added: " + difference(after, before));

        check(reloaded.errors().isEmpty(), "no server failed");
        check(after.stream().noneMatch(n -> n.startsWith("mcp_calc_")), "calc's tools are gone");
        check(after.contains("mcp_search_tool_1"), "search's tools are there");
        call(session, "mcp_search_echo", "{\"message\":\"found\"}", "found");

        step(5, "Teardown");
        long closeStart = System.nanoTime();
        session.close();
        out.printf(Locale.ROOT, "  closed in %.2f s%n", seconds(closeStart));
        long left = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).count();
        check(left == 0, "no server process is left (" + left + " remain)");

        out.println();
        if (failures == 0) {
            out.println("demo complete: every step did what it shows");
            return 0;
        }
        out.println("demo finished with " + failures + " failed check(s)");
        return 1;
    }

    private McpHost host() {
        // No environment: the machine's XDG_* or MCP_HOST_CREDENTIALS_DIR would move the pins, logs and
        // credentials out of the temporary directory into the user's real ones, which outlive the demo.
        return McpHost.builder()
                .configFile(configFile)
                .environment(Map.of())
                .home(workDir)
                .workingDirectory(workDir)
                .cacheDirectory(workDir.resolve("cache"))
                .build();
    }

    private void report(LoadResult load) {
        Map<String, List<BridgedTool>> byServer = load.tools().stream()
                .collect(Collectors.groupingBy(BridgedTool::serverName, LinkedHashMap::new, Collectors.toList()));
        byServer.forEach((server, tools) -> {
            long deferredCount = tools.stream().filter(BridgedTool::deferred).count();
            String state = deferredCount == 0 ? "live" : "deferred (from the cache; server still connecting)";
            out.printf(Locale.ROOT, "  %-8s %2d tools, %s%n", server, tools.size(), state);
        });
        load.errors().forEach((server, error) -> out.println("  " + server + ": " + error));
    }

    private void call(ToolSession session, String tool, String arguments, String expected) {
        AgentTool agentTool = session.tool(tool).orElse(null);
        if (agentTool == null) {
            check(false, "tool " + tool + " exists");
            return;
        }
        ToolOutput output = McpClient.await(agentTool.call(arguments == null ? null : McpJson.mapper().readTree(arguments)));
        out.println("  " + tool + (arguments == null ? "" : " " + arguments) + " -> " + output.text());
        check(output.text().equals(expected), "the answer is \"" + expected + "\"");
    }

    private void awaitLive(ToolSession session) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline && session.lastLoad().manager().getTools().stream()
                .anyMatch(BridgedTool::deferred)) {
            sleep(20);
        }
    }

    private static Set<String> names(ToolSession session) {
        return session.tools().stream().map(AgentTool::name).collect(Collectors.toCollection(TreeSet::new));
    }

    /** The tools of {@code a} missing from {@code b}, counted per server: "calc (11 tools)". */
    private static String difference(Set<String> a, Set<String> b) {
        Map<String, Long> perServer = a.stream().filter(name -> !b.contains(name))
                .collect(Collectors.groupingBy(name -> name.split("_")[1], java.util.TreeMap::new,
                        Collectors.counting()));
        return perServer.isEmpty() ? "(none)" : perServer.entrySet().stream()
                .map(e -> e.getKey() + " (" + e.getValue() + " tools)").collect(Collectors.joining(", "));
    }

    private void writeConfig(Map<String, List<String>> servers) {
        ObjectNode root = McpJson.object();
        ObjectNode mcpServers = root.putObject("mcpServers");
        new java.util.TreeMap<>(servers).forEach((name, args) -> {
            List<String> command = serverCommand(args);
            ObjectNode server = mcpServers.putObject(name);
            server.put("command", command.get(0));
            ArrayNode array = server.putArray("args");
            command.subList(1, command.size()).forEach(array::add);
        });
        try {
            Files.writeString(configFile, McpJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(root));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The command line of the test server, from the runtime this runs on: a jlink image holds the
     * module, a module path may name it, else it is on the class path (as in a test run).
     *
     * @param serverArgs the test server's options
     * @return the command line
     */
    public static List<String> serverCommand(List<String> serverArgs) {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC"));
        String modulePath = System.getProperty("jdk.module.path", "");
        String classPath = System.getProperty("java.class.path", "");
        if (ModuleFinder.ofSystem().find(TESTKIT).isPresent()) {
            command.addAll(List.of("-m", TESTKIT + "/" + TESTKIT_MAIN));
        } else if (!modulePath.isEmpty() && ModuleFinder.of(paths(modulePath)).find(TESTKIT).isPresent()) {
            command.addAll(List.of("--module-path", modulePath, "-m", TESTKIT + "/" + TESTKIT_MAIN));
        } else {
            String both = Stream.of(modulePath, classPath).filter(p -> !p.isEmpty())
                    .collect(Collectors.joining(File.pathSeparator));
            command.addAll(List.of("-cp", both, TESTKIT_MAIN));
        }
        command.addAll(serverArgs);
        return command;
    }

    private static Path[] paths(String pathList) {
        return Stream.of(pathList.split(File.pathSeparator)).filter(p -> !p.isEmpty()).map(Path::of)
                .toArray(Path[]::new);
    }

    private void step(int number, String title) {
        out.println();
        out.println(number + ". " + title);
    }

    private void check(boolean holds, String what) {
        out.println((holds ? "  ✓ " : "  ✗ ") + what);
        if (!holds) {
            failures++;
        }
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
