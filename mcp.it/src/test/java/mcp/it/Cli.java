package mcp.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import tools.jackson.databind.JsonNode;

/** Runs the runtime image's {@code mcp-host} as a process, with a fixture home and no XDG settings. */
final class Cli {

    static final Path IMAGE = Path.of(System.getProperty("mcp.cli.image", "../mcp.cli/target/image"))
            .toAbsolutePath().normalize();
    static final long TIMEOUT_SECONDS = 120;

    private Cli() {
    }

    /** What one run of the CLI gave. */
    record Run(int exitCode, String out, String err) {
        JsonNode json() {
            try {
                return McpJson.mapper().readTree(out);
            } catch (RuntimeException e) {
                throw new AssertionError("stdout is not one JSON document: " + e.getMessage() + "\n" + this, e);
            }
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout:\n" + out + "\n--- stderr:\n" + err;
        }
    }

    /**
     * @param home the HOME of the run
     * @param directory its working directory
     * @param extraEnv more environment variables
     * @param args the command line after {@code mcp-host}
     * @return the exit code and the outputs
     */
    static Run run(Path home, Path directory, Map<String, String> extraEnv, String... args) {
        List<String> command = new ArrayList<>();
        command.add(IMAGE.resolve("bin/mcp-host").toString());
        command.addAll(List.of(args));
        return exec(command, home, directory, extraEnv);
    }

    /**
     * Runs any command as {@link #run} runs {@code mcp-host}: the fixture home, no XDG or mcp-host settings of the
     * machine, stdin closed, bounded in time, no process left behind.
     *
     * @param command the command line
     * @param home the HOME of the run
     * @param directory its working directory
     * @param extraEnv more environment variables
     * @return the exit code and the outputs
     */
    static Run exec(List<String> command, Path home, Path directory, Map<String, String> extraEnv) {
        String shown = String.join(" ", command);
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile());
        Map<String, String> env = builder.environment();
        // The fixture home, and none of the machine's own mcp-host or XDG settings.
        env.keySet().removeIf(name -> name.startsWith("XDG_") || name.startsWith("MCP_HOST_"));
        env.put("HOME", home.toString());
        env.putAll(extraEnv);
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        CompletableFuture<String> out = drain(process.getInputStream());
        CompletableFuture<String> err = drain(process.getErrorStream());
        try {
            process.getOutputStream().close();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                fail(shown + " did not finish within " + TIMEOUT_SECONDS + " s");
            }
            return new Run(process.exitValue(), out.get(10, TimeUnit.SECONDS), err.get(10, TimeUnit.SECONDS));
        } catch (Exception e) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw new AssertionError(shown + " failed: " + e, e);
        }
    }

    private static CompletableFuture<String> drain(InputStream stream) {
        CompletableFuture<String> text = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (stream) {
                text.complete(new String(stream.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                text.completeExceptionally(e);
            }
        }, "cli-it-drain");
        reader.setDaemon(true);
        reader.start();
        return text;
    }
}
