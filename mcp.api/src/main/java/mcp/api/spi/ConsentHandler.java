package mcp.api.spi;

import mcp.api.PendingServer;
import mcp.api.ToolChanges;

/**
 * Decides what mcp-host may not decide alone: whether a project's server may start. An embedder sets
 * one to ask its user in its own UI; the {@linkplain #DENY_AND_REPORT default} starts nothing and
 * reports the server as pending, with what to run to approve it.
 *
 * <p>A handler is asked only where consent is missing: the owning tool's decline (a server declined in
 * Claude Code, a folder not trusted in Codex or Gemini CLI) and an administrator's policy are applied
 * before, and no answer here overrides them. It is called on the thread that discovers (a load or a
 * reload), once per pending server and discovery; it may block to ask someone.
 *
 * <p>It is also asked, by the manager, about tool definitions that changed since they were pinned
 * ({@link #acceptToolChanges(ToolChanges)}).
 */
@FunctionalInterface
public interface ConsentHandler {

    /** Starts nothing and leaves every pending server pending. */
    ConsentHandler DENY_AND_REPORT = server -> Decision.LEAVE_PENDING;

    /** What the user decided about a pending server. */
    enum Decision {
        /** Start it, and remember the approval of this definition. */
        APPROVE,
        /** Do not start it, and remember that: it is not asked about again until approved explicitly. */
        DENY,
        /** Do not start it this time; ask again next time. */
        LEAVE_PENDING
    }

    /**
     * @param server the pending server: its file, its definition and, when an approved definition
     *     changed, what changed (secrets masked)
     * @return the decision ({@code null} counts as {@link Decision#LEAVE_PENDING}, and so does a throw)
     */
    Decision decide(PendingServer server);

    /**
     * Asked when a server's tool listing differs from its pinned definitions in a way that withholds
     * something from the agent: a changed tool, a new tool in strict mode, changed instructions. Called on
     * one of the manager's worker threads (never a transport's reader, never holding up the startup gate),
     * once per listing that withholds something; it may block to ask someone.
     *
     * @param changes what changed, with readable diffs
     * @return {@code true} to pin the listing as it is now and give the agent its tools; the default,
     *     {@code false}, keeps them withheld and reported (to be accepted with
     *     {@code mcp-host approve NAME --tools})
     */
    default boolean acceptToolChanges(ToolChanges changes) {
        return false;
    }
}
