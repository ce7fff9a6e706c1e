package mcp.api;

import java.util.Objects;

/**
 * A server of a project-level file that mcp-host has no approval for in its current definition, as a
 * {@link mcp.api.spi.ConsentHandler} sees it.
 *
 * @param name the server's name
 * @param source the file it comes from
 * @param location where in the file (a JSON pointer), or {@code ""}
 * @param state {@link ApprovalState.Kind#PENDING} or {@link ApprovalState.Kind#CHANGED}, with the
 *     definition and, when changed, what changed (secrets masked)
 */
public record PendingServer(String name, SourceMetadata source, String location, ApprovalState state) {

    /** Validates. */
    public PendingServer {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(state, "state");
    }
}
