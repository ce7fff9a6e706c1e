/**
 * What the user approved, kept between runs: approvals of project-level servers bound to the hash of
 * their definition ({@link mcp.consent.Approvals}, {@link mcp.consent.ServerDefinition}), and the pinned
 * tool definitions of every server. Both live in owner-only, atomically written files in mcp-host's state
 * directory ({@code $XDG_STATE_HOME/mcp-host/}, else {@code ~/.local/state/mcp-host/}) and hold no secret
 * value.
 */
module mcp.consent {
    // Transitive: the stores speak in mcp.api types (ApprovalState, ServerSpec, ToolDefinition).
    requires transitive mcp.api;
    requires org.slf4j;

    exports mcp.consent;
}
