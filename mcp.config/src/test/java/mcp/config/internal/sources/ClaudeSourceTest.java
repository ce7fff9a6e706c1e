package mcp.config.internal.sources;

import static mcp.config.internal.sources.Fixture.assertSource;
import static mcp.config.internal.sources.Fixture.names;
import static mcp.config.internal.sources.Fixture.server;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
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

class ClaudeSourceTest {

    private final ClaudeSource source = new ClaudeSource();

    @Test
    void readsLocalThenProjectThenUserScopeAndNothingAboveTheRepositoryRoot(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Result result = source.discover(f.context());

        assertEquals(List.of(), result.problems());
        // Local scope (wd, then its parents up to the root), project files nearest first, user scope.
        // Not: above-root-local and decoy-above-root (above the root), other-project, fallback-only.
        assertEquals(List.of("app-local", "local-db", "app-tools", "github", "filesystem", "sentry", "memory"),
                names(result));

        Path claudeJson = f.home.resolve(".claude.json");
        assertSource(source, claudeJson, Level.USER, "/projects/" + escaped(f.app) + "/mcpServers/app-local",
                server(result, "app-local"));
        assertSource(source, claudeJson, Level.USER, "/projects/" + escaped(f.project) + "/mcpServers/local-db",
                server(result, "local-db"));
        assertSource(source, f.app.resolve(".mcp.json"), Level.PROJECT, "/mcpServers/app-tools", server(result, "app-tools"));
        assertSource(source, f.project.resolve(".mcp.json"), Level.PROJECT, "/mcpServers/github", server(result, "github"));
        assertSource(source, f.project.resolve(".claude/mcp.json"), Level.PROJECT, "/mcpServers/sentry", server(result, "sentry"));
        assertSource(source, claudeJson, Level.USER, "/mcpServers/memory", server(result, "memory"));

        ServerSpec localDb = server(result, "local-db");
        assertEquals(Optional.of("stdio"), localDb.type());
        assertEquals(Optional.of("uvx"), localDb.command());
        assertEquals(List.of("mcp-server-sqlite", "--db-path", "./dev.db"), localDb.args());

        ServerSpec github = server(result, "github");
        assertEquals(Optional.of("http"), github.type());
        assertEquals(Optional.of("https://api.githubcopilot.com/mcp/"), github.url());
        assertEquals(Map.of("Authorization", "Bearer ${GITHUB_TOKEN}"), github.headers(), "no expansion here");

        ServerSpec filesystem = server(result, "filesystem");
        assertEquals(List.of("-y", "@modelcontextprotocol/server-filesystem", "${PROJECT_DIR:-.}"), filesystem.args());

        ServerSpec appTools = server(result, "app-tools");
        assertEquals(Optional.of("."), appTools.cwd());

        ServerSpec sentry = server(result, "sentry");
        assertEquals(Optional.of("sse"), sentry.type());
        assertEquals(Optional.of("https://mcp.sentry.dev/sse"), sentry.url());
    }

    @Test
    void withoutTopLevelMcpServersTheUserScopeIsClaudeMcpJson(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Path claudeJson = f.home.resolve(".claude.json");
        f.write(claudeJson, "{\"numStartups\": 3, \"projects\": {\"" + f.project + "\": {\"mcpServers\": {\"local-db\": {\"command\": \"x\"}}}}}");

        Result result = source.discover(f.context());
        assertEquals(List.of(), result.problems());
        assertEquals(List.of("local-db", "app-tools", "github", "filesystem", "sentry", "fallback-only"), names(result));
        assertSource(source, f.home.resolve(".claude/mcp.json"), Level.USER, "/mcpServers/fallback-only",
                server(result, "fallback-only"));
    }

    @Test
    void withoutClaudeJsonTheUserScopeIsClaudeMcpJson(@TempDir Path dir) throws IOException {
        Fixture f = Fixture.copy(dir);
        Files.delete(f.home.resolve(".claude.json"));

        Result result = source.discover(f.context());
        assertEquals(List.of(), result.problems());
        assertEquals(List.of("app-tools", "github", "filesystem", "sentry", "fallback-only"), names(result));
    }

    @Test
    void aTopLevelMcpServersOfTheWrongTypeIsReportedAndTheFallbackRead(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Path claudeJson = f.write(f.home.resolve(".claude.json"), "{\"mcpServers\": [\"memory\"]}");

        Result result = source.discover(f.context());
        assertEquals(List.of(new Problem(claudeJson, "/mcpServers", "", "\"mcpServers\" must be an object, got an array")),
                result.problems());
        assertEquals(List.of("app-tools", "github", "filesystem", "sentry", "fallback-only"), names(result));
    }

    @Test
    void aBrokenClaudeJsonIsOneProblemAndEverythingElseLoads(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Path claudeJson = f.write(f.home.resolve(".claude.json"), "{\n  \"mcpServers\": {\n    \"memory\": {\"command\": \"npx\"\n");

        Result result = source.discover(f.context());
        assertEquals(1, result.problems().size(), result.problems()::toString);
        Problem problem = result.problems().get(0);
        assertEquals(claudeJson, problem.file());
        assertEquals("4:1", problem.location());
        assertEquals("invalid JSON: Unexpected end-of-input: expected close marker for Object", problem.message());
        assertEquals(List.of("app-tools", "github", "filesystem", "sentry", "fallback-only"), names(result));
    }

    @Test
    void withoutARepositoryOnlyTheWorkingDirectoryIsSearched(@TempDir Path dir) throws IOException {
        Fixture f = Fixture.copy(dir);
        Files.delete(f.project.resolve(".git"));

        Result result = source.discover(f.context());
        assertEquals(List.of("app-local", "app-tools", "memory"), names(result));
    }

    @Test
    void projectKeysAreComparedAsPaths(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Path claudeJson = f.home.resolve(".claude.json");
        // A trailing separator and a '..' still name the project directory; a relative key never does.
        f.write(claudeJson, "{\"projects\": {"
                + "\"" + f.project + "/\": {\"mcpServers\": {\"trailing-slash\": {\"command\": \"x\"}}},"
                + "\"" + f.app + "/../..\": {\"mcpServers\": {\"dot-dot\": {\"command\": \"x\"}}},"
                + "\"packages/app\": {\"mcpServers\": {\"relative\": {\"command\": \"x\"}}}}}");

        Result result = source.discover(f.context());
        assertEquals(List.of("trailing-slash", "app-tools", "github", "filesystem", "sentry", "fallback-only"), names(result));
        assertEquals("/projects/" + escaped(f.project) + "~1/mcpServers/trailing-slash", server(result, "trailing-slash").location());
    }

    private static String escaped(Path dir) {
        return dir.toString().replace("~", "~0").replace("/", "~1");
    }
}
