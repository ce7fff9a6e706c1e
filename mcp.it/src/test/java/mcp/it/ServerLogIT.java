package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mcp.api.LogLevel;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.it.Cli.Run;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.manager.ServerLogEntry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Server log messages ({@code notifications/message}) from servers nobody on this team wrote: the official
 * {@code server-everything} (its simulated logging, random levels, after {@code logging/setLevel}) through the API
 * and through the CLI image ({@code call}, then {@code logs} reading the file after that process ended), and the
 * MCP Python SDK's server ({@code era_server.py}'s {@code chatter}, logging through the SDK's context) in the
 * stateless era, where the level travels in each request's {@code _meta}, and pinned to 2025-11-25.
 */
class ServerLogIT {

    private static final Path EVERYTHING = EraPeer.INTEROP
            .resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    /** server-everything's simulated messages: "Debug-level message", ..., "Alert level-message". */
    private static final Pattern SIMULATED = Pattern.compile("([A-Z][a-z]+)[ -]level[ -]message.*");

    @TempDir
    Path temp;

    private final List<McpClient> clients = new ArrayList<>();

    @AfterEach
    void closeAll() throws InterruptedException {
        EraPeer.closeAndAssertNoChildLeft(clients);
    }

    private static ServerLogEntry next(LinkedBlockingQueue<ServerLogEntry> queue, String what) throws InterruptedException {
        ServerLogEntry entry = queue.poll(15, TimeUnit.SECONDS);
        if (entry == null) {
            throw new AssertionError("no log message within 15 s: " + what);
        }
        return entry;
    }

    private static void assertSimulated(ServerLogEntry entry) {
        Matcher m = SIMULATED.matcher(entry.text());
        assertTrue(m.matches(), entry.toString());
        // The level the server gave is the one its text names.
        assertEquals(m.group(1).toLowerCase(java.util.Locale.ROOT), entry.level().wire(), entry.toString());
    }

    @Test
    void serverEverythingLogsThroughTheApiAtTheLevelAskedFor() throws Exception {
        assertTrue(Files.isRegularFile(EVERYTHING), EVERYTHING + " is missing: run interop/install.sh");
        // Debug: every level of its random ones is asked for, so its first message comes at once.
        McpClient client = EraPeer.connect("everything", StdioServerConfig.of("node", List.of(EVERYTHING.toString(), "stdio")),
                ClientOptions.builder("everything").logLevel(LogLevel.DEBUG), temp, clients);
        assertTrue(client.initializeResult().capabilities().has("logging"));
        LinkedBlockingQueue<ServerLogEntry> heard = new LinkedBlockingQueue<>();
        client.serverLog().listen(heard::add);
        McpClient.await(client.callTool("toggle-simulated-logging", McpJson.object()));
        assertSimulated(next(heard, "server-everything's simulated logging"));
        McpClient.await(client.callTool("toggle-simulated-logging", McpJson.object()));
    }

    @Test
    void serverEverythingLogsThroughTheCliAndTheFileOutlivesTheProcess() throws Exception {
        assertTrue(Files.isRegularFile(EVERYTHING), EVERYTHING + " is missing: run interop/install.sh");
        Path home = Files.createDirectories(temp.resolve("home"));
        Path project = Files.createDirectories(temp.resolve("project"));
        Path config = temp.resolve("everything.json");
        Files.writeString(config, "{\"mcpServers\": {\"everything\": {\"command\": \"node\", \"args\": ["
                + McpJson.mapper().writeValueAsString(EVERYTHING.toString()) + ", \"stdio\"]}}}");
        // The CLI asks for info and above; the one message a run gets at once has a random level (1 in 8 is
        // debug), so a few runs may be needed: each is a process of its own, gone before the next.
        List<String> stored = List.of();
        for (int attempt = 0; attempt < 8 && stored.isEmpty(); attempt++) {
            Run call = Cli.run(home, project, Map.of(), "call", "mcp_everything_toggle_simulated_logging",
                    "--config", config.toString(), "--no-cache");
            assertEquals(0, call.exitCode(), call::toString);
            stored = Cli.run(home, project, Map.of(), "logs", "everything", "--json", "-n", "0").out().lines().toList();
        }
        assertFalse(stored.isEmpty(), "no message stored after 8 runs");
        Path file = home.resolve(".local/state/mcp-host/logs/everything.log");
        assertTrue(Files.isRegularFile(file));
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        JsonNode line = McpJson.mapper().readTree(stored.get(stored.size() - 1));
        assertTrue(SIMULATED.matcher(line.path("data").asString()).matches(), line.toString());
        assertTrue(LogLevel.parse(line.path("level").asString()).orElseThrow().atLeast(LogLevel.INFO), line.toString());
        Run text = Cli.run(home, project, Map.of(), "logs", "everything", "-n", "1");
        assertEquals(0, text.exitCode(), text::toString);
        assertTrue(text.out().strip().endsWith(line.path("data").asString()), text::toString);
        assertTrue(text.out().contains(" " + line.path("level").asString() + " "), text::toString);
    }

    @Test
    void thePythonSdkLogsPerRequestInTheStatelessEra() throws Exception {
        EraPeer peer = EraPeer.python();
        peer.assertInstalled();
        McpClient client = EraPeer.connect("py", peer.stdio(), ClientOptions.builder("py"), temp, clients);
        assertEquals(McpClient.MODERN_PROTOCOL_VERSION, client.initializeResult().protocolVersion());
        LinkedBlockingQueue<ServerLogEntry> heard = new LinkedBlockingQueue<>();
        client.serverLog().listen(heard::add);
        // The SDK sends a request's messages at or above the level of its _meta, and none below.
        chatter(client, "debug", "below the level");
        chatter(client, "warning", "at the level");
        ServerLogEntry entry = next(heard, "the Python SDK's ctx.log");
        assertEquals(new ServerLogEntry(entry.time(), LogLevel.WARNING, Optional.of("era-server"), "at the level"), entry);
        McpClient.await(client.setLogLevel(LogLevel.DEBUG));
        chatter(client, "debug", "now asked for");
        assertEquals("now asked for", next(heard, "debug after setLogLevel").text());
        assertEquals(List.of("at the level", "now asked for"),
                client.serverLog().entries().stream().map(ServerLogEntry::text).toList());
    }

    @Test
    void thePythonSdkLogsInThe2025Era() throws Exception {
        EraPeer peer = EraPeer.python();
        peer.assertInstalled();
        McpClient client = EraPeer.connect("py", peer.stdio(), EraPeer.pinned2025("py"), temp, clients);
        LinkedBlockingQueue<ServerLogEntry> heard = new LinkedBlockingQueue<>();
        client.serverLog().listen(heard::add);
        chatter(client, "error", "in 2025");
        ServerLogEntry entry = next(heard, "the Python SDK's ctx.log in 2025");
        assertEquals(LogLevel.ERROR, entry.level());
        assertEquals("in 2025", entry.text());
    }

    private static void chatter(McpClient client, String level, String message) {
        McpClient.await(client.callTool("chatter", McpJson.object().put("level", level).put("message", message)));
    }
}
