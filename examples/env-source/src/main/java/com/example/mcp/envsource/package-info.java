/**
 * {@link com.example.mcp.envsource.EnvVarSource}: MCP server configs from the environment variable
 * {@code MCP_HOST_SERVERS}, a small example of a third-party {@link mcp.api.spi.CapabilitySource}.
 */
package com.example.mcp.envsource;
