package mcp.bench.internal;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import mcp.api.Content;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.api.ToolResult;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportRequest;
import mcp.bench.ClientRun;
import mcp.manager.CallOptions;
import mcp.manager.ClientListener;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import tools.jackson.databind.node.ObjectNode;

/**
 * The flood bench of issue 17: a testkit server ({@code --fault flood}) floods mcp-host's client over the real
 * stdio transport, and this process reports its own heap after a GC and the lines its log got, at full size.
 *
 * <p>Progress: the server sends {@code --progress N} progress notifications for one call whose progress consumer
 * blocks on the first update; the heap is sampled (after a GC) while the updates arrive, and once the server has
 * written everything (its {@code wchar} in {@code /proc/PID/io} is still for two seconds) with the consumer still
 * blocked; then the consumer is released and the last update it gets must be the N-th. Junk: one client whose
 * notification listener blocks gets {@code --junk N} lines that are not JSON, N error responses to requests never
 * sent, N/5 progress notifications with malformed tokens (huge numbers, a 100,000-character string, objects ...)
 * and N notifications; after each, the heap after a GC and the log lines it caused.
 *
 * <p>The log is the host's: tinylog on stderr at {@code warn}, format {@code {level}: {message}}, as {@code mcp-host}
 * configures it; this process counts the lines it writes (and lines of stack traces, which must be none). Every
 * flood runs at each of {@code --sizes} (fractions of the counts, default {@code 0.1,1}), each size with new
 * clients, so that the figures show whether anything grows with the count.
 *
 * <p>Command line: {@code [--progress N] [--junk N] [--sizes F,F] -- TESTKIT SERVER COMMAND...}. Prints
 * {@code BENCH-RESULT {json}}; exits 1 when a check failed.
 */
public final class Flood {

    private static final CountingErr LOG = new CountingErr(new FileOutputStream(FileDescriptor.err));

    private final List<String> server;
    private final ObjectNode result = Proc.JSON.createObjectNode();
    private boolean failed;

    private Flood(List<String> server) {
        this.server = server;
    }

