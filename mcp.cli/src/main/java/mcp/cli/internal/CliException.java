package mcp.cli.internal;

/**
 * A command ends with a message for the user and an exit code. Thrown by commands, turned into
 * the message on stderr (and {@code {"error": ...}} on stdout with {@code --json}) by {@link Main}.
 */
final class CliException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int exitCode;

    CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    /** A usage or configuration error: exit code {@link ExitCodes#USAGE}. */
    static CliException usage(String message) {
        return new CliException(ExitCodes.USAGE, message);
    }

    int exitCode() {
        return exitCode;
    }
}
