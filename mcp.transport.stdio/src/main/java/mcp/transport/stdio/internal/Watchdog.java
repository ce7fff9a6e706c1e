package mcp.transport.stdio.internal;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The net for a JVM that dies without running its shutdown hooks ({@code kill -9}, a crash, the OOM
 * killer): a small {@code /bin/sh} process that holds a pipe from this JVM and knows the process
 * groups of the servers running now ({@link Sessions}). When the pipe ends, which the kernel does
 * however the JVM ended, it sends SIGTERM to every group it knows, waits up to one second for them
 * to go (polling every 100 ms), and sends SIGKILL to what is left. So a server that ignores stdin EOF
 * or traps SIGTERM, and its children, are gone about a second after the JVM.
 *
 * <p>Protocol, one line per message on its stdin: {@code +<pgid>} when a server starts, {@code -<pgid>}
 * once its tree has ended. Lifetime: started with the first server, in a session of its own (so that
 * a signal to the host's process group, a terminal's Ctrl-C or a {@code kill -9 -<pgid>}, does not
 * take it along), with SIGINT, SIGHUP, SIGTERM and SIGQUIT ignored; when the last group is removed,
 * its stdin is closed and it exits at once (it knows no group), so an idle host has no extra process.
 * A watchdog found dead is started again with every group still known. Its command line ends with
 * {@value #MARKER}, by which tests tell it from a server.
 *
 * <p>Why a shell and not a second JVM: it starts in about a millisecond and holds under a megabyte,
 * where a JVM needs a few hundred milliseconds and tens of megabytes; its job is a read loop and
 * {@code kill}. Why not {@code prctl(PR_SET_PDEATHSIG)}: it needs native code, fires when the forking
 * thread (not the process) ends, and reaches only direct children.
 *
 * <p>Thread-safe: everything happens under {@code LOCK}; writes are a few bytes to a pipe whose
 * reader does nothing else.
 */
final class Watchdog {

    private static final Logger LOG = LoggerFactory.getLogger(Watchdog.class);

    /** The last argument of the watchdog's command line ({@code $0} of the script). */
    static final String MARKER = "mcp-stdio-watchdog";

    /**
     * Reads {@code +id} and {@code -id} lines into a space-separated set until EOF; then SIGTERM to each
     * group, up to ten checks 100 ms apart, SIGKILL to each group. dash's {@code kill} takes
     * {@code -SIG -pgid} (not {@code --}).
     */
    private static final String SCRIPT = String.join("\n",
            "trap '' INT HUP TERM QUIT PIPE",
            "g=' '",
            "while IFS= read -r l; do",
            "  case $l in",
            "    +*) g=\"$g${l#+} \" ;;",
            "    -*) i=${l#-}; case $g in *\" $i \"*) g=\"${g%%\" $i \"*} ${g#*\" $i \"}\" ;; esac ;;",
            "  esac",
            "done",
            "set -- $g",
            "[ $# -eq 0 ] && exit 0",
            "for i; do kill -TERM -$i 2>/dev/null; done",
            "n=0",
            "while [ $n -lt 10 ]; do",
            "  a=",
            "  for i; do kill -0 -$i 2>/dev/null && a=1; done",
            "  [ -z \"$a\" ] && exit 0",
            "  sleep 0.1 2>/dev/null || sleep 1",
            "  n=$((n+1))",
            "done",
            "for i; do kill -KILL -$i 2>/dev/null; done",
            "");

    /** How long the last unregistration waits for the watchdog to exit. */
    private static final Duration EXIT_WAIT = Duration.ofMillis(500);

    private static final Object LOCK = new Object();
    /** The groups of servers whose trees have not ended yet; guarded by {@code LOCK}. */
    private static final Set<Long> GROUPS = new LinkedHashSet<>();
    private static Process process;
    private static boolean startFailed;

    private Watchdog() {
    }

    /**
     * Tells the watchdog about a server's process group, starting the watchdog if needed.
     *
     * @param pgid the group id (the server's pid)
     */
    static void register(long pgid) {
        synchronized (LOCK) {
            if (!GROUPS.add(pgid)) {
                return;
            }
            if (process != null && process.isAlive() && write("+" + pgid + "\n")) {
                return;
            }
            restart();
        }
    }

    /**
     * Forgets a group whose tree has ended; the last one ends the watchdog.
     *
     * @param pgid the group id
     */
    static void unregister(long pgid) {
        synchronized (LOCK) {
            if (!GROUPS.remove(pgid) || process == null) {
                return;
            }
            if (GROUPS.isEmpty()) {
                // Told to forget the last group, it exits at once on EOF (it signals nothing): wait for
                // that (bounded), so that once the last server is closed no process of ours is left.
                write("-" + pgid + "\n");
                closeQuietly(process.getOutputStream());
                Waits.waitFor(process, EXIT_WAIT);
                process = null;
            } else if (!write("-" + pgid + "\n")) {
                restart();
            }
        }
    }

    /** @return the pid of the running watchdog, for tests */
    static Optional<Long> pid() {
        synchronized (LOCK) {
            return process != null && process.isAlive() ? Optional.of(process.pid()) : Optional.empty();
        }
    }

    /** Starts a new watchdog with every known group; under {@code LOCK}. */
    private static void restart() {
        if (process != null) {
            closeQuietly(process.getOutputStream());
            process.destroy();
            process = null;
        }
        List<String> command = new ArrayList<>();
        Sessions.setsid().ifPresent(command::add);
        command.addAll(List.of("/bin/sh", "-c", SCRIPT, MARKER));
        try {
            process = new ProcessBuilder(command)
                    .directory(new File("/"))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException | RuntimeException e) {
            if (!startFailed) {
                startFailed = true;
                LOG.warn("cannot start the stdio watchdog ({}): if this JVM is killed, MCP servers that ignore the "
                        + "end of their input may outlive it", e.getMessage());
            }
            return;
        }
        StringBuilder all = new StringBuilder();
        GROUPS.forEach(g -> all.append('+').append(g).append('\n'));
        if (!write(all.toString())) {
            LOG.debug("the stdio watchdog (pid {}) died at once", process.pid());
        }
    }

    /** Writes to the watchdog; false if it is gone. Under {@code LOCK}. */
    private static boolean write(String lines) {
        try {
            OutputStream out = process.getOutputStream();
            out.write(lines.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void closeQuietly(OutputStream out) {
        try {
            out.close();
        } catch (IOException e) {
            // the watchdog is gone already, which is what closing asks for
        }
    }
}
