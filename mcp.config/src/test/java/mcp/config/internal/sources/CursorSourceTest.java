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
import mcp.api.spi.CapabilitySource.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CursorSourceTest {

    private final CursorSource source = new CursorSource();

    @Test
    void translatesEditorVariables(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Result result = source.discover(f.context());

        assertEquals(List.of(), result.problems());
        assertEquals(List.of("workspace-tools", "server-name", "remote-server"), names(result));

        ServerSpec workspace = server(result, "workspace-tools");
        assertSource(source, f.project.resolve(".cursor/mcp.json"), Level.PROJECT, "/mcpServers/workspace-tools", workspace);
        assertEquals(List.of(f.project + "/tools/mcp.js"), workspace.args(), "the folder that holds .cursor");
        assertEquals(Map.of("CONFIG", f.home + "/.toolrc", "TOKEN", "${WORKSPACE_TOKEN}"), workspace.env());

        ServerSpec user = server(result, "server-name");
        assertSource(source, f.home.resolve(".cursor/mcp.json"), Level.USER, "/mcpServers/server-name", user);
        assertEquals(Optional.of("npx"), user.command());
        assertEquals(Map.of("API_KEY", "${API_KEY}"), user.env());

        ServerSpec remote = server(result, "remote-server");
        assertEquals(Optional.of("https://api.example.com/mcp"), remote.url());
        assertEquals(Map.of("Authorization", "Bearer ${MY_SERVICE_TOKEN}"), remote.headers());
    }

    @Test
    void aHomeThatIsARepositoryReadsItsFileOnceAsTheUserFile(@TempDir Path dir) throws Exception {
        Fixture f = Fixture.copy(dir);
        java.nio.file.Files.createDirectories(f.home.resolve(".git"));
        Result result = source.discover(new mcp.api.spi.CapabilitySource.Context(f.home, f.home, Map.of()));
        assertEquals(List.of("server-name", "remote-server"), names(result));
        assertEquals(Level.USER, server(result, "server-name").source().level());
    }
}
