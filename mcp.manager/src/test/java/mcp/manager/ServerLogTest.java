package mcp.manager;

import static mcp.manager.TestServerProcesses.config;
import static mcp.manager.TestServerProcesses.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import mcp.api.Content;
import mcp.api.LogLevel;
import mcp.api.McpJson;
import mcp.api.ToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A server's log messages through a real session with the testkit server (a child over stdio) in both eras:
 * the level asked for with {@code logging/setLevel} in 2025 and in each request's {@code _meta} in 2026-07-28,
 * the entries kept cleaned and masked, and the manager's log of a server name across its sessions.
 */
class ServerLogTest {

    @TempDir
    Path temp;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeEverything() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        TestServerProcesses.assertNoChildProcessLeft();
    }

    private McpClient connectIn(String era, ClientOptions.Builder options) {
        McpClient client = connect(options.build().serverName(), options, "--era", era, "--features", "logging");
        open.add(client);
        return client;
    }

    private static String log(McpClient client, String level, String message) {
        ToolResult result = client.callToolBlocking("log", McpJson.object().put("level", level).put("message", message)
                .put("logger", "kit"));
        return ((Content.Text) result.content().get(0)).text();
    }

    private static List<String> received(McpClient client) {
        return TestServerProcesses.received(client);
    }

    private static ServerLogEntry next(LinkedBlockingQueue<ServerLogEntry> queue) throws InterruptedException {
        ServerLogEntry entry = queue.poll(10, TimeUnit.SECONDS);
        if (entry == null) {
            throw new AssertionError("no log entry within 10 s");
        }
        return entry;
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void theLevelAskedForReachesTheServerInEachEra(String era) throws Exception {
        McpClient client = connectIn(era, ClientOptions.builder("log-" + era));
        LinkedBlockingQueue<ServerLogEntry> heard = new LinkedBlockingQueue<>();
        client.serverLog().listen(heard::add);
        // The default level is info: the server's own default (warning) is replaced, and debug is not asked for.
        assertEquals("sent info", log(client, "info", "started"));
        assertEquals("not sent: debug is below info", log(client, "debug", "detail"));
        ServerLogEntry started = next(heard);
        assertEquals(LogLevel.INFO, started.level());
        assertEquals(Optional.of("kit"), started.logger());
        assertEquals("started", started.text());

        McpClient.await(client.setLogLevel(LogLevel.DEBUG));
        assertEquals("sent debug", log(client, "debug", "detail"));
        assertEquals("detail", next(heard).text());
        McpClient.await(client.setLogLevel(LogLevel.ERROR));
        assertEquals("not sent: warning is below error", log(client, "warning", "ignored"));
        assertEquals(List.of("started", "detail"), client.serverLog().entries().stream().map(ServerLogEntry::text).toList());

        List<String> methods = received(client);
        if (era.equals("legacy")) {
            assertEquals(3, methods.stream().filter("logging/setLevel"::equals).count(), methods.toString());
        } else {
            assertFalse(methods.contains("logging/setLevel"), methods.toString());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void aConfiguredLevelIsTheFirstOneAsked(String era) throws Exception {
        McpClient client = connectIn(era, ClientOptions.builder("debug-" + era).logLevel(LogLevel.DEBUG));
        assertEquals("sent debug", log(client, "debug", "from the start"));
        LinkedBlockingQueue<ServerLogEntry> heard = new LinkedBlockingQueue<>();
        // Listening first: the entry may be stored after the call's answer, between a look at the entries and a
        // listener's start (it is delivered on the session's event thread). Then it is heard, seen, or both.
        client.serverLog().listen(heard::add);
        client.serverLog().entries().forEach(heard::add);
        assertEquals("from the start", next(heard).text());
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void messagesOutsideAnyRequestArriveToo(String era) throws Exception {
        // 2025: plainly, at the level set; 2026-07-28: on the listen stream, whose _meta carries the level.
        McpClient client = connect("ticks-" + era, ClientOptions.builder("ticks-" + era), "--era", era, "--features",
                "logging", "--log-every", "100");
        open.add(client);
        LinkedBlockingQueue<ServerLogEntry> heard = new LinkedBlockingQueue<>();
        client.serverLog().entries().forEach(heard::add);
        client.serverLog().listen(heard::add);
        assertTrue(next(heard).text().startsWith("tick "));
    }

    @Test
    void aServerWithoutLoggingIsNotAskedAndItsEntriesAreCleanAndMasked() throws Exception {
        McpClient plain = connect("plain", ClientOptions.builder("plain"), "--era", "legacy");
        open.add(plain);
        McpClient.await(plain.setLogLevel(LogLevel.DEBUG)); // nothing to ask: completes at once
        assertFalse(received(plain).contains("logging/setLevel"));

        McpClient client = connectIn("legacy", ClientOptions.builder("hostile"));
        LinkedBlockingQueue<ServerLogEntry> heard = new LinkedBlockingQueue<>();
        client.serverLog().listen(heard::add);
        log(client, "error", "\u001B[2J\u001B[31mtoken=s3cr3t\u001B[0m \u202Ehidden\u202C");
        ServerLogEntry entry = next(heard);
        assertEquals(LogLevel.ERROR, entry.level());
        assertEquals("token=<hidden> hidden", entry.text());
    }

    @Test
    void theManagerKeepsAServerLogUnderItsNameAcrossSessionsAndWritesItsFile() throws Exception {
        ServerLogFiles files = ServerLogFiles.at(temp.resolve("logs"));
        McpManager manager = McpManager.builder().workingDirectory(temp).serverLogFiles(files).build();
        open.add(manager);
        ServerLog log = manager.serverLog("kit");
        for (String era : List.of("legacy", "modern")) {
            manager.connectServers(Map.of("kit", config("--era", era, "--features", "logging")), Map.of());
            McpClient client = McpClient.await(manager.waitForConnection("kit"));
            assertSame(log, client.serverLog());
            log(client, "warning", "from " + era);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (log.entries().stream().noneMatch(e -> e.text().equals("from " + era)) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            manager.disconnectServer("kit");
        }
        assertSame(log, manager.serverLog("kit"));
        assertEquals(List.of("from legacy", "from modern"), log.entries().stream().map(ServerLogEntry::text).toList());
        assertEquals(List.of("from legacy", "from modern"),
                files.read("kit", 0).stream().map(ServerLogEntry::text).toList());
        assertTrue(Files.exists(files.file("kit")));
    }
}
