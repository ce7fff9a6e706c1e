package mcp.transport.stdio;

import java.time.Duration;
import mcp.api.spi.TransportProvider;
import mcp.transport.stdio.internal.StdioTransportProvider;

/**
 * The stdio transport's id, its fixed limits, and a factory for its provider.
 *
 * <p>The host normally finds the provider with {@link java.util.ServiceLoader}; an embedder that
 * switches discovery off passes {@link #provider()} to the host builder instead.
 *
 * <p>What the transport does, in short:
 * <ul>
 *   <li><b>Spawn.</b> {@code command} + {@code args} are started directly, never through a shell. The
 *       working directory is the config's {@code cwd} (a relative one is resolved against
 *       {@link mcp.api.spi.TransportRequest#workingDirectory()}), else the request's working
 *       directory. The environment is the host's environment plus the config's {@code env} (the
 *       config wins); when the config sets {@code PATH}, a bare command name is looked up on that
 *       {@code PATH} first. A command that cannot start fails {@code open} at once with
 *       {@code Failed to start MCP server "<name>": <command>: <reason>}.</li>
 *   <li><b>stdout.</b> One JSON-RPC message per line ({@code \n}, a trailing {@code \r} is dropped);
 *       blank lines are ignored; a line that is not a JSON-RPC message is skipped, counted and
 *       logged (WARN for the first {@value #SKIPPED_LINES_WARNED}, DEBUG afterwards). A line longer than
 *       {@link mcp.api.spi.TransportRequest#maxMessageBytes()} closes the transport with
 *       {@code message from server exceeds the limit of <n> bytes}; no more than the limit is ever
 *       buffered.</li>
 *   <li><b>stderr.</b> Drained continuously, logged at DEBUG, and kept as a tail of the last
 *       {@value #STDERR_TAIL_LINES} lines (each cut at {@value #STDERR_LINE_MAX_CHARS} characters, at
 *       most {@value #STDERR_TAIL_MAX_CHARS} characters in all) for
 *       {@link mcp.api.spi.Transport#diagnostics()}; the last {@value #STDERR_REASON_LINES} of those
 *       lines go into close reasons.</li>
 *   <li><b>End of the server.</b> When stdout ends or the process exits, the transport closes itself;
 *       the reason reads {@code process exited with code <n>; stderr: <tail>} (the exit code is
 *       awaited for at most {@link #EXIT_CODE_WAIT}).</li>
 *   <li><b>Close.</b> Ends the whole process tree: close stdin, wait; terminate the process and
 *       every known descendant, wait; kill what is left, wait; each wait bounded by
 *       {@link mcp.api.spi.TransportRequest#closeStepTimeout()}. The reason of an asked-for close is
 *       {@code closed by client}. A JVM shutdown hook kills the trees of transports still open. A
 *       server that has not answered any request yet (in its handshake) is terminated at once: no
 *       wait after closing stdin, SIGKILL 200 ms after SIGTERM.</li>
 *   <li><b>Sessions.</b> On Linux with {@code setsid}, the server runs in a session and process group
 *       of its own ({@code setsid} execs it in place), whose members are part of its tree; a watchdog
 *       shell ends the groups if the JVM dies without its shutdown hooks (SIGKILL). Elsewhere, or
 *       with {@code -Dmcp.stdio.sessions=false}, servers start directly.</li>
 *   <li><b>Sandbox.</b> A config with a {@link mcp.api.StdioServerConfig#sandbox() sandbox} runs under bubblewrap
 *       ({@code bwrap}, Linux only) with its rules: everything read-only but its {@code allowWrite} paths and a
 *       private {@code TMPDIR}, its {@code denyRead} paths hidden, no network unless the whole network is granted,
 *       no capability, in a PID namespace that ends with bubblewrap ({@code --die-with-parent}), so the teardown
 *       above ends everything under it. When no sandbox can be had (another system, bubblewrap missing, a rule
 *       bubblewrap cannot enforce) {@code open} fails with
 *       {@code MCP server "<name>" must run in a sandbox, and none can be had: <reason>}: the server is never
 *       started without it. See {@code docs/sandbox.md}.</li>
 * </ul>
 */
public final class StdioTransports {

    /** The provider id, which is also the {@link mcp.api.ServerConfig#type()} it serves. */
    public static final String PROVIDER_ID = "stdio";

    /** How many stderr lines the tail keeps. */
    public static final int STDERR_TAIL_LINES = 50;

    /** How many stderr lines a close reason carries (the newest of the tail). */
    public static final int STDERR_REASON_LINES = 20;

    /** The longest stderr line kept, in characters; longer lines are cut. */
    public static final int STDERR_LINE_MAX_CHARS = 1_000;

    /** The most characters the stderr tail holds in all. */
    public static final int STDERR_TAIL_MAX_CHARS = 16 * 1024;

    /** How many skipped stdout lines per transport are logged at WARN before falling back to DEBUG. */
    public static final int SKIPPED_LINES_WARNED = 5;

    /** How long the transport waits for the exit code once the server's stdout has ended. */
    public static final Duration EXIT_CODE_WAIT = Duration.ofSeconds(1);

    private StdioTransports() {
    }

    /**
     * A new stdio transport provider, the same one {@link java.util.ServiceLoader} finds.
     *
     * @return a provider with id {@value #PROVIDER_ID}
     */
    public static TransportProvider provider() {
        return new StdioTransportProvider();
    }
}
