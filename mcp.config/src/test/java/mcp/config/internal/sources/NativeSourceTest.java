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

class NativeSourceTest {

    private final NativeSource source = new NativeSource();

    @Test
    void readsTheProjectFileThenTheUserFileInTheClaudeDesktopShape(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Result result = source.discover(f.context());

        assertEquals(List.of(), result.problems());
        assertEquals(List.of("project-native", "weather", "puppeteer", "remote"), names(result));

        Path projectFile = f.project.resolve(".mcp-host/mcp.json");
        ServerSpec projectNative = server(result, "project-native");
        assertSource(source, projectFile, Level.PROJECT, "/mcpServers/project-native", projectNative);
        assertEquals(Optional.of("java"), projectNative.command());
        assertEquals(List.of("-jar", "tools/server.jar"), projectNative.args());

        Path userFile = f.home.resolve(".config/mcp-host/mcp.json");
        ServerSpec weather = server(result, "weather");
        assertSource(source, userFile, Level.USER, "/mcpServers/weather", weather);
        assertEquals(Optional.of("uv"), weather.command());
        assertEquals(List.of("--directory", "/opt/weather", "run", "weather.py"), weather.args());
        assertEquals(Optional.empty(), weather.type());
        assertEquals(Optional.empty(), weather.enabled());
        assertEquals(Map.of(), weather.env());

        ServerSpec puppeteer = server(result, "puppeteer");
        assertEquals(Optional.of(false), puppeteer.enabled(), "disabled: true");
        assertEquals(Map.of("PUPPETEER_LAUNCH_OPTIONS", "{ \"headless\": true }", "DEBUG_PORT", "9222"), puppeteer.env(),
                "a number in env is its text");

        ServerSpec remote = server(result, "remote");
        assertEquals(Optional.of("http"), remote.type());
        assertEquals(Optional.of("https://mcp.example.com/mcp"), remote.url());
        assertEquals(Map.of("X-Team", "platform"), remote.headers());
        assertEquals(Optional.of(60_000L), remote.timeoutMillis());
        assertEquals(Optional.of(true), remote.enabled());
        assertEquals(Optional.of(new AuthRef("oauth", "example-oauth")), remote.auth());
        assertEquals(Optional.of(List.of("search", "fetch")), remote.enabledTools());
        assertEquals(List.of("delete"), remote.disabledTools());
        assertEquals(Optional.empty(), remote.command());
        assertEquals(List.of(), remote.args());
    }

    @Test
    void xdgConfigHomeMovesTheUserFileWhenItIsAbsolute(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Path xdg = f.root.resolve("xdg");
        f.write(xdg.resolve("mcp-host/mcp.json"), "{\"mcpServers\": {\"from-xdg\": {\"command\": \"x\"}}}");

        Result result = source.discover(f.context(Map.of("XDG_CONFIG_HOME", xdg.toString())));
        assertEquals(List.of("project-native", "from-xdg"), names(result));
        assertSource(source, xdg.resolve("mcp-host/mcp.json"), Level.USER, "/mcpServers/from-xdg", server(result, "from-xdg"));
    }

    @Test
    void anEmptyOrRelativeXdgConfigHomeIsIgnored(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        for (String value : List.of("", "relative/config", "xdg")) {
            Result result = source.discover(f.context(Map.of("XDG_CONFIG_HOME", value)));
            assertEquals(List.of("project-native", "weather", "puppeteer", "remote"), names(result), value);
        }
    }

    @Test
    void inheritEnvSaysWhichOfTheHostsVariablesAServerGets(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.write(f.home.resolve(".config/mcp-host/mcp.json"), "{\"mcpServers\": {"
                + "\"all\": {\"command\": \"a\"},"
                + "\"said-all\": {\"command\": \"a\", \"inheritEnv\": \"all\"},"
                + "\"minimal\": {\"command\": \"a\", \"inheritEnv\": \"minimal\"},"
                + "\"named\": {\"command\": \"a\", \"inheritEnv\": [\"GITHUB_TOKEN\", \"PATH\"]},"
                + "\"wrong\": {\"command\": \"a\", \"inheritEnv\": \"some\"}}}");
        mcp.api.spi.CapabilitySource.Result result = new NativeSource().discover(f.context());
        assertEquals(List.of("all", "said-all", "minimal", "named"), names(result));
        assertEquals(Optional.empty(), server(result, "all").inheritedEnv());
        assertEquals(Optional.empty(), server(result, "said-all").inheritedEnv());
        assertEquals(Optional.of(NativeSource.MINIMAL_ENV), server(result, "minimal").inheritedEnv());
        List<String> named = server(result, "named").inheritedEnv().orElseThrow();
        assertEquals(NativeSource.MINIMAL_ENV.size() + 1, named.size(), "PATH is in the minimal set already");
        assertEquals("GITHUB_TOKEN", named.get(named.size() - 1));
        assertEquals(List.of(new mcp.api.spi.CapabilitySource.Problem(file, "/mcpServers/wrong/inheritEnv", "wrong",
                "\"inheritEnv\" must be \"all\", \"minimal\" or an array of variable names, got a string")), result.problems());
    }

    @Test
    void sandboxIsTrueFalseOrVsCodesObjectAndAMisspeltRuleSkipsTheServer(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.write(f.home.resolve(".config/mcp-host/mcp.json"), """
                {"mcpServers": {
                  "rules": {"command": "node", "sandbox": {
                    "filesystem": {"allowWrite": [".", "~/.cache/rules"], "denyRead": ["~/.ssh"], "denyWrite": [".git"]},
                    "network": {"allowedDomains": ["*"]}}},
                  "plain": {"command": "node", "sandbox": true},
                  "none": {"command": "node", "sandbox": false},
                  "absent": {"command": "node"},
                  "typo": {"command": "node", "sandbox": {"filesystem": {"allowWrites": ["."]}}},
                  "wrong": {"command": "node", "sandbox": "yes"},
                  "list": {"command": "node", "sandbox": {"network": {"allowedDomains": "*"}}}}}""");

        Result result = source.discover(f.context());

        assertEquals(List.of("rules", "plain", "none", "absent"), names(result));
        assertEquals(Optional.of(new Sandbox(new Sandbox.Filesystem(List.of(".", "~/.cache/rules"), List.of("~/.ssh"),
                List.of(".git")), Sandbox.Network.ANY)), server(result, "rules").sandbox());
        assertEquals(Optional.of(Sandbox.DEFAULT), server(result, "plain").sandbox());
        assertEquals(Optional.empty(), server(result, "none").sandbox());
        assertEquals(Optional.empty(), server(result, "absent").sandbox());
        assertEquals(List.of(
                new Problem(file, "/mcpServers/typo/sandbox/filesystem/allowWrites", "typo", "\"sandbox\".\"filesystem\""
                        + " has no field \"allowWrites\" (allowWrite, denyRead, denyWrite)"),
                new Problem(file, "/mcpServers/wrong/sandbox", "wrong", "\"sandbox\" must be true, false or an object of"
                        + " filesystem and network rules, got a string"),
                new Problem(file, "/mcpServers/list/sandbox/network/allowedDomains", "list", "\"allowedDomains\" must be"
                        + " an array of strings, got a string")), result.problems());
    }
}
