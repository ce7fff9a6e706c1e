package mcp.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.McpException;
import mcp.api.StoredCredential;
import mcp.api.spi.AuthStorage;
import mcp.auth.AuthProviders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code file} auth storage: content, names, permissions, atomicity, and no secret in any message. */
class FileAuthStorageTest {

    @TempDir
    Path temp;

    private static StoredCredential full(String token) {
        return new StoredCredential(token, "Bearer", Optional.of("refresh-" + token),
                Optional.of(Instant.parse("2030-01-02T03:04:05Z")), List.of("read", "write"),
                Instant.parse("2025-06-07T08:09:10.123Z"), Map.of(StoredCredential.CLIENT_ID, "client-1",
                        StoredCredential.CLIENT_SECRET, "client-secret-" + token,
                        StoredCredential.TOKEN_ENDPOINT, "https://as.example.com/token"));
    }

    private static StoredCredential minimal(String token) {
        return new StoredCredential(token, "Bearer", Optional.empty(), Optional.empty(), List.of(),
                Instant.parse("2025-01-01T00:00:00Z"), Map.of());
    }

    private static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }

    private static String permissions(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    private static List<String> names(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(file -> file.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }

    private static String everything(Throwable error) {
        StringWriter text = new StringWriter();
        error.printStackTrace(new PrintWriter(text));
        return text.toString();
    }

    @Test
    void aCredentialSurvivesTheRoundTripWithEveryPart() {
        FileAuthStorage storage = new FileAuthStorage(temp.resolve("credentials"));
        assertEquals("file", storage.id());
        storage.save("github", full("tok-1"));
        storage.save("minimal", minimal("tok-2"));
        assertEquals(Optional.of(full("tok-1")), storage.load("github"));
        assertEquals(Optional.of(minimal("tok-2")), storage.load("minimal"));
        assertEquals(Optional.of(full("tok-1")), new FileAuthStorage(temp.resolve("credentials")).load("github"),
                "another instance (another process) reads the same file");
    }

    @Test
    void theFileIsTheDocumentedJson() throws IOException {
        FileAuthStorage storage = new FileAuthStorage(temp);
        storage.save("github", full("tok-1"));
        String json = Files.readString(temp.resolve("github.json"));
        for (String field : List.of("\"access_token\" : \"tok-1\"", "\"token_type\" : \"Bearer\"",
                "\"refresh_token\" : \"refresh-tok-1\"", "\"expires_at\" : \"2030-01-02T03:04:05Z\"",
                "\"obtained_at\" : \"2025-06-07T08:09:10.123Z\"", "\"scopes\" : [ \"read\", \"write\" ]",
                "\"client_id\" : \"client-1\"")) {
            assertTrue(json.contains(field), field + " in " + json);
        }
        storage.save("minimal", minimal("tok-2"));
        String small = Files.readString(temp.resolve("minimal.json"));
        assertFalse(small.contains("refresh_token") || small.contains("expires_at"), small);
    }

    @Test
    void aMissingCredentialOrDirectoryIsEmptyNotAnError() {
        FileAuthStorage storage = new FileAuthStorage(temp.resolve("not-there"));
        assertEquals(Optional.empty(), storage.load("github"));
        assertEquals(List.of(), storage.credentialIds());
        assertFalse(storage.delete("github"));
        assertFalse(Files.exists(temp.resolve("not-there")), "only a save creates the directory");
    }

    @Test
    void theDirectoryAndTheFilesAreOwnerOnly() throws IOException {
        assumeTrue(posix(), "POSIX permissions");
        Path directory = temp.resolve("config/mcp-host/credentials");
        FileAuthStorage storage = new FileAuthStorage(directory);
        storage.save("github", full("tok-1"));
        assertEquals("rwx------", permissions(directory));
        assertEquals("rw-------", permissions(storage.file("github")));
        storage.save("github", full("tok-2"));
        assertEquals("rw-------", permissions(storage.file("github")), "a replaced file too");
    }

    @Test
    void aSaveReplacesTheFileAtomicallyAndLeavesNoTempFile() throws Exception {
        FileAuthStorage storage = new FileAuthStorage(temp);
        storage.save("github", full("tok-0"));
        Set<String> written = java.util.concurrent.ConcurrentHashMap.newKeySet();
        written.add("tok-0");
        AtomicBoolean writing = new AtomicBoolean(true);
        // Readers never see a half-written file or none at all, while several writers replace it.
        CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> {
            int reads = 0;
            while (writing.get() || reads == 0) {
                StoredCredential seen = storage.load("github").orElseThrow(() -> new AssertionError("no file"));
                assertTrue(seen.accessToken().startsWith("tok-"), "a whole credential");
                reads++;
            }
            return reads;
        });
        List<CompletableFuture<Void>> writers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            int writer = w;
            writers.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 40; i++) {
                    String token = "tok-" + writer + "-" + i;
                    written.add(token);
                    storage.save("github", full(token));
                }
            }));
        }
        CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        writing.set(false);
        assertTrue(reader.get(60, TimeUnit.SECONDS) > 0);
        assertTrue(written.contains(storage.load("github").orElseThrow().accessToken()));
        assertEquals(List.of("github.json"), names(temp), "no temp file is left behind");
    }

    @Test
    void deleteRemovesTheFileOnce() {
        FileAuthStorage storage = new FileAuthStorage(temp);
        storage.save("github", full("tok-1"));
        storage.save("other", full("tok-2"));
        assertTrue(storage.delete("github"));
        assertFalse(storage.delete("github"));
        assertEquals(Optional.empty(), storage.load("github"));
        assertEquals(Optional.of(full("tok-2")), storage.load("other"));
    }

    @Test
    void credentialIdsAreSortedAndIgnoreFilesThatAreNotCredentials() throws IOException {
        FileAuthStorage storage = new FileAuthStorage(temp);
        for (String id : List.of("zeta", "Alpha", "alpha", "b/c", "_x")) {
            storage.save(id, minimal("tok"));
        }
        Files.writeString(temp.resolve("notes.txt"), "not a credential");
        Files.writeString(temp.resolve(".credential-123.tmp"), "a crashed save");
        Files.writeString(temp.resolve("Upper.json"), "{}");
        Files.writeString(temp.resolve("%41.json"), "{}");
        Files.writeString(temp.resolve(".json"), "{}");
        Files.writeString(temp.resolve("_.json"), "{}");
        Files.createDirectory(temp.resolve("sub"));
        assertEquals(List.of("Alpha", "_x", "alpha", "b/c", "zeta"), storage.credentialIds());
    }

    @Test
    void anyCredentialIdIsOneSafeFileInTheDirectory() throws IOException {
        FileAuthStorage storage = new FileAuthStorage(temp.resolve("store"));
        List<String> ids = List.of("a/b", "../escape", "..", ".", ".hidden", "ünïcødé ☃ 😀", "Upper_Case", "upper_case",
                "A", "a", "with space", "%41", "_a", "a\nb", "C:\\windows", "x.json", "-", "con", "\u0000nul");
        for (String id : ids) {
            storage.save(id, minimal("tok-" + id));
            Path file = storage.file(id);
            assertEquals(temp.resolve("store"), file.getParent(), id);
            assertTrue(file.getFileName().toString().matches("[a-z0-9_%-][a-z0-9_%.-]*\\.json"), file.toString());
        }
        for (String id : ids) {
            assertEquals(Optional.of(minimal("tok-" + id)), storage.load(id), id);
        }
        assertEquals(ids.stream().sorted().collect(Collectors.toList()), storage.credentialIds());
        assertEquals(ids.size(), names(temp.resolve("store")).size(), "one file each, nothing outside");
        assertEquals(List.of("store"), names(temp));
    }

    @Test
    void emptyTooLongOrBrokenIdsAreRefusedClearly() {
        FileAuthStorage storage = new FileAuthStorage(temp);
        assertTrue(assertThrows(McpException.class, () -> storage.load("")).getMessage().contains("empty"));
        McpException tooLong = assertThrows(McpException.class, () -> storage.save("X".repeat(200), minimal("t")));
        assertTrue(tooLong.getMessage().contains("is too long"), tooLong.getMessage());
        McpException surrogate = assertThrows(McpException.class, () -> storage.save("a\uD800", minimal("t")));
        assertTrue(surrogate.getMessage().contains("not valid Unicode"), surrogate.getMessage());
        storage.save("x".repeat(200), minimal("t"));
        assertEquals(List.of("x".repeat(200)), storage.credentialIds());
    }

    @Test
    void aCorruptFileIsNamedWithThePlaceButNeverTheContent() throws IOException {
        FileAuthStorage storage = new FileAuthStorage(temp);
        storage.save("ok", minimal("tok"));
        Map<String, String> corrupt = Map.of(
                "truncated", "{\n  \"access_token\": \"corrupt-secret-1",
                "bare", "{\"access_token\": corrupt-secret-2}",
                "trailing", "{\"access_token\": \"corrupt-secret-3\", }",
                "missing", "{\"refresh_token\": \"corrupt-secret-4\", \"obtained_at\": \"2025-01-01T00:00:00Z\"}",
                "badtime", "{\"access_token\": \"corrupt-secret-5\", \"obtained_at\": \"corrupt-secret-5b\"}",
                "array", "[\"corrupt-secret-6\"]",
                "empty", "",
                "scopes", "{\"access_token\": \"x\", \"obtained_at\": \"2025-01-01T00:00:00Z\", \"scopes\": "
                        + "\"corrupt-secret-7\"}");
        Map<String, String> expected = Map.of(
                "truncated", "it is not valid JSON: it ends early (line 2",
                "bare", "it is not valid JSON (line 1, column 18)",
                "trailing", "it is not valid JSON (line 1, column 38)",
                "missing", "\"access_token\" is missing",
                "badtime", "\"obtained_at\" is not an ISO-8601 instant",
                "array", "it is not a JSON object",
                "empty", "it is empty",
                "scopes", "\"scopes\" is not an array of strings");
        for (Map.Entry<String, String> entry : corrupt.entrySet()) {
            Path file = storage.file(entry.getKey());
            Files.writeString(file, entry.getValue());
            if (posix()) {
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
            }
            McpException error = assertThrows(McpException.class, () -> storage.load(entry.getKey()), entry.getKey());
            String message = error.getMessage();
            assertTrue(message.startsWith("Credential file " + file + " is corrupt: " + expected.get(entry.getKey())),
                    message);
            assertTrue(message.endsWith("Delete it and log in to the server again."), message);
            String all = everything(error);
            assertFalse(all.contains("corrupt-secret"), all);
        }
        assertEquals(Optional.of(minimal("tok")), storage.load("ok"), "one corrupt file costs no other");
    }

    @Test
    void aFileOthersMayReadOrWriteIsRefusedWithTheFix() throws IOException {
        assumeTrue(posix(), "POSIX permissions");
        FileAuthStorage storage = new FileAuthStorage(temp);
        storage.save("github", full("open-secret"));
        Path file = storage.file("github");
        for (String open : List.of("rw-r--r--", "rw----r--", "rw--w----", "rw-rw-rw-")) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(open));
            McpException error = assertThrows(McpException.class, () -> storage.load("github"));
            assertEquals("Credential file " + file + " has permissions " + open + ", so other users may read or change "
                    + "it; it is not used until only its owner can. Fix: chmod 600 " + file, error.getMessage());
            assertFalse(everything(error).contains("open-secret"));
        }
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r-x--x--x"));
        assertEquals("open-secret", storage.load("github").orElseThrow().accessToken(),
                "execute bits let no one read it");
    }

    @Test
    void aDirectoryInPlaceOfTheFileIsRefused() throws IOException {
        FileAuthStorage storage = new FileAuthStorage(temp);
        Files.createDirectory(storage.file("github"));
        McpException error = assertThrows(McpException.class, () -> storage.load("github"));
        assertTrue(error.getMessage().contains("is not a regular file"), error.getMessage());
        McpException save = assertThrows(McpException.class, () -> storage.save("github", full("save-secret")));
        assertTrue(save.getMessage().startsWith("Could not save credential \"github\" to " + storage.file("github")),
                save.getMessage());
        assertFalse(everything(save).contains("save-secret"));
        assertEquals(List.of("github.json"), names(temp), "no temp file is left behind");
    }

    @Test
    void theToStringOfTheStoreAndMessagesNameNoSecret() {
        FileAuthStorage storage = new FileAuthStorage(temp);
        storage.save("github", full("to-string-secret"));
        assertEquals("FileAuthStorage[" + temp.toAbsolutePath().normalize() + "]", storage.toString());
        assertFalse(storage.load("github").orElseThrow().toString().contains("to-string-secret"));
    }

    @Test
    void theDefaultDirectoryFollowsTheEnvironment() {
        Path home = Path.of("/home/someone");
        assertEquals(Path.of("/home/someone/.config/mcp-host/credentials"),
                FileAuthStorage.defaultDirectory(Map.of(), home));
        assertEquals(Path.of("/home/someone/.config/mcp-host/credentials"),
                FileAuthStorage.defaultDirectory(Map.of("HOME", "/home/env"), home), "a home given wins over HOME");
        assertEquals(Path.of("/home/env/.config/mcp-host/credentials"),
                FileAuthStorage.defaultDirectory(Map.of("HOME", "/home/env")), "with no home given, HOME decides");
        assertEquals(Path.of("/xdg/mcp-host/credentials"),
                FileAuthStorage.defaultDirectory(Map.of("XDG_CONFIG_HOME", "/xdg", "HOME", "/home/env"), home));
        assertEquals(Path.of("/home/someone/.config/mcp-host/credentials"),
                FileAuthStorage.defaultDirectory(Map.of("XDG_CONFIG_HOME", "relative"), home), "a relative XDG value is ignored");
        assertEquals(Path.of("/somewhere/creds"), FileAuthStorage.defaultDirectory(Map.of("XDG_CONFIG_HOME", "/xdg",
                FileAuthStorage.DIRECTORY_VARIABLE, "/somewhere/creds"), home));
        assertEquals(Path.of("relative-creds").toAbsolutePath(), FileAuthStorage.defaultDirectory(
                Map.of(FileAuthStorage.DIRECTORY_VARIABLE, "relative-creds"), home));
    }

    @Test
    void aStoreInTheDefaultPlaceMovesUnderAHostsHomeAndSavesThere() {
        Path home = temp.resolve("home");
        // What ServiceLoader makes: placed by the JVM's environment, then by the host's.
        AuthStorage placed = new FileAuthStorage().forUser(Map.of("HOME", temp.resolve("ignored").toString()), home);
        assertEquals(home.resolve(".config/mcp-host/credentials"), ((FileAuthStorage) placed).directory());
        placed.save("github", full("placed-secret"));
        assertTrue(Files.isRegularFile(home.resolve(".config/mcp-host/credentials/github.json")));
        assertFalse(Files.exists(temp.resolve("ignored")));

        Path xdg = temp.resolve("xdg");
        AuthStorage again = placed.forUser(Map.of("XDG_CONFIG_HOME", xdg.toString()), home);
        assertEquals(xdg.resolve("mcp-host/credentials"), ((FileAuthStorage) again).directory(),
                "a store placed by default stays movable");
        assertEquals(home.resolve(".config/mcp-host/credentials"),
                ((FileAuthStorage) AuthProviders.defaultAuthStorage(Map.of(), home)).directory());
    }

    @Test
    void aStoreGivenItsDirectoryStaysThere() {
        FileAuthStorage explicit = new FileAuthStorage(temp.resolve("mine"));
        assertSame(explicit, explicit.forUser(Map.of("XDG_CONFIG_HOME", temp.resolve("xdg").toString()),
                temp.resolve("home")));
        AuthStorage memory = AuthStorage.inMemory();
        assertSame(memory, memory.forUser(Map.of(), temp.resolve("home")), "the SPI's default keeps the store");
    }
}
