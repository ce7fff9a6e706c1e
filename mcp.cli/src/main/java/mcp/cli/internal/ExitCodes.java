package mcp.cli.internal;

/** The exit codes of {@code mcp-host}, listed in the {@code --help} footer. */
final class ExitCodes {

    /** Everything worked (per-server errors of {@code tools} and {@code status} are reported, not fatal). */
    static final int OK = 0;

    /** A tool call returned an error or failed, or {@code test} could not connect. */
    static final int FAILURE = 1;

    /** Bad usage (unknown option, tool or server, bad JSON) or bad configuration (invalid or unreadable file). */
    static final int USAGE = 2;

    /**
     * A call its tool's call policy refused: the tool owning the server's config denies the tool, or asks before
     * each call and nobody confirmed it ({@code call} without a terminal or {@code --yes}, or answered no).
     */
    static final int REFUSED = 3;

    private ExitCodes() {
    }
}
