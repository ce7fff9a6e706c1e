package mcp.cli.internal;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import mcp.manager.McpManager;
import mcp.manager.ServerStatus;

/**
 * While servers connect, tells the person at the terminal which ones are still connecting: one
 * stderr line, rewritten every 500 ms with {@code \r} and wiped at the end. Does nothing unless
 * {@link CliContext#showProgress()}, so pipes and {@code --json} stay clean.
 */
final class Progress {

    private static final long TICK_MILLIS = 500;

    private final PrintStream err;
    private final McpManager manager;
    private final Thread thread;
    private final long start = System.nanoTime();
    /** Length of the line on screen, to wipe it; guarded by {@code this}. */
    private int shown;
    private volatile boolean done;

    private Progress(PrintStream err, McpManager manager) {
        this.err = err;
        this.manager = manager;
        this.thread = new Thread(this::loop, "mcp-host-cli-progress");
        thread.setDaemon(true);
    }

    /**
     * Runs a long wait with the progress line shown (when somebody watches).
     *
     * @param context the command
     * @param manager the manager whose connecting servers to show
     * @param work the wait
     * @param <T> its result type
     * @return its result
     */
    static <T> T around(CliContext context, McpManager manager, Supplier<T> work) {
        Progress progress = new Progress(context.err(), manager);
        if (context.showProgress()) {
            progress.thread.start();
        }
        try {
            return work.get();
        } finally {
            progress.close();
        }
    }

    private void loop() {
        while (!done) {
            try {
                Thread.sleep(TICK_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            List<String> connecting = manager.statuses().entrySet().stream()
                    .filter(e -> e.getValue().state() == ServerStatus.State.CONNECTING)
                    .map(e -> e.getKey() + e.getValue().reconnect()
                            .map(r -> " (attempt " + r.attempt() + " of " + r.attempts() + ")").orElse(""))
                    .toList();
            if (!done && !connecting.isEmpty()) {
                long seconds = (System.nanoTime() - start) / 1_000_000_000L;
                show("Connecting (" + seconds + " s): " + String.join(", ", connecting));
            }
        }
    }

    private synchronized void show(String line) {
        String text = line.length() > 100 ? line.substring(0, 99) + "…" : line;
        err.print("\r" + text + " ".repeat(Math.max(0, shown - text.length())));
        err.flush();
        shown = text.length();
    }

    /** Stops the line and wipes it. */
    private void close() {
        done = true;
        if (!thread.isAlive()) {
            return;
        }
        thread.interrupt();
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            if (shown > 0) {
                err.print("\r" + " ".repeat(shown) + "\r");
                err.flush();
                shown = 0;
            }
        }
    }
}
