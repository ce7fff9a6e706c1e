package mcp.config.internal.sources;

import static mcp.config.internal.sources.Fixture.assertSource;
import static mcp.config.internal.sources.Fixture.names;
import static mcp.config.internal.sources.Fixture.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * The example files follow Zed's documentation (https://zed.dev/docs/ai/mcp: the local, remote and
 * OAuth servers; the older {@code command: {path, args, env}} of its earlier MCP page; the settings
 * schema's {@code timeout}, {@code enabled} and {@code oauth}), and the worktree trust rule of
 * https://zed.dev/docs/worktree-trust.
 */
class ZedSourceTest {

    private final ZedSource source = new ZedSource(Platform.LINUX);

    @Test
    void readsTheDocumentedShapes(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.install("zed/settings.json", f.home.resolve(".config/zed/settings.json"));

        Result result = source.discover(f.context());
        assertEquals(List.of(), result.problems());
        assertEquals(List.of("local-mcp-server", "remote-mcp-server", "remote-mcp-server-with-oauth", "your-mcp-server",
                "some-context-server", "with-client"), names(result), "the extension's server is left out");

        ServerSpec local = server(result, "local-mcp-server");
        assertSource(source, file, Level.USER, "/context_servers/local-mcp-server", local);
        assertEquals(Optional.of("stdio"), local.type());
        assertEquals(Optional.of("some-command"), local.command());
        assertEquals(List.of("arg-1", "arg-2"), local.args());
        assertEquals(Map.of(), local.env());
        assertEquals(Optional.empty(), local.enabled());

        ServerSpec remote = server(result, "remote-mcp-server");
        assertEquals(Optional.of("http"), remote.type());
        assertEquals(Optional.of("https://example.com/mcp"), remote.url());
        assertEquals(Map.of("Authorization", "Bearer <token>"), remote.headers());
        assertEquals(Optional.empty(), remote.auth());

        ServerSpec custom = server(result, "your-mcp-server");
        assertEquals(Optional.of(false), custom.enabled());
        assertEquals(Optional.of(90_000L), custom.timeoutMillis(), "seconds");
        assertEquals(Map.of("DEBUG", "1", "HOME_DIR", "${HOME}"), custom.env(), "Zed expands nothing");

        ServerSpec legacy = server(result, "some-context-server");
        assertEquals(Optional.of("some-command"), legacy.command());
        assertEquals(List.of("arg-1", "arg-2"), legacy.args());
        assertEquals(Map.of("LOG_LEVEL", "info"), legacy.env());

        ServerSpec client = server(result, "with-client");
        assertEquals(Optional.of(new AuthRef("oauth", "with-client", Map.of("clientId", "zed-client"))), client.auth(),
                "a null client_secret counts as absent");
        assertEquals(Optional.of(30_000L), client.timeoutMillis());
    }

    @Test
    void projectServersAreInactiveUnlessTheUserTrustsAllWorktrees(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path project = f.install("zed/project-settings.json", f.project.resolve(".zed/settings.json"));
        Path user = f.home.resolve(".config/zed/settings.json");

        Result untrusted = source.discover(f.context());
        assertEquals(List.of(), untrusted.servers());
        assertEquals(1, untrusted.inactive().size());
        ServerSpec db = untrusted.inactive().get(0).server();
        assertSource(source, project, Level.PROJECT, "/context_servers/project-db", db);
        assertEquals(List.of("--read-only"), db.args());
        assertEquals("Zed starts the servers of a project's .zed/settings.json only in a worktree you trusted, and"
                + " mcp-host cannot read Zed's trust decisions: set \"session\": {\"trust_all_worktrees\": true} in "
                + user + ", or configure the server in that file", untrusted.inactive().get(0).reason());

        f.write(user, "{\"session\": {\"trust_all_worktrees\": \"yes\"}}");
        assertEquals(1, source.discover(f.context()).inactive().size(), "only true trusts");
        f.write(user, "// trusted\n{\"session\": {\"trust_all_worktrees\": true}, \"context_servers\": {\"mine\": {\"command\": \"m\"}}}");
        Result trusted = source.discover(f.context());
        assertEquals(List.of("project-db", "mine"), names(trusted), "project first, then the user's");
        assertEquals(List.of(), trusted.inactive());
    }

    @Test
    void theUserFileIsInZedsConfigFolder(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        String entry = "{\"context_servers\": {\"s\": {\"command\": \"c\"}}}";
        Path xdg = f.write(f.root.resolve("xdg/zed/settings.json"), entry);
        Path flatpak = f.write(f.root.resolve("flatpak/zed/settings.json"), entry);
        Path mac = f.write(f.home.resolve(".config/zed/settings.json"), entry);
        Path windows = f.write(f.root.resolve("roaming/Zed/settings.json"), entry);

        assertEquals(xdg, path(source, f, Map.of("XDG_CONFIG_HOME", f.root.resolve("xdg").toString())));
        assertEquals(flatpak, path(source, f, Map.of("XDG_CONFIG_HOME", f.root.resolve("xdg").toString(),
                "FLATPAK_XDG_CONFIG_HOME", f.root.resolve("flatpak").toString())));
        assertEquals(mac, path(new ZedSource(Platform.MACOS), f, Map.of("XDG_CONFIG_HOME", f.root.resolve("xdg").toString())),
                "Zed on macOS always uses ~/.config/zed");
        assertEquals(windows, path(new ZedSource(Platform.WINDOWS), f, Map.of("APPDATA", f.root.resolve("roaming").toString())));
    }

    private static Path path(ZedSource source, Fixture f, Map<String, String> environment) {
        return server(source.discover(f.context(environment)), "s").source().path().orElseThrow();
    }

    @Test
    void badInputIsAProblemAtItsPlaceAndCostsOnlyItsServer(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.write(f.home.resolve(".config/zed/settings.json"), "{\"context_servers\": {\n"
                + "\"a\": {\"command\": {\"path\": 3}},\n"
                + "\"b\": {\"command\": \"b\", \"timeout\": \"60\"},\n"
                + "\"c\": {\"url\": \"https://c\", \"oauth\": \"client\"},\n"
                + "\"d\": {\"command\": \"d\", \"url\": \"https://ignored\"}\n}}");
        Result result = source.discover(f.context());
        assertEquals(List.of(
                new Problem(file, "/context_servers/a/command/path", "a", "\"path\" must be a string, got a number"),
                new Problem(file, "/context_servers/b/timeout", "b", "\"timeout\" must be a number of seconds, got a string"),
                new Problem(file, "/context_servers/c/oauth", "c", "\"oauth\" must be an object, got a string")),
                result.problems());
        assertEquals(List.of("d"), names(result));
        assertEquals(Optional.empty(), server(result, "d").url(), "with a command, Zed reads a stdio server");

        f.write(file, "{\n  \"context_servers\": {\n    \"x\": {\"command\": \"c\",, }\n  }\n}");
        List<Problem> problems = source.discover(f.context()).problems();
        assertEquals(1, problems.size(), problems::toString);
        assertEquals("3:26", problems.get(0).location());
        assertTrue(problems.get(0).message().startsWith("invalid JSON: "), problems.get(0).message());
    }
}
