/**
 * Discovery of MCP server configs: {@link mcp.config.Discovery} asks every capability source for
 * its entries, expands {@code ${VAR}} references, runs the config filters, validates, and merges by
 * name (first valid entry wins, no field merging), keeping where each config came from.
 *
 * <p>The exported package {@code mcp.config} holds the discovery entry point and its result types;
 * the filters and the validation rules live in {@code mcp.config.internal}. Sources and filters are
 * found through {@link mcp.api.spi.Providers}, whose module declares the {@code uses} clauses; an
 * embedder can also pass instances and switch {@link java.util.ServiceLoader} off. mcp-host's managed
 * policy ({@code /etc/mcp-host/managed-mcp.json}) is no provider: discovery always reads it, and it binds
 * every source's entries.
 *
 * @uses mcp.api.spi.CapabilitySource (through {@link mcp.api.spi.Providers}) the places server configs are read from
 * @uses mcp.api.spi.ConfigFilter (through {@link mcp.api.spi.Providers}) what drops or rewrites discovered entries
 * @provides mcp.api.spi.CapabilitySource the thirteen built-in sources, highest priority first:
 *     {@code native}, {@code claude}, {@code codex}, {@code gemini}, {@code opencode}, {@code goose},
 *     {@code cursor}, {@code windsurf}, {@code kiro}, {@code zed}, {@code claude-desktop},
 *     {@code vscode}, {@code mcp-json} (in {@code mcp.config.internal.sources})
 * @provides mcp.api.spi.ConfigFilter the built-in filters {@code enabled} (drops {@code enabled: false}),
 *     {@code project} (drops project-level entries when project config is off) and {@code exa}
 *     (drops Exa servers and hands over their API keys)
 */
module mcp.config {
    // Transitive: Discovery's builder and result speak in mcp.api types.
    requires transitive mcp.api;
    // Transitive: approvals of project servers (mcp.consent.Approvals) are a builder setting.
    requires transitive mcp.consent;
    requires org.slf4j;
    // For the Codex source (config.toml).
    requires tools.jackson.dataformat.toml;
    // For the goose source (config.yaml); snakeyaml-engine for the problem text of its parse errors.
    requires tools.jackson.dataformat.yaml;
    requires org.snakeyaml.engine;

    exports mcp.config;

    provides mcp.api.spi.CapabilitySource with
            mcp.config.internal.sources.NativeSource,
            mcp.config.internal.sources.ClaudeSource,
            mcp.config.internal.sources.CodexSource,
            mcp.config.internal.sources.GeminiSource,
            mcp.config.internal.sources.OpenCodeSource,
            mcp.config.internal.sources.GooseSource,
            mcp.config.internal.sources.CursorSource,
            mcp.config.internal.sources.WindsurfSource,
            mcp.config.internal.sources.KiroSource,
            mcp.config.internal.sources.ZedSource,
            mcp.config.internal.sources.ClaudeDesktopSource,
            mcp.config.internal.sources.VsCodeSource,
            mcp.config.internal.sources.McpJsonSource;

    provides mcp.api.spi.ConfigFilter with
            mcp.config.internal.EnabledFilter,
            mcp.config.internal.ProjectFilter,
            mcp.config.internal.ExaFilter;
}
