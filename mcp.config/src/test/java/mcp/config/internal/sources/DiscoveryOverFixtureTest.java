package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import mcp.api.HttpServerConfig;
import mcp.api.SourceMetadata;
import mcp.api.StdioServerConfig;
import mcp.config.Discovery;
import mcp.config.DiscoveryResult;
import mcp.config.SkippedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discovery end to end over the fixture home and project: every built-in source found by
 * ServiceLoader, merged, filtered and validated, with where each winner came from.
 */
class DiscoveryOverFixtureTest {

    @TempDir
    Path temp;

    private static DiscoveryResult discover(Fixture fixture, boolean projectConfig) {
        return Discovery.builder().home(fixture.home).workingDirectory(fixture.app)
                .environment(Map.of("GITHUB_TOKEN", "t0ken", "HOME", fixture.home.toString(), "FIGMA_OAUTH_TOKEN", "f1gma",
                        ClaudePolicy.DIRECTORY_VARIABLE, fixture.managed().toString(),
                        GeminiSource.SYSTEM_SETTINGS_VARIABLE, fixture.managed().resolve("gemini.json").toString()))
                .projectConfig(projectConfig).approveProjectServers(true).build().discover();
    }

    private static String where(DiscoveryResult result, Fixture fixture, String name) {
        SourceMetadata source = result.sources().get(name);
        return source.providerId() + " " + source.level() + " "
                + source.path().map(p -> fixture.root.relativize(p).toString()).orElse("");
    }

    @Test
    void theBuiltInSourcesHaveTheSpecsIdsNamesAndPriorities() {
        assertEquals(List.of("native mcp-host 100", "claude Claude Code 80", "codex OpenAI Codex 70",
                "gemini Gemini CLI 60", "opencode opencode 55", "goose goose 55", "cursor Cursor 50",
                "windsurf Windsurf 50", "kiro Kiro 50", "zed Zed 50", "claude-desktop Claude Desktop 30",
                "vscode VS Code 20", "mcp-json MCP Config 5"), Fixture.allSources().stream()
                .map(s -> s.id() + " " + s.displayName() + " " + s.priority()).toList());
    }

    @Test
    void everyFormatMergesWithItsSource() {
        Fixture fixture = Fixture.copy(temp);
        DiscoveryResult result = discover(fixture, true);

        assertEquals(List.of("project-native", "weather", "remote", "local-db", "app-tools", "github",
                "filesystem", "decoy-above-root", "memory", "docs", "context7", "project-gemini", "pythonTools", "httpServer",
                "sseServer", "workspace-tools", "server-name", "remote-server", "project-windsurf", "figma", "fetch",
                "workspace-files", "plain-nearest", "plain"), List.copyOf(result.configs().keySet()),
                "priority order, and within a source project files nearest first, then user files");

        assertEquals("native PROJECT work/project/.mcp-host/mcp.json", where(result, fixture, "project-native"));
        assertEquals("native USER home/.config/mcp-host/mcp.json", where(result, fixture, "weather"));
        assertEquals("claude USER home/.claude.json", where(result, fixture, "local-db"));
        assertEquals("claude PROJECT work/project/packages/app/.mcp.json", where(result, fixture, "app-tools"));
        assertEquals("codex PROJECT work/project/packages/app/.codex/config.toml", where(result, fixture, "docs"));
        assertEquals("windsurf USER home/.codeium/windsurf/mcp_config.json", where(result, fixture, "figma"));
        assertEquals("vscode PROJECT work/project/.vscode/mcp.json", where(result, fixture, "fetch"));
        assertEquals("/servers/github", result.skipped().stream()
                .filter(s -> s.name().equals("github") && s.reason() == SkippedServer.Reason.SHADOWED)
                .findFirst().orElseThrow().location(), "the VS Code entry of the same name is shadowed, not merged");

        HttpServerConfig github = (HttpServerConfig) result.configs().get("github");
        assertEquals("Bearer t0ken", github.headers().get("Authorization"), "${GITHUB_TOKEN} is expanded");
        StdioServerConfig docs = (StdioServerConfig) result.configs().get("docs");
        assertEquals(90_000, docs.timeout().toMillis(), "codex startup/tool timeouts");
        StdioServerConfig files = (StdioServerConfig) result.configs().get("workspace-files");
        assertTrue(files.args().contains(fixture.project.toString()), "${workspaceFolder} is the project");
    }

    @Test
    void aDisabledOrShadowedEntryNeverHidesAValidOne() {
        Fixture fixture = Fixture.copy(temp);
        DiscoveryResult result = discover(fixture, true);
        Set<String> skipped = result.skipped().stream().map(s -> s.name() + " " + s.source().providerId() + " "
                + s.reason()).collect(Collectors.toCollection(LinkedHashSet::new));
        assertEquals(Set.of("puppeteer native DISABLED", "figma codex DISABLED", "github windsurf DISABLED",
                "github vscode SHADOWED"), skipped);
        assertEquals("windsurf", result.sources().get("figma").providerId(),
                "the codex figma of higher priority is disabled: the windsurf one is used");
    }

    @Test
    void inputsAndUnsetVariablesAreReportedWithTheirFile() {
        Fixture fixture = Fixture.copy(temp);
        DiscoveryResult result = discover(fixture, true);
        List<String> problems = result.problems().stream()
                .map(p -> p.describe().replace(fixture.root.toString() + "/", "")).toList();
        assertTrue(problems.contains("work/project/.vscode/mcp.json:/servers/Perplexity/env/PERPLEXITY_API_KEY: "
                + "server \"Perplexity\" uses input \"${input:perplexity-key}\", which mcp-host cannot prompt for; "
                + "set the value in the file or an environment variable"), problems.toString());
        assertTrue(problems.contains("home/.cursor/mcp.json:/mcpServers/remote-server: Server \"remote-server\": "
                + "environment variable \"MY_SERVICE_TOKEN\" is not set (in \"headers.Authorization\")"),
                problems.toString());
        assertTrue(problems.stream().noneMatch(p -> p.contains("puppeteer")), "no noise for a disabled server");
    }

    @Test
    void projectConfigOffRemovesExactlyTheProjectLevelServers() throws IOException {
        Fixture fixture = Fixture.copy(temp);
        // "memory" is a user-level Claude server; give the project a higher-priority one of that name.
        Files.writeString(fixture.project.resolve(".mcp-host/mcp.json"), "{\"mcpServers\": {"
                + "\"project-native\": {\"command\": \"java\"},"
                + "\"memory\": {\"command\": \"project-memory\"}}}");
        DiscoveryResult on = discover(fixture, true);
        DiscoveryResult off = discover(fixture, false);

        assertEquals("project-memory", ((StdioServerConfig) on.configs().get("memory")).command());
        assertEquals("npx", ((StdioServerConfig) off.configs().get("memory")).command(),
                "the user-level server of the same name is kept");
        assertEquals(SourceMetadata.Level.USER, off.sources().get("memory").level());

        Set<String> userLevel = on.configs().keySet().stream()
                .filter(name -> on.sources().get(name).level() == SourceMetadata.Level.USER)
                .collect(Collectors.toSet());
        userLevel.add("memory");
        assertEquals(userLevel, off.configs().keySet());
        assertTrue(off.sources().values().stream().noneMatch(s -> s.level() == SourceMetadata.Level.PROJECT));
        assertTrue(off.skipped().stream().anyMatch(s -> s.reason() == SkippedServer.Reason.PROJECT_CONFIG_OFF));
    }
}
