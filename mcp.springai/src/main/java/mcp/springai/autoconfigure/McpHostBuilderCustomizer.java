package mcp.springai.autoconfigure;

import mcp.host.McpHost;

/**
 * Adjusts the auto-configured host's builder after the {@code mcp-host.*} properties were applied: for what no
 * property covers (capability sources, config filters, transport or auth providers, client settings, call limits,
 * the environment). Every bean of this type is applied, in their {@code @Order}.
 */
@FunctionalInterface
public interface McpHostBuilderCustomizer {

    /** @param builder the builder, with the properties applied */
    void customize(McpHost.Builder builder);
}
