package mcp.bench.internal;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import mcp.api.Content;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.api.spi.Providers;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.bench.ClientRun;
import mcp.manager.ClientListener;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import tools.jackson.databind.JsonNode;

/**
 * One agent of the shared gateway bench ({@link SharedGateways}), in a process of its own: mcp-host's
 * {@link McpClient} (2025-11-25 handshake) over stdio to each command of its spec, all connected at once, as an agent
 * starts its MCP servers. Either each command is a server (the agent runs its own servers) or the one command is
 * {@code mcp-host serve --stdio} (the agent attaches to the user's shared gateway, which runs them).
 *
 * <p>The agent has its tools when every expected server's {@code echo} is listed: {@code echo} itself on a direct
 * connection, {@code <server>_echo} through the gateway. The gateway may answer the first {@code tools/list} with the
 * servers that were up within its startup gate only, so the agent lists again on {@code list_changed} and every
 * 100 ms until they are all there (bounded), and prints {@code TOOLS <count>}. Then it calls each server's {@code echo} once, checks the answers, prints
 * {@code READY {json}}, and holds its sessions until its stdin says something or ends; then closes them and prints
 * {@code BENCH-RESULT {json}}.
 *
 * <p>Command line: {@code --spec FILE}, a JSON object: {@code connections} (a list of {@code {name, command: [...],
 * env: {...}, cwd}}), {@code servers} (the expected server names), {@code gateway} (true: one connection through
 * which every server's echo is {@code <server>_echo}), {@code expectPrefix} (what the echo puts before the message).
 */
public final class AgentClient {

    /** The bound on the wait for every server's tools. */
    private static final long TOOLS_BOUND_MS = 240_000;

    private AgentClient() {
    }

