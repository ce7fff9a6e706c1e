package mcp.cli.internal;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * What the process gives a run of the command line. Tests pass their own, so nothing reads the
 * real environment, home or streams behind their back.
 *
 * @param out for people, or the one JSON document with {@code --json}
 * @param err diagnostics, warnings and progress
 * @param env the environment variables
 * @param cwd the directory {@code mcp-host} was started in
 * @param home the user's home directory
 * @param in what {@code shell} reads its commands from
 * @param console whether a person sits at a terminal (progress and the shell prompt only then)
 */
record CliIo(PrintStream out, PrintStream err, Map<String, String> env, Path cwd, Path home, InputStream in,
        boolean console) {

    /** Validates and copies. */
    CliIo {
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(err, "err");
        env = Map.copyOf(env);
        cwd = cwd.toAbsolutePath().normalize();
        home = home.toAbsolutePath().normalize();
        Objects.requireNonNull(in, "in");
    }
}
