package mcp.bench.sdk;

import io.modelcontextprotocol.client.McpAsyncClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.bench.ClientRun;

/**
 * Startup at scale with the official Java SDK: the same N stdio servers as mcp-host's run, each with
 * its own async client, all initialized and listed in parallel; the time until every server's tools
 * are in hand. The SDK has no tool cache, so slow servers are always waited for.
 *
 * <p>Command line: {@code --servers N --slow K --slow-ms MS -- SERVER COMMAND...}; the first K
 * servers get {@code --init-delay-ms MS}. Prints {@code BENCH-RESULT {json}}.
 */
public final class SdkScale {

    private SdkScale() {
    }

    /**
     * @param args see the class comment
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>();
        int i = 0;
        for (; i + 1 < args.length && !args[i].equals("--"); i += 2) {
            options.put(args[i], args[i + 1]);
        }
        List<String> command = List.of(args).subList(i + 1, args.length);
        int servers = Integer.parseInt(options.getOrDefault("--servers", "1"));
        int slow = Integer.parseInt(options.getOrDefault("--slow", "0"));
        String slowMs = options.getOrDefault("--slow-ms", "2000");

        List<McpAsyncClient> clients = new ArrayList<>();
        for (int s = 0; s < servers; s++) {
            List<String> serverCommand = new ArrayList<>(command);
            serverCommand.add("--name");
            serverCommand.add("s" + s);
            if (s < slow) {
                serverCommand.add("--init-delay-ms");
                serverCommand.add(slowMs);
            }
            clients.add(SdkClient.newClient(serverCommand));
        }
        AtomicInteger tools = new AtomicInteger();
        AtomicInteger errors = new AtomicInteger();
        long start = System.nanoTime();
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (McpAsyncClient client : clients) {
            all.add(client.initialize()
                    .then(client.listTools())
                    .doOnNext(result -> tools.addAndGet(result.tools().size()))
                    .toFuture()
                    .handle((result, error) -> {
                        if (error != null) {
                            errors.incrementAndGet();
                        }
                        return null;
                    }));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        double ms = (System.nanoTime() - start) / 1e6;
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("client", "java-sdk");
        result.put("servers", servers);
        result.put("toolsReadyMs", ms);
        result.put("tools", tools.get());
        result.put("deferred", 0);
        result.put("errors", errors.get());
        System.out.println(ClientRun.RESULT_PREFIX + ClientRun.toJson(result));
        System.out.flush();
        List<CompletableFuture<?>> closes = new ArrayList<>();
        for (McpAsyncClient client : clients) {
            closes.add(client.closeGracefully().toFuture());
        }
        try {
            CompletableFuture.allOf(closes.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            // reported above; the process ends anyway
        }
        System.exit(errors.get() == 0 ? 0 : 1);
    }


}
