package mcp.bench.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mcp.bench.ClientRun;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Runs one bench process to its end (bounded) and reads its result line. */
final class Proc {

    static final JsonMapper JSON = JsonMapper.builder().build();

    /** What a process printed and how it ended. */
    record Outcome(int exitCode, String stdout, JsonNode result, double wallMs) {
        boolean ok() {
            return exitCode == 0 && result != null && !result.has("error");
        }
    }

    private Proc() {
    }

    /**
     * @param command the command line
     * @param directory the working directory
     * @param env extra environment
     * @param errLog where stderr goes
     * @param timeoutSeconds the bound; the process tree is killed after it
     * @return the outcome; {@code result} is the parsed {@code BENCH-RESULT} line, or null
     */
    static Outcome run(List<String> command, Path directory, Map<String, String> env, Path errLog, long timeoutSeconds)
            throws IOException, InterruptedException {
        Files.createDirectories(errLog.getParent());
        Path outFile = errLog.resolveSibling(errLog.getFileName() + ".out");
        // The command line beside the output, one argument per line, so that any run can be repeated by hand.
        Files.writeString(errLog.resolveSibling(errLog.getFileName() + ".cmd"), String.join("\n", command) + "\n");
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
                .redirectError(errLog.toFile()).redirectOutput(outFile.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        builder.environment().putAll(env);
        long start = System.nanoTime();
        Process process = builder.start();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        double wallMs = (System.nanoTime() - start) / 1e6;
        String stdout = Files.readString(outFile, StandardCharsets.UTF_8);
        JsonNode result = null;
        for (String line : stdout.split("\n")) {
            if (line.startsWith(ClientRun.RESULT_PREFIX)) {
                result = JSON.readTree(line.substring(ClientRun.RESULT_PREFIX.length()));
            }
        }
        return new Outcome(process.isAlive() ? -1 : process.exitValue(), stdout, result, wallMs);
    }

    /** @return the java executable of this JVM */
    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
