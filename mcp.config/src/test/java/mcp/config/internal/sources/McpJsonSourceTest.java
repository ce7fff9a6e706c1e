package mcp.config.internal.sources;

import static mcp.config.internal.sources.Fixture.assertSource;
import static mcp.config.internal.sources.Fixture.names;
import static mcp.config.internal.sources.Fixture.server;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata.Level;
import mcp.api.spi.CapabilitySource.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class McpJsonSourceTest {

    private final McpJsonSource source = new McpJsonSource();

    @Test
    void readsMcpServersOrElseServersNearestFirst(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Result result = source.discover(f.context());

        assertEquals(List.of(), result.problems());
        // The nested file has mcpServers (its "servers" is ignored); the root file only "servers".
        assertEquals(List.of("plain-nearest", "plain"), names(result));

        ServerSpec nearest = server(result, "plain-nearest");
        assertSource(source, f.app.resolve("mcp.json"), Level.PROJECT, "/mcpServers/plain-nearest", nearest);
        assertEquals(Optional.of("http://localhost:7000/mcp"), nearest.url());

        ServerSpec plain = server(result, "plain");
        assertSource(source, f.project.resolve("mcp.json"), Level.PROJECT, "/servers/plain", plain);
        assertEquals(Optional.of("plain-mcp"), plain.command());
        assertEquals(List.of("serve"), plain.args());
    }

    @Test
    void hasNoUserFile(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        f.write(f.home.resolve("mcp.json"), "{\"mcpServers\": {\"home\": {\"command\": \"x\"}}}");
        assertEquals(List.of("plain-nearest", "plain"), names(source.discover(f.context())));
    }
}
