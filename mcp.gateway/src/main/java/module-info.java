/**
 * mcp-host as one MCP server: the host's servers, as its consent, the owning tools' decisions and the pins left them,
 * served over {@code mcp.server} to every client at once, in either era. One upstream connection per server is
 * shared by all clients; what a server asks while it works on a call (sampling, elicitation, roots) goes to the
 * client whose call it is. {@link mcp.gateway.Gateway} is the {@link mcp.server.RequestHandler} that does it; the
 * command {@code mcp-host serve} runs one.
 */
module mcp.gateway {
    // Transitive: the API takes the host's manager and gives mcp.server's handler.
    requires transitive mcp.host;
    requires transitive mcp.server;
    requires org.slf4j;
    // The YAML form of the policy file: snakeyaml-engine's own loader, as mcp.manager reads skills' frontmatter.
    requires org.snakeyaml.engine;

    exports mcp.gateway;
}
