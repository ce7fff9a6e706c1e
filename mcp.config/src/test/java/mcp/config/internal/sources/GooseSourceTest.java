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
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata.Level;
import mcp.api.spi.CapabilitySource.Problem;
import mcp.api.spi.CapabilitySource.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example file follows goose's guide (https://block.github.io/goose/docs/guides/config-files:
 * the builtin, platform, stdio and streamable_http shapes) and the fields of its extension configs
 * (env_keys, envs, available_tools, timeout in seconds, the sse and inline_python types).
 */
class GooseSourceTest {

    private final GooseSource source = new GooseSource(Platform.LINUX);

    @Test
    void readsTheDocumentedShapes(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.install("goose/config.yaml", f.home.resolve(".config/goose/config.yaml"));

        Result result = source.discover(f.context(Map.of("GITHUB_PERSONAL_ACCESS_TOKEN", "ghp-x", "API_TOKEN", "t0k")));
        assertEquals(List.of(
                new Problem(file, "/extensions/github/envs", "github", "goose does not let an extension set PATH; it is ignored"),
                new Problem(file, "/extensions/script/type", "script",
                        "inline_python extensions (Python code goose runs with uvx) are not supported by mcp-host")),
                result.problems());
        assertEquals(List.of("filesystem", "remote-tools", "github", "api", "filesystem-copy"), names(result),
                "builtin and platform extensions run inside goose: left out without a problem");

        ServerSpec filesystem = server(result, "filesystem");
        assertSource(source, file, Level.USER, "/extensions/filesystem", filesystem);
        assertEquals(Optional.of("stdio"), filesystem.type());
        assertEquals(Optional.of("npx"), filesystem.command());
        assertEquals(List.of("-y", "@modelcontextprotocol/server-filesystem", "/tmp"), filesystem.args());
        assertEquals(Map.of(), filesystem.env());
        assertEquals(Optional.of(300_000L), filesystem.timeoutMillis(), "seconds");
        assertEquals(Optional.of(true), filesystem.enabled());
        assertEquals(Optional.empty(), filesystem.enabledTools());
        assertEquals(filesystem.args(), server(result, "filesystem-copy").args(), "an alias is its anchor's value");

        ServerSpec remote = server(result, "remote-tools");
        assertEquals(Optional.of("http"), remote.type());
        assertEquals(Optional.of("https://example.com/mcp"), remote.url());
        assertEquals(Map.of(), remote.headers());

        ServerSpec github = server(result, "github");
        assertEquals(Optional.of(false), github.enabled());
        assertEquals(Map.of("GITHUB_PERSONAL_ACCESS_TOKEN", "ghp-x", "GITHUB_HOST", "github.com",
                "LITERAL", "${NOT_FOR_GOOSE}"), github.env(), "env_keys from the environment; envs as written, without PATH");
        assertFalse(github.expandVariables(), "goose expands nothing in envs: ${NOT_FOR_GOOSE} stays literal");
        assertEquals(Optional.of(List.of("create_issue", "list_issues")), github.enabledTools());
        assertEquals(Optional.of(1_500L), github.timeoutMillis());

        ServerSpec api = server(result, "api");
        assertEquals(Optional.of("https://api.example.com/mcp?region=eu-west-1"), api.url());
        assertEquals(Map.of("Authorization", "Bearer t0k", "X-Unknown", "$NOT_SET_HERE"), api.headers(),
                "goose substitutes from the extension's envs and env_keys only");
        assertEquals(Map.of(), api.env(), "a remote extension's envs only feed the substitution");
        assertEquals(Optional.empty(), api.enabledTools(), "an empty available_tools allows all");

        assertEquals(1, result.inactive().size());
        assertEquals("old-sse", result.inactive().get(0).server().name());
        assertEquals(Optional.of("sse"), result.inactive().get(0).server().type());
        assertEquals("goose no longer starts SSE extensions (type: sse); change the type to streamable_http if the"
                + " server speaks Streamable HTTP", result.inactive().get(0).reason());
    }

    @Test
    void theFileIsInGoosesConfigFolder(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        String yaml = "extensions:\n  s:\n    type: stdio\n    cmd: c\n";
        Path xdg = f.write(f.root.resolve("xdg/goose/config.yaml"), yaml);
        Path root = f.write(f.root.resolve("goose-root/config/config.yaml"), yaml);
        Path windows = f.write(f.root.resolve("roaming/Block/goose/config/config.yaml"), yaml);
        Path home = f.write(f.home.resolve(".config/goose/config.yaml"), yaml);

        assertEquals(home, path(source, f, Map.of()));
        assertEquals(xdg, path(source, f, Map.of("XDG_CONFIG_HOME", f.root.resolve("xdg").toString())));
        assertEquals(xdg, path(new GooseSource(Platform.MACOS), f, Map.of("XDG_CONFIG_HOME", f.root.resolve("xdg").toString())));
        assertEquals(root, path(source, f, Map.of("GOOSE_PATH_ROOT", f.root.resolve("goose-root").toString(),
                "XDG_CONFIG_HOME", f.root.resolve("xdg").toString())));
        assertEquals(windows, path(new GooseSource(Platform.WINDOWS), f, Map.of("APPDATA", f.root.resolve("roaming").toString())));
    }

