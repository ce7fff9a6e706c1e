/**
 * The MCP client protocol: one {@link mcp.manager.McpClient} session per server over any
 * {@link mcp.api.spi.Transport}, with request correlation, the {@code initialize} handshake,
 * answers to server requests, paginated {@code tools/list}, and {@code tools/call} with timeouts,
 * progress and cancellation, and skills (SEP-2640) verified against their entries; and {@link mcp.manager.McpManager}, which runs many servers and withholds
 * tools whose definitions changed since they were pinned ({@link mcp.consent.ToolPins}).
 *
 * @uses mcp.api.spi.TransportProvider
 */
module mcp.manager {
    requires transitive mcp.api;
    // Transitive: the builder takes the pinned tool definitions (mcp.consent.ToolPins).
    requires transitive mcp.consent;
    // The protocol rules the server side shares: versions and eras, the envelope, error codes, result types; and
    // transitive since ClientOptions takes its McpTelemetry.
    requires transitive mcp.protocol;
    requires org.slf4j;
    // JSON Schema 2020-12: structured tool results are checked against the tool's outputSchema.
    requires com.networknt.schema;
    // YAML 1.2: the frontmatter of a skill's SKILL.md is compared with its entry's (the skills extension).
    requires org.snakeyaml.engine;
    // Token estimates of tool definitions and results (TokenCounter): OpenAI's o200k_base encoding.
    requires com.knuddels.jtokkit;

    exports mcp.manager;
    // The command line shows prompt messages as tool results are shown, and cleans server text the same way.
    exports mcp.manager.internal to mcp.host, mcp.cli;

    uses mcp.api.spi.TransportProvider;
}
