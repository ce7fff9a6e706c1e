package mcp.config;

import java.util.Objects;
import java.util.Optional;
import mcp.api.ApprovalState;
import mcp.api.OwnerState;
import mcp.api.SourceMetadata;

/**
 * A discovered entry that is not among the configs, and why. Every entry a capability source
 * returned is either a config of the {@link DiscoveryResult} or one of these: nothing is lost
 * silently.
 *
 * @param name the server's name as the entry has it (after any filter rewrite)
 * @param source where the entry came from
 * @param location where in the file ({@code ""} when unknown)
 * @param reason the kind of reason
 * @param detail the reason for people (never an env or header value)
 * @param owner what the tool that owns the entry's file decided about it, when its start depends on that
 *     (always present for {@link Reason#NOT_CONSENTED})
 * @param approval mcp-host's approval state of an entry from a project-level file (always present for
 *     {@link Reason#NOT_APPROVED}: pending, changed or denied, with the definition and what changed)
 */
public record SkippedServer(String name, SourceMetadata source, String location, Reason reason, String detail,
        Optional<OwnerState> owner, Optional<ApprovalState> approval) {

    /** Why an entry is not used. */
    public enum Reason {
        /** It says {@code enabled: false} (the {@code enabled} filter). */
        DISABLED,
        /** It comes from a project-level file and project config is off (the {@code project} filter). */
        PROJECT_CONFIG_OFF,
        /** It is an Exa server and Exa filtering is on; its API key, if any, is in the result (the {@code exa} filter). */
        EXA,
        /** It failed validation; the detail holds the messages, and an ERROR problem says the same. */
        INVALID,
        /** A valid entry of the same name came first (higher priority, or earlier in the same source). */
        SHADOWED,
        /** Another {@link mcp.api.spi.ConfigFilter} dropped it; the detail names the filter and its reason. */
        FILTERED,
        /**
         * The tool that owns its file would not start it for this user in this folder (pending approval,
         * declined, disabled for the project, an untrusted folder); the detail is that tool's reason and
         * how to change it. See {@link mcp.api.spi.CapabilitySource.Inactive}.
         */
        NOT_CONSENTED,
        /**
         * It comes from a project-level file and mcp-host has no approval of it in this definition (never
         * approved, changed since, or denied); {@link SkippedServer#approval()} says which and what changed.
         */
        NOT_APPROVED,
        /**
         * It must run in a sandbox (its own {@code sandbox} or {@code sandboxEnabled}, or the host's rule for
         * project servers) and none can be had here: not Linux, no bubblewrap, bubblewrap unable to create one,
         * or a rule bubblewrap cannot enforce; the detail says which. It is never started without its sandbox.
         */
        NO_SANDBOX,
        /**
         * It runs mcp-host's own gateway ({@code mcp-host serve}), directly or through a wrapper, as an agent's config
         * does once the agent is put behind the gateway: mcp-host never connects to itself, and reads that file's
         * other servers itself. It hides no other entry of its name.
         */
        SELF
    }

    /** Validates. */
    public SkippedServer {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(approval, "approval");
    }

    /** An entry skipped before mcp-host's approval was asked. */
    public SkippedServer(String name, SourceMetadata source, String location, Reason reason, String detail,
            Optional<OwnerState> owner) {
        this(name, source, location, reason, detail, owner, Optional.empty());
    }

    /** An entry skipped whatever its owner decided. */
    public SkippedServer(String name, SourceMetadata source, String location, Reason reason, String detail) {
        this(name, source, location, reason, detail, Optional.empty(), Optional.empty());
    }
}
