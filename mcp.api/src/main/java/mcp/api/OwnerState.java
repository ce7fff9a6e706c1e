package mcp.api;

import java.util.Locale;
import java.util.Objects;

/**
 * What the tool that owns a config file decided about one of its servers, for the servers whose start
 * depends on such a decision (a Claude Code project server, a Codex project file, any Gemini CLI server
 * under folder trust, a server a managed policy names). Absent for the others: a user's own entry needs
 * no one's consent.
 *
 * @param kind the decision
 * @param reason for people: the tool's state, where it was decided, and how to change it (never an env or
 *     header value)
 */
public record OwnerState(Kind kind, String reason) {

    /** Validates. */
    public OwnerState {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(reason, "reason");
    }

    /** The decisions, as the owning tools name them. */
    public enum Kind {
        /** Approved in the tool (a Claude Code project server); the server starts. */
        APPROVED,
        /** Its folder is trusted in the tool (Codex, Gemini CLI); the server starts. */
        TRUSTED,
        /** Not approved yet; the tool would ask first. */
        PENDING_APPROVAL,
        /** Declined by the user in the tool. */
        DECLINED,
        /** Disabled for this project in the tool. */
        DISABLED_FOR_PROJECT,
        /** The folder is not trusted in the tool, which then starts none of its servers. */
        UNTRUSTED_FOLDER,
        /** Blocked by a policy (an administrator's managed policy, an allow or exclude list). */
        BLOCKED;

        /** @return the kind as {@code list --json} writes it, e.g. {@code pending-approval} */
        public String id() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** @return whether the owning tool would start the server */
    public boolean startsServer() {
        return kind == Kind.APPROVED || kind == Kind.TRUSTED;
    }
}
