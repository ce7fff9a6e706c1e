package mcp.config.internal.sources;

import static mcp.config.internal.sources.Fixture.assertSource;
import static mcp.config.internal.sources.Fixture.names;
import static mcp.config.internal.sources.Fixture.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    // Each expectation below is what `claude mcp list` of Claude Code 2.1.328 showed for the same files
    // (run offline with a scratch HOME; docs/discovery.md).

    @Test
    void readsLocalThenProjectThenUserScopeAsClaudeCodeDoes(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Result result = source.discover(f.context());

        assertEquals(List.of(), result.problems());
        // Local scope: the project root's entry only (not app-local of the subfolder, nor above-root-local);
        // .mcp.json of every folder up, past the repository root (decoy-above-root); then the user scope.
        // Not: sentry and fallback-only, in .claude/mcp.json files, which Claude Code does not read.
        assertEquals(List.of("local-db", "app-tools", "github", "filesystem", "decoy-above-root", "memory"),
                names(result));

        Path claudeJson = f.home.resolve(".claude.json");
        assertSource(source, claudeJson, Level.USER, "/projects/" + escaped(f.project) + "/mcpServers/local-db",
                server(result, "local-db"));
        assertSource(source, f.app.resolve(".mcp.json"), Level.PROJECT, "/mcpServers/app-tools", server(result, "app-tools"));
        assertSource(source, f.project.resolve(".mcp.json"), Level.PROJECT, "/mcpServers/github", server(result, "github"));
        assertSource(source, f.project.getParent().resolve(".mcp.json"), Level.PROJECT, "/mcpServers/decoy-above-root",
                server(result, "decoy-above-root"));
        assertSource(source, claudeJson, Level.USER, "/mcpServers/memory", server(result, "memory"));

        ServerSpec localDb = server(result, "local-db");
        assertEquals(Optional.of("stdio"), localDb.type());
        assertEquals(Optional.of("uvx"), localDb.command());
        assertEquals(List.of("mcp-server-sqlite", "--db-path", "./dev.db"), localDb.args());
        assertTrue(localDb.expandVariables(), "~/.claude.json is expanded too (claude-scopes of AgentFixturesTest)");

        ServerSpec github = server(result, "github");
        assertEquals(Optional.of("http"), github.type());
        assertEquals(Optional.of("https://api.githubcopilot.com/mcp/"), github.url());
        assertEquals(Map.of("Authorization", "Bearer ${GITHUB_TOKEN}"), github.headers(), "expanded later");

        ServerSpec filesystem = server(result, "filesystem");
        assertEquals(List.of("-y", "@modelcontextprotocol/server-filesystem", "${PROJECT_DIR:-.}"), filesystem.args());
        assertEquals(Optional.of("."), server(result, "app-tools").cwd());
    }

    @Test
    void withoutTopLevelMcpServersThereIsNoUserScope(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Path claudeJson = f.home.resolve(".claude.json");
        f.write(claudeJson, "{\"numStartups\": 3, \"projects\": {\"" + f.project + "\": {\"mcpServers\": {\"local-db\": {\"command\": \"x\"}}}}}");

        Result result = source.discover(f.context());
        assertEquals(List.of(), result.problems());
        assertEquals(List.of("local-db", "app-tools", "github", "filesystem", "decoy-above-root"), names(result),
                "~/.claude/mcp.json is not read");
    }

    @Test
    void withoutClaudeJsonOnlyProjectFilesCount(@TempDir Path dir) throws IOException {
        Fixture f = Fixture.copy(dir);
        Files.delete(f.home.resolve(".claude.json"));

        Result result = source.discover(f.context());
        assertEquals(List.of(), result.problems());
        assertEquals(List.of("app-tools", "github", "filesystem", "decoy-above-root"), names(result));
    }

    @Test
    void aTopLevelMcpServersOfTheWrongTypeIsReported(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Path claudeJson = f.write(f.home.resolve(".claude.json"), "{\"mcpServers\": [\"memory\"]}");

        Result result = source.discover(f.context());
        assertEquals(List.of(new Problem(claudeJson, "/mcpServers", "", "\"mcpServers\" must be an object, got an array")),
                result.problems());
        assertEquals(List.of("app-tools", "github", "filesystem", "decoy-above-root"), names(result));
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
        assertEquals(List.of("app-tools", "github", "filesystem", "decoy-above-root"), names(result));
    }

    @Test
    void withoutARepositoryTheProjectIsTheWorkingDirectory(@TempDir Path dir) throws IOException {
        Fixture f = Fixture.copy(dir);
        Files.delete(f.project.resolve(".git"));

        Result result = source.discover(f.context());
        assertEquals(List.of("app-local", "app-tools", "github", "filesystem", "decoy-above-root", "memory"), names(result));
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
        assertEquals(List.of("trailing-slash", "app-tools", "github", "filesystem", "decoy-above-root"), names(result));
        assertEquals("/projects/" + escaped(f.project) + "~1/mcpServers/trailing-slash", server(result, "trailing-slash").location());
    }

    @Test
    void theTypeDecidesTheTransportAsInClaudeCode(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.approveInClaude();
        Path file = f.write(f.project.resolve(".mcp.json"), "{\"mcpServers\": {"
                + "\"notype\": {\"url\": \"http://127.0.0.1:9/mcp\"},"
                + "\"alias\": {\"type\": \"streamable-http\", \"url\": \"http://127.0.0.1:9/mcp\"},"
                + "\"stdio-url\": {\"type\": \"stdio\", \"command\": \"false\", \"url\": \"http://127.0.0.1:9/mcp\"},"
                + "\"http-command\": {\"type\": \"http\", \"command\": \"false\", \"url\": \"http://127.0.0.1:9/mcp\"},"
                + "\"both\": {\"command\": \"false\", \"url\": \"http://127.0.0.1:9/mcp\"},"
                + "\"ws\": {\"type\": \"ws\", \"url\": \"ws://127.0.0.1:9/mcp\"},"
                + "\"bogus\": {\"type\": \"bogus\", \"command\": \"false\"}}}");

        Result result = source.discover(f.context());
        assertEquals(List.of("alias", "stdio-url", "http-command", "both"), names(result));
        assertEquals(Optional.of("http"), server(result, "alias").type());
        assertEquals(Optional.empty(), server(result, "stdio-url").url());
        assertEquals(Optional.empty(), server(result, "http-command").command());
        assertEquals(Optional.empty(), server(result, "both").url(), "no type and a command: stdio");
        assertEquals(List.of("notype", "ws", "bogus"), result.problems().stream().map(Problem::server).toList());
        assertEquals(new Problem(file, "/mcpServers/notype/url", "notype", "has a \"url\" but no \"type\"; Claude Code"
                + " skips it: add \"type\": \"http\" (or \"sse\") to this entry"), result.problems().get(0));
    }

    @Test
    void mcpTimeoutAndMcpToolTimeoutOfTheEnvironmentAreTheTimeouts(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        ServerSpec memory = server(source.discover(f.context(Map.of("MCP_TIMEOUT", "10000", "MCP_TOOL_TIMEOUT", "x"))),
                "memory");
        assertEquals(Optional.of(10_000L), memory.timeoutMillis());
        assertEquals(Optional.empty(), memory.toolTimeoutMillis(), "not a number: ignored");
    }

    private static String escaped(Path dir) {
        return dir.toString().replace("~", "~0").replace("/", "~1");
    }

    // ---- the owner's auth settings: oauth and headersHelper ----

    /** As `claude mcp add --transport http --client-id cid-123 --client-secret --callback-port 8765 corp URL` wrote them. */
    private static final String CLAUDE_JSON_WITH_OAUTH = """
            {"mcpServers": {"corp": {"type": "http", "url": "http://127.0.0.1:9/mcp",
              "oauth": {"clientId": "cid-123", "callbackPort": 8765}}}}
            """;

    @Test
    void anOAuthBlockIsTheServersClientWithClaudeCodesRedirectAndItsStoredSecret(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.write(f.home.resolve(".claude.json"), CLAUDE_JSON_WITH_OAUTH);
        // The key Claude Code 2.1.328 wrote for this entry: "corp|" and the hash of {type, url, headers}.
        f.write(f.home.resolve(".claude/.credentials.json"),
                "{\"mcpOAuthClientConfig\": {\"corp|e49b00bf48cb4d25\": {\"clientSecret\": \"s3cr3t-value\"}}}");

        Result result = source.discover(f.context());
        assertEquals(List.of(), result.problems());
        mcp.api.ServerConfig.AuthRef auth = server(result, "corp").auth().orElseThrow();
        assertEquals("oauth", auth.type());
        assertEquals("corp", auth.credentialId());
        assertEquals(Map.of("clientId", "cid-123", "callbackPort", "8765", "redirectUri", "http://localhost/callback",
                "clientSecret", "s3cr3t-value"), auth.options());
        assertTrue(!auth.toString().contains("s3cr3t"), "never shown");
    }

    @Test
    void theCallbackPortVariableWinsAndAChangedEntryFindsNoSecret(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        // Another URL than the one the secret was stored for: Claude Code's key no longer matches.
        f.write(f.home.resolve(".claude.json"), CLAUDE_JSON_WITH_OAUTH.replace("127.0.0.1:9", "127.0.0.1:10")
                .replace("\"callbackPort\": 8765}", "\"callbackPort\": 8765, \"scopes\": \"read write\", "
                        + "\"authServerMetadataUrl\": \"https://as.example/.well-known/oauth-authorization-server\"}"));
        f.write(f.home.resolve(".claude/.credentials.json"),
                "{\"mcpOAuthClientConfig\": {\"corp|e49b00bf48cb4d25\": {\"clientSecret\": \"s3cr3t-value\"}}}");

        Result result = source.discover(f.context(Map.of("MCP_OAUTH_CALLBACK_PORT", "9999")));
        assertEquals(List.of(), result.problems());
        assertEquals(Map.of("clientId", "cid-123", "callbackPort", "9999", "redirectUri", "http://localhost/callback",
                "scope", "read write", "authServerMetadataUrl",
                "https://as.example/.well-known/oauth-authorization-server"), server(result, "corp").auth().orElseThrow()
                .options());
    }

    @Test
    void anOAuthBlockClaudeCodeRefusesSkipsTheServer(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.write(f.home.resolve(".claude.json"), """
                {"mcpServers": {
                  "plain-http": {"type": "http", "url": "https://a.example/mcp",
                                 "oauth": {"authServerMetadataUrl": "http://as.example/metadata"}},
                  "zero-port": {"type": "http", "url": "https://b.example/mcp", "oauth": {"callbackPort": 0}},
                  "own-header": {"type": "http", "url": "https://c.example/mcp", "headers": {"Authorization": "Bearer x"},
                                 "oauth": {"clientId": "unused"}},
                  "stdio": {"command": "srv", "headersHelper": "never-run", "oauth": {"clientId": "unused"}}}}
                """);
        Result result = source.discover(f.context());
        assertEquals(List.of("own-header", "stdio"), names(result));
        assertEquals(List.of(new Problem(file, "/mcpServers/plain-http/oauth/authServerMetadataUrl", "plain-http",
                        "\"oauth.authServerMetadataUrl\" must be an https:// URL; Claude Code refuses this entry"),
                new Problem(file, "/mcpServers/zero-port/oauth/callbackPort", "zero-port",
                        "\"oauth.callbackPort\" must be a port number; Claude Code refuses this entry")),
                result.problems());
        assertEquals(Optional.empty(), server(result, "own-header").auth(), "its own Authorization turns OAuth off");
        assertEquals(Optional.empty(), server(result, "stdio").auth());
        assertEquals(Optional.empty(), server(result, "stdio").headersHelper(), "Claude Code reads neither for stdio");
    }

    @Test
    void aUsersHeadersHelperRunsInClaudeCodesFolder(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.write(f.home.resolve(".claude.json"), """
                {"mcpServers": {"corp": {"type": "http", "url": "https://mcp.corp.example/mcp",
                  "headers": {"X-Static": "s"}, "headersHelper": "corp-token --json"}}}
                """);
        Result result = source.discover(f.context());
        assertEquals(List.of(), result.problems());
        ServerSpec corp = server(result, "corp");
        assertEquals(Optional.of(new mcp.api.HeaderCommands.Helper("corp-token --json",
                Optional.of(f.home.resolve(".claude").toString()))), corp.headersHelper());
        assertEquals(Map.of("X-Static", "s"), corp.headers());
    }

    @Test
    void aProjectsHeadersHelperRunsOnlyInAFolderTrustedInClaudeCode(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.approveInClaude();
        Path mcpJson = f.write(f.project.resolve(".mcp.json"), """
                {"mcpServers": {"team": {"type": "http", "url": "https://team.example/mcp", "headersHelper": "./token.sh"}}}
                """);
        Result untrusted = source.discover(f.context());
        assertEquals(List.of("team"), names(untrusted), "the server still starts, without the helper's headers");
        assertEquals(Optional.empty(), server(untrusted, "team").headersHelper());
        assertEquals(List.of(new Problem(mcpJson, "/mcpServers/team/headersHelper", "team", "headersHelper not run: the"
                + " folder " + f.project + " is not trusted in Claude Code (as Claude Code does, the server connects"
                + " without its headers); trust it when `claude` asks")), untrusted.problems());

        f.write(f.home.resolve(".claude.json"), "{\"projects\": {\"" + f.project
                + "\": {\"hasTrustDialogAccepted\": true}}}");
        Result trusted = source.discover(f.context());
        assertEquals(List.of(), trusted.problems());
        assertEquals(Optional.of(new mcp.api.HeaderCommands.Helper("./token.sh", Optional.empty())),
                server(trusted, "team").headersHelper(), "in the working directory, as Claude Code runs it");
    }
}
