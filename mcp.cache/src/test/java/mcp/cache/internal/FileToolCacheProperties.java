package mcp.cache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import mcp.api.McpJson;
import mcp.api.ToolDefinition;
import mcp.cache.FileToolCaches;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Whatever the server name and the tools (any UTF-16 text, lone surrogates included), a write followed
 * by a read with the same hash returns equal tools, and the only file written is inside the directory.
 */
class FileToolCacheProperties {

    @Property(tries = 300)
    void writeThenReadRoundTripsAndStaysInTheDirectory(
            @ForAll("serverNames") String serverName,
            @ForAll("hashes") String configHash,
            @ForAll("toolLists") List<ToolDefinition> tools) throws IOException {
        Path root = Files.createTempDirectory("mcp-cache-prop");
        try {
            Path directory = root.resolve("tools");
            FileToolCache cache = new FileToolCache(directory, FileToolCaches.DEFAULT_TTL, Clock.systemUTC());

            cache.write(serverName, configHash, tools);

            assertEquals(Optional.of(tools), cache.read(serverName, configHash));
            assertEquals(Optional.empty(), cache.read(serverName, configHash + "x"));
            List<Path> files = FileToolCacheTest.list(directory);
            assertEquals(List.of(directory.resolve(FileToolCache.fileName(serverName))), files);
            assertEquals(directory.toRealPath(), files.get(0).toRealPath().getParent());
            assertEquals(List.of(directory), FileToolCacheTest.list(root), "nothing beside the directory");
            String fileName = files.get(0).getFileName().toString();
            assertTrue(fileName.equals(serverName + ".json") || fileName.matches("_[0-9a-f]{32}\\.json"), fileName);
        } finally {
            deleteTree(root);
        }
    }

    @Provide
    Arbitrary<String> serverNames() {
        return Arbitraries.oneOf(
                Arbitraries.strings().all().ofMaxLength(150),
                Arbitraries.strings().withChars("AZaz09_.-/\\:").ofMaxLength(120),
                Arbitraries.strings().alpha().numeric().withChars("_-.").ofMinLength(1).ofMaxLength(100),
                Arbitraries.of("", ".", "..", "../etc/passwd", "a/b", "/", "CON", "github", "服务器"));
    }

    @Provide
    Arbitrary<String> hashes() {
        return Arbitraries.oneOf(Arbitraries.strings().withChars("0123456789abcdef").ofLength(64),
                Arbitraries.strings().all().ofMaxLength(20));
    }

    @Provide
    Arbitrary<List<ToolDefinition>> toolLists() {
        return tool().list().ofMaxSize(6);
    }

    private static Arbitrary<ToolDefinition> tool() {
        Arbitrary<String> text = Arbitraries.strings().all().ofMaxLength(60);
        Arbitrary<Optional<String>> optionalText = text.optional(0.6);
        Arbitrary<Optional<JsonNode>> outputSchema = schema().optional(0.3).map(o -> o.map(s -> (JsonNode) s));
        Arbitrary<Optional<JsonNode>> annotations = Arbitraries.of(true, false)
                .map(b -> (JsonNode) McpJson.object().put("readOnlyHint", b)).optional(0.3);
        return Combinators.combine(text, optionalText, optionalText, schema(), outputSchema, annotations)
                .as((name, title, description, input, output, hints) ->
                        new ToolDefinition(name, title, description, input, output, hints));
    }

    /**
     * An object schema, perhaps with a string property whose name and description are arbitrary text.
     * The name is well-formed UTF-16: Jackson writes a property name with a lone surrogate but cannot
     * read it back, so no such name can arrive from a server either.
     */
    private static Arbitrary<ObjectNode> schema() {
        Arbitrary<String> text = Arbitraries.strings().all().ofMaxLength(30);
        Arbitrary<String> wellFormed = text.map(s -> new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
        Arbitrary<ObjectNode> withProperty = Combinators.combine(wellFormed, text).as((key, description) -> {
            ObjectNode schema = McpJson.object().put("type", "object");
            schema.putObject("properties").putObject(key).put("type", "string").put("description", description);
            return schema;
        });
        return Arbitraries.oneOf(Arbitraries.create(() -> McpJson.object().put("type", "object")), withProperty);
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(path);
            }
        }
    }
}
