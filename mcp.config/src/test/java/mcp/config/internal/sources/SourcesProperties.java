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
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.McpJson;
import mcp.api.ServerSpec;
import mcp.api.spi.CapabilitySource;
import mcp.api.spi.CapabilitySource.Problem;
import mcp.api.spi.CapabilitySource.Result;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeTry;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Generated config files: broken ones never make {@code discover} throw and every problem names a
 * file that was written; valid ones come back as written.
 */
class SourcesProperties {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** Every JSON file any source reads, relative to the temporary root; {@code home/} or {@code work/project/}. */
    private static final List<String> JSON_FILES = List.of(
            "home/.config/mcp-host/mcp.json", "home/.claude.json", "home/.claude/mcp.json", "home/.gemini/settings.json",
            "home/.cursor/mcp.json", "home/.codeium/windsurf/mcp_config.json",
            "work/project/.mcp-host/mcp.json", "work/project/.mcp.json", "work/project/.claude/mcp.json",
            "work/project/.gemini/settings.json", "work/project/.cursor/mcp.json", "work/project/.windsurf/mcp_config.json",
            "work/project/.vscode/mcp.json", "work/project/mcp.json", "work/project/packages/app/.mcp.json");

    private static final List<String> TOML_FILES = List.of("home/.codex/config.toml", "work/project/.codex/config.toml");

    private Fixture fixture;

    @BeforeTry
    void createTree() throws IOException {
        fixture = Fixture.empty(Files.createTempDirectory("mcp-config-props"));
    }

