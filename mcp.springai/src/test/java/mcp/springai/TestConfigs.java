package mcp.springai;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import mcp.testkit.TestServers;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Config files of testkit servers, a scratch environment, and the check that no server process is left. */
final class TestConfigs {

    private TestConfigs() {
    }

    /**
     * @param file where to write the native config
     * @param servers each server's name and its testkit options
     * @return the file
     */
    static Path write(Path file, Map<String, List<String>> servers) throws IOException {
        ObjectNode root = McpJson.object();
        ObjectNode entries = root.putObject("mcpServers");
        servers.forEach((name, options) -> {
            List<String> command = TestServers.command(options.toArray(String[]::new));
            ObjectNode entry = entries.putObject(name);
            entry.put("command", command.get(0));
            ArrayNode args = entry.putArray("args");
            command.subList(1, command.size()).forEach(args::add);
        });
        Files.createDirectories(file.getParent());
        Files.writeString(file, McpJson.mapper().writeValueAsString(root));
        return file;
    }

    /** @return the JVM's environment with a scratch home and no XDG directories, so nothing of the user's is read */
    static Map<String, String> environment(Path home) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.keySet().removeIf(name -> name.startsWith("XDG_") || name.startsWith("MCP_HOST_"));
        env.put("HOME", home.toString());
        return env;
    }

    /** @return servers in insertion order */
    static Map<String, List<String>> servers(Object... nameThenOptions) {
        Map<String, List<String>> servers = new LinkedHashMap<>();
        for (int i = 0; i < nameThenOptions.length; i += 2) {
            @SuppressWarnings("unchecked")
            List<String> options = (List<String>) nameThenOptions[i + 1];
            servers.put((String) nameThenOptions[i], options);
        }
        return servers;
    }

    /** Waits (10 s at most) until none of this JVM's child processes is alive. */
    static void assertNoChildLeft() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ProcessHandle.current().descendants().anyMatch(ProcessHandle::isAlive)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("a server process outlived the host: " + ProcessHandle.current().descendants()
                        .filter(ProcessHandle::isAlive).map(p -> p.pid() + " " + p.info().commandLine().orElse("?"))
                        .toList());
            }
            Thread.sleep(50);
        }
    }
}
