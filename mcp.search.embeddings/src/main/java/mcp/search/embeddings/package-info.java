/**
 * A local sentence-embedding model as a ranker of mcp-host's tool search: {@link mcp.search.embeddings.LocalEmbeddings}
 * makes the model's {@link mcp.search.TextEmbeddings}, and the {@link mcp.search.spi.ToolRankerProvider} this jar
 * declares in {@code META-INF/services} lets a host find it on the class path. Which model, and why that one:
 * docs/embeddings.md.
 */
package mcp.search.embeddings;
