/**
 * An agent that embeds mcp-host: it discovers the user's MCP servers (or reads one config file), connects them,
 * and calls one tool. {@code mcp.host.defaults} brings the host with its default providers; the logging backend
 * is the application's choice (here slf4j-simple, on stderr).
 */
module com.example.mcp.embed {
    requires mcp.host.defaults;
}
