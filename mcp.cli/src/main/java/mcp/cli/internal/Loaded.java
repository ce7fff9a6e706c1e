package mcp.cli.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import mcp.api.internal.Secrets;
import mcp.config.DiscoveryResult;
import mcp.host.LoadResult;
import mcp.host.McpHost;
import mcp.manager.BridgedTool;
import mcp.manager.McpManager;
import mcp.manager.ServerStatus;

/**
 * Servers a command works with. Closing ends them when the command started them; the shell's
 * servers stay up for the next command.
 */
final class Loaded implements AutoCloseable {

    private final McpHost owned;
    private final LoadResult load;

    private Loaded(McpHost owned, LoadResult load) {
        this.owned = owned;
        this.load = load;
    }

    static Loaded owned(McpHost host, LoadResult load) {
        return new Loaded(host, load);
    }

    static Loaded shared(LoadResult load) {
        return new Loaded(null, load);
    }

    /** @return the host this load owns; empty in the shell, whose host is shared */
    java.util.Optional<McpHost> host() {
        return java.util.Optional.ofNullable(owned);
    }

    McpManager manager() {
        return load.manager();
    }

    DiscoveryResult discovery() {
        return load.discovery();
    }

    /** @return the tools now: in the shell, servers may have connected or changed since the load */
    List<BridgedTool> tools() {
        return load.manager().getTools();
    }

    /**
     * @return the errors of the load (invalid configs, failed connects) that still hold, plus servers
     *     that failed after the startup gate
     */
    Map<String, String> errors() {
        Map<String, String> errors = new LinkedHashMap<>();
        Map<String, ServerStatus> statuses = load.manager().statuses();
        load.errors().forEach((server, error) -> {
            ServerStatus status = statuses.get(server);
            if (status == null || status.state() == ServerStatus.State.FAILED) {
                errors.put(server, Secrets.maskText(error));
            }
        });
        statuses.forEach((server, status) -> {
            if (status.state() == ServerStatus.State.FAILED) {
                errors.putIfAbsent(server, Secrets.maskText(status.error().orElse("failed")));
            }
        });
        return errors;
    }

    @Override
    public void close() {
        if (owned != null) {
            owned.close();
        }
    }
}
