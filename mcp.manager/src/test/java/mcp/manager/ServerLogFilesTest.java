package mcp.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import mcp.api.LogLevel;
import mcp.api.McpJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The in-memory ring and the owner-only, rotating, shared log files of servers. */
class ServerLogFilesTest {

    @TempDir
    Path temp;

    private static ServerLogEntry entry(int i) {
        return new ServerLogEntry(Instant.ofEpochSecond(1_800_000_000L + i), LogLevel.INFO, Optional.of("kit"),
                "message " + i);
    }

    @Test
    void theRingKeepsTheNewestUpToItsCapacityAndTellsListenersUntilClosed() {
        ServerLog log = new ServerLog("kit", 3);
        List<String> heard = new ArrayList<>();
        ServerLog.Subscription subscription = log.listen(e -> heard.add(e.text()));
        for (int i = 0; i < 5; i++) {
            log.append(entry(i));
        }
        assertEquals(List.of("message 2", "message 3", "message 4"), log.entries().stream().map(ServerLogEntry::text).toList());
        subscription.close();
        log.append(entry(5));
        assertEquals(5, heard.size());
        assertEquals("message 5", log.entries().get(2).text());
        // A failing listener neither loses the entry nor stops the others.
        List<String> after = new ArrayList<>();
        log.listen(e -> {
            throw new IllegalStateException("boom");
        });
        log.listen(e -> after.add(e.text()));
        log.append(entry(6));
        assertEquals(List.of("message 6"), after);
    }

    @Test
    void filesLiveInTheStateDirectoryWithSafeNames() {
        ServerLogFiles xdg = ServerLogFiles.forUser(Map.of("XDG_STATE_HOME", temp.resolve("state").toString()), temp);
        assertEquals(temp.resolve("state/mcp-host/logs/git.log"), xdg.file("git"));
        ServerLogFiles home = ServerLogFiles.forUser(Map.of("XDG_STATE_HOME", "relative"), temp.resolve("home"));
        assertEquals(temp.resolve("home/.local/state/mcp-host/logs/git.log"), home.file("git"));
        // A name that is no plain file name cannot leave the directory, and two such names never share a file.
        Path odd = xdg.file("../a/b");
        assertEquals(xdg.directory(), odd.getParent());
        assertTrue(odd.getFileName().toString().startsWith("___a_b-"), odd.toString());
        assertNotEquals(xdg.file("../a/b"), xdg.file("../a_b"));
        assertFalse(xdg.file(".hidden").getFileName().toString().startsWith("."));
    }

    @Test
    void entriesAreWrittenOwnerOnlyAndReadBackAfterTheWriterIsGone() throws Exception {
        ServerLogFiles files = ServerLogFiles.at(temp.resolve("logs"));
        ServerLog log = files.open("kit", 10);
        log.append(new ServerLogEntry(Instant.parse("2026-09-01T10:00:00Z"), LogLevel.ERROR, Optional.empty(), "disk full"));
        log.append(entry(1));
        List<ServerLogEntry> read = ServerLogFiles.at(temp.resolve("logs")).read("kit", 0);
        assertEquals(2, read.size());
        assertEquals(new ServerLogEntry(Instant.parse("2026-09-01T10:00:00Z"), LogLevel.ERROR, Optional.empty(),
                "disk full"), read.get(0));
        assertEquals(entry(1), read.get(1));
        assertEquals(List.of(entry(1)), files.read("kit", 1));
        assertEquals(List.of(), files.read("never-ran", 0));
        String line = Files.readAllLines(files.file("kit")).get(0);
        assertEquals("{\"time\":\"2026-09-01T10:00:00Z\",\"level\":\"error\",\"logger\":null,\"data\":\"disk full\"}", line);
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(files.file("kit"))));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(files.directory())));
        }
    }

    @Test
    void aFileIsRotatedAtItsBoundKeepingAFewOlderOnes() throws Exception {
        ServerLogFiles files = ServerLogFiles.at(temp, 2_000);
        ServerLog log = files.open("kit", 10);
        for (int i = 0; i < 400; i++) {
            log.append(entry(i));
        }
        Path file = files.file("kit");
        for (int i = 1; i <= ServerLogFiles.KEPT_FILES; i++) {
            Path rotated = file.resolveSibling("kit.log." + i);
            assertTrue(Files.exists(rotated), rotated.toString());
            assertTrue(Files.size(rotated) <= 2_000 + 200, "rotated just past the bound: " + Files.size(rotated));
        }
        assertFalse(Files.exists(file.resolveSibling("kit.log." + (ServerLogFiles.KEPT_FILES + 1))));
        List<ServerLogEntry> kept = files.read("kit", 0);
        // The newest are kept, in order, and the oldest are gone.
        assertEquals("message 399", kept.get(kept.size() - 1).text());
        assertTrue(kept.size() < 400);
        for (int i = 1; i < kept.size(); i++) {
            assertTrue(kept.get(i).time().isAfter(kept.get(i - 1).time()), "in order at " + i);
        }
    }

    @Test
    void severalWritersOfOneFileNeverTearALine() throws Exception {
        ServerLogFiles files = ServerLogFiles.at(temp, 50_000);
        int writers = 4;
        int each = 300;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                // A log each, as separate processes would have: they share only the file.
                ServerLog log = files.open("shared", 10);
                int writer = w;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        log.append(new ServerLogEntry(Instant.now(), LogLevel.INFO, Optional.of("w" + writer),
                                "writer " + writer + " line " + i + " " + "x".repeat(100)));
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        Path file = files.file("shared");
        List<String> lines = new ArrayList<>();
        for (int i = ServerLogFiles.KEPT_FILES; i >= 0; i--) {
            Path path = i == 0 ? file : file.resolveSibling("shared.log." + i);
            if (Files.exists(path)) {
                lines.addAll(Files.readAllLines(path, StandardCharsets.UTF_8));
            }
        }
        Set<String> seen = new HashSet<>();
        for (String line : lines) {
            // Every line is one whole entry: none torn, none twice.
            assertTrue(McpJson.mapper().readTree(line).path("data").asString().startsWith("writer "), line);
            assertTrue(seen.add(line), "twice: " + line);
        }
        assertTrue(lines.size() > 0);
    }

    @Test
    void aFileThatCannotBeWrittenLeavesTheLogInMemory() throws Exception {
        Path blocker = temp.resolve("not-a-directory");
        Files.writeString(blocker, "a file where the directory should be");
        ServerLog log = ServerLogFiles.at(blocker).open("kit", 10);
        log.append(entry(1));
        log.append(entry(2));
        assertEquals(List.of(entry(1), entry(2)), log.entries());
    }
}
