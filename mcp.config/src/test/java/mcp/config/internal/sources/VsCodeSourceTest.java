package mcp.config.internal.sources;

import static mcp.config.internal.sources.Fixture.assertSource;
import static mcp.config.internal.sources.Fixture.names;
import static mcp.config.internal.sources.Fixture.server;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.Sandbox;
import mcp.api.ServerConfig.AuthRef;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata.Level;
import mcp.api.spi.CapabilitySource.Problem;
import mcp.api.spi.CapabilitySource.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The user file's example is VS Code's own (https://code.visualstudio.com/docs/agents/reference/mcp-configuration
 * and https://code.visualstudio.com/docs/agent-customization/mcp-servers: github, playwright, the
 * perplexity input, the slack OAuth client), with a server that uses {@code ${workspaceFolder}} added.
 */
class VsCodeSourceTest {

    private static final String USER_EXAMPLE = "vscode/mcp.json";

    private final VsCodeSource source = new VsCodeSource(Platform.LINUX);

    @Test
    void readsServersWithCommentsVariablesEnvFilesAndReportsInputs(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Result result = source.discover(f.context());
        Path file = f.project.resolve(".vscode/mcp.json");

        assertEquals(List.of(
                new Problem(file, "/servers/Perplexity/env/PERPLEXITY_API_KEY", "Perplexity",
                        "server \"Perplexity\" uses input \"${input:perplexity-key}\", which mcp-host cannot prompt for;"
                                + " set the value in the file or an environment variable")),
                result.problems());
        // Not the decoy in work/.vscode above the repository root.
        assertEquals(List.of("fetch", "github", "workspace-files"), names(result));

        ServerSpec fetch = server(result, "fetch");
        assertSource(source, file, Level.PROJECT, "/servers/fetch", fetch);
        assertEquals(Optional.of("stdio"), fetch.type());
        assertEquals(Optional.of("uvx"), fetch.command());
        assertEquals(List.of("mcp-server-fetch"), fetch.args());

        ServerSpec github = server(result, "github");
        assertEquals(Optional.of("http"), github.type());
        assertEquals(Optional.of("https://api.githubcopilot.com/mcp/"), github.url());

        ServerSpec files = server(result, "workspace-files");
        assertSource(source, file, Level.PROJECT, "/servers/workspace-files", files);
        assertEquals(List.of(f.project + "/tools/server.js", "--root", f.project.toString()), files.args(),
                "${workspaceFolder} is the folder that holds .vscode, not the working directory");
        // envFile (${workspaceFolder}/.env) under env: env's TOKEN wins over the file's.
        assertEquals("debug", files.env().get("LOG_LEVEL"));
        assertEquals("${MY_TOKEN}", files.env().get("TOKEN"));
        assertEquals("a b\"c", files.env().get("QUOTED"));
        assertEquals("${HOME}", files.env().get("LITERAL"));
        assertEquals("x", files.env().get("TRAILING"));
        assertEquals(f.home + "/.cache/ws", files.env().get("CACHE_DIR"));
    }

    @Test
    void otherVariablesAreTranslatedOrLeftAsWritten(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.write(f.app.resolve(".vscode/mcp.json"), "{\"servers\": {\"s\": {\"command\": \"c\", \"args\": ["
                + "\"${workspaceFolderBasename}\", \"a${pathSeparator}b${/}c\", \"${config:editor.x}\", \"${unclosed\", \"$${env:X}\"]}}}");
        ServerSpec s = server(source.discover(f.context()), "s");
        assertEquals(List.of("app", "a/b/c", "${config:editor.x}", "${unclosed", "$${X}"), s.args());
    }

    @Test
    void oneInputProblemPerServerNamingTheFirstInput(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.write(f.project.resolve(".vscode/mcp.json"), "{\"servers\": {"
                + "\"two-inputs\": {\"type\": \"http\", \"url\": \"https://x/${input:tenant}\", \"headers\": {\"Authorization\": \"${input:token}\"}},"
                + "\"fine\": {\"type\": \"stdio\", \"command\": \"ok\"}}}");
        Result result = source.discover(f.context());
        assertEquals(List.of(new Problem(file, "/servers/two-inputs/url", "two-inputs",
                "server \"two-inputs\" uses input \"${input:tenant}\", which mcp-host cannot prompt for;"
                        + " set the value in the file or an environment variable")), result.problems());
        assertEquals(List.of("fine"), names(result));
    }

