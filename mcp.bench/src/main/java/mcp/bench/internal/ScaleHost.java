package mcp.bench.internal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.McpJson;
import mcp.api.ServerConfig;
import mcp.api.StdioServerConfig;
import mcp.api.spi.Providers;
import mcp.api.spi.ToolCacheProvider;
import mcp.bench.ClientRun;
import mcp.manager.BridgedTool;
import mcp.manager.ConnectResult;
import mcp.manager.ManagerListener;
import mcp.manager.McpManager;

/**
 * Startup at scale with mcp-host: N stdio servers through {@link McpManager#connectServers} with the
 * {@code file} tool cache (found by ServiceLoader, as the host finds it); the time until
 * {@code connectServers} returns the tools.
 *
 * <p>Command line: {@code --servers N --slow K --slow-ms MS [--cache-dir DIR] [--gate MS] [--uncached-wait MS] --
 * SERVER COMMAND...}; the first K servers get {@code --init-delay-ms MS}. Without {@code --cache-dir} no
 * cache is used. The uncached wait defaults to 5 minutes, not the manager's 10 s: a cold run measures the time
 * until every server's tools are in, as the SDK runner it is compared with does. Prints
 * {@code BENCH-RESULT {json}}, then closes every server.
 */
public final class ScaleHost {

    private ScaleHost() {
    }

    /**
     * @param args see the class comment
     */
    public static void main(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        int i = 0;
        for (; i + 1 < args.length && !args[i].equals("--"); i += 2) {
            options.put(args[i], args[i + 1]);
        }
        List<String> command = List.of(args).subList(i + 1, args.length);
        int servers = Integer.parseInt(options.getOrDefault("--servers", "1"));
        int slow = Integer.parseInt(options.getOrDefault("--slow", "0"));
        String slowMs = options.getOrDefault("--slow-ms", "2000");
        long gate = Long.parseLong(options.getOrDefault("--gate", "250"));

        long uncachedWait = Long.parseLong(options.getOrDefault("--uncached-wait", "300000"));

        McpManager.Builder builder = McpManager.builder().startupGate(Duration.ofMillis(gate))
                .uncachedWait(Duration.ofMillis(uncachedWait));
        String cacheDir = options.get("--cache-dir");
        if (cacheDir != null) {
            ToolCacheProvider file = Providers.require(ToolCacheProvider.class,
                    Providers.byId(ToolCacheProvider.class,
                            Providers.load(ToolCacheProvider.class, ScaleHost.class.getClassLoader()),
                            ToolCacheProvider::id), "file");
            builder.toolCache(file.open(new ToolCacheProvider.Settings(Optional.of(Path.of(cacheDir)),
                    Path.of(System.getProperty("user.home")), System.getenv(), Duration.ofDays(30))));
        }
        Map<String, ServerConfig> configs = new LinkedHashMap<>();
        for (int s = 0; s < servers; s++) {
            List<String> serverArgs = new ArrayList<>(command.subList(1, command.size()));
            serverArgs.add("--name");
            serverArgs.add("s" + s);
            if (s < slow) {
                serverArgs.add("--init-delay-ms");
                serverArgs.add(slowMs);
            }
            configs.put("s" + s, StdioServerConfig.of(command.get(0), serverArgs));
        }
        int exit;
        long[] firstTools = {0};
        builder.listener(new ManagerListener() {
            @Override
            public void onToolsChanged(String serverName, List<BridgedTool> tools) {
                if (firstTools[0] == 0) {
                    firstTools[0] = System.nanoTime();
                }
            }
        });
        try (McpManager manager = builder.build()) {
            // The JSON mapper is built before the clock starts, as in both real settings: the host's discovery
            // parses the config files with it before it connects, and the SDK runner builds its clients (and
            // their mapper) before its clock starts. Built cold, it takes 0.1-0.4 s on this machine.
            McpJson.mapper();
            long start = System.nanoTime();
            ConnectResult result = manager.connectServers(configs, Map.of());
            double ms = (System.nanoTime() - start) / 1e6;
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("client", "mcp-host");
            out.put("servers", servers);
            out.put("toolsReadyMs", ms);
            out.put("tools", result.tools().size());
            out.put("deferred", result.tools().stream().filter(BridgedTool::deferred).count());
            out.put("errors", result.errors().size());
            if (firstTools[0] != 0) {
                // When the first tool set reached a listener (events are delivered asynchronously).
                out.put("firstToolsMs", (firstTools[0] - start) / 1e6);
            }
            System.out.println(ClientRun.RESULT_PREFIX + ClientRun.toJson(out));
            System.out.flush();
            exit = result.errors().isEmpty() ? 0 : 1;
        }
        System.exit(exit);
    }
}
