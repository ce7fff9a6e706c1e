package mcp.config.internal.sources;

import static mcp.config.internal.sources.Fixture.assertSource;
import static mcp.config.internal.sources.Fixture.names;
import static mcp.config.internal.sources.Fixture.server;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata.Level;
import mcp.api.spi.CapabilitySource.Problem;
import mcp.api.spi.CapabilitySource.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example file is the one of Claude Desktop's documentation
 * (https://modelcontextprotocol.io/docs/develop/connect-local-servers: the filesystem server, and the
 * {@code env} of its Windows troubleshooting note), with a remote entry added, which the file does
 * not support (https://modelcontextprotocol.io/docs/develop/connect-remote-servers).
 */
class ClaudeDesktopSourceTest {

    private static final String EXAMPLE = "claude-desktop/claude_desktop_config.json";

    @Test
    void readsTheDocumentedFileOnLinuxWithRemoteEntriesInactive(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        ClaudeDesktopSource source = new ClaudeDesktopSource(Platform.LINUX);
        Path file = f.install(EXAMPLE, f.home.resolve(".config/Claude/claude_desktop_config.json"));

        Result result = source.discover(f.context());
        assertEquals(List.of(), result.problems());
        assertEquals(List.of("filesystem", "brave-search"), names(result));

        ServerSpec filesystem = server(result, "filesystem");
        assertSource(source, file, Level.USER, "/mcpServers/filesystem", filesystem);
        assertEquals(Optional.empty(), filesystem.type(), "inferred later from command");
        assertEquals(Optional.of("npx"), filesystem.command());
        assertEquals(List.of("-y", "@modelcontextprotocol/server-filesystem", "/Users/username/Desktop",
                "/Users/username/Downloads"), filesystem.args());
        assertEquals(Optional.empty(), filesystem.enabled());

        assertEquals(Map.of("APPDATA", "C:\\Users\\user\\AppData\\Roaming\\", "BRAVE_API_KEY", "${BRAVE_API_KEY}"),
                server(result, "brave-search").env(), "values as written: Claude Desktop expands nothing");

        assertEquals(1, result.inactive().size());
        assertEquals("example-remote", result.inactive().get(0).server().name());
        assertEquals(Optional.of("https://example-server.modelcontextprotocol.io/mcp"),
                result.inactive().get(0).server().url());
        assertEquals("Claude Desktop starts only local servers (\"command\") from claude_desktop_config.json;"
                + " it adds remote servers as connectors in its settings", result.inactive().get(0).reason());
    }

    @Test
    void theFolderIsThePlatformsAndXdgConfigHomeCountsWhenAbsolute(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path xdg = f.root.resolve("xdg");
        Path linux = f.install(EXAMPLE, xdg.resolve("Claude/claude_desktop_config.json"));
        Path mac = f.install(EXAMPLE, f.home.resolve("Library/Application Support/Claude/claude_desktop_config.json"));
        Path appData = f.root.resolve("roaming");
        Path windows = f.install(EXAMPLE, appData.resolve("Claude/claude_desktop_config.json"));
        Path roaming = f.install(EXAMPLE, f.home.resolve("AppData/Roaming/Claude/claude_desktop_config.json"));

        assertEquals(linux, file(new ClaudeDesktopSource(Platform.LINUX), f, Map.of("XDG_CONFIG_HOME", xdg.toString())));
        assertEquals(List.of(), new ClaudeDesktopSource(Platform.LINUX)
                .discover(f.context(Map.of("XDG_CONFIG_HOME", "xdg"))).servers(), "a relative XDG_CONFIG_HOME is ignored");
        assertEquals(mac, file(new ClaudeDesktopSource(Platform.MACOS), f, Map.of("XDG_CONFIG_HOME", xdg.toString())));
        assertEquals(windows, file(new ClaudeDesktopSource(Platform.WINDOWS), f, Map.of("AppData", appData.toString())),
                "Windows spells variable names in any case");
        assertEquals(roaming, file(new ClaudeDesktopSource(Platform.WINDOWS), f, Map.of()));
    }

    private static Path file(ClaudeDesktopSource source, Fixture f, Map<String, String> environment) {
        return server(source.discover(f.context(environment)), "filesystem").source().path().orElseThrow();
    }

    @Test
    void aMalformedFileIsOneProblemAtItsLineAndColumnAndABadEntryOnlyCostsItself(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        ClaudeDesktopSource source = new ClaudeDesktopSource(Platform.LINUX);
        Path file = f.write(f.home.resolve(".config/Claude/claude_desktop_config.json"),
                "{\"mcpServers\": {\n  \"a\": {\"command\": \"npx\" \"args\": []}\n}}");
        assertEquals(List.of(new Problem(file, "2:26", "", "invalid JSON: Unexpected character ('\"' (code 34)):"
                + " was expecting comma to separate Object entries")), source.discover(f.context()).problems());

        f.write(file, "{\"mcpServers\": {\"bad\": {\"command\": \"npx\", \"args\": \"-y\"}, \"good\": {\"command\": \"uvx\"}}}");
        Result result = source.discover(f.context());
        assertEquals(List.of(new Problem(file, "/mcpServers/bad/args", "bad", "\"args\" must be an array of strings, got a string")),
                result.problems());
        assertEquals(List.of("good"), names(result));
    }
}