    @Test
    void readsTheUserProfilesFileWithTheProjectRootAsWorkspaceFolder(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.install(USER_EXAMPLE, f.home.resolve(".config/Code/User/mcp.json"));

        Result result = source.discover(f.context());
        assertEquals(List.of(new Problem(file, "/servers/perplexity/env/PERPLEXITY_API_KEY", "perplexity",
                "server \"perplexity\" uses input \"${input:perplexity-key}\", which mcp-host cannot prompt for;"
                        + " set the value in the file or an environment variable")), result.problems());
        assertEquals(List.of("github", "playwright", "slack", "notes"), names(result));

        ServerSpec github = server(result, "github");
        assertSource(source, file, Level.USER, "/servers/github", github);
        assertEquals(Optional.of("http"), github.type());
        assertEquals(Optional.of("https://api.githubcopilot.com/mcp"), github.url());
        assertEquals(Optional.empty(), github.auth());

        ServerSpec playwright = server(result, "playwright");
        assertEquals(Optional.empty(), playwright.type(), "inferred later from command");
        assertEquals(Optional.of("npx"), playwright.command());
        assertEquals(List.of("-y", "@microsoft/mcp-server-playwright"), playwright.args());

        assertEquals(Optional.of(new AuthRef("oauth", "slack", Map.of("clientId", "example-client-id"))),
                server(result, "slack").auth());

        ServerSpec notes = server(result, "notes");
        assertEquals(List.of(f.project + "/tools/notes.js"), notes.args(),
                "${workspaceFolder} of a user file is the project root, not the working directory");
        assertEquals(Optional.of(f.project.toString()), notes.cwd());
        assertEquals(Map.of("NOTES_TOKEN", "${NOTES_TOKEN}", "RETRIES", "3"), notes.env());
    }

    @Test
    void theProjectFileComesFirstThenStableThenInsiders(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.write(f.app.resolve(".vscode/mcp.json"), "{\"servers\": {\"shared\": {\"command\": \"project\"}}}");
        f.write(f.home.resolve(".config/Code/User/mcp.json"), "{\"servers\": {\"shared\": {\"command\": \"stable\"},"
                + " \"stable-only\": {\"command\": \"s\"}}}");
        Path insiders = f.write(f.home.resolve(".config/Code - Insiders/User/mcp.json"),
                "{\"servers\": {\"insiders-only\": {\"command\": \"i\"}}}");

        Result result = source.discover(f.context());
        assertEquals(List.of("shared", "shared", "stable-only", "insiders-only"), names(result),
                "discovery keeps the first of a name: the project's");
        assertEquals(Level.PROJECT, result.servers().get(0).source().level());
        assertSource(source, insiders, Level.USER, "/servers/insiders-only", server(result, "insiders-only"));
    }

    @Test
    void theUserFolderFollowsThePlatformAndVsCodesVariables(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path xdg = f.root.resolve("xdg");
        Path appData = f.root.resolve("roaming");
        Path portable = f.root.resolve("portable");
        Path custom = f.root.resolve("custom");
        Map<String, Path> files = new java.util.LinkedHashMap<>();
        files.put("linux-xdg", xdg.resolve("Code/User/mcp.json"));
        files.put("mac", f.home.resolve("Library/Application Support/Code/User/mcp.json"));
        files.put("windows", appData.resolve("Code/User/mcp.json"));
        files.put("portable", portable.resolve("user-data/User/mcp.json"));
        files.put("custom", custom.resolve("Code - Insiders/User/mcp.json"));
        files.forEach((name, file) -> f.write(file, "{\"servers\": {\"" + name + "\": {\"command\": \"x\"}}}"));

        assertEquals(List.of("linux-xdg"), names(source.discover(f.context(Map.of("XDG_CONFIG_HOME", xdg.toString())))));
        assertEquals(List.of("mac"), names(new VsCodeSource(Platform.MACOS).discover(f.context())));
        assertEquals(List.of("windows"), names(new VsCodeSource(Platform.WINDOWS)
                .discover(f.context(Map.of("APPDATA", appData.toString())))));
        assertEquals(List.of("custom"), names(source.discover(f.context(Map.of("VSCODE_APPDATA", custom.toString())))));
        assertEquals(List.of("portable"), names(source.discover(f.context(Map.of("VSCODE_PORTABLE", portable.toString(),
                "VSCODE_APPDATA", custom.toString())))), "a portable installation keeps its data beside itself");
    }

    @Test
    void aMalformedUserFileIsOneProblemAndTheProjectFileStillLoads(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.write(f.app.resolve(".vscode/mcp.json"), "{\"servers\": {\"fine\": {\"command\": \"ok\"}}}");
        Path file = f.write(f.home.resolve(".config/Code/User/mcp.json"), "{\"servers\": {\n  \"x\": {\"command\": }\n}}");

        Result result = source.discover(f.context());
        assertEquals(List.of(new Problem(file, "2:20", "", "invalid JSON: Unexpected character ('}' (code 125)):"
                + " expected a value")), result.problems());
        assertEquals(List.of("fine"), names(result));
    }

    @Test
    void anEnvFileThatCannotBeReadSkipsItsServer(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.write(f.project.resolve(".vscode/mcp.json"), "{\"servers\": {"
                + "\"a\": {\"command\": \"a\", \"envFile\": \"missing.env\"}, \"b\": {\"command\": \"b\"}}}");
        Result result = source.discover(f.context());
        assertEquals(List.of("b"), names(result));
        assertEquals(List.of(new Problem(file, "/servers/a/envFile", "a", "\"envFile\" " + f.project.resolve("missing.env")
                + " is not a file")), result.problems());
    }

