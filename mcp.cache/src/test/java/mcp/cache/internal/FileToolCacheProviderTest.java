package mcp.cache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.spi.ToolCacheProvider.Settings;
import mcp.cache.FileToolCaches;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the provider puts the cache: only the settings decide, never the JVM's home or environment. */
class FileToolCacheProviderTest {

    @TempDir
    Path tmp;

    private Path home() {
        return tmp.resolve("home");
    }

    private Path directoryOf(Optional<Path> directory, Map<String, String> environment) {
        Settings settings = new Settings(directory, home(), environment, FileToolCaches.DEFAULT_TTL);
        return ((FileToolCache) new FileToolCacheProvider().open(settings)).directory();
    }

    @Test
    void anExplicitDirectoryWins() {
        Path explicit = tmp.resolve("explicit");
        assertEquals(explicit, directoryOf(Optional.of(explicit), Map.of("XDG_CACHE_HOME", tmp.resolve("xdg").toString())));
    }

    @Test
    void anAbsoluteXdgCacheHomeIsUsed() {
        Path xdg = tmp.resolve("xdg");
        assertEquals(xdg.resolve("mcp-host/tools"), directoryOf(Optional.empty(), Map.of("XDG_CACHE_HOME", xdg.toString())));
    }

    @Test
    void aRelativeOrEmptyXdgCacheHomeIsIgnored() {
        Path fallback = home().resolve(".cache/mcp-host/tools");
        assertEquals(fallback, directoryOf(Optional.empty(), Map.of("XDG_CACHE_HOME", "relative/cache")));
        assertEquals(fallback, directoryOf(Optional.empty(), Map.of("XDG_CACHE_HOME", "")));
        assertEquals(fallback, directoryOf(Optional.empty(), Map.of("XDG_CACHE_HOME", "/bad\0path")));
    }

    @Test
    void withoutXdgCacheHomeTheCacheIsUnderHome() {
        assertEquals(home().resolve(".cache/mcp-host/tools"), directoryOf(Optional.empty(), Map.of()));
        assertEquals(home().resolve(".cache/mcp-host/tools"), FileToolCaches.defaultDirectory(home(), Map.of()));
    }

    @Test
    void theSettingsHomeWinsOverTheHomeVariable() {
        // The host has already applied the home rule; the environment's HOME must not move the cache again.
        Map<String, String> environment = Map.of("HOME", tmp.resolve("elsewhere").toString());
        assertEquals(home().resolve(".cache/mcp-host/tools"), directoryOf(Optional.empty(), environment));
    }

    @Test
    void openingCreatesNothingAndTheFirstWriteCreatesTheDirectory() {
        Settings settings = new Settings(Optional.empty(), home(), Map.of(), FileToolCaches.DEFAULT_TTL);
        var cache = FileToolCaches.provider().open(settings);
        assertFalse(Files.exists(home()));

        cache.write("github", "h", List.of());

        assertTrue(Files.isRegularFile(home().resolve(".cache/mcp-host/tools/github.json")));
        assertEquals(Optional.of(List.of()), cache.read("github", "h"));
    }
}
