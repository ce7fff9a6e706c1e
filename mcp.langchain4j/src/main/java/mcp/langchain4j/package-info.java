/**
 * mcp-host for LangChain4j: {@link mcp.langchain4j.McpToolProvider} hands a {@link mcp.host.ToolSession}'s tools to
 * an AI service as a dynamic tool provider, and {@link mcp.langchain4j.JsonSchemas} converts MCP tools' JSON Schemas
 * into LangChain4j's schema model.
 *
 * <p>LangChain4j's jars are not named modules, so this package runs on the class path; its jar carries the
 * {@code Automatic-Module-Name} {@code mcp.langchain4j} and no descriptor. mcp-host's own modules never read it.
 */
package mcp.langchain4j;