    /**
     * VS Code keeps one {@code sandbox} per {@code mcp.json}, beside {@code servers} (its {@code McpResourceScannerService}
     * and {@code InstalledMcpServersDiscovery}), applies it to the stdio servers with {@code "sandboxEnabled": true}
     * and adds the server's {@code cwd} and {@code ~/.npm} to {@code allowWrite} ({@code McpSandboxService}).
     */
    @Test
    void sandboxEnabledServersGetTheFilesSandboxAndVsCodesDefaults(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.write(f.project.resolve(".vscode/mcp.json"), """
                {
                  "sandbox": {
                    "filesystem": {"allowWrite": ["${workspaceFolder}/out"], "denyRead": ["${userHome}/.ssh"]},
                    "network": {"allowedDomains": ["api.example.com"]}
                  },
                  "servers": {
                    "boxed": {"type": "stdio", "command": "node", "cwd": "${workspaceFolder}", "sandboxEnabled": true},
                    "inferred": {"command": "node", "sandboxEnabled": true},
                    "free": {"type": "stdio", "command": "node"},
                    "off": {"type": "stdio", "command": "node", "sandboxEnabled": false},
                    "remote": {"type": "http", "url": "https://example.com/mcp", "sandboxEnabled": true}
                  }
                }""");

        Result result = source.discover(f.context());

        assertEquals(List.of(), result.problems());
        Sandbox boxed = server(result, "boxed").sandbox().orElseThrow();
        assertEquals(List.of(f.project + "/out", f.project.toString(), "~/.npm"), boxed.filesystem().allowWrite());
        assertEquals(List.of(f.home + "/.ssh"), boxed.filesystem().denyRead());
        assertEquals(List.of("api.example.com"), boxed.network().allowedDomains());
        assertEquals(List.of(f.project + "/out", "~/.npm"),
                server(result, "inferred").sandbox().orElseThrow().filesystem().allowWrite(),
                "without a cwd VS Code adds only ~/.npm");
        assertEquals(Optional.empty(), server(result, "free").sandbox());
        assertEquals(Optional.empty(), server(result, "off").sandbox());
        assertEquals(Optional.empty(), server(result, "remote").sandbox(), "VS Code sandboxes stdio servers only");
        assertEquals(file, server(result, "boxed").source().path().orElseThrow());
    }

    @Test
    void aServersOwnSandboxAddsToTheFilesAndUnknownKeysAreNotedNotObeyed(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.write(f.project.resolve(".vscode/mcp.json"), """
                {"sandbox": {"filesystem": {"denyWrite": ["/etc"]}, "enableWeakerNestedSandbox": true},
                 "servers": {"boxed": {"command": "node", "sandboxEnabled": true,
                   "sandbox": {"filesystem": {"allowWrite": ["/data"], "allowRead": ["/x"]}}}}}""");

        Result result = source.discover(f.context());

        Sandbox boxed = server(result, "boxed").sandbox().orElseThrow();
        assertEquals(List.of("/data", "~/.npm"), boxed.filesystem().allowWrite());
        assertEquals(List.of("/etc"), boxed.filesystem().denyWrite());
        assertEquals(List.of(
                new Problem(file, "/sandbox/enableWeakerNestedSandbox", "boxed", "\"sandbox\" has no field "
                        + "\"enableWeakerNestedSandbox\" (filesystem, network); it is ignored"),
                new Problem(file, "/servers/boxed/sandbox/filesystem/allowRead", "boxed", "\"sandbox\".\"filesystem\""
                        + " has no field \"allowRead\" (allowWrite, denyRead, denyWrite); it is ignored")),
                result.problems());
    }

    @Test
    void aStarDomainWhichVsCodesRuntimeRefusesAndAWrongTypeSkipTheServer(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.write(f.project.resolve(".vscode/mcp.json"), """
                {"servers": {
                  "star": {"command": "node", "sandboxEnabled": true, "sandbox": {"network": {"allowedDomains": ["*"]}}},
                  "typo": {"command": "node", "sandboxEnabled": "yes"},
                  "fine": {"command": "node", "sandboxEnabled": true}}}""");

        Result result = source.discover(f.context());

        assertEquals(List.of("fine"), names(result));
        assertEquals(List.of(
                new Problem(file, "/servers/star", "star", "server \"star\": \"sandbox\".\"network\".\"allowedDomains\""
                        + " holds \"*\", which VS Code's sandbox runtime refuses (it does not start the server)"),
                new Problem(file, "/servers/typo/sandboxEnabled", "typo", "\"sandboxEnabled\" must be true or false,"
                        + " got a string")), result.problems());
    }
}
