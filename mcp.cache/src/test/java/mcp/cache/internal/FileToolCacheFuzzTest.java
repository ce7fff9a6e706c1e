package mcp.cache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.Optional;
import mcp.cache.FileToolCaches;
import mcp.proptest.Trees;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Whatever a cache file holds (another version's, a damaged or a hand-edited one), reading it gives an
 * entry or says what is wrong with it, and never fails otherwise; and an entry it reads, it writes back
 * so that it reads the same tools again.
 *
 * <p>{@code mvn verify} replays the inputs under {@code FileToolCacheFuzzTestInputs/}; {@code JAZZER_FUZZ=1}
 * fuzzes (docs/testing.md).
 */
class FileToolCacheFuzzTest {

    private static Path directory;

    @FuzzTest(maxDuration = "5m")
    void anyFileIsAnEntryOrAStatedProblemAndAnEntryRoundTrips(byte[] file) throws IOException {
        FileToolCache.Entry entry;
        try {
            entry = FileToolCache.decode(file, "fuzz");
        } catch (FileToolCache.InvalidEntry e) {
            return;
        }
        FileToolCache cache = new FileToolCache(directory, FileToolCaches.DEFAULT_TTL,
                Clock.fixed(entry.savedAt(), ZoneOffset.UTC));
        cache.write("fuzz", entry.configHash(), entry.tools());
        assertEquals(Optional.of(entry.tools()), cache.read("fuzz", entry.configHash()));
    }

    @BeforeAll
    static void createDirectory() throws IOException {
        directory = Files.createTempDirectory("mcp-cache-fuzz");
    }

    @AfterAll
    static void deleteDirectory() throws IOException {
        Trees.delete(directory);
    }
}
