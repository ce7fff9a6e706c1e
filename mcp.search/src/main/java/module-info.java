/**
 * The tool index of mcp-host (issue 19): search over thousands of tool definitions, so that an agent
 * can be handed a search tool instead of every definition.
 *
 * <p>The exported package {@code mcp.search} holds the index ({@link mcp.search.ToolIndex}), its
 * plain values ({@link mcp.search.IndexedTool}, {@link mcp.search.Hit}, {@link mcp.search.SearchResult}) and
 * {@link mcp.search.TextEmbeddings}, a ranker over any text-embedding function; {@code mcp.search.spi} holds
 * the service interfaces of a second ranking fused with the words'. The analysis (identifier
 * splitting, stop words, the stemmer, the thesaurus), the BM25F scoring, the bounded regex matcher, the
 * fusion and the vector store live in {@code mcp.search.internal}. The module needs {@code java.base} only:
 * it knows nothing of MCP sessions, and callers turn their tool definitions into {@link mcp.search.IndexedTool}
 * records.
 */
module mcp.search {
    exports mcp.search;
    exports mcp.search.spi;
}
