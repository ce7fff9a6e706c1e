package mcp.api;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What mcp-host's own approval says about a server from a project-level file: such a server starts only
 * once approved for that file, and an approval holds the SHA-256 of the server's definition as the file
 * writes it (command, args, env, cwd, url, headers, type), so a changed definition needs a new approval.
 * Servers of user-level files and of mcp-host's own configuration need none, and have no state.
 *
 * @param kind the state
 * @param definitionHash the SHA-256 (hex) of the definition as the file now writes it
 * @param definition the definition as the file now writes it, one {@code field: value} line each, with
 *     secret-looking values masked: for people, never a secret
 * @param changes for {@link Kind#CHANGED}: what differs from the approved definition, one line each
 *     ({@code args[0]: "a.js" -> "b.js"}), secrets masked; empty otherwise
 * @param reason for people: the state and what to run to change it
 */
public record ApprovalState(Kind kind, String definitionHash, List<String> definition, List<String> changes,
        String reason) {

    /** Validates and copies. */
    public ApprovalState {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(definitionHash, "definitionHash");
        definition = List.copyOf(definition);
        changes = List.copyOf(changes);
        Objects.requireNonNull(reason, "reason");
    }

    /** The states. */
    public enum Kind {
        /** Approved in this definition; the server starts. */
        APPROVED,
        /** Started without a stored approval, because the embedder or {@code --approve-project-servers} trusts the checkout. */
        TRUSTED_CHECKOUT,
        /** Never approved in this file under this name. */
        PENDING,
        /** Approved once, but the file's definition changed since; pending again. */
        CHANGED,
        /** Denied by the user in mcp-host. */
        DENIED;

        /** @return the kind as {@code --json} writes it, e.g. {@code trusted-checkout} */
        public String id() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** @return whether the server starts */
    public boolean startsServer() {
        return kind == Kind.APPROVED || kind == Kind.TRUSTED_CHECKOUT;
    }
}
