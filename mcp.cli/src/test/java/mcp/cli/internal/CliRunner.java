package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import mcp.api.McpJson;
import mcp.api.spi.AuthStorage;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Runs {@link Main#run} in this JVM with a fixture home and project, capturing both streams. */
final class CliRunner {

    /**
     * What one run gave.
     *
     * @param exitCode the exit code
     * @param out stdout
     * @param err stderr
     * @param outBytes stdout as it was written (binary output)
     */
    record Result(int exitCode, String out, String err, byte[] outBytes) {
        /** @return stdout parsed as the one JSON document it must be */
        JsonNode json() {
            try {
                return McpJson.mapper().readTree(out);
            } catch (RuntimeException e) {
                throw new AssertionError("stdout is not one JSON document: " + e.getMessage() + "\n--- stdout:\n" + out
                        + "\n--- stderr:\n" + err, e);
            }
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout:\n" + out + "\n--- stderr:\n" + err;
        }
    }

    private final Path cwd;
    private final Path home;
    private final Map<String, String> env = new HashMap<>();
    private AuthStorage authStorage;

    CliRunner(Path cwd, Path home) {
        this.cwd = cwd;
        this.home = home;
        // Only what the tests choose: the machine's XDG_* or MCP settings must not leak in.
        env.put("HOME", home.toString());
        String path = System.getenv("PATH");
        if (path != null) {
            env.put("PATH", path);
        }
        // Nor the machine's managed policies of Claude Code and Gemini CLI: these paths do not exist.
        env.put("MCP_HOST_CLAUDE_MANAGED_DIR", home.resolveSibling("managed-claude").toString());
        env.put("GEMINI_CLI_SYSTEM_SETTINGS_PATH", home.resolveSibling("managed-gemini.json").toString());
    }

    /** Approves these project servers in Claude Code, in the user's settings, as a user would. */
    CliRunner approveInClaude(String... servers) throws IOException {
        Path settings = home.resolve(".claude/settings.json");
        Files.createDirectories(settings.getParent());
        ObjectNode root = McpJson.object();
        Arrays.stream(servers).forEach(root.putArray("enabledMcpjsonServers")::add);
        Files.writeString(settings, root.toString());
        return this;
    }

    CliRunner env(String name, String value) {
        env.put(name, value);
        return this;
    }

    /** Uses this credential store instead of the {@code file} store found by ServiceLoader. */
    CliRunner authStorage(AuthStorage storage) {
        this.authStorage = storage;
        return this;
    }

    Result run(String... args) {
        return runWithInput("", args);
    }

    /** Runs with {@code --config FILE --no-cache} after the arguments. */
    Result runWithConfig(Path config, String... args) {
        List<String> all = new java.util.ArrayList<>(List.of(args));
        all.addAll(List.of("--config", config.toString(), "--no-cache"));
        return run(all.toArray(String[]::new));
    }

    /** @return a native-format stdio entry that runs this command line */
    static ObjectNode stdioServer(List<String> command) {
        ObjectNode entry = McpJson.object();
        entry.put("command", command.get(0));
        tools.jackson.databind.node.ArrayNode args = entry.putArray("args");
        command.subList(1, command.size()).forEach(args::add);
        return entry;
    }

    Result runWithInput(String input, String... args) {
        return run(input, false, args);
    }

    /**
     * @return the streams and environment of a run that a test drives itself (its input written as it goes, its
     *     output read as it comes), for {@code Main.run}
     */
    CliIo io(java.io.InputStream in, PrintStream out, PrintStream err) {
        return new CliIo(out, err, env, cwd, home, in, false);
    }

    /** Runs as if a person sat at a terminal: the shell asks its questions. */
    Result runAtTerminal(String input, String... args) {
        return run(input, true, args);
    }

    private Result run(String input, boolean console, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exitCode;
        try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exitCode = Main.run(args, new CliIo(outStream, errStream, env, cwd, home,
                    new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), console), authStorage);
        }
        return new Result(exitCode, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
                out.toByteArray());
    }

    /** Fails if a child process of this JVM is still alive a little after the command returned. */
    static void assertNoChildProcessLeft() throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            List<ProcessHandle> alive = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList();
            if (alive.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                alive.forEach(ProcessHandle::destroyForcibly);
                fail("processes left behind: " + alive.stream()
                        .map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList());
            }
            Thread.sleep(50);
        }
    }
}
