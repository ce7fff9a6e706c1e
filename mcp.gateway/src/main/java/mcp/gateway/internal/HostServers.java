package mcp.gateway.internal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import mcp.config.DiscoveryResult;
import mcp.config.SkippedServer;
import mcp.gateway.ServerControl;
import mcp.host.McpHost;
import mcp.manager.McpManager;
import mcp.manager.ServerStatus;

/**
 * The servers of one host, as a gateway in its own process manages them: a disabled server is disconnected and kept
 * out of each reload until enabled; enabling or reconnecting reloads what changed, which starts it again.
 */
public final class HostServers implements ServerControl {

    private final McpHost host;
    private final Path project;
    private final Set<String> held = ConcurrentHashMap.newKeySet();

    /**
     * @param host the host the gateway serves
     * @param project its working directory, for the approval command
     */
    public HostServers(McpHost host, Path project) {
        this.host = host;
        this.project = project;
    }

    @Override
    public List<Server> servers() {
        McpManager manager = host.manager();
        List<Server> servers = new ArrayList<>();
        manager.statuses().forEach((name, status) -> servers.add(new Server(name, state(status),
                manager.toolsOf(name).size(), status.error())));
        held.stream().sorted().forEach(name -> servers.add(new Server(name, "disabled", 0,
                Optional.of("disabled by a client; manage_server enables it"))));
        pending().forEach((name, command) -> servers.add(new Server(name, "pending approval", 0,
                Optional.of("the user approves it: " + command))));
        return servers;
    }

    @Override
    public Optional<String> refusal(String name) {
        String command = pending().get(name);
        if (command != null) {
            return Optional.of(name + " waits for the user's approval, which a client cannot give: the user runs "
                    + command + ".");
        }
        if (!held.contains(name) && !host.manager().statuses().containsKey(name)) {
            return Optional.of("No MCP server named " + name + "; " + ServerTools.LIST + " gives their names.");
        }
        return Optional.empty();
    }

    @Override
    public String disable(String name) {
        held.add(name);
        host.manager().disconnectServer(name);
        return "Disabled " + name + ": it is stopped and its tools are gone until it is enabled (or the gateway"
                + " restarts).";
    }

    @Override
    public String enable(String name) {
        held.remove(name);
        return restarted(name, "Enabled");
    }

    @Override
    public String reconnect(String name) {
        host.manager().disconnectServer(name);
        return restarted(name, "Reconnected");
    }

    /** Reloads what changed, which starts the server again, and keeps the disabled ones out. */
    private String restarted(String name, String done) {
        host.reloadChanged();
        held.forEach(host.manager()::disconnectServer);
        ServerStatus status = host.manager().status(name);
        return done + " " + name + ": " + state(status) + status.error().map(error -> " (" + error + ")").orElse("")
                + ".";
    }

    /** The project's servers waiting for approval, with the command that approves each. */
    private Map<String, String> pending() {
        DiscoveryResult discovery = host.discover();
        Map<String, String> pending = new LinkedHashMap<>();
        for (SkippedServer skipped : discovery.skipped()) {
            if (skipped.reason() == SkippedServer.Reason.NOT_APPROVED) {
                pending.put(skipped.name(), "`mcp-host approve " + skipped.name() + "` in " + project);
            }
        }
        return pending;
    }

    private static String state(ServerStatus status) {
        return status.state().name().toLowerCase(Locale.ROOT);
    }
}
