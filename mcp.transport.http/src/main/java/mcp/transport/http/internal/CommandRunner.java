package mcp.transport.http.internal;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Runs the shell commands of {@code !command} values and headers helpers: {@code /bin/sh -c <command>},
 * stdin empty, stderr discarded (it may echo secrets), stdout trimmed (at most {@value #MAX_OUTPUT_BYTES}
 * bytes).
 *
 * <p>A command's result is kept for the life of the runner (the shared one lives as long as the JVM):
 * every later use of the same command gets it without running it again, and concurrent uses of one
 * command share one run. A failure (exit code not 0, timeout, no output) is not kept, so the next
 * resolve tries again. {@link #rerun} runs a command again when the server refused what it gave (a token
 * that expired): its result replaces the kept one, so later connects take the new value too; concurrent
 * reruns of one command share one run. {@link #once} runs without keeping anything (a headers helper, which
 * runs at every connect, as in Claude Code). A command that runs longer than the timeout is killed with its
 * descendants.
 *
 * <p>Threads: each run has a {@code mcp-auth-command} daemon that waits for the process, and a
 * {@code mcp-auth-command-stdout} daemon that reads its output.
 */
final class CommandRunner {

    /** The most output kept; commands print a token, not a file. */
    static final int MAX_OUTPUT_BYTES = 64 * 1024;

    /** After the process ended, how long its stdout may take to reach end of file. */
    private static final Duration OUTPUT_WAIT = Duration.ofSeconds(1);

    /** The runner of the JVM: one cache for every resolve. */
    static final CommandRunner SHARED = new CommandRunner(mcp.transport.http.HttpTransports.COMMAND_TIMEOUT);

    /**
     * What a command gave.
     *
     * @param value the trimmed output, when the command succeeded with some
     * @param failure what went wrong otherwise ("exited with code 1", "timed out after 10 s",
     *     "printed nothing", "could not be started: ..."); never the output
     */
    record Result(Optional<String> value, String failure) {
    }

    private final Duration timeout;
    private final ConcurrentHashMap<String, CompletableFuture<Result>> results = new ConcurrentHashMap<>();
    /** The reruns in progress, by command: one at a time per command. */
    private final ConcurrentHashMap<String, CompletableFuture<Result>> reruns = new ConcurrentHashMap<>();

    CommandRunner(Duration timeout) {
        this.timeout = timeout;
    }

    /** @return the timeout of one run */
    Duration timeout() {
        return timeout;
    }

    /**
     * @param command the shell command (without the {@code !})
     * @param environment the environment it runs with
     * @return its result: kept, shared with a run in progress, or from a new run
     */
    CompletableFuture<Result> run(String command, Map<String, String> environment) {
        CompletableFuture<Result> created = new CompletableFuture<>();
        CompletableFuture<Result> existing = results.putIfAbsent(command, created);
        if (existing != null) {
            return existing;
        }
        created.whenComplete((result, error) -> {
            if (error != null || result.value().isEmpty()) {
                results.remove(command, created);
            }
        });
        start(created, command, environment, null);
        return created;
    }

    /**
     * Runs a command again, whatever result is kept; a success replaces the kept result.
     *
     * @param command the shell command (without the {@code !})
     * @param environment the environment it runs with
     * @return its new result, shared with a rerun of it in progress
     */
    CompletableFuture<Result> rerun(String command, Map<String, String> environment) {
        CompletableFuture<Result> created = new CompletableFuture<>();
        CompletableFuture<Result> existing = reruns.putIfAbsent(command, created);
        if (existing != null) {
            return existing;
        }
        created.whenComplete((result, error) -> {
            if (error == null && result.value().isPresent()) {
                results.put(command, CompletableFuture.completedFuture(result));
            }
            reruns.remove(command, created);
        });
        start(created, command, environment, null);
        return created;
    }

    /**
     * Runs a command once, keeping nothing.
     *
     * @param command the shell command
     * @param environment the environment it runs with
     * @param directory where it runs, or {@code null} for the JVM's working directory
     * @return its result
     */
    CompletableFuture<Result> once(String command, Map<String, String> environment, File directory) {
        CompletableFuture<Result> created = new CompletableFuture<>();
        start(created, command, environment, directory);
        return created;
    }

    private void start(CompletableFuture<Result> future, String command, Map<String, String> environment,
            File directory) {
        Thread runner = new Thread(() -> future.complete(execute(command, environment, directory)), "mcp-auth-command");
        runner.setDaemon(true);
        runner.start();
    }

    /** @return how many commands have a result kept or a run in progress (for tests) */
    int cached() {
        return results.size();
    }

    private Result execute(String command, Map<String, String> environment, File directory) {
        ProcessBuilder builder = new ProcessBuilder("/bin/sh", "-c", command)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .directory(directory);
        Map<String, String> env = builder.environment();
        env.clear();
        env.putAll(environment);
        if (!env.containsKey("PATH") && System.getenv("PATH") != null) {
            env.put("PATH", System.getenv("PATH"));
        }
        Process process;
        try {
            process = builder.start();
        } catch (IOException | RuntimeException e) {
            return new Result(Optional.empty(), "could not be started (" + e.getMessage() + ")");
        }
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> readAtMost(process.getInputStream(), output), "mcp-auth-command-stdout");
        reader.setDaemon(true);
        reader.start();
        boolean interrupted = false;
        try {
            boolean exited;
            try {
                exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
                exited = false;
            }
            if (!exited) {
                killTree(process);
                return new Result(Optional.empty(), interrupted ? "was interrupted"
                        : "timed out after " + timeout.toMillis() + " ms");
            }
            try {
                reader.join(OUTPUT_WAIT.toMillis());
            } catch (InterruptedException e) {
                interrupted = true;
            }
            if (reader.isAlive()) {
                // A descendant still holds stdout open: end it, the output so far is what we have.
                killTree(process);
            }
            int code = process.exitValue();
            if (code != 0) {
                return new Result(Optional.empty(), "exited with code " + code);
            }
            String value;
            synchronized (output) {
                value = output.toString(StandardCharsets.UTF_8).trim();
            }
            return value.isEmpty() ? new Result(Optional.empty(), "printed nothing") : new Result(Optional.of(value), "");
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void readAtMost(InputStream in, ByteArrayOutputStream output) {
        byte[] buffer = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buffer)) != -1) {
                synchronized (output) {
                    int room = MAX_OUTPUT_BYTES - output.size();
                    if (room > 0) {
                        output.write(buffer, 0, Math.min(room, n));
                    }
                }
            }
        } catch (IOException e) {
            // the process is gone; what was read is what there is
        }
    }

    private static void killTree(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
