package mcp.springai.autoconfigure;

import java.nio.file.Path;
import java.util.function.Consumer;
import mcp.api.spi.AuthorizationUi;
import mcp.api.spi.ConsentHandler;
import mcp.api.spi.ElicitationUi;
import mcp.config.SkippedServer;
import mcp.host.McpHost;
import mcp.host.ToolSession;
import mcp.springai.McpApplicationEvents;
import mcp.springai.McpToolCallConfirmation;
import mcp.springai.McpToolCallbackProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

/**
 * The user's MCP servers in a Spring Boot application: a {@link McpHost} built from the {@code mcp-host.*}
 * properties ({@link McpHostProperties}), its {@link ToolSession} opened while the context starts (discovery, every
 * server connected in parallel, the startup gate: a server not up by then is served from the tool cache and bound
 * when it arrives, a server that fails is logged and left out), the session's tools as a Spring AI
 * {@link McpToolCallbackProvider}, and the session's changes as application events ({@link McpApplicationEvents}).
 * Closing the context closes the session and the host, which ends every server and its process tree.
 *
 * <p>Beans of the application's that it takes: a {@link ConsentHandler} (asked about project servers not yet
 * approved, and about changed tool definitions), an {@link ElicitationUi}, an {@link AuthorizationUi}, a
 * {@link McpToolCallConfirmation} and any {@link McpHostBuilderCustomizer}. Each bean here backs off when the
 * application defines its own of that type.
 */
@AutoConfiguration
@ConditionalOnClass({McpHost.class, McpToolCallbackProvider.class})
@EnableConfigurationProperties(McpHostProperties.class)
public class McpHostAutoConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(McpHostAutoConfiguration.class);

    /** Creates the auto-configuration; Spring Boot does. */
    public McpHostAutoConfiguration() {
    }

    /**
     * @param properties the {@code mcp-host.*} properties
     * @param consentHandler the application's consent handler, if any
     * @param elicitationUi the application's elicitation UI, if any
     * @param authorizationUi the application's OAuth authorization UI, if any
     * @param customizers the application's builder customizers, in order
     * @return the host; nothing is started until its session opens. Closed with the context
     */
    @Bean
    @ConditionalOnMissingBean
    public McpHost mcpHost(McpHostProperties properties, ObjectProvider<ConsentHandler> consentHandler,
            ObjectProvider<ElicitationUi> elicitationUi, ObjectProvider<AuthorizationUi> authorizationUi,
            ObjectProvider<McpHostBuilderCustomizer> customizers) {
        McpHost.Builder builder = McpHost.builder();
        apply(properties, builder);
        consentHandler.ifAvailable(builder::consentHandler);
        elicitationUi.ifAvailable(builder::elicitationUi);
        authorizationUi.ifAvailable(builder::authorizationUi);
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    /** Every property onto the builder; an unset one leaves the builder's default. */
    static void apply(McpHostProperties properties, McpHost.Builder builder) {
        builder.mcpEnabled(properties.isEnabled())
                .projectConfig(properties.isProjectConfig())
                .exaFilter(properties.isExaFilter())
                .startupGate(properties.getStartupGate())
                .uncachedWait(properties.getUncachedWait())
                .sandboxProjectServers(properties.isSandboxProjectServers())
                .lazy(properties.isLazy())
                .lazyIdleTimeout(properties.getLazyIdleTimeout())
                .serverLogsToFiles(properties.isServerLogsToFiles())
                .keepResultFiles(properties.isKeepResultFiles())
                .cache(properties.getCache().isEnabled())
                .approveProjectServers(properties.getApprovals().isApproveProjectServers())
                .toolPinning(properties.getToolPinning().isEnabled())
                .strictNewTools(properties.getToolPinning().isStrictNewTools())
                .toolSearch(properties.getToolSearch().toToolSearch());
        path(properties.getWorkingDirectory(), builder::workingDirectory);
        path(properties.getHome(), builder::home);
        path(properties.getConfigFile(), builder::configFile);
        path(properties.getManagedPolicy(), builder::managedPolicy);
        path(properties.getResultDirectory(), builder::resultDirectory);
        path(properties.getCache().getDirectory(), builder::cacheDirectory);
        path(properties.getApprovals().getFile(), file -> builder.approvals(mcp.consent.Approvals.at(file)));
    }

    /** Paths are taken as written, relative to the JVM's working directory (Spring's resource rules do not apply). */
    private static void path(String value, Consumer<Path> setter) {
        if (value != null && !value.isBlank()) {
            setter.accept(Path.of(value).toAbsolutePath());
        }
    }

    /**
     * @param host the host
     * @param properties the {@code mcp-host.*} properties
     * @return the session, opened now: the context goes on once the startup gate has passed. Closed with the
     *     context, which closes the host
     */
    @Bean
    @ConditionalOnMissingBean
    public ToolSession mcpToolSession(McpHost host, McpHostProperties properties) {
        ToolSession session = host.openSession();
        session.lastLoad().errors().forEach((server, error) ->
                LOG.warn("MCP server {} is not available: {}", server, error));
        // Only what the user can act on: an approval to give, a sandbox to install. Disabled or shadowed entries are
        // as the user wrote them.
        session.lastLoad().discovery().skipped().stream()
                .filter(skipped -> skipped.reason() == SkippedServer.Reason.NOT_APPROVED
                        || skipped.reason() == SkippedServer.Reason.NO_SANDBOX)
                .forEach(skipped -> LOG.warn("MCP server {} from {} not started ({}): {}", skipped.name(),
                        skipped.location(), skipped.reason(), skipped.detail()));
        LOG.debug("MCP tools at startup: {}", session.tools().size());
        if (properties.isWatchConfigs()) {
            host.watchConfigs((files, result) -> LOG.debug("MCP configs changed ({}): {}", files, result));
        }
        return session;
    }

    /**
     * @param session the session
     * @param confirmation the application's confirmation of calls that the tools' owners want confirmed; without one,
     *     such calls are refused ({@link McpToolCallConfirmation#REFUSE})
     * @return every tool of the session as a Spring AI tool callback, following its changes
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(ToolSession.class)
    public McpToolCallbackProvider mcpToolCallbackProvider(ToolSession session,
            ObjectProvider<McpToolCallConfirmation> confirmation) {
        return new McpToolCallbackProvider(session, tool -> true,
                confirmation.getIfAvailable(() -> McpToolCallConfirmation.REFUSE));
    }

    /**
     * @param session the session
     * @param publisher the context
     * @return the publisher of the session's changes as application events, from the end of the context's start to
     *     the beginning of its close
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(ToolSession.class)
    public McpApplicationEvents mcpApplicationEvents(ToolSession session, ApplicationEventPublisher publisher) {
        return new McpApplicationEvents(session, publisher);
    }
}