    @AfterTry
    void deleteTree() throws IOException {
        try (Stream<Path> files = Files.walk(fixture.root)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                Files.delete(p);
            }
        }
    }

    // ---- broken input never throws, and every problem names a written file -----------------------

    // Without edge cases: mixed into a generator this deep they crowd out the random documents.
    @Property(tries = 150, edgeCases = EdgeCasesMode.NONE)
    void randomJsonValuesInRandomPlacesNeverThrow(@ForAll("documents") JsonNode document) {
        byte[] text = McpJson.mapper().writeValueAsString(document)
                .replace("__PROJECT__", fixture.project.toString())
                .getBytes(StandardCharsets.UTF_8);
        List<Result> results = checkEverySource(writeAll(JSON_FILES, text));

        // The generator must reach both outcomes often, or the property proves little.
        Statistics.label("servers found").collect(results.stream().anyMatch(r -> !r.servers().isEmpty()));
        Statistics.label("problems found").collect(results.stream().anyMatch(r -> !r.problems().isEmpty()));
        Statistics.label("servers found").coverage(c -> c.check(true).percentage(p -> p > 30));
        Statistics.label("problems found").coverage(c -> c.check(true).percentage(p -> p > 30));
    }

    @Property(tries = 100)
    void truncatedDocumentsNeverThrow(@ForAll("documents") JsonNode document, @ForAll("fractions") double keep) {
        String text = McpJson.mapper().writeValueAsString(document);
        byte[] bytes = text.substring(0, (int) (text.length() * keep)).getBytes(StandardCharsets.UTF_8);
        checkEverySource(writeAll(JSON_FILES, bytes));
    }

    @Property(tries = 100)
    void randomBytesNeverThrow(@ForAll("bytes") byte[] bytes) {
        Set<Path> written = writeAll(JSON_FILES, bytes);
        written.addAll(writeAll(TOML_FILES, bytes));
        checkEverySource(written);
    }

    @Property(tries = 200)
    void tomlishTextNeverMakesCodexThrow(@ForAll("tomlish") String text) {
        Set<Path> written = writeAll(TOML_FILES, text.getBytes(StandardCharsets.UTF_8));
        Result result = check(new CodexSource(), written);
        for (ServerSpec spec : result.servers()) {
            assertTrue(spec.location().startsWith("/mcp_servers/"), spec.location());
        }
        Statistics.label("servers found").collect(!result.servers().isEmpty());
        Statistics.label("servers found").coverage(c -> c.check(true).percentage(p -> p > 15));
    }

    private List<Result> checkEverySource(Set<Path> written) {
        List<Result> results = new ArrayList<>();
        for (CapabilitySource source : Fixture.allSources()) {
            results.add(check(source, written));
        }
        return results;
    }

    private Result check(CapabilitySource source, Set<Path> written) {
        Result result = source.discover(fixture.context()); // must not throw
        for (Problem problem : result.problems()) {
            assertTrue(written.contains(problem.file()), () -> source.id() + ": " + problem + " names no written file");
            assertFalse(problem.message().isBlank(), problem::toString);
        }
        for (ServerSpec spec : result.servers()) {
            assertTrue(written.contains(spec.source().path().orElseThrow()), spec::toString);
            assertEquals(source.id(), spec.source().providerId());
        }
        return result;
    }

    private Set<Path> writeAll(List<String> files, byte[] content) {
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
            new Target(McpJsonSource::new, "mcp.json", "mcpServers"));

    @Property(tries = 150)
    void validServersComeBackAsWrittenInOrder(@ForAll("servers") List<Written> servers, @ForAll("sourceIndexes") int which) {
        Target target = JSON_SOURCES.get(which);
        CapabilitySource source = target.source().get();
        ObjectNode container = NODES.objectNode();
        for (Written server : servers) {
            container.set(server.name, server.toJson());
        }
        ObjectNode root = NODES.objectNode();
        root.put("someOtherSetting", true);
        root.set(target.container(), container);
        Path file = fixture.write(fixture.project.resolve(target.file()), McpJson.mapper().writeValueAsString(root));

        Result result = source.discover(fixture.context());

        assertEquals(List.of(), result.problems());
        assertEquals(servers.size(), result.servers().size());
        for (int i = 0; i < servers.size(); i++) {
            Written expected = servers.get(i);
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

    @Provide
    Arbitrary<List<Written>> servers() {
        // '$' is left out: editor and Gemini variables are translated, which is tested on its own.
        Arbitrary<String> text = Arbitraries.strings()
                .withCharRange(' ', '~').withCharRange('\u00a0', '\u024f').withCharRange('\u4e00', '\u4e2f')
                .withChars('\n', '\t', '\u0000')
                .excludeChars('$')
                .ofMaxLength(12);
        Arbitrary<Map<String, String>> map = Arbitraries.maps(text, text).ofMaxSize(3);
        Arbitrary<Written> server = Combinators.combine(
                        text, text.optional(), text.list().ofMaxSize(4), map, text.optional(), map)
                .as(Written::new);
        return server.list().ofMaxSize(6).uniqueElements(w -> w.name);
    }

    @Provide
    Arbitrary<Integer> sourceIndexes() {
        return Arbitraries.integers().between(0, JSON_SOURCES.size() - 1);
    }

    // ---- generators of broken input --------------------------------------------------------------

    @Provide
    Arbitrary<Double> fractions() {
        return Arbitraries.doubles().between(0, 1);
    }

    @Provide
    Arbitrary<byte[]> bytes() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(200);
    }

    /** Any JSON value, at most {@code depth} levels deep. */
    private static Arbitrary<JsonNode> anyJson(int depth) {
        Arbitrary<JsonNode> scalar = Arbitraries.oneOf(
                json(Arbitraries.just(NODES.nullNode())),
                json(Arbitraries.of(true, false).map(NODES::booleanNode)),
                json(Arbitraries.longs().map(NODES::numberNode)),
                json(Arbitraries.doubles().map(NODES::numberNode)),
                json(Arbitraries.strings().ofMaxLength(8).map(NODES::stringNode)));
        if (depth == 0) {
            return scalar;
        }
        Arbitrary<JsonNode> array = anyJson(depth - 1).list().ofMaxSize(3).map(SourcesProperties::array);
        Arbitrary<JsonNode> object = Arbitraries.maps(Arbitraries.strings().ofMaxLength(6), anyJson(depth - 1))
                .ofMaxSize(3).map(SourcesProperties::object);
        return Arbitraries.frequencyOf(Tuple.of(4, scalar), Tuple.of(1, array), Tuple.of(1, object));
    }

    /** A field with a value of the right type most of the time, and any value otherwise. */
    private static Arbitrary<JsonNode> field(Arbitrary<JsonNode> wellTyped) {
        return Arbitraries.frequencyOf(Tuple.of(12, wellTyped), Tuple.of(1, anyJson(2)));
    }

    /** Strings, now and then with a variable each source treats in its own way. */
    private static Arbitrary<JsonNode> strings() {
        return Arbitraries.frequencyOf(
                        Tuple.of(8, Arbitraries.strings().ofMaxLength(10)),
                        Tuple.of(1, Arbitraries.of("${input:x}", "${env:HOME}", "$HOME", "${workspaceFolder}", "${")))
                .map(NODES::stringNode);
    }

    private static Arbitrary<JsonNode> stringArray() {
        return strings().list().ofMaxSize(3).map(SourcesProperties::array);
    }

    private static Arbitrary<JsonNode> stringObject() {
        return Arbitraries.maps(Arbitraries.strings().ofMaxLength(6), strings()).ofMaxSize(3)
                .map(SourcesProperties::object);
    }

    /** A server entry in the union of every tool's fields. */
    private static Arbitrary<JsonNode> serverEntry() {
        Map<String, Arbitrary<JsonNode>> fields = new LinkedHashMap<>();
        for (String key : List.of("type", "command", "cwd", "url", "httpUrl", "serverUrl", "envFile")) {
            fields.put(key, field(strings()));
        }
        for (String key : List.of("args", "enabledTools", "disabledTools", "includeTools", "excludeTools")) {
            fields.put(key, field(stringArray()));
        }
        for (String key : List.of("env", "headers")) {
            fields.put(key, field(stringObject()));
        }
        fields.put("timeout", field(json(Arbitraries.longs().map(NODES::numberNode))));
        fields.put("enabled", field(json(Arbitraries.of(true, false).map(NODES::booleanNode))));
        fields.put("disabled", field(json(Arbitraries.of(true, false).map(NODES::booleanNode))));
        fields.put("auth", field(Combinators.combine(strings(), strings()).as((t, c) -> {
            ObjectNode auth = NODES.objectNode();
            auth.set("type", t);
            auth.set("credentialId", c);
            return (JsonNode) auth;
        })));
        List<Arbitrary<Optional<Tuple.Tuple2<String, JsonNode>>>> present = new ArrayList<>();
        fields.forEach((key, value) -> present.add(value.map(v -> Tuple.of(key, v)).optional(0.3)));
        Arbitrary<JsonNode> wellFormed = Combinators.combine(present).as(list -> {
            ObjectNode node = NODES.objectNode();
            list.forEach(o -> o.ifPresent(t -> node.set(t.get1(), t.get2())));
            return node;
        });
        return Arbitraries.frequencyOf(Tuple.of(6, wellFormed), Tuple.of(1, anyJson(2)));
    }

    private static Arbitrary<JsonNode> container() {
        Arbitrary<JsonNode> servers = Arbitraries.maps(Arbitraries.strings().ofMaxLength(6), serverEntry()).ofMinSize(1).ofMaxSize(4)
                .map(SourcesProperties::object);
        return Arbitraries.frequencyOf(Tuple.of(6, servers), Tuple.of(1, anyJson(2)));
    }

    /** A config document: mostly the right shape, with any JSON value in any place. */
    @Provide
    Arbitrary<JsonNode> documents() {
        Arbitrary<JsonNode> project = container().map(c -> {
            ObjectNode node = NODES.objectNode();
            node.set("mcpServers", c);
            return (JsonNode) node;
        });
        // Claude Code's projects map, keyed by the project directory the property substitutes.
        Arbitrary<JsonNode> projects = Arbitraries.frequencyOf(
                Tuple.of(3, project.map(p -> (JsonNode) object(Map.of("__PROJECT__", p)))),
                Tuple.of(1, anyJson(2)));
        List<Arbitrary<Optional<Tuple.Tuple2<String, JsonNode>>>> present = List.of(
                container().map(c -> Tuple.of("mcpServers", c)).optional(0.8),
                container().map(c -> Tuple.of("servers", c)).optional(0.4),
                container().map(c -> Tuple.of("mcp_servers", c)).optional(0.1),
                projects.map(p -> Tuple.of("projects", p)).optional(0.3),
                anyJson(1).map(v -> Tuple.of("numStartups", v)).optional(0.3));
        Arbitrary<JsonNode> wellFormed = Combinators.combine(present).as(list -> {
            ObjectNode node = NODES.objectNode();
            list.forEach(o -> o.ifPresent(t -> node.set(t.get1(), t.get2())));
            return node;
        });
        return Arbitraries.frequencyOf(Tuple.of(8, wellFormed), Tuple.of(1, anyJson(3)));
    }

    /**
     * Text that looks like Codex's TOML: tables of servers whose lines are mostly right, sometimes
     * of the wrong type, sometimes noise; keys and tables are unique so that many documents parse.
     */
    @Provide
    Arbitrary<String> tomlish() {
        Arbitrary<String> header = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.of("[mcp_servers.a]", "[mcp_servers.b]", "[mcp_servers.\"x/y~z\"]", "[mcp_servers.c]")),
                Tuple.of(1, Arbitraries.of("[mcp_servers.a.env]", "[mcp_servers]", "[[mcp_servers]]", "[profiles.p]",
                        "mcp_servers = 3", "mcp_servers = { a = { command = \"x\" } }", "a = { command = 1 }", "")));
        Arbitrary<String> goodLine = Arbitraries.of("command = \"npx\"", "args = [\"-y\", \"pkg\", 1]",
                "env = { A = \"b\", N = 2 }", "env_vars = [\"A\"]", "url = \"https://x\"", "startup_timeout_sec = 10",
                "tool_timeout_sec = 1.5", "startup_timeout_ms = 500", "enabled = true", "enabled_tools = [\"t\"]",
                "disabled_tools = []", "http_headers = { X = \"y\" }", "env_http_headers = { X = \"V\" }",
                "bearer_token_env_var = \"T\"", "cwd = '/tmp'", "unknown_key = 1979-05-27T07:32:00Z");
        Arbitrary<String> anyLine = Arbitraries.of("command", "args", "env", "env_vars", "cwd", "url", "http_headers",
                        "env_http_headers", "bearer_token_env_var", "startup_timeout_sec", "tool_timeout_sec",
                        "startup_timeout_ms", "enabled", "enabled_tools", "disabled_tools", "x", "\"quoted key\"")
                .flatMap(key -> Arbitraries.of("\"text\"", "'lit'", "1", "-5", "1.5", "inf", "nan", "1e999",
                                "99999999999999999999999", "true", "[\"a\", 1]", "[]", "{ A = \"b\" }", "{ A = [1] }",
                                "1979-05-27T07:32:00Z", "\"\"\"multi\nline\"\"\"", "[", "\"unterminated", "{ A = ")
                        .map(value -> key + " = " + value));
        Arbitrary<String> line = Arbitraries.frequencyOf(
                Tuple.of(8, goodLine), Tuple.of(2, anyLine), Tuple.of(1, Arbitraries.strings().ofMaxLength(12)));
        Arbitrary<String> table = Combinators.combine(header, line.list().ofMaxSize(5).uniqueElements(SourcesProperties::key))
                .as((h, lines) -> h + "\n" + String.join("\n", lines));
        return table.list().ofMaxSize(4).uniqueElements(t -> t.lines().findFirst().orElse(""))
                .map(tables -> String.join("\n", tables) + "\n");
    }

    private static String key(String line) {
        int equals = line.indexOf(" = ");
        return equals < 0 ? line : line.substring(0, equals);
    }

    private static <T extends JsonNode> Arbitrary<JsonNode> json(Arbitrary<T> nodes) {
        return nodes.map(node -> node);
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
