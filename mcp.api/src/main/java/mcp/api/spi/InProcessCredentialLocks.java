package mcp.api.spi;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import mcp.api.McpException;

/**
 * The default {@link AuthStorage#lock}: a reentrant lock per store instance and credential id, in this JVM.
 *
 * <p>The stores are held weakly, so a store that is no longer used takes its locks with it; the lock of one
 * credential is never removed while its store lives, since a thread may be waiting on it. Guarded by
 * {@code LOCKS} itself; the locks are taken outside it.
 */
final class InProcessCredentialLocks {

    private static final Map<AuthStorage, Map<String, ReentrantLock>> LOCKS = new WeakHashMap<>();

    private InProcessCredentialLocks() {
    }

    static AuthStorage.CredentialLock lock(AuthStorage storage, String credentialId, Duration timeout) {
        Objects.requireNonNull(storage, "storage");
        Objects.requireNonNull(credentialId, "credentialId");
        if (Objects.requireNonNull(timeout, "timeout").isNegative()) {
            throw new IllegalArgumentException("the timeout is negative: " + timeout);
        }
        ReentrantLock lock;
        synchronized (LOCKS) {
            lock = LOCKS.computeIfAbsent(storage, s -> new HashMap<>())
                    .computeIfAbsent(credentialId, id -> new ReentrantLock());
        }
        try {
            if (!lock.tryLock(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new McpException("The credential " + quoted(credentialId) + " of the " + storage.id()
                        + " auth storage is held by another thread of this process, which did not release it within "
                        + timeout.toMillis() + " ms; try again");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new McpException("Interrupted while waiting for the lock of the credential " + quoted(credentialId), e);
        }
        AtomicBoolean released = new AtomicBoolean();
        return () -> {
            if (released.compareAndSet(false, true)) {
                lock.unlock();
            }
        };
    }

    /** Ids come from config files: no control character of theirs reaches a message. */
    private static String quoted(String id) {
        return "\"" + id.replaceAll("\\p{Cntrl}", "?") + "\"";
    }
}
