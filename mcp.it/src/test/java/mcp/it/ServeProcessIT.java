package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import mcp.api.Content;
import mcp.api.HttpServerConfig;
import mcp.api.McpJson;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code mcp-host serve --http} as a process of its own, as a user runs it for every agent: five clients and three
 * stdio servers run exactly three server processes, shared by all; SIGTERM ends the gateway and leaves none of them;
 * a changed config file reaches the clients as a list change, and restarts only what it changed.
 */
class ServeProcessIT {

    private static final List<String> SERVERS = List.of("alpha", "beta", "gamma");

    @TempDir
    Path temp;

    private final List<McpClient> clients = new ArrayList<>();
    private LoopbackServer gateway;

    @AfterEach
    void closeAll() throws Exception {
        for (McpClient client : clients) {
            client.close();
        }
        if (gateway != null) {
            gateway.close();
        }
        EraPeer.assertNoChildLeft();
    }

    @Test
    void aChangedConfigFileReachesTheClientsAsAListChange() throws Exception {
        Path home = Files.createDirectories(temp.resolve("home"));
        Path config = temp.resolve("servers.json");
        ObjectNode servers = McpJson.object();
        servers.set("alpha", entry());
        servers.set("beta", entry());
        Files.writeString(config, McpJson.object().set("mcpServers", servers).toString());
        gateway = new LoopbackServer(port -> List.of("env", "HOME=" + home, Cli.IMAGE.resolve("bin/mcp-host").toString(),
                "--config", config.toString(), "serve", "--http", "--no-token", "--port", Integer.toString(port)));
        java.util.concurrent.CountDownLatch changed = new java.util.concurrent.CountDownLatch(1);
        McpClient client = EraPeer.connect("gateway", HttpServerConfig.of("http://127.0.0.1:" + gateway.port() + "/mcp"),
                ClientOptions.builder("gateway").listener(new mcp.manager.ClientListener() {
                    @Override
                    public void onToolsListChanged() {
                        changed.countDown();
                    }
                }), temp, clients);
        String alphaPid = ((Content.Text) client.callToolBlocking("alpha_pid", McpJson.object()).content().get(0)).text();
        servers.set("gamma", entry());
        Files.writeString(config, McpJson.object().set("mcpServers", servers).toString());
        assertTrue(changed.await(60, TimeUnit.SECONDS), "no list_changed after the config file changed");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (client.listToolsBlocking().stream().noneMatch(tool -> tool.name().equals("gamma_echo"))) {
            assertTrue(System.nanoTime() < deadline, "gamma's tools never came");
            Thread.sleep(200);
        }
        assertEquals(alphaPid, ((Content.Text) client.callToolBlocking("alpha_pid", McpJson.object()).content().get(0))
                .text(), "an unchanged server keeps its process");
    }

    private static ObjectNode entry() {
        List<String> command = TestServers.command();
        ObjectNode entry = McpJson.object().put("command", command.get(0));
        command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        return entry;
    }

    @Test
    void fiveClientsShareThreeServerProcessesAndSigtermLeavesNone() throws Exception {
        Path home = Files.createDirectories(temp.resolve("home"));
        Path config = temp.resolve("servers.json");
        ObjectNode servers = McpJson.object();
        for (String name : SERVERS) {
            List<String> command = TestServers.command();
            ObjectNode entry = servers.putObject(name).put("command", command.get(0));
            command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        }
        Files.writeString(config, McpJson.object().set("mcpServers", servers).toString());
        gateway = new LoopbackServer(port -> List.of("env", "HOME=" + home, Cli.IMAGE.resolve("bin/mcp-host").toString(),
                "--config", config.toString(), "serve", "--http", "--port", Integer.toString(port)));
        String token = Cli.run(home, temp, Map.of(), "serve", "--token").out().strip();
        HttpServerConfig endpoint = HttpServerConfig.of("http://127.0.0.1:" + gateway.port() + "/mcp")
                .withHeaders(Map.of("Authorization", "Bearer " + token));
        for (int i = 0; i < 5; i++) {
            clients.add(EraPeer.connect("gateway", endpoint, ClientOptions.builder("gateway")
                    .protocolVersion(i % 2 == 0 ? McpClient.AUTO : "2025-11-25"), temp, new ArrayList<>()));
        }
        Set<String> pids = new TreeSet<>();
        for (McpClient client : clients) {
            for (String server : SERVERS) {
                pids.add(((Content.Text) client.callToolBlocking(server + "_pid", McpJson.object()).content().get(0))
                        .text());
            }
        }
        assertEquals(3, pids.size(), "every client's calls reach the same three processes: " + pids);
        ProcessHandle serve = gateway.process().toHandle();
        List<ProcessHandle> upstreams = serve.descendants().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().commandLine().orElse("").contains("mcp.testkit.TestServer")).toList();
        assertEquals(3, upstreams.size(), "three server processes, not one per client: " + upstreams);

        for (McpClient client : clients) {
            client.close();
        }
        clients.clear();
        serve.destroy(); // SIGTERM
        assertTrue(serve.onExit().get(30, TimeUnit.SECONDS) != null && !serve.isAlive(), "serve did not end");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (upstreams.stream().anyMatch(ProcessHandle::isAlive)) {
            assertTrue(System.nanoTime() < deadline, "a server outlived the gateway: " + upstreams.stream()
                    .filter(ProcessHandle::isAlive).map(ProcessHandle::pid).toList());
            Thread.sleep(100);
        }
    }
}
