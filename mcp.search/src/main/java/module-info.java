/**
 * The tool index of mcp-host (issue 19): search over thousands of tool definitions, so that an agent
 * can be handed a search tool instead of every definition.
 *
 * <p>The exported package {@code mcp.search} holds the index ({@link mcp.search.ToolIndex}) and its
 * plain values ({@link mcp.search.IndexedTool}, {@link mcp.search.Hit}); the analysis (identifier
 * splitting, stop words, the stemmer, the thesaurus), the BM25F scoring and the bounded regex matcher
 * live in {@code mcp.search.internal}. The module needs {@code java.base} only: it knows nothing of
 * MCP sessions, and callers turn their tool definitions into {@link mcp.search.IndexedTool} records.
 */
module mcp.search {
    exports mcp.search;
}
