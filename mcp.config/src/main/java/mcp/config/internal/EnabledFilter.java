package mcp.config.internal;

import mcp.api.ServerSpec;
import mcp.api.spi.ConfigFilter;

/**
 * The {@code enabled} filter: drops entries that say {@code "enabled": false}. Discovery reports
 * them as {@link mcp.config.SkippedServer.Reason#DISABLED}. An entry without the field is enabled.
 */
public final class EnabledFilter implements ConfigFilter {

    /** This filter's id. */
    public static final String ID = "enabled";

    /** For {@link java.util.ServiceLoader}. */
    public EnabledFilter() {
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Decision apply(ServerSpec server, Context context) {
        return server.enabled().orElse(true) ? Decision.keep(server) : Decision.drop("\"enabled\" is false");
    }
}
