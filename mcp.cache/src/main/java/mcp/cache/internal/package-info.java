/**
 * The implementation of the file tool cache; not exported.
 *
 * <p>{@link mcp.cache.internal.FileToolCacheProvider} resolves the directory from the settings;
 * {@link mcp.cache.internal.FileToolCache} maps server names to file names and reads, writes and
 * removes the files.
 */
package mcp.cache.internal;
