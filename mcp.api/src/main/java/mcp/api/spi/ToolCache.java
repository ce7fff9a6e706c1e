package mcp.api.spi;

import java.util.List;
import java.util.Optional;
import mcp.api.ToolDefinition;

/**
 * The last known tools of each server, so that a slow server's tools can be offered before it
 * has connected. An entry is keyed by server name and valid only for the same unresolved config,
 * which the caller identifies by a hash.
 *
 * <p>A cache never throws: a failure to read is a miss, a failure to write is a logged warning.
 */
public interface ToolCache {

    /**
     * @param serverName the server's name
     * @param configHash the hash of the server's unresolved config
     * @return the tools stored for this server and hash, unless missing, expired or unreadable
     */
    Optional<List<ToolDefinition>> read(String serverName, String configHash);

    /**
     * @param serverName the server's name
     * @param configHash the hash of the server's unresolved config
     * @param tools the tools to store, replacing what was stored
     */
    void write(String serverName, String configHash, List<ToolDefinition> tools);

    /** @param serverName the server whose entry to drop */
    void remove(String serverName);
}
