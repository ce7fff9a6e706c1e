package mcp.gateway;

import java.util.List;
import java.util.Optional;

/**
 * What a gateway in the deferred mode lets its clients do with the servers behind it ({@link Gateway.Builder#search}):
 * see them with their state, and disable, enable or reconnect one. The gateway's tools for it ask the client's user
 * first where the client can ask; what they change holds for every client of the gateway, until it restarts.
 */
public interface ServerControl {

    /**
     * @param host the host a gateway in its own process serves
     * @param project the host's working directory, named in the command that approves its pending servers
     * @return its servers' control: a disabled server is disconnected and kept out of reloads until enabled
     */
    static ServerControl of(mcp.host.McpHost host, java.nio.file.Path project) {
        return new mcp.gateway.internal.HostServers(host, project);
    }

    /**
     * A server as the clients know it.
     *
     * @param name its name as the clients see it
     * @param state {@code connected}, {@code connecting}, {@code reconnecting}, {@code failed}, {@code stopped} (lazy,
     *     until a call), {@code disabled} (by a client, until enabled) or {@code pending approval}
     * @param tools how many tools it gives
     * @param detail why it is in that state, where there is a why
     */
    record Server(String name, String state, int tools, Optional<String> detail) {
    }

    /** @return the servers in the clients' view, and those a client disabled or that wait for approval */
    List<Server> servers();

    /**
     * @param name a server as the clients see it
     * @return why it cannot be managed from a client (unknown, or waiting for the user's approval), or empty
     */
    Optional<String> refusal(String name);

    /**
     * Stops the server and keeps it stopped until {@link #enable}.
     *
     * @param name a server as the clients see it
     * @return what happened, for the client
     */
    String disable(String name);

    /**
     * Starts again a server that a client disabled, or that failed.
     *
     * @param name a server as the clients see it
     * @return what happened, for the client
     */
    String enable(String name);

    /**
     * Stops the server's process or session and starts it again.
     *
     * @param name a server as the clients see it
     * @return what happened, for the client
     */
    String reconnect(String name);
}
