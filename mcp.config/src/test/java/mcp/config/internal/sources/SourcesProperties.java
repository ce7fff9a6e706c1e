package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import mcp.api.McpJson;
import mcp.api.ServerSpec;
import mcp.api.spi.CapabilitySource;
import mcp.api.spi.CapabilitySource.Inactive;
import mcp.api.spi.CapabilitySource.Problem;
import mcp.api.spi.CapabilitySource.Result;
import mcp.proptest.Cases;
import mcp.proptest.Gen;
import mcp.proptest.Trees;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Generated config files: broken ones never make {@code discover} throw and every problem names a
 * file that was written; valid ones come back as written. {@link SourcesFuzzTest} feeds the same
 * sources what a fuzzer makes of any bytes.
 */
class SourcesProperties {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /**
     * Every JSON file any source reads, relative to the temporary root ({@code home/} or
     * {@code work/project/}): the servers' files and those that hold what the user decided.
     */
    static final List<String> JSON_FILES = List.of(
            "home/.config/mcp-host/mcp.json", "home/.claude.json", "home/.claude/mcp.json", "home/.gemini/settings.json",
            "home/.claude/settings.json", "home/.gemini/trustedFolders.json",
            "work/project/.claude/settings.json", "work/project/.claude/settings.local.json",
            "home/.cursor/mcp.json", "home/.codeium/windsurf/mcp_config.json",
            "work/project/.mcp-host/mcp.json", "work/project/.mcp.json", "work/project/.claude/mcp.json",
            "work/project/packages/app/.gemini/settings.json", "work/project/.cursor/mcp.json", "work/project/.windsurf/mcp_config.json",
            "work/project/.vscode/mcp.json", "work/project/mcp.json", "work/project/packages/app/.mcp.json",
            "home/.config/Claude/claude_desktop_config.json", "home/.config/Code/User/mcp.json",
            "home/.config/Code - Insiders/User/mcp.json", "home/.codeium/mcp_config.json",
            "home/.config/zed/settings.json", "work/project/.zed/settings.json",
            "home/.config/opencode/opencode.json", "work/project/opencode.jsonc",
            "home/.kiro/settings/mcp.json", "work/project/.kiro/settings/mcp.json");

    static final List<String> TOML_FILES = List.of("home/.codex/config.toml", "work/project/packages/app/.codex/config.toml");

    static final List<String> YAML_FILES = List.of("home/.config/goose/config.yaml");

    /** Runs one case in a fresh empty fixture tree, deleted afterwards. */
    @FunctionalInterface
    interface InFixture {
        void check(Fixture fixture) throws Exception;
    }

    static void inFreshFixture(InFixture body) throws Exception {
        Fixture fixture = Fixture.empty(Files.createTempDirectory("mcp-config-props"));
        try {
            body.check(fixture);
        } finally {
            Trees.delete(fixture.root);
        }
    }

    // ---- broken input never throws, and every problem names a written file -----------------------

    @Test
    void randomJsonValuesInRandomPlacesNeverThrow() {
        int[] servers = {0};
        int[] problems = {0};
        int cases = Cases.run(150, gen -> inFreshFixture(fixture -> {
            byte[] text = McpJson.mapper().writeValueAsString(document(gen))
                    .replace("__PROJECT__", fixture.project.toString())
                    .getBytes(StandardCharsets.UTF_8);
            List<Result> results = checkEverySource(fixture, writeAll(fixture, JSON_FILES, text));
            servers[0] += results.stream().anyMatch(r -> !r.servers().isEmpty()) ? 1 : 0;
            problems[0] += results.stream().anyMatch(r -> !r.problems().isEmpty()) ? 1 : 0;
        }));
        // The generator must reach both outcomes often, or the property proves little.
        if (cases >= 100) {
            assertTrue(servers[0] * 100 > cases * 30, "servers found in " + servers[0] + " of " + cases + " cases");
            assertTrue(problems[0] * 100 > cases * 30, "problems found in " + problems[0] + " of " + cases + " cases");
        }
    }

    @Test
    void truncatedDocumentsNeverThrow() {
        Cases.run(100, gen -> inFreshFixture(fixture -> {
            String text = McpJson.mapper().writeValueAsString(document(gen));
            byte[] bytes = text.substring(0, (int) (text.length() * gen.fraction())).getBytes(StandardCharsets.UTF_8);
            checkEverySource(fixture, writeAll(fixture, JSON_FILES, bytes));
        }));
    }

