package mcp.manager.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import mcp.api.McpAuthorizationException;
import mcp.api.McpHttpException;
import mcp.api.McpNotDeliveredException;
import mcp.api.McpProtocolException;
import mcp.api.McpTimeoutException;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcCodecException;

/**
 * Whether a first connect that failed once the transport was open may succeed on another try. A failure is passing
 * when it says the server was not ready or not reachable for a moment: its process exited during its start, its
 * connection was refused, reset or closed, nothing answered in time, or an HTTP server answered 408, 429 or 5xx. It
 * is not when it says something another try cannot change: the server wants an authorization (the user has to log
 * in), an HTTP answer other than those (a wrong URL, credentials refused), a protocol error the server answered, a
 * message that is no JSON-RPC. What comes before the transport is open (a command that does not exist, a working
 * directory that does not, a config the transport refuses, an auth resolver that fails) is never passed here: the
 * manager does not retry it.
 */
public final class StartupFailures {

    /** How deep a chain of causes is read; real chains are a few links long. */
    private static final int MAX_CAUSES = 16;

    private StartupFailures() {
    }

    /**
     * What a failure says about another try.
     *
     * @param retry whether another try may succeed
     * @param why the reason, for the log: what makes it passing, or what another try cannot change
     */
    public record Verdict(boolean retry, String why) {
    }

    /**
     * @param error a failed connect or first listing, as the client reported it (wrappers included)
     * @return whether it is worth another try, and why
     */
    public static Verdict of(Throwable error) {
        List<Throwable> causes = new ArrayList<>();
        for (Throwable cause = error; cause != null && causes.size() < MAX_CAUSES && !causes.contains(cause);
                cause = cause.getCause()) {
            causes.add(cause);
        }
        // The most telling cause decides: a transport that closed because of a 401 is a 401, not a lost connection.
        for (Throwable cause : causes) {
            if (cause instanceof McpAuthorizationException) {
                return new Verdict(false, "the server wants an authorization");
            }
        }
        for (Throwable cause : causes) {
            if (cause instanceof McpHttpException http) {
                return http.isTransient() ? new Verdict(true, "HTTP " + http.status())
                        : new Verdict(false, "HTTP " + http.status() + " does not pass by itself");
            }
        }
        for (Throwable cause : causes) {
            if (cause instanceof McpProtocolException || cause instanceof JsonRpcCodecException) {
                return new Verdict(false, "the server answered with an error");
            }
        }
        for (Throwable cause : causes) {
            if (cause instanceof TransportClosedException) {
                return new Verdict(true, "the server went away during its start");
            }
            if (cause instanceof McpNotDeliveredException) {
                return new Verdict(true, "nothing answered at its address");
            }
            if (cause instanceof McpTimeoutException) {
                return new Verdict(true, "no answer in time");
            }
            if (cause instanceof IOException) {
                return new Verdict(true, "the connection failed");
            }
        }
        return new Verdict(false, "no passing failure");
    }
}
