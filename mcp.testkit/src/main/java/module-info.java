/**
 * A small MCP server over stdio ({@link mcp.testkit.TestServer}) that tests and benchmarks run as
 * a child process, with switchable faults, and {@link mcp.testkit.TestServers} to build its command line.
 */
module mcp.testkit {
    requires tools.jackson.databind;

    exports mcp.testkit;
}
