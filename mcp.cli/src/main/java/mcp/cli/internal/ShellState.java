package mcp.cli.internal;

import java.io.BufferedReader;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import mcp.api.ServerConfig;
import mcp.config.DiscoveryResult;
import mcp.host.LoadResult;
import mcp.host.McpHost;
import mcp.host.ToolSession;
import mcp.manager.ConnectResult;
import mcp.manager.McpManager;

/**
 * The host and session a {@code shell} keeps for its whole life; every shell command works on
 * them instead of starting servers of its own (except {@code test}, which must not disturb them).
 *
 * @param host the shell's host
 * @param session the shell's session, following late servers and tool changes
 * @param plugins the plugins loaded when the shell started, for every host a shell command builds
 * @param input the shell's input, from which a command that asks a person (a call to confirm) reads the answer
 */
record ShellState(McpHost host, ToolSession session, Plugins plugins, BufferedReader input) {

    /**
     * The session's last load, with a fresh discovery: config edits made in the shell show at
     * once, and errors of servers no longer configured are dropped.
     */
    LoadResult currentLoad() {
        LoadResult last = session.lastLoad();
        DiscoveryResult discovery = host.discover();
        if (discovery.hardFailed()) {
            return last;
        }
        Map<String, String> errors = new LinkedHashMap<>(last.errors());
        errors.keySet().retainAll(ServerLookup.names(discovery));
        return new LoadResult(last.tools(), errors, last.manager(), discovery.exaApiKeys(), discovery);
    }

    /**
     * Applies a config edit of one server to the running servers: disconnects it, discovers again,
     * and connects whatever now wins under that name (nothing, if it was removed or disabled). The
     * session re-binds the tools by itself.
     */
    void apply(CliContext context, String name) {
        PrintStream out = context.json() ? context.err() : context.out();
        McpManager manager = host.manager();
        manager.disconnectServer(name);
        DiscoveryResult discovery = CliContext.checked(host.discover());
        ServerConfig config = discovery.configs().get(name);
        if (config == null) {
            out.println("○ " + name + " is not running now");
            return;
        }
        ConnectResult result = Progress.around(context, manager,
                () -> manager.connectServers(Map.of(name, config), Map.of(name, discovery.sources().get(name)),
                        CliContext.pinKey(discovery, name)));
        String error = result.errors().get(name);
        int tools = manager.toolsOf(name).size();
        out.println(error == null ? "● " + name + " connected (" + tools + " tools)" : "✗ " + name + " failed: " + error);
    }
}
