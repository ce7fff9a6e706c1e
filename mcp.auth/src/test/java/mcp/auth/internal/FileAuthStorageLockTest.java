package mcp.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import mcp.api.McpException;
import mcp.api.StoredCredential;
import mcp.api.spi.AuthStorage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lock of the {@code file} store: a lock file beside the credential that excludes other processes (real child
 * JVMs, {@link OtherProcess}) and the other threads of this JVM, with a bounded wait that names the file.
 */
class FileAuthStorageLockTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path temp;

    private final ExecutorService other = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "mcp-test-lock-other-thread");
        thread.setDaemon(true);
        return thread;
    });

    @AfterEach
    void stop() throws InterruptedException {
        other.shutdownNow();
        assertTrue(other.awaitTermination(10, TimeUnit.SECONDS));
    }

    /** Runs a task on the other thread and returns its outcome, its exception thrown as it is. */
    private <T> T onOtherThread(Callable<T> task) throws Exception {
        try {
            return other.submit(task).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }

    private static void tryLock(FileAuthStorage storage, Duration timeout) {
        storage.lock("remote", timeout).close();
    }

    @Test
    void theLockFileIsAnOwnerOnlyFileBesideTheCredentialThatOutlivesIt() throws IOException {
        FileAuthStorage storage = new FileAuthStorage(temp.resolve("store"));
        assertEquals(temp.resolve("store").resolve("remote.lock"), storage.lockFile("remote"));
        assertEquals(temp.resolve("store").resolve("_remote.lock"), storage.lockFile("Remote"));
        try (AuthStorage.CredentialLock lock = storage.lock("remote", WAIT)) {
            assertTrue(Files.isRegularFile(storage.lockFile("remote")));
        }
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(storage.directory())));
            assertEquals("rw-------", PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(storage.lockFile("remote"))));
        }
        assertEquals(0, Files.size(storage.lockFile("remote")));
        assertEquals(List.of(), storage.credentialIds(), "a lock file is no credential");
        storage.save("remote", new StoredCredential("token", "Bearer", Optional.empty(), Optional.empty(), List.of(),
                Instant.parse("2025-01-01T00:00:00Z"), Map.of()));
        assertTrue(storage.delete("remote"));
        // Removing it would let a process that opened it and one that makes it anew each hold "the" lock.
        assertTrue(Files.isRegularFile(storage.lockFile("remote")));
    }

    @Test
    void twoStoresOfOneDirectoryExcludeEachOtherInOneJvmAndTheHolderMayLockAgain() throws Exception {
        FileAuthStorage one = new FileAuthStorage(temp);
        FileAuthStorage two = new FileAuthStorage(temp);
        AuthStorage.CredentialLock outer = one.lock("remote", WAIT);
        AuthStorage.CredentialLock inner = two.lock("remote", Duration.ZERO);
        McpException busy = assertThrows(McpException.class, () -> onOtherThread(() -> {
            tryLock(two, Duration.ofMillis(50));
            return null;
        }));
        assertEquals("The credential \"remote\" is being renewed by another thread of this process, which did not "
                + "release its lock " + one.lockFile("remote") + " within 50 ms. Try again; if this goes on, look for a "
                + "hung mcp-host process (a process that ends releases its lock, so removing the file does not help)",
                busy.getMessage());
        onOtherThread(() -> {
            two.lock("other", Duration.ZERO).close();
            return null;
        });
        inner.close();
        inner.close();
        assertThrows(McpException.class, () -> onOtherThread(() -> {
            tryLock(one, Duration.ZERO);
            return null;
        }), "the outer hold still has it");
        Future<?> waiter = other.submit(() -> tryLock(two, WAIT));
        outer.close();
        waiter.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void onlyTheThreadThatTookTheLockReleasesIt() throws Exception {
        FileAuthStorage storage = new FileAuthStorage(temp);
        try (AuthStorage.CredentialLock lock = storage.lock("remote", WAIT)) {
            assertThrows(IllegalStateException.class, () -> onOtherThread(() -> {
                lock.close();
                return null;
            }));
            assertThrows(McpException.class, () -> onOtherThread(() -> {
                tryLock(storage, Duration.ZERO);
                return null;
            }), "still held");
        }
    }

    @Test
    void anotherProcessIsWaitedForAndNamedWhenItHoldsTheLockTooLong() throws Exception {
        FileAuthStorage storage = new FileAuthStorage(temp.resolve("store"));
        try (OtherProcess.Handle child = OtherProcess.Handle.start("locker", storage.directory(), "-", "-", temp)) {
            child.send("lock remote 10000");
            assertEquals("locked", child.answer());
            McpException busy = assertThrows(McpException.class, () -> tryLock(storage, Duration.ofMillis(200)));
            assertTrue(busy.getMessage().startsWith("The credential \"remote\" is being renewed by another process, "
                    + "which did not release its lock " + storage.lockFile("remote") + " within 200 ms."),
                    busy.getMessage());

            // A waiter gets the lock as soon as the holder lets go.
            Future<?> waiter = other.submit(() -> tryLock(storage, WAIT));
            child.send("unlock");
            assertEquals("unlocked", child.answer());
            waiter.get(WAIT.toSeconds(), TimeUnit.SECONDS);

            // And the other way round: this process holds it, the child waits, then gets it.
            try (AuthStorage.CredentialLock lock = storage.lock("remote", WAIT)) {
                child.send("lock remote 100");
                assertTrue(child.answer().startsWith("busy The credential \"remote\" is being renewed by another "
                        + "process"));
                child.send("lock other 100");
                assertEquals("locked", child.answer(), "another credential is not held");
                child.send("unlock");
                assertEquals("unlocked", child.answer());
                child.send("lock remote 10000");
            }
            assertEquals("locked", child.answer());
            assertEquals(0, child.finish(), "see " + child.log());
        }
    }

    @Test
    void theLockOfAProcessThatDiesIsReleased() throws Exception {
        FileAuthStorage storage = new FileAuthStorage(temp.resolve("store"));
        try (OtherProcess.Handle child = OtherProcess.Handle.start("crasher", storage.directory(), "-", "-", temp)) {
            child.send("lock remote 10000");
            assertEquals("locked", child.answer());
            assertThrows(McpException.class, () -> tryLock(storage, Duration.ZERO));
            child.kill();
            tryLock(storage, WAIT);
        }
    }

    @Test
    void whereNoLockFileCanBeMadeTheLockStillHoldsInThisJvm() throws Exception {
        // A file where the directory should be: nothing can be made in it, as in a read-only store.
        Path notADirectory = Files.writeString(temp.resolve("store"), "a file");
        FileAuthStorage storage = new FileAuthStorage(notADirectory);
        try (AuthStorage.CredentialLock lock = storage.lock("remote", WAIT)) {
            assertThrows(McpException.class, () -> onOtherThread(() -> {
                tryLock(storage, Duration.ZERO);
                return null;
            }));
        }
        tryLock(storage, Duration.ZERO);
        assertFalse(Files.isDirectory(notADirectory));
    }
}
