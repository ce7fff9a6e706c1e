package mcp.cache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import mcp.api.McpJson;
import mcp.api.ToolDefinition;
import mcp.cache.FileToolCaches;
import mcp.proptest.Cases;
import mcp.proptest.Gen;
import mcp.proptest.Trees;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Whatever the server name and the tools (any UTF-16 text, lone surrogates included), a write followed
 * by a read with the same hash returns equal tools, and the only file written is inside the directory.
 * What the cache makes of a file it did not write is {@link FileToolCacheFuzzTest}'s part.
 */
class FileToolCacheProperties {

    @Test
    void writeThenReadRoundTripsAndStaysInTheDirectory() {
        Cases.run(300, gen -> writeThenReadRoundTripsAndStaysInTheDirectory(serverName(gen), hash(gen),
                gen.list(0, 6, () -> tool(gen))));
    }

    private static void writeThenReadRoundTripsAndStaysInTheDirectory(String serverName, String configHash,
            List<ToolDefinition> tools) throws IOException {
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
            Trees.delete(root);
        }
    }

    private static String serverName(Gen gen) {
        return switch (gen.weighted(1, 1, 1, 1)) {
            case 0 -> gen.string(0, 150);
            case 1 -> gen.string("AZaz09_.-/\\:", 0, 120);
            case 2 -> gen.string("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.", 1, 100);
            default -> gen.pick("", ".", "..", "../etc/passwd", "a/b", "/", "CON", "github", "服务器");
        };
    }

    private static String hash(Gen gen) {
        return gen.bool() ? gen.string("0123456789abcdef", 64, 64) : gen.string(0, 20);
    }

    static ToolDefinition tool(Gen gen) {
        Optional<JsonNode> annotations = gen.optional(0.3, () -> McpJson.object().put("readOnlyHint", gen.bool()));
        return new ToolDefinition(gen.string(0, 60), gen.optional(0.6, () -> gen.string(0, 60)),
                gen.optional(0.6, () -> gen.string(0, 60)), schema(gen), gen.optional(0.3, () -> schema(gen)),
                annotations);
    }

    /**
     * An object schema, perhaps with a string property whose name and description are arbitrary text.
     * The name is well-formed UTF-16: Jackson writes a property name with a lone surrogate but cannot
     * read it back, so no such name can arrive from a server either.
     */
    private static ObjectNode schema(Gen gen) {
        ObjectNode schema = McpJson.object().put("type", "object");
        if (gen.bool()) {
            schema.putObject("properties").putObject(gen.wellFormedString(0, 30)).put("type", "string")
                    .put("description", gen.string(0, 30));
        }
        return schema;
    }

}
