package mcp.server;

import java.time.Duration;

/** One way the server is being served (stdio, or an HTTP listener); closing it ends what it serves. */
public interface ServerEndpoint extends AutoCloseable {

    /**
     * Waits until the endpoint ended (the stdio client closed its input, or {@link #close()}).
     *
     * @param timeout the most to wait
     * @return whether it ended within the timeout
     * @throws InterruptedException if interrupted
     */
    boolean awaitClosed(Duration timeout) throws InterruptedException;

    /** Stops serving: the calls in flight are cancelled, every stream and session ends. Idempotent. */
    @Override
    void close();
}
