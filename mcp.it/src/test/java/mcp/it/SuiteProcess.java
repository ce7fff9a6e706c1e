package mcp.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One run of the official conformance suite as a process, for the client-side ({@link ConformanceIT}) and the
 * server-side ({@link ConformanceServerIT}) runs: no colours, its output read while it runs, a bound on its time (its
 * process tree ended when it is over), and the {@code checks.json} files it wrote.
 *
 * @param exitCode the suite's exit code
 * @param output what it printed, stdout and stderr together
 */
record SuiteProcess(int exitCode, String output) {

    /**
     * @param command the suite's command line
     * @param directory where it runs
     * @param timeoutSeconds the most it may take; the test fails beyond
     * @return how it ended
     */
    static SuiteProcess run(List<String> command, Path directory, long timeoutSeconds) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true);
        builder.environment().put("NO_COLOR", "1");
        Process process = builder.start();
        process.getOutputStream().close();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            fail("the conformance suite (" + String.join(" ", command) + ") did not finish within " + timeoutSeconds
                    + " s");
        }
        return new SuiteProcess(process.exitValue(), output.get(10, TimeUnit.SECONDS));
    }

    /**
     * @param results the suite's output directory ({@code -o})
     * @return every {@code checks.json} under it, in name order
     */
    static List<Path> checkFiles(Path results) throws IOException {
        try (Stream<Path> walk = Files.walk(results)) {
            return walk.filter(p -> p.getFileName().toString().equals("checks.json")).sorted().toList();
        }
    }
}
