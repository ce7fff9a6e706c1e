/**
 * A searchable index of tool definitions: MCP servers' tools (live or deferred) and the application's
 * own, as plain {@link mcp.search.IndexedTool} records grouped by server.
 *
 * <p>{@link mcp.search.ToolIndex#put} replaces one server's tools and {@link mcp.search.ToolIndex#remove}
 * drops them, without touching the other servers' entries, so the index can follow every slice change of
 * a session. {@link mcp.search.ToolIndex#search} answers a query in words (ranked by BM25F over the
 * fields of a tool, with the query's words expanded by a thesaurus) or, written as {@code /pattern/},
 * a regular expression over names and descriptions, bounded in steps so that no pattern can hang it.
 *
 * <p>A second ranking ({@link mcp.search.spi.ToolRanker}) can be fused with the words' by reciprocal rank fusion,
 * under a time bound per query past which the words answer alone; {@link mcp.search.ToolIndex#find} returns a
 * {@link mcp.search.SearchResult} that says which answered. {@link mcp.search.TextEmbeddings} makes such rankers of
 * any text-embedding model.
 */
package mcp.search;
