package mcp.manager.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import mcp.api.McpAuthorizationException;
import mcp.api.McpException;
import mcp.api.McpHttpException;
import mcp.api.McpNotDeliveredException;
import mcp.api.McpProtocolException;
import mcp.api.McpTimeoutException;
import mcp.api.TransportClosedException;
import org.junit.jupiter.api.Test;

/** What counts as a passing failure of a first connect, as the client and the transports report failures. */
class StartupFailuresTest {

    /** As ClientSession reports a failed connect: its own message around the cause, in a CompletionException. */
    private static Throwable connectFailed(Throwable cause) {
        return new CompletionException(new McpException("Failed to connect to MCP server \"x\": "
                + cause.getMessage(), cause));
    }

    @Test
    void aServerThatWentAwayOrDidNotAnswerInTimeIsPassing() {
        assertTrue(StartupFailures.of(connectFailed(new TransportClosedException(
                "process exited with code 1; stderr: boom"))).retry());
        assertTrue(StartupFailures.of(connectFailed(new McpTimeoutException(Duration.ofSeconds(30)))).retry());
        assertTrue(StartupFailures.of(connectFailed(new McpNotDeliveredException("nothing listens",
                new ConnectException("Connection refused")))).retry());
        assertTrue(StartupFailures.of(connectFailed(new McpException("POST failed: the connection was closed",
                new IOException("Connection reset")))).retry());
    }

    @Test
    void anHttpStatusDecidesEvenWhenTheTransportClosedBecauseOfIt() {
        for (int status : new int[] {408, 429, 500, 502, 503, 504}) {
            assertTrue(StartupFailures.of(connectFailed(new McpHttpException(status, "answered HTTP " + status)))
                    .retry(), "HTTP " + status);
        }
        for (int status : new int[] {400, 401, 403, 404, 405, 200}) {
            StartupFailures.Verdict verdict = StartupFailures.of(connectFailed(new TransportClosedException(
                    "GET answered HTTP " + status, new McpHttpException(status, "GET answered HTTP " + status))));
            assertFalse(verdict.retry(), "HTTP " + status);
            assertEquals("HTTP " + status + " does not pass by itself", verdict.why());
        }
    }

    @Test
    void anAuthorizationAProtocolErrorOrAnythingUnknownIsNotPassing() {
        assertFalse(StartupFailures.of(connectFailed(new TransportClosedException("authorization failed",
                new McpAuthorizationException("login needed", new IOException("refused"))))).retry(),
                "an authorization the user has to give, whatever closed around it");
        assertFalse(StartupFailures.of(connectFailed(new McpProtocolException(-32603, "internal", null))).retry());
        assertFalse(StartupFailures.of(connectFailed(new McpException("Cannot encode a message"))).retry());
        assertFalse(StartupFailures.of(new IllegalStateException("bug")).retry());
    }
}
