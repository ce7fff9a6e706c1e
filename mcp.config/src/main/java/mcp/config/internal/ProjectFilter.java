package mcp.config.internal;

import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;
import mcp.api.spi.ConfigFilter;

/**
 * The {@code project} filter: when the option {@value #OPTION} is off, drops every entry read from a
 * project-level file (the working directory and its parents), so that a repository one does not
 * trust cannot start processes. User-level and native entries stay, including one with the same
 * name as a dropped project entry. Discovery reports the dropped ones as
 * {@link mcp.config.SkippedServer.Reason#PROJECT_CONFIG_OFF}.
 */
public final class ProjectFilter implements ConfigFilter {

    /** This filter's id. */
    public static final String ID = "project";

    /** The option that turns project-level config on (default {@code true}). */
    public static final String OPTION = "projectConfig";

    /** For {@link java.util.ServiceLoader}. */
    public ProjectFilter() {
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Decision apply(ServerSpec server, Context context) {
        if (server.source().level() == SourceMetadata.Level.PROJECT && !context.option(OPTION, true)) {
            return Decision.drop("project-level config is off");
        }
        return Decision.keep(server);
    }
}
