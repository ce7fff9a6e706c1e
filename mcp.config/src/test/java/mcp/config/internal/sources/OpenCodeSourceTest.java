package mcp.config.internal.sources;

import static mcp.config.internal.sources.Fixture.assertSource;
import static mcp.config.internal.sources.Fixture.names;
import static mcp.config.internal.sources.Fixture.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.ServerConfig.AuthRef;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata.Level;
import mcp.api.spi.CapabilitySource.Problem;
import mcp.api.spi.CapabilitySource.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example files are opencode's own: OpenCode 2's (https://opencode.ai/docs/mcp-servers: the
 * everything, context7, api-key and OAuth servers, timeouts) as the project file, OpenCode 1's
 * (https://opencode.ai/v1/docs/mcp-servers/: the local server, jira, the pre-registered client,
 * context7 with its header) as the user file, variables as https://opencode.ai/docs/config/ describes.
 */
class OpenCodeSourceTest {

    private final OpenCodeSource source = new OpenCodeSource();

    @Test
    void readsBothVersionsShapesProjectFirst(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path project = f.install("opencode/opencode.jsonc", f.project.resolve("opencode.jsonc"));
        Path user = f.install("opencode/opencode.json", f.home.resolve(".config/opencode/opencode.json"));

        Result result = source.discover(f.context());
        assertEquals(List.of(), result.problems());
        assertEquals(List.of("everything", "context7", "api", "sentry", "my-local-mcp-server", "jira", "my-oauth-server",
                "context7", "literal"), names(result), "discovery keeps the project's context7");

        ServerSpec everything = result.servers().get(0);
        assertSource(source, project, Level.PROJECT, "/mcp/servers/everything", everything);
        assertEquals(Optional.of("stdio"), everything.type());
        assertEquals(Optional.of("npx"), everything.command());
        assertEquals(List.of("-y", "@modelcontextprotocol/server-everything"), everything.args());
        assertEquals(Optional.of("."), everything.cwd());
        assertEquals(Map.of("LOG_LEVEL", "info", "MCP_API_KEY", ""), everything.env(),
                "{env:NAME} is empty when unset, as in opencode");
        assertEquals(Optional.empty(), everything.enabled());
        assertEquals(Optional.empty(), everything.timeoutMillis(), "mcp.timeout defaults are not applied");

        ServerSpec api = server(result, "api");
        assertEquals(Optional.of("http"), api.type());
        assertEquals(Map.of("Authorization", "Bearer "), api.headers());
        assertEquals(Optional.empty(), api.auth(), "oauth: false");
        assertEquals(Optional.of(20_000L), api.timeoutMillis(), "the largest of the timeouts given");

        ServerSpec sentry = server(result, "sentry");
        assertEquals(Optional.of(false), sentry.enabled(), "disabled: true");
        assertEquals(Optional.of(new AuthRef("oauth", "sentry", Map.of("clientId", "oc-client", "scope", "event:read",
                "callbackPort", "19876"))), sentry.auth());

        ServerSpec local = server(result, "my-local-mcp-server");
        assertSource(source, user, Level.USER, "/mcp/my-local-mcp-server", local);
        assertEquals(Optional.of(true), local.enabled());
        assertEquals(Map.of("MY_ENV_VAR", "my_env_var_value"), local.env());

        assertEquals(Optional.of(false), server(result, "jira").enabled());
        assertEquals(Optional.of(new AuthRef("oauth", "my-oauth-server", Map.of("clientId", "",
                "clientSecret", "", "scope", "tools:read tools:execute"))),
                server(result, "my-oauth-server").auth());

        ServerSpec userContext7 = result.servers().get(7);
        assertEquals(Optional.of(10_000L), userContext7.timeoutMillis());
        assertEquals(Map.of("CONTEXT7_API_KEY", ""), userContext7.headers());

        assertFalse(server(result, "literal").expandVariables());
        assertEquals(List.of("${HOME}", "$HOME", ""), server(result, "literal").args(),
                "opencode takes ${HOME} and $HOME literally, and so does mcp-host for it; an unset {env:} is empty");
    }

