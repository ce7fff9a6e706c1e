package mcp.config.internal;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a sandbox can be had here: Linux, a bubblewrap program, and that program able to create the namespaces
 * a sandbox needs (a container may forbid user namespaces, a kernel may switch them off). The probe runs bubblewrap
 * once with the options the stdio transport uses ({@code --unshare-pid --unshare-net --cap-drop ALL}, a read-only
 * root), asking it to run itself with {@code --version}, which needs no other program. Its verdict is kept per
 * program file (path, size and modification time), so a program installed or replaced later is probed again.
 */
public final class SandboxProbe {

    private static final Logger LOG = LoggerFactory.getLogger(SandboxProbe.class);

    /** How long the probe may take; bubblewrap starts in milliseconds. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);

    private static final Map<String, Verdict> VERDICTS = new ConcurrentHashMap<>();

    private SandboxProbe() {
    }

    /**
     * @param program the bubblewrap program that can run sandboxes, an absolute path, when one can
     * @param problem why no sandbox can be had, for people, when none can
     */
    public record Verdict(Optional<String> program, Optional<String> problem) {
        /** Validates: exactly one of the two. */
        public Verdict {
            Objects.requireNonNull(program, "program");
            Objects.requireNonNull(problem, "problem");
            if (program.isPresent() == problem.isPresent()) {
                throw new IllegalArgumentException("a verdict has a program or a problem");
            }
        }

        static Verdict usable(Path program) {
            return new Verdict(Optional.of(program.toString()), Optional.empty());
        }

        static Verdict unusable(String problem) {
            return new Verdict(Optional.empty(), Optional.of(problem));
        }
    }

    /**
     * @param configured the bubblewrap program to use, when set ({@code Discovery.Builder.bubblewrap}); else
     *     {@code bwrap} on the environment's {@code PATH}
     * @param environment the discovery's environment
     * @return whether a sandbox can be had, and with which program
     */
    public static Verdict check(Optional<Path> configured, Map<String, String> environment) {
        String system = System.getProperty("os.name", "");
        if (!system.toLowerCase(Locale.ROOT).contains("linux")) {
            return Verdict.unusable("sandboxes need Linux and bubblewrap, and this is "
                    + (system.isEmpty() ? "an unknown system" : system));
        }
        Path program;
        if (configured.isPresent()) {
            program = configured.get().toAbsolutePath().normalize();
            if (!Files.isRegularFile(program) || !Files.isExecutable(program)) {
                return Verdict.unusable("bubblewrap " + program + " does not exist or cannot be run");
            }
        } else {
            Optional<Path> found = onPath("bwrap", environment.get("PATH"));
            if (found.isEmpty()) {
                return Verdict.unusable("bubblewrap (bwrap) is not installed (not found on the PATH); install the"
                        + " package bubblewrap");
            }
            program = found.get();
        }
        String key;
        try {
            key = program + ":" + Files.size(program) + ":" + Files.getLastModifiedTime(program).toMillis();
        } catch (IOException e) {
            return Verdict.unusable("bubblewrap " + program + " cannot be read: " + e.getMessage());
        }
        Verdict known = VERDICTS.get(key);
        if (known != null) {
            return known;
        }
        Probe probe = probe(program);
        if (probe.lasting()) {
            VERDICTS.put(key, probe.verdict());
        }
        return probe.verdict();
    }

    /** A probe's verdict, and whether it holds until the program changes (a timeout or an interruption may not). */
    private record Probe(Verdict verdict, boolean lasting) {
    }

    private static Optional<Path> onPath(String name, String path) {
        if (path == null) {
            return Optional.empty();
        }
        for (String entry : path.split(Pattern.quote(File.pathSeparator))) {
            if (entry.isEmpty()) {
                continue;
            }
            try {
                Path candidate = Path.of(entry, name).toAbsolutePath().normalize();
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            } catch (InvalidPathException e) {
                // a malformed entry holds no program
            }
        }
        return Optional.empty();
    }

    /** Runs bubblewrap as a sandboxed server would be run; bounded by {@link #PROBE_TIMEOUT}. */
    private static Probe probe(Path program) {
        List<String> command = List.of(program.toString(), "--die-with-parent", "--new-session", "--unshare-pid",
                "--unshare-ipc", "--unshare-net", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev",
                "--proc", "/proc", "--", program.toString(), "--version");
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        } catch (IOException | RuntimeException e) {
            return new Probe(Verdict.unusable("bubblewrap " + program + " cannot be started: " + e.getMessage()), true);
        }
        try {
            if (!process.waitFor(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                return new Probe(Verdict.unusable("bubblewrap " + program + " did not finish a test run within "
                        + PROBE_TIMEOUT.toSeconds() + " s"), false);
            }
            // A finished process: what it wrote is in the pipe, a few lines at most.
            String output = new String(process.getInputStream().readNBytes(4096), StandardCharsets.UTF_8).trim();
            if (process.exitValue() != 0) {
                String firstLine = output.lines().findFirst().orElse("no message");
                return new Probe(Verdict.unusable("bubblewrap " + program + " cannot create a sandbox here (exit"
                        + " code " + process.exitValue() + ": " + firstLine + ")"), true);
            }
            LOG.debug("bubblewrap {} can run sandboxes: {}", program, output);
            return new Probe(Verdict.usable(program), true);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            return new Probe(Verdict.unusable("the test run of bubblewrap " + program + " was interrupted"), false);
        } catch (IOException e) {
            return new Probe(Verdict.unusable("the test run of bubblewrap " + program + " failed: " + e.getMessage()),
                    false);
        }
    }
}
