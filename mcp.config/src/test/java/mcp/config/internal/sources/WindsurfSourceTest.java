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

class WindsurfSourceTest {

    private final WindsurfSource source = new WindsurfSource();

    @Test
    void mapsServerUrlAndDisabled(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Result result = source.discover(f.context());

        assertEquals(List.of(), result.problems());
        assertEquals(List.of("project-windsurf", "github", "figma"), names(result));

        ServerSpec project = server(result, "project-windsurf");
        assertSource(source, f.project.resolve(".windsurf/mcp_config.json"), Level.PROJECT, "/mcpServers/project-windsurf", project);
        assertEquals(Optional.of(true), project.enabled(), "disabled: false");

        Path userFile = f.home.resolve(".codeium/windsurf/mcp_config.json");
        ServerSpec github = server(result, "github");
        assertSource(source, userFile, Level.USER, "/mcpServers/github", github);
        assertEquals(Optional.of(false), github.enabled(), "disabled: true");
        assertEquals(List.of("create_issue"), github.disabledTools());
        assertEquals(Map.of("GITHUB_PERSONAL_ACCESS_TOKEN", "${GITHUB_TOKEN}"), github.env());

        ServerSpec figma = server(result, "figma");
        assertEquals(Optional.of("https://mcp.figma.com/sse"), figma.url(), "serverUrl");
        assertEquals(Optional.empty(), figma.type());
        assertEquals(Map.of("Authorization", "Bearer ${FIGMA_TOKEN}"), figma.headers());
    }

    @Test
    void enabledAndDisabledTogetherTurnTheServerOffWhenEitherSaysOff(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.write(f.project.resolve(".windsurf/mcp_config.json"), "{\"mcpServers\": {"
                + "\"a\": {\"command\": \"a\", \"enabled\": true, \"disabled\": true},"
                + "\"b\": {\"command\": \"b\", \"enabled\": false, \"disabled\": false},"
                + "\"c\": {\"command\": \"c\", \"enabled\": true, \"disabled\": false},"
                + "\"d\": {\"serverUrl\": \"http://new\", \"url\": \"http://old\"}}}");
        Result result = source.discover(f.context());
        assertEquals(Optional.of(false), server(result, "a").enabled());
        assertEquals(Optional.of(false), server(result, "b").enabled());
        assertEquals(Optional.of(true), server(result, "c").enabled());
        assertEquals(Optional.of("http://new"), server(result, "d").url());
    }
}
