package mcp.config.internal.sources;

import static mcp.config.internal.sources.Fixture.assertSource;
import static mcp.config.internal.sources.Fixture.names;
import static mcp.config.internal.sources.Fixture.server;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * The example file is Kiro's own (https://kiro.dev/docs/mcp/configuration: the file structure with
 * its local and remote server, the environment variable and header examples, the OAuth client).
 */
class KiroSourceTest {

    private final KiroSource source = new KiroSource();

    @Test
    void readsTheDocumentedFields(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.install("kiro/mcp.json", f.home.resolve(".kiro/settings/mcp.json"));

        Result result = source.discover(f.context());
        assertEquals(List.of(), result.problems());
        assertEquals(List.of("web-search", "api-server", "local-server-name", "remote-server-name"), names(result));

        ServerSpec search = server(result, "web-search");
        assertSource(source, file, Level.USER, "/mcpServers/web-search", search);
        assertEquals(Optional.of("npx"), search.command());
        assertEquals(Map.of("BRAVE_API_KEY", "${BRAVE_API_KEY}"), search.env(), "Kiro's ${NAME} is mcp-host's");

        ServerSpec api = server(result, "api-server");
        assertEquals(Optional.empty(), api.type(), "inferred later from url");
        assertEquals(Optional.of("https://api.example.com/mcp"), api.url());
        assertEquals(Map.of("Authorization", "Bearer ${API_TOKEN}", "X-Custom-Header", "value"), api.headers());

        ServerSpec local = server(result, "local-server-name");
        assertEquals(Optional.of(true), local.enabled(), "disabled: false");
        assertEquals(List.of("tool_name3"), local.disabledTools());
        assertEquals(List.of("arg1", "arg2"), local.args());

        ServerSpec remote = server(result, "remote-server-name");
        assertEquals(Optional.of(false), remote.enabled());
        assertEquals(Optional.of(new AuthRef("oauth", "remote-server-name", Map.of("clientId", "your-app-client-id",
                "scope", "scope1 scope2"))), remote.auth());
    }

    @Test
    void theWorkspaceFileComesFirst(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path workspace = f.write(f.project.resolve(".kiro/settings/mcp.json"),
                "{\"mcpServers\": {\"shared\": {\"command\": \"workspace\"}}}");
        f.write(f.home.resolve(".kiro/settings/mcp.json"), "{\"mcpServers\": {\"shared\": {\"command\": \"user\"}}}");

        Result result = source.discover(f.context());
        assertEquals(List.of("shared", "shared"), names(result));
        assertSource(source, workspace, Level.PROJECT, "/mcpServers/shared", result.servers().get(0));
    }

    @Test
    void badInputIsAProblemAtItsPlace(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.write(f.app.resolve(".kiro/settings/mcp.json"), "{\"mcpServers\": {\n"
                + "\"a\": {\"command\": \"a\", \"disabled\": \"no\"},\n"
                + "\"b\": {\"url\": \"https://b\", \"oauth\": {\"clientId\": \"c\"}, \"oauthScopes\": \"read\"},\n"
                + "\"c\": {\"command\": \"c\"}\n}}");
        Result result = source.discover(f.context());
        assertEquals(List.of(
                new Problem(file, "/mcpServers/a/disabled", "a", "\"disabled\" must be true or false, got a string"),
                new Problem(file, "/mcpServers/b/oauthScopes", "b", "\"oauthScopes\" must be an array of strings, got a string")),
                result.problems());
        assertEquals(List.of("c"), names(result));

        f.write(file, "{\"mcpServers\": {\"a\": {\"command\": \"a\"}}");
        assertEquals(1, source.discover(f.context()).problems().size());
        assertEquals("1:39", source.discover(f.context()).problems().get(0).location());
    }
}
