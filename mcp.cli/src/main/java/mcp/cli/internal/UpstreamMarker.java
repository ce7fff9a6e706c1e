package mcp.cli.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import mcp.api.ServerConfig;
import mcp.api.StdioServerConfig;
import mcp.api.spi.AuthResolver;

/**
 * Marks every stdio server the command starts with {@value #VARIABLE}{@code =<pid of this mcp-host>} in its
 * environment, so that an {@code mcp-host serve} started as one of them, directly or by a script that discovery
 * cannot see through, knows it and refuses to start ({@link #startedBy}): a gateway inside a gateway would start
 * every server again, and itself again, without end.
 *
 * <p>It is a resolver, the step that completes a config just before its process starts: the connection keeps the
 * config as written, so the tool cache and the pins never see the marker, and only the servers' processes get it (not
 * this process, nor anything else it runs: a secret's command, a browser).
 */
final class UpstreamMarker implements AuthResolver {

    /** The variable's name. */
    static final String VARIABLE = "MCP_HOST_UPSTREAM_OF";

    private final String pid;

    /** @param pid this process's id */
    UpstreamMarker(long pid) {
        this.pid = Long.toString(pid);
    }

    @Override
    public String id() {
        return "mcp-host-upstream-marker";
    }

    @Override
    public ServerConfig resolve(String serverName, ServerConfig config, Context context) {
        if (!(config instanceof StdioServerConfig stdio)) {
            return config;
        }
        Map<String, String> env = new HashMap<>(stdio.env());
        env.put(VARIABLE, pid);
        return stdio.withEnv(env);
    }

    /**
     * @param env an mcp-host's environment
     * @return the pid of the mcp-host whose server this process is, when it is one
     */
    static Optional<String> startedBy(Map<String, String> env) {
        return Optional.ofNullable(env.get(VARIABLE)).map(String::strip).filter(value -> !value.isEmpty());
    }
}