    @Test
    void randomBytesNeverThrow() {
        Cases.run(100, gen -> inFreshFixture(fixture -> {
            byte[] bytes = gen.bytes(0, 200);
            Set<Path> written = writeAll(fixture, JSON_FILES, bytes);
            written.addAll(writeAll(fixture, TOML_FILES, bytes));
            written.addAll(writeAll(fixture, YAML_FILES, bytes));
            checkEverySource(fixture, written);
        }));
    }

    @Test
    void tomlishTextNeverMakesCodexThrow() {
        int[] servers = {0};
        int cases = Cases.run(200, gen -> inFreshFixture(fixture -> {
            Set<Path> written = writeAll(fixture, TOML_FILES, tomlish(gen).getBytes(StandardCharsets.UTF_8));
            Result result = check(fixture, new CodexSource(), written);
            for (ServerSpec spec : result.servers()) {
                assertTrue(spec.location().startsWith("/mcp_servers/"), spec.location());
            }
            servers[0] += result.servers().isEmpty() ? 0 : 1;
        }));
        if (cases >= 100) {
            assertTrue(servers[0] * 100 > cases * 15, "servers found in " + servers[0] + " of " + cases + " cases");
        }
    }

    /** Runs every source on the tree: none throws, every problem and server names a written file. */
    static List<Result> checkEverySource(Fixture fixture, Set<Path> written) {
        List<Result> results = new ArrayList<>();
        for (CapabilitySource source : Fixture.allSources()) {
            results.add(check(fixture, source, written));
        }
        return results;
    }

    static Result check(Fixture fixture, CapabilitySource source, Set<Path> written) {
        Result result = source.discover(fixture.context()); // must not throw
        for (Problem problem : result.problems()) {
            assertTrue(written.contains(problem.file()), () -> source.id() + ": " + problem + " names no written file");
            assertFalse(problem.message().isBlank(), problem::toString);
        }
        for (ServerSpec spec : result.servers()) {
            assertTrue(written.contains(spec.source().path().orElseThrow()), spec::toString);
            assertEquals(source.id(), spec.source().providerId());
        }
        for (Inactive inactive : result.inactive()) {
            assertTrue(written.contains(inactive.server().source().path().orElseThrow()), inactive::toString);
            assertFalse(inactive.reason().isBlank(), inactive::toString);
        }
        return result;
    }