    /**
     * @param args the command line; see the class comment
     */
    public static void main(String[] args) {
        long start = System.nanoTime();
        Map<String, Object> result = new LinkedHashMap<>();
        List<McpClient> open = new ArrayList<>();
        int exit = 0;
        try {
            JsonNode spec = Proc.JSON.readTree(Files.readString(Path.of(Runner.options(args).get("--spec"))));
            boolean gateway = spec.path("gateway").asBoolean();
            String prefix = spec.path("expectPrefix").asString("");
            List<String> servers = new ArrayList<>();
            spec.path("servers").forEach(s -> servers.add(s.asString()));
            Object changed = new Object();
            List<CompletableFuture<McpClient>> connecting = new ArrayList<>();
            for (JsonNode c : spec.path("connections")) {
                connecting.add(connect(c, changed));
            }
            Map<String, McpClient> echoes = new LinkedHashMap<>(); // the tool to call → its session
            List<McpClient> clients = new ArrayList<>();
            for (CompletableFuture<McpClient> future : connecting) {
                McpClient client = future.get(TOOLS_BOUND_MS, TimeUnit.MILLISECONDS);
                open.add(client);
                clients.add(client);
            }
            result.put("connectedMs", (System.nanoTime() - start) / 1e6);
            int lists = 0;
            int tools = 0;
            long deadline = System.nanoTime() + TOOLS_BOUND_MS * 1_000_000;
            if (gateway) {
                McpClient client = clients.get(0);
                Set<String> missing = new TreeSet<>(servers);
                while (true) {
                    List<ToolDefinition> listed = client.listToolsBlocking();
                    lists++;
                    tools = listed.size();
                    for (ToolDefinition tool : listed) {
                        for (String server : servers) {
                            if (tool.name().equals(server + "_echo")) {
                                missing.remove(server);
                            }
                        }
                    }
                    if (missing.isEmpty()) {
                        break;
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("no tools of " + missing + " after " + TOOLS_BOUND_MS + " ms");
                    }
                    synchronized (changed) {
                        changed.wait(100);
                    }
                }
                servers.forEach(server -> echoes.put(server + "_echo", client));
            } else {
                for (int i = 0; i < clients.size(); i++) {
                    List<ToolDefinition> listed = clients.get(i).listToolsBlocking();
                    lists++;
                    tools += listed.size();
                    if (listed.stream().noneMatch(t -> t.name().equals("echo"))) {
                        throw new IllegalStateException(servers.get(i) + " lists no echo");
                    }
                    echoes.put(servers.get(i), clients.get(i));
                }
            }
            result.put("toolsMs", (System.nanoTime() - start) / 1e6);
            result.put("tools", tools);
            result.put("lists", lists);
            System.out.println("TOOLS " + tools);
            System.out.flush();
            long mismatches = 0;
            String firstProblem = null;
            List<CompletableFuture<String>> calls = new ArrayList<>();
            List<String> messages = new ArrayList<>();
            int n = 0;
            for (Map.Entry<String, McpClient> e : echoes.entrySet()) {
                String message = "m" + n++;
                messages.add(message);
                String tool = gateway ? e.getKey() : "echo";
                calls.add(e.getValue().callTool(tool, McpJson.object().put("message", message)).thenApply(AgentClient::text));
            }
            for (int i = 0; i < calls.size(); i++) {
                String text = calls.get(i).get(60, TimeUnit.SECONDS);
                if (!(prefix + messages.get(i)).equals(text)) {
                    mismatches++;
                    firstProblem = firstProblem != null ? firstProblem : "echo " + messages.get(i) + " -> " + text;
                }
            }
            result.put("calledMs", (System.nanoTime() - start) / 1e6);
            result.put("calls", calls.size());
            result.put("mismatches", mismatches);
            result.put("failures", 0L);
            if (firstProblem != null) {
                result.put("firstProblem", firstProblem);
            }
            System.out.println("READY " + ClientRun.toJson(result));
            System.out.flush();
            // Held until the runner has counted and measured: a line or the end of stdin.
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            exit = mismatches == 0 ? 0 : 1;
        } catch (Throwable e) {
            e.printStackTrace();
            result.put("error", String.valueOf(e));
            System.out.println("READY " + ClientRun.toJson(result));
            exit = 1;
        }
        long closing = System.nanoTime();
        open.parallelStream().forEach(McpClient::close);
        result.put("closeMs", (System.nanoTime() - closing) / 1e6);
        System.out.println(ClientRun.RESULT_PREFIX + ClientRun.toJson(result));
        System.out.flush();
        System.exit(exit);
    }

    /** Connects over stdio to the connection's command, with its environment and working directory. */
    private static CompletableFuture<McpClient> connect(JsonNode c, Object changed) {
        List<String> command = new ArrayList<>();
        c.path("command").forEach(a -> command.add(a.asString()));
        Map<String, String> env = new LinkedHashMap<>();
        c.path("env").properties().forEach(e -> env.put(e.getKey(), e.getValue().asString()));
        StdioServerConfig config = StdioServerConfig.of(command.get(0), command.subList(1, command.size())).withEnv(env);
        Path cwd = c.hasNonNull("cwd") ? Path.of(c.path("cwd").asString()) : Path.of("").toAbsolutePath();
        config = config.withCwd(cwd.toString());
        List<TransportProvider> found = Providers.load(TransportProvider.class, AgentClient.class.getClassLoader());
        TransportProvider stdio = Providers.require(TransportProvider.class,
                Providers.byId(TransportProvider.class, found, TransportProvider::id), "stdio");
        String name = c.path("name").asString();
        ClientOptions options = ClientOptions.builder(name).protocolVersion(GatewayClient.PROTOCOL)
                .listener(new ClientListener() {
                    @Override
                    public void onToolsListChanged() {
                        synchronized (changed) {
                            changed.notifyAll();
                        }
                    }
                }).build();
        return McpClient.connect(stdio.open(TransportRequest.of(name, config, cwd)), options);
    }

    private static String text(ToolResult result) {
        return !result.content().isEmpty() && result.content().get(0) instanceof Content.Text text ? text.text() : null;
    }
}
