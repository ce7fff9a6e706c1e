package mcp.cli.internal;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import mcp.api.McpJson;
import mcp.api.ServerConfig;
import mcp.api.SourceMetadata;
import mcp.api.internal.Secrets;
import mcp.config.DiscoveryResult;
import mcp.host.McpHost;
import mcp.manager.ConnectResult;
import mcp.manager.ServerStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code test}: connects one server on its own and waits for it. The tool cache is off and the first connect is
 * waited for past the wait for uncached servers and through its retries, so there is no early return at the startup
 * gate: the answer is about the server, not the cache.
 */
@Command(name = "test", description = {
    "Connect one server (initialize and tools/list), wait for it, and report.",
    "Exit 1 when it cannot connect."})
final class TestCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @Parameters(index = "0", paramLabel = "NAME", description = "The server.")
    String name;

    @Override
    public Integer call() {
        CliContext context = root.context();
        // A host of its own even in the shell: testing must not disturb the shell's servers.
        try (McpHost host = context.newHost(context.hostBuilder().cache(false))) {
            DiscoveryResult discovery = CliContext.checked(host.discover());
            Map.Entry<ServerConfig, SourceMetadata> server = ServerLookup.find(discovery, name);
            long start = System.nanoTime();
            ConnectResult result = Progress.around(context, host.manager(), () -> {
                ConnectResult connected = host.manager().connectServers(Map.of(name, server.getKey()),
                        Map.of(name, server.getValue()), CliContext.pinKey(discovery, name));
                // The answer is about the server, not about a session's start: past the wait for uncached servers,
                // and through the retries of its first connect, within the bound of that connect.
                host.manager().awaitConnect(name, Optional.empty()).join();
                return connected;
            });
            long millis = (System.nanoTime() - start) / 1_000_000;
            String error = result.errors().get(name);
            ServerStatus status = host.manager().status(name);
            if (error == null && status.state() != ServerStatus.State.CONNECTED) {
                error = status.error().orElse("still " + status.state().name().toLowerCase(Locale.ROOT) + " after " + millis + " ms");
            }
            error = Secrets.maskText(error);
            int tools = host.manager().toolsOf(name).size();
            if (context.json()) {
                ObjectNode document = McpJson.object();
                document.put("name", name);
                document.put("ok", error == null);
                document.put("tools", tools);
                document.put("ms", millis);
                document.put("error", error);
                context.printJson(document);
            } else if (error == null) {
                context.out().println("OK: " + tools + " tools in " + millis + " ms");
            } else {
                context.out().println("FAILED: " + error);
            }
            return error == null ? ExitCodes.OK : ExitCodes.FAILURE;
        }
    }
}
