/**
 * Spring Boot auto-configuration of mcp-host: {@link mcp.springai.autoconfigure.McpHostAutoConfiguration} and its
 * {@code mcp-host.*} properties ({@link mcp.springai.autoconfigure.McpHostProperties}).
 */
package mcp.springai.autoconfigure;
