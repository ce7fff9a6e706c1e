/**
 * mcp-host for Spring AI: {@link mcp.springai.McpToolCallbackProvider} offers every tool of a
 * {@link mcp.host.ToolSession} as a Spring AI {@link org.springframework.ai.tool.ToolCallback}, following the session's
 * changes; {@link mcp.springai.McpApplicationEvents} publishes those changes as Spring application events. Usable
 * without Spring Boot; {@link mcp.springai.autoconfigure} wires it all in a Boot application.
 *
 * <p>Spring's jars are not named modules, so this module runs on the class path, under the automatic module name
 * {@code mcp.springai}; mcp-host's own modules, its command and its runtime image know nothing of Spring.
 */
package mcp.springai;