    static Set<Path> writeAll(Fixture fixture, List<String> files, byte[] content) {
        Set<Path> written = new LinkedHashSet<>();
        for (String name : files) {
            Path file = fixture.root.resolve(name);
            try {
                Files.createDirectories(file.getParent());
                Files.write(file, content);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            written.add(file);
        }
        return written;
    }

    // ---- valid documents come back as written -----------------------------------------------------

    /** A JSON source, its project file, and the key its servers sit under. */
    record Target(Supplier<CapabilitySource> source, String file, String container) {
    }

    private static final List<Target> JSON_SOURCES = List.of(
            new Target(NativeSource::new, ".mcp-host/mcp.json", "mcpServers"),
            new Target(ClaudeSource::new, ".mcp.json", "mcpServers"),
            new Target(GeminiSource::new, ".gemini/settings.json", "mcpServers"),
            new Target(CursorSource::new, ".cursor/mcp.json", "mcpServers"),
            new Target(WindsurfSource::new, ".windsurf/mcp_config.json", "mcpServers"),
            new Target(VsCodeSource::new, ".vscode/mcp.json", "servers"),
            new Target(KiroSource::new, ".kiro/settings/mcp.json", "mcpServers"),
            new Target(McpJsonSource::new, "mcp.json", "mcpServers"));

    @Test
    void validServersComeBackAsWrittenInOrder() {
        Cases.run(150, gen -> {
            List<Written> servers = servers(gen);
            Target target = gen.pick(JSON_SOURCES);
            inFreshFixture(fixture -> validServersComeBackAsWrittenInOrder(fixture, servers, target));
        });
    }

    private static void validServersComeBackAsWrittenInOrder(Fixture fixture, List<Written> servers, Target target) {
        CapabilitySource source = target.source().get();
        ObjectNode container = NODES.objectNode();
        boolean claude = target.file().equals(".mcp.json");
        for (Written server : servers) {
            ObjectNode json = server.toJson();
            if (claude) {
                // Claude Code needs a type beside a url, and the type decides which fields count.
                json.put("type", server.command.isPresent() ? "stdio" : "http");
            }
            container.set(server.name, json);
        }
        ObjectNode root = NODES.objectNode();
        root.put("someOtherSetting", true);
        root.set(target.container(), container);
        // Gemini CLI reads the working directory's settings only; the others search up to the repository root.
        Path base = target.file().startsWith(".gemini/") ? fixture.app : fixture.project;
        Path file = fixture.write(base.resolve(target.file()), McpJson.mapper().writeValueAsString(root));
        // Approved in Claude Code, trusted in Gemini CLI: so that their servers count (the *ConsentTest rules).
        fixture.approveInClaude();
        fixture.trustInGemini();

        Result result = source.discover(fixture.context());

        assertEquals(List.of(), result.problems());
        assertEquals(servers.size(), result.servers().size());
        for (int i = 0; i < servers.size(); i++) {
            Written expected = claude ? servers.get(i).asClaudeReadsIt()
                    : target.file().startsWith(".gemini/") ? servers.get(i).asGeminiReadsIt() : servers.get(i);
            ServerSpec actual = result.servers().get(i);
            assertEquals(expected.name, actual.name());
            assertEquals(expected.command, actual.command());
            assertEquals(expected.args, actual.args());
            assertEquals(expected.env, actual.env());
            assertEquals(expected.url, actual.url());
            assertEquals(expected.headers, actual.headers());
            assertEquals(Optional.of(file), actual.source().path());
            assertEquals(Pointers.child("/" + target.container(), expected.name), actual.location());
        }
    }

    /** A server as the property writes it. */
    static final class Written {
        final String name;
        final Optional<String> command;
        final List<String> args;
        final Map<String, String> env;
        final Optional<String> url;
        final Map<String, String> headers;

        Written(String name, Optional<String> command, List<String> args, Map<String, String> env,
                Optional<String> url, Map<String, String> headers) {
            this.name = name;
            this.command = command;
            this.args = args;
            this.env = env;
            this.url = url;
            this.headers = headers;
        }

        /** @return the server as Claude Code reads it with the type written for it: stdio with a command, else http */
        Written asClaudeReadsIt() {
            return command.isPresent() ? new Written(name, command, args, env, Optional.empty(), Map.of())
                    : new Written(name, command, List.of(), Map.of(), url, headers);
        }

        /** @return the server as Gemini CLI reads it: an endpoint beside a command wins */
        Written asGeminiReadsIt() {
            return url.isPresent() ? new Written(name, Optional.empty(), List.of(), Map.of(), url, headers) : this;
        }

        ObjectNode toJson() {
            ObjectNode node = NODES.objectNode();
            command.ifPresent(c -> node.put("command", c));
            if (!args.isEmpty()) {
                ArrayNode array = node.putArray("args");
                args.forEach(array::add);
            }
            if (!env.isEmpty()) {
                ObjectNode object = node.putObject("env");
                env.forEach(object::put);
            }
            url.ifPresent(u -> node.put("url", u));
            if (!headers.isEmpty()) {
                ObjectNode object = node.putObject("headers");
                headers.forEach(object::put);
            }
            return node;
        }

        @Override
        public String toString() {
            return "Written[" + name + ", " + command + ", " + args + ", " + env + ", " + url + ", " + headers + "]";
        }
    }

    /** Printable ASCII, Latin, some CJK, and newline, tab and NUL; no '$' (variables are tested on their own). */
    private static final String TEXT_ALPHABET = alphabet();

    private static String alphabet() {
        StringBuilder chars = new StringBuilder("\n\t\u0000");
        for (char c = ' '; c <= '~'; c++) {
            chars.append(c == '$' ? "" : String.valueOf(c));
        }
        for (char c = '\u00a0'; c <= '\u024f'; c++) {
            chars.append(c);
        }
        for (char c = '\u4e00'; c <= '\u4e2f'; c++) {
            chars.append(c);
        }
        return chars.toString();
    }

    private static List<Written> servers(Gen gen) {
        Supplier<String> text = () -> gen.string(TEXT_ALPHABET, 0, 12);
        return gen.uniqueList(0, 6, w -> w.name, () -> new Written(text.get(), gen.optional(0.95, text),
                gen.list(0, 4, text), gen.map(0, 3, text, text), gen.optional(0.95, text), gen.map(0, 3, text, text)));
    }

    // ---- generators of broken input --------------------------------------------------------------

    /** Any JSON value, at most {@code depth} levels deep. */
    private static JsonNode anyJson(Gen gen, int depth) {
        return switch (gen.weighted(4, depth > 0 ? 1 : 0, depth > 0 ? 1 : 0)) {
            case 0 -> switch (gen.weighted(1, 1, 1, 1, 1)) {
                case 0 -> NODES.nullNode();
                case 1 -> NODES.booleanNode(gen.bool());
                case 2 -> NODES.numberNode(gen.anyLong());
                case 3 -> NODES.numberNode(gen.anyDouble());
                default -> NODES.stringNode(gen.string(0, 8));
            };
            case 1 -> array(gen.list(0, 3, () -> anyJson(gen, depth - 1)));
            default -> object(gen.map(0, 3, () -> gen.string(0, 6), () -> anyJson(gen, depth - 1)));
        };
    }

    /** A field with a value of the right type most of the time, and any value otherwise. */
    private static JsonNode field(Gen gen, Supplier<JsonNode> wellTyped) {
        return gen.weighted(12, 1) == 0 ? wellTyped.get() : anyJson(gen, 2);
    }

    /** Strings, now and then with a variable each source treats in its own way. */
    private static JsonNode strings(Gen gen) {
        return NODES.stringNode(gen.weighted(8, 1) == 0 ? gen.string(0, 10)
                : gen.pick("${input:x}", "${env:HOME}", "$HOME", "${workspaceFolder}", "${", "{env:HOME}", "{file:x}",
                        "${file:/x}", "${ HOME }"));
    }

    private static JsonNode stringArray(Gen gen) {
        return array(gen.list(0, 3, () -> strings(gen)));
    }

    private static JsonNode stringObject(Gen gen) {
        return object(gen.map(0, 3, () -> gen.string(0, 6), () -> strings(gen)));
    }

    /** A server entry in the union of every tool's fields. */
    private static JsonNode serverEntry(Gen gen) {
        if (gen.weighted(6, 1) == 1) {
            return anyJson(gen, 2);
        }
        Map<String, Supplier<JsonNode>> fields = new LinkedHashMap<>();
        for (String key : List.of("type", "command", "cwd", "url", "httpUrl", "serverUrl", "envFile", "source")) {
            fields.put(key, () -> strings(gen));
        }
        for (String key : List.of("args", "enabledTools", "disabledTools", "includeTools", "excludeTools")) {
            fields.put(key, () -> stringArray(gen));
        }
        for (String key : List.of("env", "headers", "environment", "oauth")) {
            fields.put(key, () -> stringObject(gen));
        }
        // The types opencode and goose need to read an entry at all, now and then anything.
        fields.put("type", () -> gen.weighted(3, 1) == 0 ? NODES.stringNode(gen.pick("stdio", "http", "sse", "local",
                "remote", "streamable_http", "builtin")) : strings(gen));
        // opencode's argv command, Zed's older command object.
        fields.put("command", () -> gen.weighted(3, 1, 1) == 0 ? strings(gen) : gen.bool() ? stringArray(gen)
                : object(Map.of("path", strings(gen), "args", stringArray(gen))));
        fields.put("timeout", () -> NODES.numberNode(gen.anyLong()));
        fields.put("enabled", () -> NODES.booleanNode(gen.bool()));
        fields.put("disabled", () -> NODES.booleanNode(gen.bool()));
        fields.put("oauthScopes", () -> stringArray(gen));
        fields.put("auth", () -> {
            ObjectNode auth = NODES.objectNode();
            auth.set("type", strings(gen));
            auth.set("credentialId", strings(gen));
            return auth;
        });
        ObjectNode node = NODES.objectNode();
        fields.forEach((key, value) -> gen.optional(0.3, () -> field(gen, value)).ifPresent(v -> node.set(key, v)));
        return node;
    }

    private static JsonNode container(Gen gen) {
        return gen.weighted(6, 1) == 0 ? object(gen.map(1, 4, () -> gen.string(0, 6), () -> serverEntry(gen)))
                : anyJson(gen, 2);
    }

    /** A config document: mostly the right shape, with any JSON value in any place. */
    static JsonNode document(Gen gen) {
        if (gen.weighted(8, 1) == 1) {
            return anyJson(gen, 3);
        }
        ObjectNode node = NODES.objectNode();
        gen.optional(0.8, () -> container(gen)).ifPresent(c -> node.set("mcpServers", c));
        gen.optional(0.4, () -> container(gen)).ifPresent(c -> node.set("servers", c));
        gen.optional(0.1, () -> container(gen)).ifPresent(c -> node.set("mcp_servers", c));
        gen.optional(0.2, () -> container(gen)).ifPresent(c -> node.set("context_servers", c));
        // opencode: OpenCode 1's servers directly under mcp, OpenCode 2's under mcp.servers.
        gen.optional(0.2, () -> gen.bool() ? container(gen) : object(Map.of("servers", container(gen))))
                .ifPresent(c -> node.set("mcp", c));
        // Claude Code's projects map, keyed by the project directory the property substitutes.
        gen.optional(0.3, () -> gen.weighted(3, 1) == 0
                ? object(Map.of("__PROJECT__", object(Map.of("mcpServers", container(gen))))) : anyJson(gen, 2))
                .ifPresent(p -> node.set("projects", p));
        gen.optional(0.3, () -> anyJson(gen, 1)).ifPresent(v -> node.set("numStartups", v));
        return node;
    }

    private static final List<String> GOOD_LINES = List.of("command = \"npx\"", "args = [\"-y\", \"pkg\", 1]",
            "env = { A = \"b\", N = 2 }", "env_vars = [\"A\"]", "url = \"https://x\"", "startup_timeout_sec = 10",
            "tool_timeout_sec = 1.5", "startup_timeout_ms = 500", "enabled = true", "enabled_tools = [\"t\"]",
            "disabled_tools = []", "http_headers = { X = \"y\" }", "env_http_headers = { X = \"V\" }",
            "bearer_token_env_var = \"T\"", "cwd = '/tmp'", "unknown_key = 1979-05-27T07:32:00Z");
    private static final List<String> KEYS = List.of("command", "args", "env", "env_vars", "cwd", "url", "http_headers",
            "env_http_headers", "bearer_token_env_var", "startup_timeout_sec", "tool_timeout_sec", "startup_timeout_ms",
            "enabled", "enabled_tools", "disabled_tools", "x", "\"quoted key\"");
    private static final List<String> VALUES = List.of("\"text\"", "'lit'", "1", "-5", "1.5", "inf", "nan", "1e999",
            "99999999999999999999999", "true", "[\"a\", 1]", "[]", "{ A = \"b\" }", "{ A = [1] }",
            "1979-05-27T07:32:00Z", "\"\"\"multi\nline\"\"\"", "[", "\"unterminated", "{ A = ");

    /**
     * Text that looks like Codex's TOML: tables of servers whose lines are mostly right, sometimes
     * of the wrong type, sometimes noise; keys and tables are unique so that many documents parse.
     */
    static String tomlish(Gen gen) {
        Supplier<String> line = () -> switch (gen.weighted(8, 2, 1)) {
            case 0 -> gen.pick(GOOD_LINES);
            case 1 -> gen.pick(KEYS) + " = " + gen.pick(VALUES);
            default -> gen.string(0, 12);
        };
        Supplier<String> header = () -> gen.weighted(6, 1) == 0
                ? gen.pick("[mcp_servers.a]", "[mcp_servers.b]", "[mcp_servers.\"x/y~z\"]", "[mcp_servers.c]")
                : gen.pick("[mcp_servers.a.env]", "[mcp_servers]", "[[mcp_servers]]", "[profiles.p]", "mcp_servers = 3",
                        "mcp_servers = { a = { command = \"x\" } }", "a = { command = 1 }", "");
        List<String> tables = gen.uniqueList(0, 4, t -> t.lines().findFirst().orElse(""),
                () -> header.get() + "\n" + String.join("\n", gen.uniqueList(0, 5, SourcesProperties::key, line)));
        return String.join("\n", tables) + "\n";
    }

    private static String key(String line) {
        int equals = line.indexOf(" = ");
        return equals < 0 ? line : line.substring(0, equals);
    }

    private static JsonNode array(List<JsonNode> items) {
        ArrayNode node = NODES.arrayNode();
        items.forEach(node::add);
        return node;
    }

    private static ObjectNode object(Map<String, JsonNode> members) {
        ObjectNode node = NODES.objectNode();
        members.forEach(node::set);
        return node;
    }
}
