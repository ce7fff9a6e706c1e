/**
 * Public value types of mcp-host: server configurations (one record per transport kind), source
 * metadata, the per-tool decisions of the tool that owns a config ({@link mcp.api.ToolPolicy} of
 * {@link mcp.api.ToolRule}s) and the {@link mcp.api.CallPolicy} they give each tool, tool definitions, tool
 * call results with their content items, prompts, resources, resource templates, completions and their results, skills of the skills extension (entries, loaded skills and their
 * verified files), the user's directories mcp-host keeps its files in ({@link mcp.api.UserDirectories}), and the
 * exception root {@link mcp.api.McpException}. All types are immutable; absent values are {@link java.util.Optional}
 * and collections are never {@code null}.
 */
package mcp.api;
