package mcp.config;

import java.util.List;
import mcp.api.McpException;
import mcp.api.ServerConfig;
import mcp.api.ServerSpec;
import mcp.config.internal.Validation;

/**
 * The validation rules of discovery (SPEC §3), for tools that write configs and want to refuse what
 * discovery would reject, with the same messages.
 */
public final class ConfigValidation {

    private ConfigValidation() {
    }

    /**
     * @param spec a server entry as written
     * @return what is wrong with it, each message starting {@code Server "<name>": }; empty when valid
     */
    public static List<String> problems(ServerSpec spec) {
        return Validation.toConfig(spec).errors();
    }

    /**
     * @param spec a server entry as written
     * @return the typed config
     * @throws McpException with the messages joined by {@code ; } when the entry is invalid
     */
    public static ServerConfig toConfig(ServerSpec spec) {
        Validation.Result result = Validation.toConfig(spec);
        return result.config().orElseThrow(() -> new McpException(result.joinedErrors()));
    }
}
