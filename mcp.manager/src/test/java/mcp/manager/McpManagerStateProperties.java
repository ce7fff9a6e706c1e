package mcp.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import mcp.api.McpJson;
import mcp.api.ServerConfig;
import mcp.proptest.Cases;
import mcp.proptest.Gen;
import org.junit.jupiter.api.Test;

/**
 * Random interleavings of connect, disconnect, reload, list_changed, server crash and tool call over
 * three testkit server processes. After every step: status agrees with the model, the tools are
 * exactly the union of the connected servers' tools, names are unique, and no child process
 * outlives its server. Each case runs {@value #STEPS} steps chosen among the actions whose precondition
 * holds; a failure lists the steps so far (and the seed that replays them).
 */
class McpManagerStateProperties {

    private static final List<String> NAMES = List.of("alpha", "beta", "gamma");
    private static final int KIT_TOOLS = 11;

    /** A reconnect quick enough for many steps, with attempts to spare on a loaded machine. */
    private static final mcp.api.ReconnectPolicy QUICK = new mcp.api.ReconnectPolicy(10, Duration.ofMillis(50),
            Duration.ofMillis(200), 0.2, Duration.ofMillis(100));

    /** What the manager should look like, and the manager itself. */
    static final class Model {
        /** Whether crashed servers are reconnected (half of the cases), or disconnected. */
        final boolean reconnect;
        final McpManager manager;
        /** Connected servers and how many tools each should list. */
        final Map<String, Integer> connected = new HashMap<>();

        Model(boolean reconnect) {
            this.reconnect = reconnect;
            this.manager = McpManager.builder().workingDirectory(Path.of("").toAbsolutePath())
                    .startupGate(Duration.ofMillis(250)).reconnect(reconnect ? QUICK : mcp.api.ReconnectPolicy.OFF)
                    .build();
        }

        void connect(Set<String> names) {
            Map<String, ServerConfig> configs = new LinkedHashMap<>();
            names.forEach(name -> configs.put(name, TestServerProcesses.config()));
            ConnectResult result = manager.connectServers(configs, Map.of());
            assertEquals(Map.of(), result.errors());
            names.forEach(name -> connected.putIfAbsent(name, KIT_TOOLS));
        }

        ToolOutput call(String server, String tool, String args) {
            BridgedTool bridged = manager.toolsOf(server).stream().filter(t -> t.toolName().equals(tool)).findFirst()
                    .orElseThrow(() -> new AssertionError("no tool " + tool + " of " + server));
            return McpClient.await(bridged.call(args == null ? null : McpJson.mapper().readTree(args)));
        }

        void check() {
            for (String name : NAMES) {
                ServerStatus.State expected = connected.containsKey(name) ? ServerStatus.State.CONNECTED
                        : ServerStatus.State.DISCONNECTED;
                assertEquals(expected, manager.status(name).state(), name + ": " + manager.status(name));
            }
            List<BridgedTool> tools = manager.getTools();
            Map<String, Long> perServer = tools.stream()
                    .collect(Collectors.groupingBy(BridgedTool::serverName, Collectors.counting()));
            Map<String, Long> expected = connected.entrySet().stream()
                    .collect(Collectors.toMap(Map.Entry::getKey, e -> (long) e.getValue()));
            assertEquals(expected, perServer);
            assertEquals(tools.size(), tools.stream().map(BridgedTool::name).distinct().count(), "unique names");
            assertTrue(tools.stream().noneMatch(BridgedTool::deferred));
            // The stdio transport's watchdog (a shell that outlives no server) is not a server.
            awaitTrue("one process per connected server", () -> ProcessHandle.current().descendants()
                    .filter(ProcessHandle::isAlive)
                    .filter(p -> !p.info().commandLine().orElse("").endsWith("mcp-stdio-watchdog"))
                    .count() == connected.size());
        }

        @Override
        public String toString() {
            return "connected " + new TreeSet<>(connected.keySet()) + (reconnect ? ", reconnecting crashed servers" : "");
        }
    }

