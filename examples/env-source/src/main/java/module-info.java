/**
 * An example plugin for mcp-host: a capability source that reads MCP server configs from the
 * environment variable {@code MCP_HOST_SERVERS}.
 *
 * <p>All a plugin needs is this descriptor (plus, for class-path users, the file
 * {@code META-INF/services/mcp.api.spi.CapabilitySource}); mcp-host finds the source with
 * {@link java.util.ServiceLoader} as soon as the jar is on the module path.
 *
 * @provides mcp.api.spi.CapabilitySource the {@code env} source
 */
module com.example.mcp.envsource {
    // mcp.api brings Jackson's databind with it (requires transitive), which parses the JSON here.
    requires mcp.api;

    provides mcp.api.spi.CapabilitySource with com.example.mcp.envsource.EnvVarSource;
}