    private static Path path(GooseSource source, Fixture f, Map<String, String> environment) {
        return server(source.discover(f.context(environment)), "s").source().path().orElseThrow();
    }

    @Test
    void malformedYamlIsOneProblemAtItsLineAndColumnWithoutQuotingTheFile(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.write(f.home.resolve(".config/goose/config.yaml"),
                "extensions:\n  a:\n    type: stdio\n    cmd: npx\n   args: [secret-token]\n");
        assertEquals(List.of(new Problem(file, "5:4", "", "invalid YAML: expected <block end>, but found"
                + " '<block mapping start>'")), source.discover(f.context()).problems());

        f.write(file, "extensions:\n  a: {type: stdio, cmd: [1, 2\n");
        assertEquals(List.of(new Problem(file, "2:30", "", "invalid YAML: expected ',' or ']', but got <stream end>")),
                source.discover(f.context()).problems());

        f.write(file, "extensions: {}\n---\nextensions: {}\n");
        assertEquals(List.of(new Problem(file, "3:1", "", "invalid YAML: a second YAML document (---) follows the first;"
                + " goose reads one")), source.discover(f.context()).problems());

        f.write(file, "extensions:\n  a:\n    type: stdio\n    cmd: *nowhere\n");
        assertEquals(List.of(new Problem(file, "4:10", "", "invalid YAML: the alias *nowhere names no anchor (&nowhere)"
                + " before it")), source.discover(f.context()).problems());

        StringBuilder bomb = new StringBuilder("a: &a [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n");
        for (int i = 1; i <= 8; i++) {
            String previous = i == 1 ? "a" : "x" + (i - 1);
            bomb.append("x").append(i).append(": &x").append(i).append(" [").append(String.join(", ",
                    java.util.Collections.nCopies(8, "*" + previous))).append("]\n");
        }
        f.write(file, bomb.toString());
        List<Problem> problems = source.discover(f.context()).problems();
        assertEquals(1, problems.size(), problems::toString);
        assertEquals("invalid YAML: the document expands to more than 200000 values through its aliases",
                problems.get(0).message());

        f.write(file, "a: " + "[".repeat(600) + "\n");
        problems = source.discover(f.context()).problems();
        assertEquals(1, problems.size(), problems::toString);
        assertEquals("invalid YAML: Document nesting depth (501) exceeds the maximum allowed (500, from"
                + " `StreamReadConstraints.getMaxNestingDepth()`)", problems.get(0).message());

        f.write(file, "- just\n- a list\n");
        assertEquals(List.of(new Problem(file, "", "", "the top level must be a mapping, got an array")),
                source.discover(f.context()).problems());
    }

    @Test
    void oneBadExtensionCostsOnlyItself(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path file = f.write(f.home.resolve(".config/goose/config.yaml"), String.join("\n",
                "extensions:",
                "  no-type: {cmd: x}",
                "  unknown: {type: websocket, uri: 'ws://x'}",
                "  socket: {type: streamable_http, uri: 'http://localhost/mcp', socket: /tmp/mcp.sock}",
                "  bad-args: {type: stdio, cmd: x, args: x}",
                "  bad-timeout: {type: stdio, cmd: x, timeout: soon}",
                "  list: [1, 2]",
                "  good: {type: stdio, cmd: ok, args: [--port, 8080]}",
                ""));
        Result result = source.discover(f.context());
        assertEquals(List.of(
                new Problem(file, "/extensions/no-type", "no-type", "\"type\" must be stdio, streamable_http, sse, builtin,"
                        + " platform, frontend or inline_python, got none"),
                new Problem(file, "/extensions/unknown/type", "unknown", "\"type\" must be stdio, streamable_http, sse,"
                        + " builtin, platform, frontend or inline_python, got \"websocket\""),
                new Problem(file, "/extensions/socket/socket", "socket", "\"socket\" (HTTP over a Unix socket) is not"
                        + " supported by mcp-host"),
                new Problem(file, "/extensions/bad-args/args", "bad-args", "\"args\" must be an array of strings, got a string"),
                new Problem(file, "/extensions/bad-timeout/timeout", "bad-timeout",
                        "\"timeout\" must be a number of seconds, got a string"),
                new Problem(file, "/extensions/list", "list", "the server entry must be a mapping, got an array")),
                result.problems());
        assertEquals(List.of("good"), names(result));
        assertEquals(List.of("--port", "8080"), server(result, "good").args());
    }
}
