package mcp.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import mcp.api.McpJson;
import mcp.config.SkippedServer;
import mcp.manager.BridgedTool;
import mcp.manager.McpClient;
import mcp.manager.ToolOutput;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A host whose servers run in sandboxes, end to end: discovery, the stdio transport under bubblewrap, the client.
 * The test server's own tools try to write outside the allowed paths, read a denied path and open a network
 * connection, and each is refused while its other tools keep working; the same calls to the same server without a
 * sandbox succeed, so each check can fail. Tests that run a sandbox are skipped only where bubblewrap is not
 * installed (CI installs it); the one without bubblewrap runs everywhere.
 */
class SandboxedHostTest {

    @TempDir
    Path temp;

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        HostFixtures.awaitNoProcessLeft();
    }

    private static void assumeBubblewrap() {
        String path = System.getenv().getOrDefault("PATH", "");
        Assumptions.assumeTrue(java.util.Arrays.stream(path.split(":"))
                .anyMatch(entry -> !entry.isEmpty() && Files.isExecutable(Path.of(entry, "bwrap"))),
                "bubblewrap (bwrap) is not installed; .ci/run installs it");
    }

    /** A testkit server with the probing tools, and the given {@code sandbox} value (null: none). */
    private static ObjectNode server(ObjectNode servers, String name, Object sandbox) {
        List<String> command = TestServers.command("--features", "sandbox-probes");
        ObjectNode server = servers.putObject(name);
        server.put("command", command.get(0));
        ArrayNode args = server.putArray("args");
        command.subList(1, command.size()).forEach(args::add);
        if (sandbox instanceof Boolean on) {
            server.put("sandbox", on);
        } else if (sandbox != null) {
            server.set("sandbox", McpJson.mapper().readTree(sandbox.toString()));
        }
        return server;
    }

    private McpHost.Builder host(Path config) {
        return McpHost.builder().configFile(config).home(temp.resolve("home")).workingDirectory(temp)
                .cacheDirectory(temp.resolve("cache")).toolPinning(false).serverLogsToFiles(false);
    }

    private static ToolOutput call(LoadResult load, String server, String tool, String arguments) {
        BridgedTool bridged = load.tools().stream().filter(t -> t.serverName().equals(server)
                && t.toolName().equals(tool)).findFirst()
                .orElseThrow(() -> new AssertionError(server + "/" + tool + " not among " + load.tools()));
        return McpClient.await(bridged.call(McpJson.mapper().readTree(arguments)));
    }

    private static String json(String text) {
        return McpJson.mapper().writeValueAsString(text);
    }

    @Test
    void aSandboxedServersForbiddenAttemptsAreRefusedAndItsToolsStillWork() throws Exception {
        assumeBubblewrap();
        Path project = Files.createDirectories(temp.resolve("project"));
        Path outside = Files.createDirectories(temp.resolve("outside"));
        Path secrets = Files.createDirectories(temp.resolve("secrets"));
        Files.writeString(secrets.resolve("key"), "top-secret");
        Files.writeString(temp.resolve("public.txt"), "hello");
        ObjectNode root = McpJson.object();
        ObjectNode servers = root.putObject("mcpServers");
        server(servers, "boxed", "{\"filesystem\": {\"allowWrite\": [\"" + project + "\"], \"denyRead\": [\""
                + secrets + "\"]}}");
        server(servers, "free", null);
        Path config = Files.writeString(temp.resolve("mcp.json"), root.toString());

        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                McpHost host = host(config).build()) {
            acceptForever(listener);
            LoadResult load = host.load();
            assertEquals(Map.of(), load.errors());

            ToolOutput inside = call(load, "boxed", "write_file", "{\"path\": " + json(project + "/made.txt")
                    + ", \"text\": \"data\"}");
            ToolOutput outsideWrite = call(load, "boxed", "write_file", "{\"path\": " + json(outside + "/made.txt")
                    + ", \"text\": \"data\"}");
            ToolOutput secret = call(load, "boxed", "read_file", "{\"path\": " + json(secrets + "/key") + "}");
            ToolOutput publicRead = call(load, "boxed", "read_file", "{\"path\": " + json(temp + "/public.txt")
                    + "}");
            ToolOutput connect = call(load, "boxed", "connect", "{\"host\": \"127.0.0.1\", \"port\": "
                    + listener.getLocalPort() + "}");
            ToolOutput echo = call(load, "boxed", "echo", "{\"message\": \"still here\"}");

            assertEquals("wrote 4 bytes", inside.text());
            assertEquals("data", Files.readString(project.resolve("made.txt")));
            assertTrue(outsideWrite.isError() && outsideWrite.text().contains("Read-only file system"),
                    outsideWrite.text());
            assertFalse(Files.exists(outside.resolve("made.txt")));
            assertTrue(secret.isError() && secret.text().contains("NoSuchFileException"), secret.text());
            assertFalse(secret.text().contains("top-secret"));
            assertEquals("hello", publicRead.text());
            assertTrue(connect.isError() && connect.text().contains("Connection refused"), connect.text());
            assertEquals("still here", echo.text());

            // The same calls without a sandbox: what was refused is possible, so the refusals were the sandbox's.
            assertEquals("wrote 4 bytes", call(load, "free", "write_file", "{\"path\": "
                    + json(outside + "/made.txt") + ", \"text\": \"data\"}").text());
            assertEquals("top-secret", call(load, "free", "read_file", "{\"path\": " + json(secrets + "/key") + "}")
                    .text());
            assertEquals("connected", call(load, "free", "connect", "{\"host\": \"127.0.0.1\", \"port\": "
                    + listener.getLocalPort() + "}").text());
        }
    }

    @Test
    void theProjectRuleLetsAProjectServerWriteTheProjectAndItsOwnStateOnly(@TempDir Path elsewhere)
            throws Exception {
        assumeBubblewrap();
        // The home apart from the project, as it usually is: the project directory is writable as a whole.
        Path home = Files.createDirectories(elsewhere.resolve("home"));
        ObjectNode root = McpJson.object();
        server(root.putObject("mcpServers"), "proj", null);
        Files.createDirectories(temp.resolve(".mcp-host"));
        Files.writeString(temp.resolve(".mcp-host/mcp.json"), root.toString());
        Path state = home.resolve(".local/state/mcp-host/sandboxes/proj/state");

        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                McpHost host = McpHost.builder().home(home).workingDirectory(temp).environment(Map.of(
                        "HOME", home.toString(), "PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin")))
                        .managedPolicy(temp.resolve("no-policy.json")).cacheDirectory(temp.resolve("cache"))
                        .toolPinning(false).serverLogsToFiles(false).approveProjectServers(true)
                        .sandboxProjectServers(true).build()) {
            acceptForever(listener);
            LoadResult load = host.load();
            assertEquals(Map.of(), load.errors());

            assertEquals("wrote 2 bytes", call(load, "proj", "write_file", "{\"path\": "
                    + json(temp + "/notes.txt") + ", \"text\": \"ok\"}").text());
            assertEquals("wrote 2 bytes", call(load, "proj", "write_file", "{\"path\": "
                    + json(state + "/own.txt") + ", \"text\": \"ok\"}").text());
            ToolOutput inHome = call(load, "proj", "write_file", "{\"path\": " + json(home + "/.bashrc")
                    + ", \"text\": \"evil\"}");
            assertTrue(inHome.isError() && inHome.text().contains("Read-only file system"), inHome.text());
            assertFalse(Files.exists(home.resolve(".bashrc")));
            ToolOutput connect = call(load, "proj", "connect", "{\"host\": \"127.0.0.1\", \"port\": "
                    + listener.getLocalPort() + "}");
            assertTrue(connect.isError() && connect.text().contains("Connection refused"), connect.text());
        }
        assertEquals("ok", Files.readString(temp.resolve("notes.txt")));
        assertEquals("ok", Files.readString(state.resolve("own.txt")));
    }

    @Test
    void withoutBubblewrapASandboxedServerIsInactiveAndNeverStarts() throws Exception {
        Path marker = temp.resolve("started");
        ObjectNode root = McpJson.object();
        ObjectNode servers = root.putObject("mcpServers");
        ObjectNode boxed = servers.putObject("boxed");
        // Were it started at all, with or without a sandbox, it would leave the marker.
        boxed.put("command", "/bin/sh");
        boxed.putArray("args").add("-c").add("touch " + marker + "; exec cat");
        boxed.put("sandbox", true);
        Path config = Files.writeString(temp.resolve("mcp.json"), root.toString());

        try (McpHost host = host(config).bubblewrap(temp.resolve("no-such-bwrap")).build()) {
            LoadResult load = host.load();

            assertEquals(List.of(), load.tools());
            SkippedServer skipped = load.discovery().skipped().stream().filter(s -> s.name().equals("boxed"))
                    .findFirst().orElseThrow();
            assertEquals(SkippedServer.Reason.NO_SANDBOX, skipped.reason());
            assertTrue(skipped.detail().contains("bubblewrap " + temp.resolve("no-such-bwrap") + " does not exist"),
                    skipped.detail());
        }
        assertFalse(Files.exists(marker), "the server was started");
    }

    private static void acceptForever(ServerSocket listener) {
        Thread acceptor = new Thread(() -> {
            while (!listener.isClosed()) {
                try (Socket ignored = listener.accept()) {
                    // the connection itself is what a test checks
                } catch (IOException e) {
                    return;
                }
            }
        }, "sandbox-test-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }
}
