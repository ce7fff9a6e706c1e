package mcp.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import mcp.api.McpException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The default credential lock of a store that no other process shares: the threads of this JVM, one at a time. */
class AuthStorageLockTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final ExecutorService other = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "mcp-test-other-thread");
        thread.setDaemon(true);
        return thread;
    });

    @AfterEach
    void stop() throws InterruptedException {
        other.shutdownNow();
        assertTrue(other.awaitTermination(10, TimeUnit.SECONDS));
    }

    private <T> T onOtherThread(java.util.concurrent.Callable<T> task) throws Exception {
        return other.submit(task).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void anotherThreadWaitsUntilTheHolderReleasesAndThenGetsIt() throws Exception {
        AuthStorage storage = AuthStorage.inMemory();
        AuthStorage.CredentialLock held = storage.lock("remote", WAIT);
        McpException busy = onOtherThread(() -> assertThrows(McpException.class,
                () -> storage.lock("remote", Duration.ZERO)));
        assertEquals("The credential \"remote\" of the memory auth storage is held by another thread of this process, "
                + "which did not release it within 0 ms; try again", busy.getMessage());
        // Other credentials, and the same id in another store, are not held.
        onOtherThread(() -> {
            storage.lock("other", Duration.ZERO).close();
            AuthStorage.inMemory().lock("remote", Duration.ZERO).close();
            return null;
        });

        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try (AuthStorage.CredentialLock lock = storage.lock("remote", WAIT)) {
                return true;
            }
        }, other);
        held.close();
        assertTrue(waiter.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    }

    @Test
    void theHolderMayTakeItAgainAndAClosedLockClosesOnce() throws Exception {
        AuthStorage storage = AuthStorage.inMemory();
        AuthStorage.CredentialLock outer = storage.lock("remote", WAIT);
        AuthStorage.CredentialLock inner = storage.lock("remote", Duration.ZERO);
        inner.close();
        inner.close();
        assertThrows(McpException.class, () -> onOtherThreadLock(storage), "still held by the outer hold");
        outer.close();
        onOtherThreadLock(storage);
    }

    private void onOtherThreadLock(AuthStorage storage) throws Exception {
        try {
            onOtherThread(() -> {
                storage.lock("remote", Duration.ZERO).close();
                return null;
            });
        } catch (java.util.concurrent.ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }

    @Test
    void anInterruptedWaitFailsAndKeepsTheInterrupt() throws Exception {
        AuthStorage storage = AuthStorage.inMemory();
        try (AuthStorage.CredentialLock held = storage.lock("remote", WAIT)) {
            String outcome = onOtherThread(() -> {
                Thread.currentThread().interrupt();
                McpException e = assertThrows(McpException.class, () -> storage.lock("remote", WAIT));
                return e.getMessage() + " / interrupted: " + Thread.interrupted();
            });
            assertEquals("Interrupted while waiting for the lock of the credential \"remote\" / interrupted: true", outcome);
        }
    }

    @Test
    void aNegativeTimeoutIsAMistake() {
        assertThrows(IllegalArgumentException.class, () -> AuthStorage.inMemory().lock("remote", Duration.ofMillis(-1)));
    }
}
