package mcp.cli;

/**
 * The entry point of the {@code mcp-host} command ({@code java -m mcp.cli/mcp.cli.Main ...}); the command itself
 * lives in {@code mcp.cli.internal}.
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
        mcp.cli.internal.Main.main(args);
    }
}
