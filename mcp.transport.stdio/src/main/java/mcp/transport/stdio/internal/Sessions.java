package mcp.transport.stdio.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each server in a session of its own, and the members of such a session.
 *
 * <p>On Linux with util-linux {@code setsid} (found at {@code /usr/bin/setsid} or {@code /bin/setsid}),
 * a server is started as {@code setsid <command> <args>}: the JDK's child is never a process group
 * leader, so {@code setsid} calls {@code setsid(2)} and execs the server in place (same pid). The
 * server is then the leader of a new session and process group whose id is its pid, and every
 * process it starts belongs to them unless it leaves on purpose (calls {@code setsid} itself). The
 * group can be signalled as a whole even after its leader died ({@link Watchdog} does so when the
 * JVM dies), and the session's members are found from {@code /proc} ({@link #members}), which sees
 * the children of a server that died just after starting them, before any snapshot.
 *
 * <p>Without {@code setsid} or {@code /proc} (other platforms), or with the system property
 * {@value #PROPERTY} set to {@code false}, servers start directly as before and the process-tree
 * snapshots of {@link ProcessTree} are the only way to find their descendants.
 */
final class Sessions {

    private static final Logger LOG = LoggerFactory.getLogger(Sessions.class);

    /** System property: {@code false} starts servers directly, in the host's session. */
    static final String PROPERTY = "mcp.stdio.sessions";

    private static final Optional<String> SETSID = findSetsid();

    private Sessions() {
    }

    /** @return the {@code setsid} program when servers get sessions of their own, else empty */
    static Optional<String> setsid() {
        return SETSID;
    }

    private static Optional<String> findSetsid() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
                || "false".equalsIgnoreCase(System.getProperty(PROPERTY, "true"))
                || !Files.isDirectory(Path.of("/proc/self"))) {
            return Optional.empty();
        }
        for (String candidate : List.of("/usr/bin/setsid", "/bin/setsid")) {
            Path path = Path.of(candidate);
            if (Files.isRegularFile(path) && Files.isExecutable(path)) {
                return Optional.of(candidate);
            }
        }
        LOG.debug("no setsid program: MCP servers start in the host's session");
        return Optional.empty();
    }

    /**
     * One process as {@code /proc/<pid>/stat} shows it.
     *
     * @param pid its pid
     * @param ppid its parent's pid
     * @param sid its session id
     * @param running whether it runs (not a zombie)
     */
    record Stat(long pid, long ppid, long sid, boolean running) {
    }

    /**
     * Every process, from one scan of {@code /proc}: what a snapshot of a process tree needs (parents and
     * sessions) at the cost of one read of the process table, where the JDK's {@code descendants()} reads it again
     * for every process asked about.
     *
     * @return the processes, or empty where {@code /proc} cannot be read (other platforms)
     */
    static Optional<List<Stat>> table() {
        List<Stat> table = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path entry : entries) {
                long pid;
                try {
                    pid = Long.parseLong(entry.getFileName().toString());
                } catch (NumberFormatException e) {
                    continue;
                }
                String[] fields = statFields(entry);
                if (fields == null) {
                    continue;
                }
                try {
                    table.add(new Stat(pid, Long.parseLong(fields[1]), Long.parseLong(fields[3]),
                            !fields[0].equals("Z") && !fields[0].equals("X")));
                } catch (NumberFormatException e) {
                    // not a stat line we understand: the process is left out
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("cannot read the process table from /proc", e);
            return Optional.empty();
        }
        return Optional.of(table);
    }

    /**
     * The processes of a session, from one scan of {@code /proc}.
     *
     * @param sid the session id (the pid of its leader, the server)
     * @return the live members, the leader included if it still runs; empty if {@code /proc} cannot be read
     */
    static List<ProcessHandle> members(long sid) {
        List<ProcessHandle> members = new ArrayList<>();
        table().orElse(List.of()).stream().filter(stat -> stat.sid() == sid)
                .forEach(stat -> ProcessHandle.of(stat.pid()).ifPresent(members::add));
        return members;
    }

    /**
     * @return the fields of {@code /proc/<pid>/stat} after the command name (state, ppid, pgrp, session, ...), or
     *     {@code null} if the process is gone or the file unreadable
     */
    private static String[] statFields(Path proc) {
        String text;
        try {
            text = new String(Files.readAllBytes(proc.resolve("stat")), StandardCharsets.ISO_8859_1);
        } catch (IOException | RuntimeException e) {
            return null;
        }
        // "pid (comm) state ppid pgrp session ...": comm may hold spaces and parentheses.
        int end = text.lastIndexOf(')');
        if (end < 0) {
            return null;
        }
        String[] fields = text.substring(end + 1).trim().split(" ");
        return fields.length < 4 ? null : fields;
    }
}
