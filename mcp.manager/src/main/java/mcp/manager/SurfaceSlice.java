package mcp.manager;

import java.util.Objects;
import mcp.api.ServerSurface;

/**
 * One server's resources, resource templates and prompts in a {@link McpManager}, beside its tools: live once
 * the server listed them, or deferred (from the tool cache while the server connects, or its last ones while it
 * reconnects); a read or a prompt of a deferred server waits for it within the server's timeout, as a deferred
 * tool's call does. Titles and descriptions are cleaned and bounded as tool descriptions are.
 *
 * @param server the server's name
 * @param deferred whether the server is not connected yet (or again)
 * @param surface what it offers
 */
public record SurfaceSlice(String server, boolean deferred, ServerSurface surface) {

    /** Checks. */
    public SurfaceSlice {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(surface, "surface");
    }
}