    private static void awaitTrue(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    private static final int STEPS = 10;

    @Test
    void theManagerKeepsItsInvariants() {
        Cases.run(6, gen -> {
            Model model = new Model(gen.bool());
            gen.note(model);
            try {
                model.check();
                for (int step = 0; step < STEPS; step++) {
                    String action = step(gen, model);
                    gen.note(action + " -> " + model);
                    model.check();
                }
            } finally {
                model.manager.close();
            }
            TestServerProcesses.assertNoChildProcessLeft();
        });
    }

    /** Draws one action whose precondition holds, runs it on the manager and the model, and names it. */
    private static String step(Gen gen, Model model) {
        boolean anyConnected = !model.connected.isEmpty();
        boolean canCrashAndLeave = anyConnected && model.reconnect;
        switch (gen.weighted(1, 1, 1, anyConnected ? 1 : 0, anyConnected ? 1 : 0, anyConnected ? 1 : 0,
                canCrashAndLeave ? 1 : 0)) {
            case 0 -> {
                Set<String> names = new TreeSet<>(gen.set(1, NAMES.size(), () -> gen.pick(NAMES)));
                model.connect(names);
                return "connect " + names;
            }
            case 1 -> {
                String name = gen.pick(NAMES);
                model.manager.disconnectServer(name);
                model.connected.remove(name);
                return "disconnect " + name;
            }
            case 2 -> {
                Set<String> names = new TreeSet<>(gen.set(0, NAMES.size(), () -> gen.pick(NAMES)));
                model.manager.disconnectAll();
                model.connected.clear();
                if (!names.isEmpty()) {
                    model.connect(names);
                }
                return "reload " + names;
            }
            case 3 -> {
                String name = gen.pick(new TreeSet<>(model.connected.keySet()));
                model.call(name, "change_tools", null);
                int expected = model.connected.merge(name, 1, Integer::sum);
                awaitTrue(name + " lists " + expected + " tools", () -> model.manager.toolsOf(name).size() == expected);
                return "list_changed " + name;
            }
            case 4 -> {
                String name = gen.pick(new TreeSet<>(model.connected.keySet()));
                ToolOutput output = model.call(name, "crash", null);
                assertTrue(output.isError(), output.text());
                if (model.reconnect) {
                    // A new process: its tools are the testkit's first ones again.
                    model.connected.put(name, KIT_TOOLS);
                    awaitTrue(name + " is connected again with " + KIT_TOOLS + " live tools", () -> model.manager
                            .status(name).state() == ServerStatus.State.CONNECTED && model.manager.toolsOf(name).size()
                            == KIT_TOOLS && model.manager.toolsOf(name).stream().noneMatch(BridgedTool::deferred));
                    return "crash " + name + " (reconnected)";
                }
                model.connected.remove(name);
                awaitTrue(name + " is disconnected",
                        () -> model.manager.status(name).state() == ServerStatus.State.DISCONNECTED);
                return "crash " + name;
            }
            case 6 -> {
                // Disconnected while it reconnects (in its backoff or its attempt): no attempt may outlive that.
                String name = gen.pick(new TreeSet<>(model.connected.keySet()));
                ToolOutput output = model.call(name, "crash", null);
                assertTrue(output.isError(), output.text());
                boolean all = gen.bool();
                if (all) {
                    model.manager.disconnectAll();
                    model.connected.clear();
                } else {
                    model.manager.disconnectServer(name);
                    model.connected.remove(name);
                }
                return "crash " + name + ", then " + (all ? "disconnect all" : "disconnect it") + " while it reconnects";
            }
            default -> {
                String name = gen.pick(new TreeSet<>(model.connected.keySet()));
                ToolOutput output = model.call(name, "echo", "{\"message\":\"to " + name + "\"}");
                assertEquals("to " + name, output.text());
                return "call " + name;
            }
        }
    }
}
