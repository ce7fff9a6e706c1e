package mcp.transport.stdio.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server process and the descendants it is known to have had, and the bounded sequence that ends
 * them all.
 *
 * <p>Why snapshots: once a process dies, the kernel reparents its children (to init or a subreaper),
 * and {@link ProcessHandle#descendants()} no longer finds them. So the tree is recorded while the root
 * is alive (periodically, when stdout ends, and at the start of each close step) and the union of
 * every snapshot is what gets terminated. {@link ProcessHandle}s carry the process start time, so a
 * recorded handle never signals an unrelated process that reused the pid.
 *
 * <p>Thread-safe: snapshots come from several threads; {@code known} is a concurrent set.
 */
final class ProcessTree {

    private static final Logger LOG = LoggerFactory.getLogger(ProcessTree.class);

    /** After SIGTERM, how long a server still in its handshake has before SIGKILL. */
    static final Duration HANDSHAKE_TERM_GRACE = Duration.ofMillis(200);

    private final String serverName;
    private final Process root;
    /** Whether the root leads a session of its own ({@link Sessions}), whose members are then part of the tree. */
    private final boolean ownSession;
    /** Every descendant seen in any snapshot and not yet found dead. */
    private final Set<ProcessHandle> known = ConcurrentHashMap.newKeySet();

    ProcessTree(String serverName, Process root, boolean ownSession) {
        this.serverName = serverName;
        this.root = root;
        this.ownSession = ownSession;
    }

    /**
     * Adds the root's current descendants to the known set, and the members of its session if it has one: these
     * include children whose parent, the root, has died already (reparented, they are no descendants any more).
     * One read of the process table.
     */
    void snapshot() {
        snapshot(table(), false);
    }

    /**
     * Like {@link #snapshot()}, from a table of the process read once for every transport ({@link #table()}): the
     * periodic snapshots of many servers then cost one scan of the process table per period, not one per server.
     *
     * @param table the process table, read just before
     */
    void snapshot(List<Sessions.Stat> table) {
        snapshot(table, false);
    }

    /**
     * Like {@link #snapshot()}, and adds the descendants of every known process still running too, which finds
     * the children of a descendant that was reparented when its parent died.
     */
    void deepSnapshot() {
        snapshot(table(), true);
    }

    /**
     * Reads the process table once: pid, parent and session of every process from {@code /proc} where there is
     * one; else from the JDK's list of processes, without sessions (no process then leads a session of its own).
     * The JDK's {@code descendants()} would read the whole table again for every process asked about.
     *
     * @return every process
     */
    static List<Sessions.Stat> table() {
        Optional<List<Sessions.Stat>> proc = Sessions.table();
        if (proc.isPresent()) {
            return proc.get();
        }
        List<Sessions.Stat> table = new ArrayList<>();
        ProcessHandle.allProcesses().forEach(process -> {
            try {
                process.parent().ifPresent(parent -> table.add(new Sessions.Stat(process.pid(), parent.pid(), -1,
                        true)));
            } catch (RuntimeException e) {
                // a process that went away meanwhile has no parent to report
            }
        });
        return table;
    }

    /**
     * Adds the running descendants of the root (if it still runs) and, when {@code deep}, of every known process
     * still running, and the members of the root's session if it has one, all from {@code table}.
     */
    private void snapshot(List<Sessions.Stat> table, boolean deep) {
        known.removeIf(h -> !isRunning(h));
        Map<Long, List<Sessions.Stat>> children = new HashMap<>();
        for (Sessions.Stat stat : table) {
            children.computeIfAbsent(stat.ppid(), pid -> new ArrayList<>()).add(stat);
        }
        // A dead root's (or descendant's) pid may be reused after it was reaped: only walk from living ones.
        Deque<Long> parents = new ArrayDeque<>();
        if (isRunning(root.toHandle())) {
            parents.add(root.pid());
        }
        if (deep) {
            known.stream().filter(ProcessTree::isRunning).map(ProcessHandle::pid).forEach(parents::add);
        }
        Set<Long> seen = new HashSet<>();
        while (!parents.isEmpty()) {
            long parent = parents.poll();
            if (!seen.add(parent)) {
                continue;
            }
            for (Sessions.Stat child : children.getOrDefault(parent, List.of())) {
                if (child.running()) {
                    ProcessHandle.of(child.pid()).ifPresent(known::add);
                }
                parents.add(child.pid());
            }
        }
        if (ownSession) {
            long rootPid = root.pid();
            for (Sessions.Stat stat : table) {
                if (stat.sid() == rootPid && stat.pid() != rootPid && stat.running()) {
                    ProcessHandle.of(stat.pid()).ifPresent(known::add);
                }
            }
        }
    }

    /** @return the pids of the known descendants that are still alive */
    Set<Long> liveDescendantPids() {
        return known.stream().filter(ProcessTree::isRunning).map(ProcessHandle::pid).collect(Collectors.toSet());
    }

    /**
     * Ends the tree: close stdin and wait for the root; then terminate (SIGTERM) the root and every
     * known descendant and wait; then kill (SIGKILL) whatever is left and wait. Each wait is bounded
     * by {@code step}; a step is skipped when nothing is left alive.
     *
     * <p>Not graceful (a server still in its handshake: there is no session to end): stdin is closed
     * and the tree terminated at once, and what is left after {@link #HANDSHAKE_TERM_GRACE} is killed.
     *
     * @param closeStdin asks the server to exit by ending its input
     * @param step the bound of each wait
     * @param graceful whether the server gets {@code step} to exit on the end of its input, and again
     *     after SIGTERM
     * @return whether nothing of the tree is left alive
     */
    boolean end(Runnable closeStdin, Duration step, boolean graceful) {
        deepSnapshot();
        closeStdin.run();
        if (graceful) {
            Waits.waitFor(root, step);
            // The root may have exited gracefully while descendants live on (a server's background
            // helpers): they are ended below, not left behind. Without the wait there is nothing new to
            // find: a second look at once would only cost another scan of the process table.
            deepSnapshot();
        }
        if (!anyAlive()) {
            return true;
        }
        LOG.debug("MCP server \"{}\": terminating process tree (pid {}, descendants {})", serverName, root.pid(),
                liveDescendantPids());
        // Root first, so that a supervising root cannot restart a child it sees die.
        root.destroy();
        List.copyOf(known).forEach(ProcessTree::terminate);
        Duration termWait = graceful || step.compareTo(HANDSHAKE_TERM_GRACE) < 0 ? step : HANDSHAKE_TERM_GRACE;
        if (awaitAll(termWait)) {
            return true;
        }
        deepSnapshot();
        LOG.debug("MCP server \"{}\": killing process tree (pid {}, descendants {})", serverName, root.pid(),
                liveDescendantPids());
        killNow();
        if (awaitAll(step)) {
            return true;
        }
        LOG.warn("MCP server \"{}\": processes still alive after kill: {}", serverName, alivePids());
        return false;
    }

    /** Kills the root and every known descendant at once, without waiting (JVM shutdown). */
    void killNow() {
        if (root.isAlive()) {
            root.destroyForcibly();
        }
        for (ProcessHandle handle : List.copyOf(known)) {
            try {
                if (isRunning(handle)) {
                    handle.destroyForcibly();
                }
            } catch (RuntimeException e) {
                LOG.debug("MCP server \"{}\": cannot kill pid {}", serverName, handle.pid(), e);
            }
        }
    }

    /**
     * Whether a process is alive and not a zombie. A descendant that was reparented and then ended
     * stays a zombie until init reaps it, which can take a second or more in a container, and
     * {@link ProcessHandle#isAlive()} counts it as alive; but a zombie has exited and holds nothing
     * (no pipes, no files), so for ending a tree it is gone. Outside Linux, {@code isAlive()} decides.
     *
     * @param handle a process
     * @return whether it still runs
     */
    static boolean isRunning(ProcessHandle handle) {
        if (!handle.isAlive()) {
            return false;
        }
        byte[] stat;
        try {
            stat = Files.readAllBytes(Path.of("/proc", Long.toString(handle.pid()), "stat"));
        } catch (IOException | RuntimeException e) {
            return handle.isAlive();
        }
        // "pid (comm) S ...": comm may hold spaces and parentheses, so the state follows the last ')'.
        String text = new String(stat, StandardCharsets.ISO_8859_1);
        int end = text.lastIndexOf(')');
        if (end < 0 || end + 2 >= text.length()) {
            return true;
        }
        char state = text.charAt(end + 2);
        return state != 'Z' && state != 'X';
    }

    private static void terminate(ProcessHandle handle) {
        try {
            if (isRunning(handle)) {
                handle.destroy();
            }
        } catch (RuntimeException e) {
            LOG.debug("cannot terminate pid {}", handle.pid(), e);
        }
    }

    private boolean anyAlive() {
        return root.isAlive() || known.stream().anyMatch(ProcessTree::isRunning);
    }

    private List<Long> alivePids() {
        List<Long> pids = new ArrayList<>();
        if (root.isAlive()) {
            pids.add(root.pid());
        }
        pids.addAll(liveDescendantPids());
        return pids;
    }

    /** Waits until the whole tree is dead, at most {@code bound}. */
    private boolean awaitAll(Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        Waits.waitFor(root, bound);
        // Descendants are not our children: the JDK can only poll them, so poll here with a short period
        // instead of onExit() (whose polling starts at 300 ms).
        long pauseMillis = 5;
        while (true) {
            known.removeIf(h -> !isRunning(h));
            if (known.isEmpty() && !root.isAlive()) {
                return true;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            Waits.sleep(Math.min(pauseMillis, TimeUnit.NANOSECONDS.toMillis(left) + 1));
            pauseMillis = Math.min(pauseMillis * 2, 50);
        }
    }
}