    @Test
    void findsTheFilesWhereOpencodeLooks(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        String entry = "{\"mcp\": {\"%s\": {\"type\": \"local\", \"command\": [\"x\"]}}}";
        f.write(f.app.resolve("opencode.json"), String.format(entry, "app"));
        f.write(f.project.resolve("opencode.jsonc"), String.format(entry, "root"));
        f.write(f.work.resolve("opencode.json"), String.format(entry, "above-the-repository"));
        Path custom = f.write(f.root.resolve("custom.json"), String.format(entry, "custom"));
        f.write(f.root.resolve("xdg/opencode/opencode.jsonc"), String.format(entry, "xdg"));
        f.write(f.home.resolve(".config/opencode/opencode.json"), String.format(entry, "home"));

        assertEquals(List.of("app", "root", "home"), names(source.discover(f.context())));
        assertEquals(List.of("app", "root", "custom", "xdg"), names(source.discover(f.context(Map.of(
                "OPENCODE_CONFIG", custom.toString(), "XDG_CONFIG_HOME", f.root.resolve("xdg").toString())))));
    }

    @Test
    void aServerThatNeedsAFileIsSkippedAndBadEntriesCostOnlyThemselves(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.write(f.project.resolve("opencode.json"), "{\"mcp\": {\"servers\": {\n"
                + "\"file\": {\"type\": \"remote\", \"url\": \"https://x\", \"headers\": {\"Authorization\": \"Bearer {file:~/.secrets/key}\"}},\n"
                + "\"no-type\": {\"command\": [\"x\"]},\n"
                + "\"sse\": {\"type\": \"sse\", \"url\": \"https://x\"},\n"
                + "\"empty\": {\"type\": \"local\", \"command\": []},\n"
                + "\"string\": {\"type\": \"local\", \"command\": \"npx -y x\"},\n"
                + "\"enabled\": {\"type\": \"local\", \"command\": [\"x\"], \"enabled\": false},\n"
                + "\"timeout\": {\"type\": \"local\", \"command\": [\"x\"], \"timeout\": 5000}\n"
                + "}}}");
        Result result = source.discover(f.context());
        assertEquals(List.of(
                new Problem(file, "/mcp/servers/file/headers/Authorization", "file", "server \"file\" uses"
                        + " \"{file:~/.secrets/key}\", a file's content, which mcp-host does not read; set the value in the"
                        + " file or an environment variable"),
                new Problem(file, "/mcp/servers/no-type", "no-type", "\"type\" must be \"local\" or \"remote\", got none"),
                new Problem(file, "/mcp/servers/sse/type", "sse", "\"type\" must be \"local\" or \"remote\", got \"sse\""),
                new Problem(file, "/mcp/servers/empty/command", "empty", "\"command\" must name the executable first, got an"
                        + " empty array"),
                new Problem(file, "/mcp/servers/string/command", "string", "\"command\" must be an array of strings, got a string"),
                new Problem(file, "/mcp/servers/enabled/enabled", "enabled", "OpenCode 2 has no \"enabled\"; it is ignored, use"
                        + " \"disabled\""),
                new Problem(file, "/mcp/servers/timeout/timeout", "timeout", "\"timeout\" must be an object, got a number")),
                result.problems());
        assertEquals(List.of("enabled"), names(result));
        assertEquals(Optional.empty(), server(result, "enabled").enabled());

        f.write(file, "{\"mcp\": {\"servers\": {\"type\": \"local\", \"command\": [\"v1-server-named-servers\"]}}}");
        ServerSpec named = server(source.discover(f.context()), "servers");
        assertEquals("/mcp/servers", named.location(), "a V1 server named servers");

        f.write(file, "{\"mcp\": {\n  \"a\": {\"type\": \"local\" \"command\": [\"x\"]}\n}}");
        assertEquals(List.of(new Problem(file, "2:25", "", "invalid JSON: Unexpected character ('\"' (code 34)): was"
                + " expecting comma to separate Object entries")), source.discover(f.context()).problems());
    }
}
