package mcp.transport.stdio.internal;

import java.io.File;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import mcp.api.McpException;
import mcp.api.Sandbox;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bubblewrap command line that runs a stdio server in its {@link Sandbox}, and the files it needs on the host.
 *
 * <p>The arguments, in the order bubblewrap applies them (a later mount covers an earlier one):
 * <ol>
 *   <li>{@code --die-with-parent --new-session --unshare-pid --unshare-ipc --cap-drop ALL}: the server and
 *       everything it starts die with bubblewrap (the kernel ends a PID namespace with its first process), it has
 *       no controlling terminal to type into, and no capability: run by root, bubblewrap would otherwise leave the
 *       server root's capabilities, with which it could remount {@code /} read-write;</li>
 *   <li>{@code --unshare-net} unless the whole network is granted: a network namespace of its own, loopback
 *       only;</li>
 *   <li>{@code --ro-bind / / --dev /dev --proc /proc}: everything readable, nothing writable, a minimal
 *       {@code /dev} and the namespace's own {@code /proc};</li>
 *   <li>{@code --bind TMP TMP}: a private, empty temporary directory ({@code TMPDIR}), removed when the server
 *       ends (or, after the host was killed, by the next host's first sandbox);</li>
 *   <li>{@code --bind P P} for each {@code allowWrite} path that exists (one that does not is left out, as VS
 *       Code's sandbox runtime does);</li>
 *   <li>{@code --ro-bind P P} for each {@code denyWrite} path inside a writable one; a path that does not exist yet
 *       gets an empty read-only file at its first missing component, so it cannot be created (removed again when
 *       the server ends);</li>
 *   <li>{@code denyRead}, and without network the Unix sockets of {@link #socketPaths}, parents first: a directory
 *       becomes an empty read-only {@code --tmpfs} (the writable and
 *       write-denied paths beneath it are bound again on top, as VS Code's runtime does), a file is covered by
 *       {@code /dev/null}, which cannot be opened there (the mount has no devices);</li>
 *   <li>{@code --chdir DIR -- COMMAND ARGS}.</li>
 * </ol>
 */
final class Bubblewrap {

    private static final Logger LOG = LoggerFactory.getLogger(Bubblewrap.class);

    /** The program run when the sandbox names none. */
    static final String DEFAULT_PROGRAM = "bwrap";

    /** The private temporary directories: {@code mcp-host-sandbox-<pid of the JVM>-<random>}. */
    static final String TEMPORARY_PREFIX = "mcp-host-sandbox-";

    private static final Pattern TEMPORARY_NAME = Pattern.compile(Pattern.quote(TEMPORARY_PREFIX) + "(\\d+)-.*");

    private static final java.util.concurrent.atomic.AtomicBoolean SWEPT = new java.util.concurrent.atomic.AtomicBoolean();

    private Bubblewrap() {
    }

    /**
     * A sandboxed launch.
     *
     * @param command bubblewrap (an absolute path), its arguments, {@code --}, then the server's command
     * @param temporaryDirectory the server's private temporary directory, to remove once it ended
     * @param stubs the empty files bubblewrap will create as mount points of write-denied paths that did not
     *     exist, to remove once the server ended
     */
    record Launch(List<String> command, Path temporaryDirectory, List<Path> stubs) {

        /** Removes the temporary directory and the stubs bubblewrap left; never throws. */
        void cleanUp() {
            for (Path stub : stubs) {
                try {
                    // Only the empty file bubblewrap made; a file someone wrote since is left alone.
                    if (Files.isRegularFile(stub, LinkOption.NOFOLLOW_LINKS) && Files.size(stub) == 0) {
                        Files.delete(stub);
                    }
                } catch (IOException | RuntimeException e) {
                    LOG.debug("could not remove the mount point {}", stub, e);
                }
            }
            deleteTree(temporaryDirectory);
        }
    }

    /**
     * @param server the server's name, for messages
     * @param sandbox the rules
     * @param executable the server's program, as the JDK would run it
     * @param args its arguments
     * @param directory its working directory (absolute)
     * @param environment the environment it will get: {@code HOME} for {@code ~} and {@code PATH} to find
     *     bubblewrap; {@code TMPDIR} is set here unless the config set it
     * @param configEnv the config's own variables, which win over what is set here
     * @return the command line and what to clean up
     * @throws McpException if the sandbox cannot be had here: not Linux, no bubblewrap, a rule that cannot be enforced
     */
    static Launch prepare(String server, Sandbox sandbox, String executable, List<String> args, Path directory,
            Map<String, String> environment, Map<String, String> configEnv) {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            throw refused(server, "sandboxes need Linux and bubblewrap, and this is "
                    + System.getProperty("os.name", "an unknown system"));
        }
        Optional<String> unenforceable = sandbox.unenforceable();
        if (unenforceable.isPresent()) {
            throw refused(server, unenforceable.get());
        }
        Path program = program(server, sandbox, environment);
        Path home = home(environment);
        List<Path> writable = existing(resolve(sandbox.filesystem().allowWrite(), directory, home), "allowWrite",
                server);
        List<Path> writeDenied = resolve(sandbox.filesystem().denyWrite(), directory, home);
        List<String> denyRead = new ArrayList<>(sandbox.filesystem().denyRead());
        if (!sandbox.network().any()) {
            denyRead.addAll(socketPaths(environment));
        }
        List<Path> readDenied = resolve(denyRead, directory, home).stream().distinct()
                .sorted(Comparator.comparingInt(Path::getNameCount)).toList();

        sweepOnce();
        Path temporary;
        try {
            temporary = Files.createTempDirectory(TEMPORARY_PREFIX + ProcessHandle.current().pid() + "-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException | RuntimeException e) {
            throw new McpException("Failed to start MCP server \"" + server + "\": cannot create its private "
                    + "temporary directory: " + e.getMessage(), e);
        }
        if (!configEnv.containsKey("TMPDIR")) {
            environment.put("TMPDIR", temporary.toString());
        }

        List<String> command = new ArrayList<>();
        command.add(program.toString());
        command.addAll(List.of("--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc",
                "--cap-drop", "ALL"));
        if (!sandbox.network().any()) {
            command.add("--unshare-net");
        }
        command.addAll(List.of("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"));
        bind(command, "--bind", temporary);
        writable.forEach(path -> bind(command, "--bind", path));

        List<Path> stubs = new ArrayList<>();
        List<Path> protectedPaths = new ArrayList<>();
        for (Path path : writeDenied) {
            if (!within(path, writable)) {
                continue; // not writable anyway
            }
            if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
                Path real = realPath(path);
                bind(command, "--ro-bind", real);
                protectedPaths.add(real);
            } else {
                Path missing = firstMissing(path);
                command.addAll(List.of("--ro-bind", "/dev/null", missing.toString()));
                stubs.add(missing);
                protectedPaths.add(missing);
            }
        }

        java.util.Set<Path> hidden = new java.util.HashSet<>();
        for (Path path : readDenied) {
            if (!Files.exists(path)) {
                continue; // nothing there to read; what the server creates itself is its own
            }
            Path real = realPath(path);
            if (!hidden.add(real)) {
                continue; // named twice (a link and its target): a second mount over /dev/null would fail
            }
            if (Files.isDirectory(real)) {
                command.addAll(List.of("--tmpfs", real.toString()));
                // Paths the rules made writable or read-only beneath it stay so, as VS Code's runtime keeps them.
                writable.stream().filter(w -> strictlyWithin(w, real)).forEach(w -> bind(command, "--bind", w));
                if (strictlyWithin(temporary, real)) {
                    bind(command, "--bind", temporary);
                }
                protectedPaths.stream().filter(p -> strictlyWithin(p, real) && within(p, writable))
                        .forEach(p -> command.addAll(List.of("--ro-bind", stubs.contains(p) ? "/dev/null" : p.toString(),
                                p.toString())));
                command.addAll(List.of("--remount-ro", real.toString()));
            } else {
                command.addAll(List.of("--ro-bind", "/dev/null", real.toString()));
            }
        }

        command.addAll(List.of("--chdir", directory.toString(), "--"));
        command.add(executable);
        command.addAll(args);
        return new Launch(List.copyOf(command), temporary, List.copyOf(stubs));
    }

    /**
     * The Unix sockets a server without network must not reach: a network namespace cuts IP and abstract sockets,
     * but a socket file that can be seen can still be connected to. So the usual doors out are hidden: the session's
     * runtime directory ({@code XDG_RUNTIME_DIR}: the D-Bus session bus, agents, ...), the SSH agent's socket and
     * the Docker daemon's. Others can be named in {@code denyRead}.
     */
    static List<String> socketPaths(Map<String, String> environment) {
        List<String> paths = new ArrayList<>();
        for (String variable : List.of("XDG_RUNTIME_DIR", "SSH_AUTH_SOCK")) {
            String value = environment.get(variable);
            if (value != null && value.startsWith("/")) {
                paths.add(value);
            }
        }
        paths.addAll(List.of("/run/docker.sock", "/var/run/docker.sock"));
        return paths;
    }

    /**
     * Removes, once per JVM, the private temporary directories that a host killed with SIGKILL left behind (no close
     * ran to remove them): those named by a JVM that no longer runs. A reused pid only keeps a stale one longer.
     */
    private static void sweepOnce() {
        if (!SWEPT.compareAndSet(false, true)) {
            return;
        }
        Path parent = Path.of(System.getProperty("java.io.tmpdir"));
        try (java.nio.file.DirectoryStream<Path> entries = Files.newDirectoryStream(parent, TEMPORARY_PREFIX + "*")) {
            for (Path entry : entries) {
                java.util.regex.Matcher name = TEMPORARY_NAME.matcher(entry.getFileName().toString());
                if (name.matches() && Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)
                        && Files.isWritable(entry) && ProcessHandle.of(Long.parseLong(name.group(1))).isEmpty()) {
                    LOG.debug("removing the sandbox temporary directory {} of a host that is gone", entry);
                    deleteTree(entry);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("could not look for stale sandbox temporary directories in {}", parent, e);
        }
    }

    private static McpException refused(String server, String reason) {
        return new McpException("MCP server \"" + server + "\" must run in a sandbox, and none can be had: " + reason
                + "; it is not started without one (see docs/sandbox.md)");
    }

    /** The bubblewrap program: the sandbox's, else {@code bwrap} on the server's {@code PATH}. */
    private static Path program(String server, Sandbox sandbox, Map<String, String> environment) {
        if (sandbox.bubblewrap().isPresent()) {
            Path named = Path.of(sandbox.bubblewrap().get());
            if (!Files.isRegularFile(named) || !Files.isExecutable(named)) {
                throw refused(server, "bubblewrap " + named + " does not exist or cannot be run");
            }
            return named.toAbsolutePath();
        }
        String path = Optional.ofNullable(environment.get("PATH")).orElse(System.getenv("PATH"));
        if (path != null) {
            for (String entry : path.split(Pattern.quote(File.pathSeparator))) {
                if (entry.isEmpty()) {
                    continue;
                }
                try {
                    Path candidate = Path.of(entry, DEFAULT_PROGRAM);
                    if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                        return candidate.toAbsolutePath();
                    }
                } catch (InvalidPathException e) {
                    // a malformed PATH entry holds no program
                }
            }
        }
        throw refused(server, "bubblewrap (bwrap) is not installed (not found on the PATH); install the package"
                + " bubblewrap");
    }

    private static Path home(Map<String, String> environment) {
        String home = environment.get("HOME");
        return Path.of(home != null && home.startsWith("/") ? home : System.getProperty("user.home"));
    }

    /** Each rule's path made absolute: {@code ~} against the home, a relative one against the working directory. */
    static List<Path> resolve(List<String> paths, Path directory, Path home) {
        List<Path> resolved = new ArrayList<>();
        for (String written : paths) {
            String path = Sandbox.directoryOf(written);
            Path absolute;
            if (path.equals("~")) {
                absolute = home;
            } else if (path.startsWith("~/")) {
                absolute = home.resolve(path.substring(2));
            } else {
                absolute = directory.resolve(path);
            }
            resolved.add(absolute.toAbsolutePath().normalize());
        }
        return resolved;
    }

    /** The real paths of those that exist (bubblewrap binds what a link points to); the others are left out. */
    private static List<Path> existing(List<Path> paths, String rule, String server) {
        List<Path> existing = new ArrayList<>();
        for (Path path : paths) {
            if (Files.exists(path)) {
                existing.add(realPath(path));
            } else {
                LOG.debug("MCP server \"{}\": sandbox {} path {} does not exist, left out", server, rule, path);
            }
        }
        return existing;
    }

    private static Path realPath(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            return path;
        }
    }

    /** @return the path's first component that does not exist (the path itself if only it is missing) */
    private static Path firstMissing(Path path) {
        Path current = path.getRoot();
        for (Path part : path) {
            current = current.resolve(part);
            if (!Files.exists(current, LinkOption.NOFOLLOW_LINKS)) {
                return current;
            }
        }
        return path;
    }

    private static boolean within(Path path, List<Path> roots) {
        return roots.stream().anyMatch(root -> path.startsWith(root));
    }

    private static boolean strictlyWithin(Path path, Path root) {
        return path.startsWith(root) && !path.equals(root);
    }

    private static void bind(List<String> command, String kind, Path path) {
        command.addAll(List.of(kind, path.toString(), path.toString()));
    }

    private static void deleteTree(Path root) {
        try {
            if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
                return;
            }
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException | RuntimeException e) {
            LOG.debug("could not remove the sandbox's temporary directory {}", root, e);
        }
    }
}
