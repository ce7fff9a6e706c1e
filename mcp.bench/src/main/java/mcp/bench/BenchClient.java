package mcp.bench;

import java.util.concurrent.CompletableFuture;

/**
 * One MCP client under test, speaking to one stdio server that it starts itself. Implementations
 * wrap mcp-host's client, the official Java SDK's client, or the floor client.
 */
public interface BenchClient extends AutoCloseable {

    /**
     * Starts the server process and completes the handshake ({@code initialize}, then
     * {@code notifications/initialized}).
     *
     * @throws Exception if the server does not come up
     */
    void connect() throws Exception;

    /**
     * Lists every tool, following {@code nextCursor} to the end.
     *
     * @return how many tools the server listed
     * @throws Exception if the listing fails
     */
    int listTools() throws Exception;

    /**
     * Calls the {@code echo} tool.
     *
     * @param message the {@code message} argument
     * @return the text of the first content item of the result; fails if the call fails
     */
    CompletableFuture<String> echo(String message);

    /**
     * Calls the {@code echo} tool and waits: how a sequential caller uses the client. By default
     * {@code echo(message).get(...)}; a client with a blocking API of its own uses that.
     *
     * @param message the {@code message} argument
     * @return the text of the first content item of the result
     * @throws Exception if the call fails or takes more than 30 s
     */
    default String echoBlocking(String message) throws Exception {
        return echo(message).get(30, java.util.concurrent.TimeUnit.SECONDS);
    }

    /**
     * The protocol version the client speaks with the server, once connected: the one agreed in
     * {@code initialize}, or the stateless revision's (2026-07-28) sent with every request.
     *
     * @return the version, or {@code null} when the client does not tell
     */
    default String protocolVersion() {
        return null;
    }

    /** Closes the session and ends the server process. */
    @Override
    void close();
}
