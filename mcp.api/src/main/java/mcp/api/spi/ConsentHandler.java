package mcp.api.spi;

import mcp.api.PendingServer;

/**
 * Decides what mcp-host may not decide alone: whether a project's server may start. An embedder sets
 * one to ask its user in its own UI; the {@linkplain #DENY_AND_REPORT default} starts nothing and
 * reports the server as pending, with what to run to approve it.
 *
 * <p>A handler is asked only where consent is missing: the owning tool's decline (a server declined in
 * Claude Code, a folder not trusted in Codex or Gemini CLI) and an administrator's policy are applied
 * before, and no answer here overrides them. It is called on the thread that discovers (a load or a
 * reload), once per pending server and discovery; it may block to ask someone.
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
}
