package mcp.cache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.McpJson;
import mcp.api.ServerSurface;
import mcp.api.ToolDefinition;
import mcp.api.spi.ToolCache;
import mcp.api.spi.ToolCacheProvider.Settings;
import mcp.cache.FileToolCaches;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The file cache on real files: hits, every kind of miss, failures that must not throw, and races. */
class FileToolCacheTest {

    private static final Instant T0 = Instant.parse("2025-03-01T12:00:00Z");
    private static final String HASH = "3f1c0a";

    @TempDir
    Path tmp;

    private Path dir() {
        return tmp.resolve("cache");
    }

    private FileToolCache cacheAt(Instant now) {
        return new FileToolCache(dir(), FileToolCaches.DEFAULT_TTL, Clock.fixed(now, ZoneOffset.UTC));
    }

    private FileToolCache cache() {
        return cacheAt(T0);
    }

    static JsonNode json(String text) {
        return McpJson.mapper().readTree(text);
    }

    static List<ToolDefinition> tools() {
        return List.of(
                new ToolDefinition("search", Optional.of("Search the web"), Optional.of("Finds pages. «ünïcödé» 検索"),
                        json("{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"},\"n\":{\"type\":\"integer\","
                                + "\"minimum\":1}},\"required\":[\"q\"]}"),
                        Optional.of(json("{\"type\":\"object\",\"properties\":{\"hits\":{\"type\":\"array\"}}}")),
                        Optional.of(json("{\"readOnlyHint\":true,\"openWorldHint\":true,\"title\":\"S\"}"))),
                ToolDefinition.of("echo", "Echoes", json("{\"type\":\"object\"}")),
                ToolDefinition.of("no_description", null, json("{\"type\":\"object\",\"properties\":{}}")));
    }

    // ---- hits ----

    @Test
    void writeThenReadReturnsEqualTools() {
        cache().write("github", HASH, tools());

        assertEquals(Optional.of(tools()), cache().read("github", HASH));
        assertTrue(Files.isRegularFile(dir().resolve("github.json")));
    }

    @Test
    void anEmptyToolListIsAHit() {
        cache().write("quiet", HASH, List.of());

        assertEquals(Optional.of(List.of()), cache().read("quiet", HASH));
    }

    @Test
    void theFileHasTheDocumentedFormatAndNoConfigValue() throws IOException {
        cache().write("github", HASH, tools());

        JsonNode root = json(Files.readString(dir().resolve("github.json")));
        assertEquals(Set.of("version", "server", "configHash", "savedAt", "tools"), fieldNames(root));
        assertEquals(1, root.get("version").intValue());
        assertEquals("github", root.get("server").asString());
        assertEquals(HASH, root.get("configHash").asString());
        assertEquals(T0.toString(), root.get("savedAt").asString());
        assertEquals(tools().stream().map(ToolDefinition::toJson).collect(Collectors.toList()),
                toList(root.get("tools")));
    }

    @Test
    void aLaterWriteReplacesTheEntry() {
        cache().write("github", HASH, tools());
        cache().write("github", "other", tools().subList(0, 1));

        assertEquals(Optional.empty(), cache().read("github", HASH));
        assertEquals(Optional.of(tools().subList(0, 1)), cache().read("github", "other"));
    }

    @Test
    void theSurfaceIsKeptBesideTheToolsExactlyAndABrokenOneIsAMiss() throws IOException {
        ServerSurface surface = ServerSurface.fromJson("github", json("{\"resources\":[{\"uri\":\"file:///a\",\"name\":\"a\","
                + "\"title\":\"A\",\"description\":\"d\",\"mimeType\":\"text/plain\",\"size\":3,"
                + "\"annotations\":{\"priority\":1}}],\"resourceTemplates\":[{\"uriTemplate\":\"file:///{p}\","
                + "\"name\":\"p\"}],\"prompts\":[{\"name\":\"greet\",\"arguments\":[{\"name\":\"who\","
                + "\"required\":true},{\"name\":\"style\",\"description\":\"s\"}]}],\"skills\":[{\"uri\":"
                + "\"skill://pdf/SKILL.md\",\"frontmatter\":{\"name\":\"pdf\",\"description\":\"PDFs\"},"
                + "\"resources\":[{\"uri\":\"skill://pdf/SKILL.md\",\"digest\":\"sha256:"
                + "0000000000000000000000000000000000000000000000000000000000000000\",\"size\":9}]}]}"));
        assertEquals("github", surface.skills().get(0).server());
        cache().write("github", HASH, new ToolCache.Entry(tools(), Optional.empty(), Optional.empty(),
                Optional.of(surface)));
        assertEquals(Optional.of(surface), cache().readEntry("github", HASH).orElseThrow().surface());
        assertEquals(Optional.empty(), cache().readEntry("other", HASH).flatMap(ToolCache.Entry::surface));

        ObjectNode root = (ObjectNode) json(Files.readString(dir().resolve("github.json")));
        root.putArray("surface");
        Files.writeString(dir().resolve("github.json"), root.toString());
        assertEquals(Optional.empty(), cache().readEntry("github", HASH), "a surface that is not an object");
    }

    @Test
    void theEraAndTheFreshnessAreKeptBesideTheTools() throws IOException {
        ToolCache.Freshness fresh = new ToolCache.Freshness(T0.plusSeconds(60), false, "c0ffee");
        cache().write("github", HASH, new ToolCache.Entry(tools(), Optional.of("2026-07-28"), Optional.of(fresh)));

        ToolCache.Entry entry = cache().readEntry("github", HASH).orElseThrow();
        assertEquals(new ToolCache.Entry(tools(), Optional.of("2026-07-28"), Optional.of(fresh)), entry);
        JsonNode root = json(Files.readString(dir().resolve("github.json")));
        assertEquals(json("{\"until\":\"" + T0.plusSeconds(60) + "\",\"scope\":\"private\",\"context\":\"c0ffee\"}"),
                root.get("fresh"));
        assertTrue(fresh.isFresh(T0.plusSeconds(59), "c0ffee"));
        assertFalse(fresh.isFresh(T0.plusSeconds(60), "c0ffee"), "stale at its instant");
        assertFalse(fresh.isFresh(T0, "another context"), "private: only in its own context");
        assertTrue(new ToolCache.Freshness(T0.plusSeconds(60), true, "c0ffee").isFresh(T0, "another context"));

        cache().write("github", HASH, tools(), Optional.of("2025-11-25"));
        assertEquals(Optional.empty(), cache().readEntry("github", HASH).orElseThrow().freshness(),
                "a write without freshness drops the old one");
    }

    @Test
    void aMalformedFreshnessIsAMiss() throws IOException {
        cache().write("github", HASH, new ToolCache.Entry(tools(), Optional.empty(),
                Optional.of(new ToolCache.Freshness(T0, true, ""))));
        for (Consumer<ObjectNode> change : List.<Consumer<ObjectNode>>of(
                root -> root.put("fresh", 5),
                root -> root.withObject("fresh").put("scope", "shared"),
                root -> root.withObject("fresh").put("until", "soon"),
                root -> root.withObject("fresh").remove("context"))) {
            Path file = dir().resolve("github.json");
            ObjectNode root = (ObjectNode) json(Files.readString(file));
            change.accept(root);
            Files.writeString(file, root.toString());
            assertEquals(Optional.empty(), cache().readEntry("github", HASH), root::toString);
            cache().write("github", HASH, new ToolCache.Entry(tools(), Optional.empty(),
                    Optional.of(new ToolCache.Freshness(T0, true, ""))));
        }
    }

    // ---- quiet misses ----

    @Test
    void noFileIsAMiss() {
        assertEquals(Optional.empty(), cache().read("github", HASH));
        assertFalse(Files.exists(dir()), "a read creates nothing");
    }

    @Test
    void anotherConfigHashIsAMissAndLeavesTheEntry() {
        cache().write("github", HASH, tools());

        assertEquals(Optional.empty(), cache().read("github", HASH + "0"));
        assertEquals(Optional.of(tools()), cache().read("github", HASH));
    }

    @Test
    void anEntryExpiresAfterThirtyDays() {
        cache().write("github", HASH, tools());

        assertEquals(Optional.of(tools()), cacheAt(T0.plus(Duration.ofDays(30))).read("github", HASH));
        assertEquals(Optional.empty(), cacheAt(T0.plus(Duration.ofDays(30)).plusMillis(1)).read("github", HASH));
        assertEquals(Optional.empty(), cacheAt(T0.plus(Duration.ofDays(400))).read("github", HASH));
    }

    @Test
    void theSettingsTtlDecidesExpiry() {
        // Written two hours ago by the system clock; the provider's cache reads with the system clock.
        cacheAt(Instant.now().minus(Duration.ofHours(2))).write("github", HASH, tools());

        ToolCache oneHour = new FileToolCacheProvider().open(settings(Duration.ofHours(1)));
        ToolCache threeHours = new FileToolCacheProvider().open(settings(Duration.ofHours(3)));

        assertEquals(Optional.empty(), oneHour.read("github", HASH));
        assertEquals(Optional.of(tools()), threeHours.read("github", HASH));
    }

    private Settings settings(Duration ttl) {
        return new Settings(Optional.of(dir()), tmp.resolve("home"), Map.of(), ttl);
    }

    // ---- broken files: a miss (and a WARN), and the next write repairs them ----

    @ParameterizedTest
    @ValueSource(strings = {"", "[]", "null", "42", "\"text\"", "{", "{\"version\":1,\"server\":\"github\",\"conf",
        "{\"version\":1} trailing"})
    void unparsableOrNonObjectContentIsAMissUntilTheNextWrite(String content) throws IOException {
        Files.createDirectories(dir());
        Files.writeString(dir().resolve("github.json"), content);

        assertEquals(Optional.empty(), cache().read("github", HASH));

        cache().write("github", HASH, tools());
        assertEquals(Optional.of(tools()), cache().read("github", HASH));
    }

    @Test
    void garbageBytesAreAMiss() throws IOException {
        Files.createDirectories(dir());
        Files.write(dir().resolve("github.json"), new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1, 2, '{', (byte) 0xc3});

        assertEquals(Optional.empty(), cache().read("github", HASH));
    }

    @Test
    void aTruncatedFileIsAMiss() throws IOException {
        cache().write("github", HASH, tools());
        Path file = dir().resolve("github.json");
        byte[] bytes = Files.readAllBytes(file);
        for (int length : new int[] {1, bytes.length / 2, bytes.length - 1}) {
            Files.write(file, Arrays.copyOf(bytes, length));
            assertEquals(Optional.empty(), cache().read("github", HASH), "cut at " + length);
        }
    }

    @Test
    void anotherFormatVersionIsAMiss() throws IOException {
        assertMissAfter(root -> root.put("version", 2));
        assertMissAfter(root -> root.put("version", 0));
        assertMissAfter(root -> root.put("version", "1"));
        assertMissAfter(root -> root.put("version", 1.5));
        assertMissAfter(root -> root.put("version", 1L << 40));
        assertMissAfter(root -> root.remove("version"));
    }

    @Test
    void aWrongShapeIsAMiss() throws IOException {
        assertMissAfter(root -> root.putObject("tools"));
        assertMissAfter(root -> root.put("tools", "search"));
        assertMissAfter(root -> root.remove("tools"));
        assertMissAfter(root -> ((ObjectNode) root.get("tools").get(1)).remove("name"));
        assertMissAfter(root -> ((ObjectNode) root.get("tools").get(1)).put("name", 7));
        assertMissAfter(root -> root.withArray("tools").add("echo"));
        assertMissAfter(root -> root.withArray("tools").addNull());
        assertMissAfter(root -> root.put("server", "gitlab"));
        assertMissAfter(root -> root.put("server", "GitHub"));
        assertMissAfter(root -> root.remove("server"));
        assertMissAfter(root -> root.put("configHash", 3));
        assertMissAfter(root -> root.remove("configHash"));
        assertMissAfter(root -> root.put("savedAt", "yesterday"));
        assertMissAfter(root -> root.put("savedAt", 1_700_000_000));
    }

    @Test
    void unknownFieldsAreIgnored() throws IOException {
        rewrite(root -> root.put("writtenBy", "a later mcp-host"));

        assertEquals(Optional.of(tools()), cache().read("github", HASH));
    }

    /** The shape test's control: the rewrite itself keeps a good file good. */
    @Test
    void rewritingWithoutAChangeIsStillAHit() throws IOException {
        rewrite(root -> { });

        assertEquals(Optional.of(tools()), cache().read("github", HASH));
    }

    private void assertMissAfter(Consumer<ObjectNode> change) throws IOException {
        rewrite(change);
        assertEquals(Optional.empty(), cache().read("github", HASH), () -> readQuietly(dir().resolve("github.json")));
    }

    private void rewrite(Consumer<ObjectNode> change) throws IOException {
        cache().write("github", HASH, tools());
        Path file = dir().resolve("github.json");
        ObjectNode root = (ObjectNode) json(Files.readString(file));
        change.accept(root);
        Files.write(file, McpJson.mapper().writeValueAsBytes(root));
    }

    // ---- failures that must not throw ----

    /*
     * A regular file in the way makes every directory operation fail, for root too; a directory without
     * write permission would not (the tests run as root here, and root ignores permission bits).
     */
    @Test
    void aRegularFileWhereTheDirectoryShouldBeDisablesTheCacheQuietly() throws IOException {
        Path blocker = Files.writeString(tmp.resolve("blocker"), "not a directory");
        for (Path directory : List.of(blocker, blocker.resolve("tools"))) {
            FileToolCache cache = new FileToolCache(directory, FileToolCaches.DEFAULT_TTL, Clock.systemUTC());

            cache.write("github", HASH, tools());
            assertEquals(Optional.empty(), cache.read("github", HASH));
            cache.remove("github");
        }
        assertEquals("not a directory", Files.readString(blocker));
        assertEquals(List.of(blocker), list(tmp));
    }

    @Test
    void aDirectoryWhereTheFileShouldBeIsAMissAndAFailedWrite() throws IOException {
        Files.createDirectories(dir().resolve("github.json").resolve("inside"));

        cache().write("github", HASH, tools());
        assertEquals(Optional.empty(), cache().read("github", HASH));
        cache().remove("github");

        assertTrue(Files.isDirectory(dir().resolve("github.json").resolve("inside")));
        assertEquals(List.of(dir().resolve("github.json")), list(dir()), "the temp file was deleted");
    }

    // ---- permissions and location of files ----

    @Test
    void theDirectoryAndTheFileAreOwnerOnly() throws IOException {
        assumeTrue(tmp.getFileSystem().supportedFileAttributeViews().contains("posix"), "POSIX permissions");
        Path nested = tmp.resolve("new").resolve("cache");

        new FileToolCache(nested, FileToolCaches.DEFAULT_TTL, Clock.systemUTC()).write("github", HASH, tools());

        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(nested)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(nested.getParent())));
        assertEquals("rw-------",
                PosixFilePermissions.toString(Files.getPosixFilePermissions(nested.resolve("github.json"))));
    }

    @Test
    void plainNamesAreFileNamesAndOthersAreHashed() {
        assertEquals("github.json", FileToolCache.fileName("github"));
        assertEquals("my-server_2.v1.json", FileToolCache.fileName("my-server_2.v1"));
        assertEquals("_x.json", FileToolCache.fileName("_x"));
        assertEquals("a".repeat(100) + ".json", FileToolCache.fileName("a".repeat(100)));
        // printf 'a/b' | sha256sum | cut -c1-32
        assertEquals("_c14cddc033f64b9dea80ea675cf280a0.json", FileToolCache.fileName("a/b"));
        for (String name : List.of("", ".", "..", ".hidden", "a".repeat(101), "a b", "ä", "a/b", "a\\b", "C:x")) {
            assertTrue(FileToolCache.fileName(name).matches("_[0-9a-f]{32}\\.json"), name);
        }
        assertFalse(FileToolCache.fileName("GitHub").equals(FileToolCache.fileName("github")));
    }

    @Test
    void weirdServerNamesStayInsideTheDirectory() throws IOException {
        List<String> names = List.of("../etc/passwd", "a/b", "..", ".", "", "/abs", "x".repeat(300), "服务器 ✓",
                "new\nline", "nul\0byte", "a\\..\\b", "\uD800lone");
        for (String name : names) {
            cache().write(name, HASH, tools());
            assertEquals(Optional.of(tools()), cache().read(name, HASH), name);
        }
        List<Path> files = list(dir());
        assertEquals(names.size(), files.size(), "one file per name: " + files);
        for (Path file : files) {
            assertEquals(dir(), file.getParent());
            assertTrue(file.getFileName().toString().matches("_[0-9a-f]{32}\\.json"), file.toString());
        }
        assertEquals(List.of(dir()), list(tmp), "nothing outside the directory");
    }

    @Test
    void aNameThatSharesAFileWithAnotherIsAMiss() {
        String hashedName = FileToolCache.fileName("a/b").replace(".json", "");
        cache().write("a/b", HASH, tools());

        assertEquals(Optional.empty(), cache().read(hashedName, HASH));
        assertEquals(Optional.of(tools()), cache().read("a/b", HASH));
    }

    @Test
    void serverNamesInLogLinesCannotForgeLines() {
        assertEquals("\"new\\u000aline \\\"q\\\" \\\\ \\u0000 ok ✓\"", FileToolCache.quoted("new\nline \"q\" \\ \0 ok ✓"));
    }

    // ---- remove ----

    @Test
    void removeDeletesTheEntryAndIsQuietWhenThereIsNone() throws IOException {
        cache().write("github", HASH, tools());
        cache().write("gitlab", HASH, tools());

        cache().remove("github");
        cache().remove("github");
        cache().remove("never-written");

        assertEquals(Optional.empty(), cache().read("github", HASH));
        assertEquals(Optional.of(tools()), cache().read("gitlab", HASH));
        assertEquals(List.of(dir().resolve("gitlab.json")), list(dir()));
    }

    // ---- concurrency ----

    @Test
    void concurrentWritersNeverLeaveAPartialFile() throws Exception {
        int writers = 8;
        int writes = 50;
        Set<List<ToolDefinition>> written = ConcurrentHashMap.newKeySet();
        AtomicBoolean published = new AtomicBoolean();
        AtomicBoolean done = new AtomicBoolean();
        CountDownLatch start = new CountDownLatch(1);
        FileToolCache cache = new FileToolCache(dir(), FileToolCaches.DEFAULT_TTL, Clock.systemUTC());
        ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < writes; i++) {
                        List<ToolDefinition> tools = toolsOf(writer, i);
                        written.add(tools);
                        cache.write("busy", HASH, tools);
                        published.set(true);
                    }
                    return null;
                }));
            }
            Future<Integer> reader = pool.submit(() -> {
                start.await();
                int hits = 0;
                while (!done.get()) {
                    // Read the flag first: once any rename happened, the file always exists in full.
                    boolean mustHit = published.get();
                    Optional<List<ToolDefinition>> read = cache.read("busy", HASH);
                    if (read.isPresent()) {
                        assertTrue(written.contains(read.get()), "read a list nobody wrote: " + read.get());
                        hits++;
                    } else {
                        assertFalse(mustHit, "a miss after the first write: a partial or missing file");
                    }
                }
                return hits;
            });
            start.countDown();
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS);
            }
            done.set(true);
            reader.get(60, TimeUnit.SECONDS);
        } finally {
            done.set(true);
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        }

        Optional<List<ToolDefinition>> last = cache.read("busy", HASH);
        assertTrue(last.isPresent());
        assertTrue(written.contains(last.get()));
        assertEquals(writers * writes, written.size(), "the lists differ");
        assertEquals(List.of(dir().resolve("busy.json")), list(dir()), "no temp file is left");
    }

    private static List<ToolDefinition> toolsOf(int writer, int write) {
        List<ToolDefinition> tools = new ArrayList<>();
        for (int k = 0; k <= write % 4; k++) {
            tools.add(ToolDefinition.of("w" + writer + "_" + write + "_" + k, "x".repeat(write * 20),
                    json("{\"type\":\"object\"}")));
        }
        return List.copyOf(tools);
    }

    // ---- helpers ----

    static List<Path> list(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.sorted().collect(Collectors.toList());
        }
    }

    private static Set<String> fieldNames(JsonNode node) {
        return node.propertyNames().stream().collect(Collectors.toSet());
    }

    private static List<JsonNode> toList(JsonNode array) {
        List<JsonNode> list = new ArrayList<>();
        array.forEach(list::add);
        return list;
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return e.toString();
        }
    }
}
