package mcp.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
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
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

/**
 * Random interleavings of connect, disconnect, reload, list_changed, server crash and tool call over
 * three testkit server processes. After every step: status agrees with the model, the tools are
 * exactly the union of the connected servers' tools, names are unique, and no child process
 * outlives its server.
 */
class McpManagerStateProperties {

    private static final List<String> NAMES = List.of("alpha", "beta", "gamma");
    private static final int KIT_TOOLS = 11;

    /** What the manager should look like, and the manager itself. */
    static final class Model {
        final McpManager manager = McpManager.builder().workingDirectory(Path.of("").toAbsolutePath())
                .startupGate(Duration.ofMillis(250)).build();
        /** Connected servers and how many tools each should list. */
        final Map<String, Integer> connected = new HashMap<>();

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
            awaitTrue("one process per connected server", () -> ProcessHandle.current().descendants()
                    .filter(ProcessHandle::isAlive).count() == connected.size());
        }

        @Override
        public String toString() {
            return "connected " + new TreeSet<>(connected.keySet());
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

    private Model current;

    @Property(tries = 6, shrinking = net.jqwik.api.ShrinkingMode.OFF)
    void theManagerKeepsItsInvariants(@ForAll("chains") ActionChain<Model> chain) {
        chain.withInvariant("registries agree", Model::check).run();
    }

    @AfterTry
    void closeManager() throws InterruptedException {
        if (current != null) {
            current.manager.close();
            current = null;
        }
        TestServerProcesses.assertNoChildProcessLeft();
    }

    @Provide
    Arbitrary<ActionChain<Model>> chains() {
        return ActionChain.<Model>startWith(() -> {
            current = new Model();
            return current;
        })
                .withAction(new Connect())
                .withAction(new Disconnect())
                .withAction(new Reload())
                .withAction(new ListChanged())
                .withAction(new Crash())
                .withAction(new Call())
                .withMaxTransformations(10);
    }

    private static Arbitrary<String> names() {
        return Arbitraries.of(NAMES);
    }

    static final class Connect implements Action.Independent<Model> {
        @Override
        public Arbitrary<Transformer<Model>> transformer() {
            return names().set().ofMinSize(1).map(names -> Transformer.mutate("connect " + new TreeSet<>(names),
                    model -> model.connect(names)));
        }
    }

    static final class Disconnect implements Action.Independent<Model> {
        @Override
        public Arbitrary<Transformer<Model>> transformer() {
            return names().map(name -> Transformer.mutate("disconnect " + name, model -> {
                model.manager.disconnectServer(name);
                model.connected.remove(name);
            }));
        }
    }

    static final class Reload implements Action.Independent<Model> {
        @Override
        public Arbitrary<Transformer<Model>> transformer() {
            return names().set().map(names -> Transformer.mutate("reload " + new TreeSet<>(names), model -> {
                model.manager.disconnectAll();
                model.connected.clear();
                if (!names.isEmpty()) {
                    model.connect(names);
                }
            }));
        }
    }

    static final class ListChanged implements Action.Dependent<Model> {
        @Override
        public boolean precondition(Model model) {
            return !model.connected.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<Model>> transformer(Model model) {
            return Arbitraries.of(new TreeSet<>(model.connected.keySet())).map(name -> Transformer.mutate(
                    "list_changed " + name, m -> {
                        m.call(name, "change_tools", null);
                        int expected = m.connected.merge(name, 1, Integer::sum);
                        awaitTrue(name + " lists " + expected + " tools", () -> m.manager.toolsOf(name).size() == expected);
                    }));
        }
    }

    static final class Crash implements Action.Dependent<Model> {
        @Override
        public boolean precondition(Model model) {
            return !model.connected.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<Model>> transformer(Model model) {
            return Arbitraries.of(new TreeSet<>(model.connected.keySet())).map(name -> Transformer.mutate(
                    "crash " + name, m -> {
                        ToolOutput output = m.call(name, "crash", null);
                        assertTrue(output.isError(), output.text());
                        m.connected.remove(name);
                        awaitTrue(name + " is disconnected",
                                () -> m.manager.status(name).state() == ServerStatus.State.DISCONNECTED);
                    }));
        }
    }

    static final class Call implements Action.Dependent<Model> {
        @Override
        public boolean precondition(Model model) {
            return !model.connected.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<Model>> transformer(Model model) {
            Set<String> names = new HashSet<>(model.connected.keySet());
            return Arbitraries.of(new TreeSet<>(names)).map(name -> Transformer.mutate("call " + name, m -> {
                ToolOutput output = m.call(name, "echo", "{\"message\":\"to " + name + "\"}");
                assertEquals("to " + name, output.text());
            }));
        }
    }
}
