package mcp.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import mcp.api.McpJson;
import mcp.testkit.TestServers;
import tools.jackson.databind.node.ObjectNode;

/** What the embedding API's tests share: a native config of testkit servers, and a bounded wait. */
final class HostFixtures {

    private HostFixtures() {
    }

    /**
     * Writes {@code dir/mcp.json} with one testkit server per entry (name to the server's arguments).
     *
     * @return the file
     */
    static Path config(Path dir, Map<String, List<String>> servers) throws IOException {
        Path file = dir.resolve("mcp.json");
        Files.writeString(file, mcpServers(servers));
        return file;
    }

    /**
     * @return {@code {"mcpServers": ...}} with one testkit server per entry (name to the server's arguments), in
     *     name order: the native format, and Claude Code's and Cursor's
     */
    static String mcpServers(Map<String, List<String>> servers) {
        ObjectNode root = McpJson.object();
        ObjectNode mcpServers = root.putObject("mcpServers");
        new TreeMap<>(servers).forEach((name, args) -> {
            List<String> command = TestServers.command(args.toArray(String[]::new));
            ObjectNode server = mcpServers.putObject(name);
            server.put("command", command.get(0));
            command.subList(1, command.size()).forEach(server.putArray("args")::add);
        });
        return root.toString();
    }

    /** Waits until the condition holds, at most {@code seconds}; fails naming what did not happen. */
    static void awaitTrue(String what, int seconds, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(20);
        }
    }

    /** Waits until no child process of this JVM is alive. */
    static void awaitNoProcessLeft() throws InterruptedException {
        awaitTrue("every server process ended", 20,
                () -> ProcessHandle.current().descendants().noneMatch(ProcessHandle::isAlive));
    }
}
