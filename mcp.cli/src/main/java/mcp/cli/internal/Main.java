package mcp.cli.internal;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.UserDirectories;
import mcp.api.internal.Secrets;
import mcp.api.spi.AuthStorage;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code mcp-host} command. {@link #run} is the whole program without the process around it
 * (streams, environment, directories passed in), so tests run it in-process.
 */
public final class Main {

    private Main() {
    }

    /**
     * Runs {@code mcp-host} and exits with its exit code.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        // Before anything logs: tinylog reads its configuration once, on first use.
        configureLogging(verbose(args));
        // JSON is UTF-8 (RFC 8259), and the status marks need it too, whatever the locale says.
        PrintStream out = utf8(FileDescriptor.out);
        PrintStream err = utf8(FileDescriptor.err);
        Map<String, String> env = System.getenv();
        // This is the process: serve may take over SIGTERM and SIGINT (never in a test's JVM, which runs Main.run).
        StopSignals.enable();
        // The library's rule, so that the command and an embedded host agree on every file.
        // Only when an OTEL_* variable asks for it: then the spans and metrics of this run go where it says.
        AutoCloseable telemetry = OtelSetup.start(env);
        int exitCode = run(args, out, err, env, Path.of("").toAbsolutePath(), UserDirectories.home(env), System.in);
        try {
            telemetry.close();
        } catch (Exception e) {
            err.println("mcp-host: the last spans and metrics could not be sent: " + e.getClass().getSimpleName());
        }
        out.flush();
        err.flush();
        System.exit(exitCode);
    }

    /**
     * Runs {@code mcp-host} in this JVM. Every server it starts is ended before it returns.
     *
     * @param args the command line
     * @param out for people, or the one JSON document with {@code --json} (UTF-8)
     * @param err diagnostics (UTF-8)
     * @param env the environment variables
     * @param cwd the start directory
     * @param home the user's home directory
     * @param in the input of {@code shell}
     * @return the exit code: 0 ok, 1 a tool call or test failed, 2 usage or configuration error
     */
    static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env, Path cwd, Path home,
            InputStream in) {
        return run(args, new CliIo(out, err, env, cwd, home, in, System.console() != null), null);
    }

    /**
     * Runs {@code mcp-host} in this JVM with these streams and, for tests, this credential store.
     *
     * @param args the command line
     * @param io the streams and the environment
     * @param authStorage where {@code auth} keeps credentials, or {@code null} for the {@code file} store
     * @return the exit code
     */
    static int run(String[] args, CliIo io, AuthStorage authStorage) {
        McpHostCommand root = new McpHostCommand(io, null);
        root.authStorage = authStorage;
        return execute(root, args);
    }

    /** Parses and runs one command line against this root (the shell runs each of its lines this way). */
    static int execute(McpHostCommand root, String[] args) {
        CliIo io = root.io();
        CommandLine commandLine = new CommandLine(root);
        McpHostCommand.addSubcommands(commandLine, args);
        commandLine.setOut(new PrintWriter(new OutputStreamWriter(io.out(), StandardCharsets.UTF_8), true));
        commandLine.setErr(new PrintWriter(new OutputStreamWriter(io.err(), StandardCharsets.UTF_8), true));
        commandLine.setParameterExceptionHandler((error, arguments) -> usageError(io, error, arguments));
        commandLine.setExecutionExceptionHandler((error, command, parsed) -> failure(root, error));
        // Only reached if a handler itself fails: still a documented code.
        commandLine.setExitCodeExceptionMapper(error -> error instanceof ParameterException ? ExitCodes.USAGE
                : error instanceof CliException cli ? cli.exitCode() : ExitCodes.FAILURE);
        try {
            return commandLine.execute(args);
        } finally {
            commandLine.getOut().flush();
            commandLine.getErr().flush();
            io.out().flush();
            io.err().flush();
        }
    }

    /** Picocli could not parse the line: say what is wrong and where help is, exit 2. */
    private static int usageError(CliIo io, ParameterException error, String[] arguments) {
        CommandLine command = error.getCommandLine();
        PrintWriter err = command.getErr();
        err.println("mcp-host: " + error.getMessage());
        UnmatchedArgumentException.printSuggestions(error, err);
        err.println("Try '" + command.getCommandSpec().qualifiedName() + " --help' for more information.");
        err.flush();
        if (jsonRequested(arguments)) {
            printJsonError(io.out(), error.getMessage());
        }
        return ExitCodes.USAGE;
    }

    /** A command failed: its message on stderr (and as JSON with {@code --json}), and its exit code. */
    private static int failure(McpHostCommand root, Exception error) {
        CliIo io = root.io();
        int exitCode;
        String message;
        if (error instanceof CliException cli) {
            exitCode = cli.exitCode();
            message = cli.getMessage();
        } else if (error instanceof McpException) {
            // What the host throws before any server runs is about configuration (providers, files).
            exitCode = ExitCodes.USAGE;
            message = error.getMessage();
        } else {
            exitCode = ExitCodes.FAILURE;
            message = "unexpected error: " + error;
            if (root.verbose) {
                error.printStackTrace(io.err());
            }
        }
        // A message may quote a command line or a URL (a foreign server's add line): secrets masked.
        message = Secrets.maskText(message);
        io.err().println("mcp-host: " + message);
        if (root.json) {
            printJsonError(io.out(), message);
        }
        return exitCode;
    }

    private static void printJsonError(PrintStream out, String message) {
        ObjectNode document = McpJson.object();
        document.put("error", message);
        out.println(McpJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(document));
    }

    /** Whether {@code --json} was asked for before {@code --}, when parsing failed before it was read. */
    private static boolean jsonRequested(String[] arguments) {
        for (String argument : arguments) {
            if (argument.equals("--")) {
                return false;
            }
            if (argument.equals("--json")) {
                return true;
            }
        }
        return false;
    }

    private static boolean verbose(String[] arguments) {
        for (String argument : arguments) {
            if (argument.equals("--")) {
                return false;
            }
            if (argument.equals("-v") || argument.equals("--verbose")) {
                return true;
            }
        }
        return false;
    }

    /** Tinylog on stderr, warnings only (debug with {@code -v}): stdout belongs to the output. */
    private static void configureLogging(boolean verbose) {
        System.setProperty("tinylog.writer", "console");
        System.setProperty("tinylog.writer.stream", "err");
        System.setProperty("tinylog.writer.level", verbose ? "debug" : "warn");
        System.setProperty("tinylog.writer.format", "{level}: {message}");
    }

    private static PrintStream utf8(FileDescriptor descriptor) {
        return new PrintStream(new BufferedOutputStream(new FileOutputStream(descriptor)), true, StandardCharsets.UTF_8);
    }
}
