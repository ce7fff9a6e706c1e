/**
 * The built-in capability sources; not exported.
 *
 * <p>Each source class only declares where its tool keeps config files and how its server entries
 * differ from the common shape. The shared work lives in package-private helpers:
 * {@link mcp.config.internal.sources.SearchPath} (which directories are searched, and in which
 * order), {@link mcp.config.internal.sources.ConfigReader} (lenient JSON, TOML and YAML reading with
 * positions in problems; {@link mcp.config.internal.sources.YamlTree} resolves YAML aliases), {@link mcp.config.internal.sources.FileSource} (the file loop and the
 * container lookup), {@link mcp.config.internal.sources.ServerEntry} (typed field reads that turn a
 * wrong type into a problem), {@link mcp.config.internal.sources.CommonShape} (the fields most
 * tools share), {@link mcp.config.internal.sources.Variables} (each tool's variables, such as
 * {@code ${env:NAME}} and {@code ${workspaceFolder}}, in mcp-host's {@code ${NAME}}) and
 * {@link mcp.config.internal.sources.Platform} (the per-user folders of desktop tools on each system).
 */
package mcp.config.internal.sources;
