package mcp.bench.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A server process of the HTTP choice or of the gateway comparison, started by the runner and measured from the
 * outside: its stdout lines as they come, its memory ({@code /proc/PID/status}), its CPU time, and an end that takes
 * its whole process tree along.
 */
final class ServerProcess implements AutoCloseable {

    private final Process process;
    private final long startNanos;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private ServerProcess(Process process, long startNanos) {
        this.process = process;
        this.startNanos = startNanos;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the process ended
            }
        }, "bench-server-stdout-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * @param command the command line
     * @param directory its working directory
     * @param env extra environment
     * @param errLog where its stderr goes (the command line is written beside it, {@code .cmd})
     * @return the started process; its start time is taken just before the start
     */
    static ServerProcess start(List<String> command, Path directory, Map<String, String> env, Path errLog) throws IOException {
        Files.createDirectories(errLog.getParent());
        Files.writeString(errLog.resolveSibling(errLog.getFileName() + ".cmd"), String.join("\n", command) + "\n");
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
                .redirectError(ProcessBuilder.Redirect.appendTo(errLog.toFile()));
        builder.environment().putAll(env);
        long start = System.nanoTime();
        return new ServerProcess(builder.start(), start);
    }

    /**
     * Waits for a stdout line that starts with a prefix.
     *
     * @return the line, or null when the process ended or the time ran out first
     */
    String awaitLine(String prefix, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        while (System.nanoTime() < deadline) {
            String line = lines.poll(50, TimeUnit.MILLISECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
            if (line == null && !process.isAlive() && lines.isEmpty()) {
                return null;
            }
        }
        return null;
    }

    /** @return the stdin of the process, to talk to it */
    java.io.OutputStream stdin() {
        return process.getOutputStream();
    }

    /** @return ms since just before the start */
    double sinceStartMs() {
        return (System.nanoTime() - startNanos) / 1e6;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** @return the CPU time of the process itself (all threads, user and system), ms; -1 when unknown */
    double cpuMs() {
        return cpuMs(process.pid());
    }

    static double cpuMs(long pid) {
        return ProcessHandle.of(pid).flatMap(h -> h.info().totalCpuDuration()).map(d -> d.toNanos() / 1e6).orElse(-1.0);
    }

    /** @return the kB figures of {@code /proc/PID/status} (VmRSS, VmHWM, ...) and {@code Threads}; empty off Linux */
    Map<String, Long> status() {
        return status(process.pid());
    }

    static Map<String, Long> status(long pid) {
        Map<String, Long> values = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"), StandardCharsets.ISO_8859_1)) {
                String[] parts = line.split("\\s+");
                if (parts.length >= 3 && parts[2].equals("kB") || parts.length == 2 && parts[0].equals("Threads:")) {
                    values.put(parts[0].replace(":", ""), Long.parseLong(parts[1]));
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone, or not Linux
        }
        return values;
    }

    /** @return VmRSS in MB, or NaN */
    static double rssMb(long pid) {
        Long kb = status(pid).get("VmRSS");
        return kb == null ? Double.NaN : kb / 1024.0;
    }

    /** Samples VmRSS and the thread count of some processes every 50 ms while running, keeping the maxima. */
    static final class Sampler implements AutoCloseable {
        private final AtomicLong maxRssKb = new AtomicLong();
        private final AtomicLong maxThreads = new AtomicLong();
        private final AtomicReference<Boolean> running = new AtomicReference<>(true);
        private final Thread thread;

        Sampler(long pid) {
            thread = new Thread(() -> {
                while (running.get()) {
                    Map<String, Long> s = status(pid);
                    maxRssKb.accumulateAndGet(s.getOrDefault("VmRSS", 0L), Math::max);
                    maxThreads.accumulateAndGet(s.getOrDefault("Threads", 0L), Math::max);
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "bench-rss-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        double maxRssMb() {
            return maxRssKb.get() / 1024.0;
        }

        long maxThreads() {
            return maxThreads.get();
        }

        @Override
        public void close() {
            running.set(false);
            thread.interrupt();
            try {
                thread.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Ends the process (TERM, then KILL after 5 s), then whatever is left of the tree it had (TERM, then KILL). */
    @Override
    public void close() {
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        descendants.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline && descendants.stream().anyMatch(ProcessHandle::isAlive)) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        descendants.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }
}
