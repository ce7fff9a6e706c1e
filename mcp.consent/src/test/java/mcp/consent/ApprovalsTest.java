package mcp.consent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import mcp.api.ApprovalState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApprovalsTest {

    @TempDir
    Path temp;

    private Path configFile() throws IOException {
        Path file = temp.resolve("app/.cursor/mcp.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "{}");
        return file;
    }

    private static ServerDefinition definition(String command, String secret) {
        return ServerDefinition.of(ServerDefinitionTest.stdio(command, List.of("server.js"), Map.of("API_KEY", secret)));
    }

    @Test
    void anApprovalHoldsForExactlyTheDefinitionAndTheNameApproved() throws IOException {
        Approvals approvals = Approvals.forUser(Map.of("XDG_STATE_HOME", temp.resolve("state").toString()), temp);
        assertEquals(temp.resolve("state/mcp-host/approvals.json"), approvals.file());
        Path file = configFile();
        ServerDefinition approved = definition("node", "s3cret-value-1");
        assertEquals(ApprovalState.Kind.PENDING, approvals.snapshot().stateOf(file, "git", approved).kind());

        approvals.approve(file, "git", approved);
        assertEquals(ApprovalState.Kind.APPROVED, approvals.snapshot().stateOf(file, "git", approved).kind());
        // Same file through another spelling of its path: the same project.
        assertEquals(ApprovalState.Kind.APPROVED, approvals.snapshot()
                .stateOf(file.getParent().resolve("../.cursor/mcp.json"), "git", approved).kind());

        ApprovalState changed = approvals.snapshot().stateOf(file, "git", definition("bash", "s3cret-value-1"));
        assertEquals(ApprovalState.Kind.CHANGED, changed.kind());
        assertEquals(List.of("command: \"node\" -> \"bash\""), changed.changes());
        ApprovalState newSecret = approvals.snapshot().stateOf(file, "git", definition("node", "s3cret-value-2"));
        assertEquals(List.of("env.API_KEY: changed (value hidden)"), newSecret.changes());

        // A rename is a new server; another project's file is another project.
        assertEquals(ApprovalState.Kind.PENDING, approvals.snapshot().stateOf(file, "git2", approved).kind());
        assertEquals(ApprovalState.Kind.PENDING, approvals.snapshot()
                .stateOf(temp.resolve("clone/.cursor/mcp.json"), "git", approved).kind());
    }

    @Test
    void theFingerprintsShownBeforeTheFirstDecisionAreTheOnesSaved() throws IOException {
        Approvals approvals = Approvals.at(temp.resolve("approvals.json"));
        Path file = configFile();
        ServerDefinition definition = definition("node", "s3cret");
        List<String> shown = approvals.snapshot().stateOf(file, "git", definition).definition();
        approvals.approve(file, "git", definition);
        assertEquals(shown, ServerDefinition.describe(approvals.snapshot().find(file, "git").orElseThrow().definition()));
        assertEquals(shown, approvals.snapshot().stateOf(file, "git", definition).definition());
    }

    @Test
    void aDenialHoldsWhateverTheDefinitionUntilRevoked() throws IOException {
        Approvals approvals = Approvals.at(temp.resolve("approvals.json"));
        Path file = configFile();
        approvals.deny(file, "evil", definition("node", "x"));
        assertEquals(ApprovalState.Kind.DENIED, approvals.snapshot().stateOf(file, "evil", definition("other", "y")).kind());
        assertTrue(approvals.revoke(file, "evil"));
        assertFalse(approvals.revoke(file, "evil"));
        assertEquals(ApprovalState.Kind.PENDING, approvals.snapshot().stateOf(file, "evil", definition("node", "x")).kind());
    }

    @Test
    void theFileIsOwnerOnlyAtomicAndHoldsNoSecret() throws IOException {
        Approvals approvals = Approvals.at(temp.resolve("state/mcp-host/approvals.json"));
        Path file = configFile();
        approvals.approve(file, "git", definition("node", "sk-live-very-secret-42"));
        approvals.deny(file, "other", definition("node", "another-secret-77"));
        String text = Files.readString(approvals.file());
        assertFalse(text.contains("sk-live-very-secret-42") || text.contains("another-secret-77"), text);
        try (Stream<Path> files = Files.list(approvals.file().getParent())) {
            // No temporary file left beside it (the lock file stays, empty).
            assertEquals(List.of("approvals.json", "approvals.json.lock"),
                    files.map(p -> p.getFileName().toString()).sorted().toList());
        }
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(approvals.file())));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(approvals.file().getParent())));
        }
    }

    @Test
    void aBrokenFileApprovesNothingAndIsNeverOverwritten() throws IOException {
        Path store = temp.resolve("approvals.json");
        Files.writeString(store, "{\"version\": 1,\n \"salt\": \"00\",\n \"approvals\": [ oops ]}");
        Approvals approvals = Approvals.at(store);
        Approvals.Snapshot snapshot = approvals.snapshot();
        assertTrue(snapshot.problem().orElseThrow().contains(store + ": not valid JSON at line 3"), snapshot.problem().get());
        ApprovalState state = snapshot.stateOf(configFile(), "git", definition("node", "x"));
        assertEquals(ApprovalState.Kind.PENDING, state.kind());
        assertTrue(state.reason().contains("could not be read"), state.reason());
        IOException refused = assertThrows(IOException.class, () -> approvals.approve(configFile(), "git",
                definition("node", "x")));
        assertTrue(refused.getMessage().contains("left as it is"), refused.getMessage());
        assertEquals("{\"version\": 1,\n \"salt\": \"00\",\n \"approvals\": [ oops ]}", Files.readString(store));
    }

    @Test
    void concurrentDecisionsAreAllKept() throws Exception {
        Approvals approvals = Approvals.at(temp.resolve("approvals.json"));
        Path file = configFile();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                String name = "s" + i;
                // Each writer has its own store object, as two processes would.
                done.add(pool.submit(() -> {
                    Approvals.at(temp.resolve("approvals.json")).approve(file, name, definition("node", name));
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(20, approvals.snapshot().entries().size());
    }
}