    /**
     * @param args see the class comment
     * @throws Exception if the bench cannot run at all
     */
    public static void main(String[] args) throws Exception {
        // As mcp-host's Main configures it, before anything logs (tinylog reads its configuration once).
        System.setProperty("tinylog.writer", "console");
        System.setProperty("tinylog.writer.stream", "err");
        System.setProperty("tinylog.writer.level", "warn");
        System.setProperty("tinylog.writer.format", "{level}: {message}");
        System.setErr(new PrintStream(LOG, true, StandardCharsets.UTF_8));
        long progress = 1_000_000;
        long junk = 100_000;
        String sizes = "0.1,1";
        int i = 0;
        for (; i + 1 < args.length && !args[i].equals("--"); i += 2) {
            switch (args[i]) {
                case "--progress" -> progress = Long.parseLong(args[i + 1]);
                case "--junk" -> junk = Long.parseLong(args[i + 1]);
                case "--sizes" -> sizes = args[i + 1];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Flood flood = new Flood(List.of(args).subList(i + 1, args.length));
        flood.result.put("heapMaxMb", Runtime.getRuntime().maxMemory() / 1e6);
        flood.result.put("idleHeapAfterGcMb", usedHeapAfterGc() / 1e6);
        for (String size : sizes.split(",")) {
            double f = Double.parseDouble(size);
            ObjectNode at = flood.result.withArray("sizes").addObject();
            at.put("fraction", f);
            flood.progress(at.putObject("progress"), Math.max(3, Math.round(progress * f)));
            flood.junk(at.putObject("junk"), Math.max(10, Math.round(junk * f)));
        }
        flood.result.put("peakRssMb", ClientRun.procStatus().getOrDefault("VmHWM", 0L) / 1e3);
        flood.result.put("logLines", LOG.lines.get());
        flood.result.put("stackTraceLines", LOG.stackLines.get());
        if (LOG.stackLines.get() != 0) {
            flood.problem("the log has " + LOG.stackLines.get() + " lines of stack traces");
        }
        System.out.println(ClientRun.RESULT_PREFIX + Proc.JSON.writeValueAsString(flood.result));
        System.out.flush();
        System.exit(flood.failed ? 1 : 0);
    }

    private void problem(String text) {
        System.out.println("flood: PROBLEM: " + text);
        result.withArray("problems").add(text);
        failed = true;
    }

    private McpClient connect(String name, ClientOptions.Builder options) {
        List<String> args = new ArrayList<>(server.subList(1, server.size()));
        args.addAll(List.of("--fault", "flood", "--name", name));
        StdioServerConfig config = StdioServerConfig.of(server.get(0), args);
        Transport transport = HostClient.stdio().open(TransportRequest.of(name, config, Path.of("").toAbsolutePath()));
        return McpClient.connectBlocking(transport, options.build());
    }

    private static CompletableFuture<ToolResult> flood(McpClient client, String kind, long count, CallOptions options) {
        return client.callTool("flood", McpJson.mapper().readTree("{\"kind\":\"" + kind + "\",\"count\":" + count + "}"),
                options.withTimeout(Duration.ofMinutes(15)));
    }

    private static String text(ToolResult result) {
        return !result.content().isEmpty() && result.content().get(0) instanceof Content.Text t ? t.text() : "";
    }

    // ------------------------------------------------------------------ progress to a blocked consumer

    private void progress(ObjectNode into, long count) throws Exception {
        into.put("count", count);
        CountDownLatch release = new CountDownLatch(1);
        AtomicLong delivered = new AtomicLong();
        AtomicReference<Double> last = new AtomicReference<>();
        long linesBefore = LOG.lines.get();
        try (McpClient client = connect("progress", ClientOptions.builder("progress"))) {
            long pid = Long.parseLong(text(client.callToolBlocking("pid", McpJson.object())).trim().split("\\s+")[0]);
            double before = usedHeapAfterGc() / 1e6;
            long start = System.nanoTime();
            CompletableFuture<ToolResult> call = flood(client, "progress", count, CallOptions.DEFAULT.withProgress(update -> {
                delivered.incrementAndGet();
                last.set(update.progress());
                try {
                    release.await(); // blocked until every update has arrived
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            double maxDuring = 0;
            long written = -1;
            long stillSince = System.nanoTime();
            long deadline = start + TimeUnit.MINUTES.toNanos(12);
            int samples = 0;
            while (System.nanoTime() < deadline && !call.isDone()) {
                Thread.sleep(500);
                long now = writtenBy(pid);
                if (now != written) {
                    written = now;
                    stillSince = System.nanoTime();
                } else if (System.nanoTime() - stillSince > TimeUnit.SECONDS.toNanos(2)) {
                    break;
                }
                if (++samples % 4 == 0) {
                    double heap = usedHeapAfterGc() / 1e6;
                    maxDuring = Math.max(maxDuring, heap);
                    // Seconds since the call, heap after GC, MB the server had written: a backlog between reading
                    // and coalescing would show as a heap that grows with the time into the flood.
                    into.withArray("samples").addArray().add((System.nanoTime() - start) / 1e9).add(heap)
                            .add(written / 1e6);
                }
            }
            if (written <= 0) {
                problem("progress " + count + ": cannot read what the server wrote (/proc/" + pid + "/io): the figures"
                        + " with the consumer blocked may come before the flood has arrived");
            }
            double held = usedHeapAfterGc() / 1e6;
            into.put("serverWrittenMb", written / 1e6);
            into.put("arrivedSeconds", (System.nanoTime() - start) / 1e9 - 2);
            into.put("heapBeforeMb", before);
            into.put("heapMaxWhileArrivingMb", Math.max(maxDuring, held));
            into.put("heapHeldMb", held);
            into.put("doneWhileBlocked", call.isDone());
            if (call.isDone()) {
                problem("progress " + count + ": the call ended while its consumer was blocked: " + call.join());
            }
            release.countDown();
            ToolResult done = call.get(5, TimeUnit.MINUTES);
            into.put("delivered", delivered.get());
            into.put("lastProgress", last.get());
            into.put("heapAfterMb", usedHeapAfterGc() / 1e6);
            if (!text(done).equals("flooded " + count + " progress") || last.get() == null || last.get() != count) {
                problem("progress " + count + ": result " + text(done) + ", last update " + last.get());
            }
        }
        into.put("logLines", LOG.lines.get() - linesBefore);
    }

    /** @return the bytes the process wrote ({@code wchar} of {@code /proc/PID/io}), or -1 */
    private static long writtenBy(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/io"))) {
                if (line.startsWith("wchar:")) {
                    return Long.parseLong(line.substring(6).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone or not readable
        }
        return -1;
    }

    // ------------------------------------------------------------------ junk to a blocked listener

    private void junk(ObjectNode into, long count) throws Exception {
        into.put("count", count);
        CountDownLatch release = new CountDownLatch(1);
        McpClient client = connect("junky", ClientOptions.builder("junky").listener(new ClientListener() {
            @Override
            public void onNotification(JsonRpcNotification notification) {
                try {
                    release.await(); // a listener that does not keep up
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }));
        try {
            String[][] kinds = {{"junk", "1"}, {"stray-errors", "1"}, {"huge-token", "5"}, {"notifications", "1"}};
            for (String[] kind : kinds) {
                long n = Math.max(1, count / Long.parseLong(kind[1]));
                ObjectNode k = into.putObject(kind[0]);
                k.put("count", n);
                long lines = LOG.lines.get();
                double before = usedHeapAfterGc() / 1e6;
                long start = System.nanoTime();
                CallOptions options = kind[0].equals("huge-token") ? CallOptions.DEFAULT.withProgress(u -> { })
                        : CallOptions.DEFAULT;
                ToolResult done = flood(client, kind[0], n, options).get(15, TimeUnit.MINUTES);
                k.put("seconds", (System.nanoTime() - start) / 1e9);
                k.put("heapBeforeMb", before);
                k.put("heapAfterMb", usedHeapAfterGc() / 1e6);
                k.put("logLines", LOG.lines.get() - lines);
                if (!text(done).equals("flooded " + n + " " + kind[0])) {
                    problem(kind[0] + " " + n + ": " + text(done));
                }
            }
            // The session still works after all that.
            String still = text(flood(client, "progress", 3, CallOptions.DEFAULT).get(1, TimeUnit.MINUTES));
            if (!still.equals("flooded 3 progress")) {
                problem("after the junk: " + still);
            }
        } finally {
            release.countDown();
            client.close();
        }
    }

    /** @return the heap in use after a few full GCs, bytes */
    static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
            try {
                Thread.sleep(30);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Runtime runtime = Runtime.getRuntime();
        return runtime.totalMemory() - runtime.freeMemory();
    }

    /** Stderr that counts its lines, and the lines that are frames of a stack trace ({@code \tat ...}). */
    private static final class CountingErr extends OutputStream {
        final AtomicLong lines = new AtomicLong();
        final AtomicLong stackLines = new AtomicLong();
        private final OutputStream out;
        private final byte[] head = new byte[4];
        private int column;

        CountingErr(OutputStream out) {
            this.out = out;
        }

        @Override
        public synchronized void write(int b) throws IOException {
            out.write(b);
            count((byte) b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            for (int i = off; i < off + len; i++) {
                count(b[i]);
            }
        }

        private void count(byte b) {
            if (b == '\n') {
                lines.incrementAndGet();
                if (column >= 4 && head[0] == '\t' && head[1] == 'a' && head[2] == 't' && head[3] == ' ') {
                    stackLines.incrementAndGet();
                }
                column = 0;
                return;
            }
            if (column < 4) {
                head[column] = b;
            }
            column++;
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }
    }
}
