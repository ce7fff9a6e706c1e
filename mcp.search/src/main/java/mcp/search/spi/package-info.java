/**
 * The service interfaces of the tool index: a second-stage {@link mcp.search.spi.ToolRanker} (a dense retriever or
 * a reranker) whose ranking {@link mcp.search.ToolIndex} fuses with its own, and the
 * {@link mcp.search.spi.ToolRankerProvider} that {@link java.util.ServiceLoader} finds, so that a module on the
 * module path (or a jar on the class path) brings a ranker without code.
 */
package mcp.search.spi;
