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
 * The fixture's entries follow Windsurf's documentation (https://docs.windsurf.com/windsurf/cascade/mcp:
 * {@code serverUrl}, {@code headers} with {@code ${env:...}}, {@code disabled}, {@code disabledTools});
 * the plugins' file is https://docs.windsurf.com/plugins/cascade/mcp.
 */
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

    @Test
    void thePluginsFileIsReadAfterTheEditors(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.write(f.home.resolve(".codeium/windsurf/mcp_config.json"), "{\"mcpServers\": {\"editor\": {\"command\": \"e\"}}}");
        Path plugins = f.write(f.home.resolve(".codeium/mcp_config.json"),
                "{\"mcpServers\": {\"plugin\": {\"serverUrl\": \"https://p/mcp\", \"headers\": {\"Authorization\": \"Bearer ${env:P}\"}}}}");
        Result result = source.discover(f.context());
        assertEquals(List.of("editor", "plugin"), names(result));
        assertSource(source, plugins, Level.USER, "/mcpServers/plugin", server(result, "plugin"));
        assertEquals(Map.of("Authorization", "Bearer ${P}"), server(result, "plugin").headers());
    }

    @Test
    void aServerThatNeedsAFilesContentIsSkipped(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.write(f.home.resolve(".codeium/windsurf/mcp_config.json"), "{\"mcpServers\": {"
                + "\"secret\": {\"command\": \"x\", \"env\": {\"KEY\": \"${file:/run/secrets/key}\"}},"
                + "\"fine\": {\"command\": \"y\", \"args\": [\"${file}\"]}}}");
        Result result = source.discover(f.context());
        assertEquals(List.of(new Problem(file, "/mcpServers/secret/env/KEY", "secret", "server \"secret\" uses"
                + " \"${file:/run/secrets/key}\", a file's content, which mcp-host does not read; set the value in the file"
                + " or an environment variable")), result.problems());
        assertEquals(List.of("fine"), names(result));
        assertEquals(List.of("${file}"), server(result, "fine").args(), "not a file reference: left as written");
    }
}
