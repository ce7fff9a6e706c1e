package mcp.api.spi;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.StoredCredential;

/**
 * Keeps credentials between runs: the OAuth tokens of remote servers, keyed by a credential id (the
 * config's {@code auth.credentialId}, else the server name).
 *
 * <p>An implementation never logs, prints or copies a credential elsewhere, and never puts a secret
 * in an exception message. A credential is replaced only by {@link #save}: a failed login leaves the
 * previous one in place.
 *
 * <p>Implementations are thread-safe. The default is the file store (id {@code file}).
 *
 * <p>A credential whose refresh token rotates is renewed under its {@linkplain #lock lock}: the store is read
 * again, and the token endpoint is asked only when no other holder has renewed the credential meanwhile. A store
 * that several processes share overrides {@link #lock} so that it excludes them too; the default excludes the
 * threads of this JVM only.
 */
public interface AuthStorage {

    /** @return a stable id, e.g. {@code file} */
    String id();

    /**
     * @param credentialId the key
     * @return the credential, or empty when there is none
     * @throws mcp.api.McpException when the store cannot be read or is not safe to read (a corrupt
     *     or world-readable file); the message names the place and the problem, never the content
     */
    Optional<StoredCredential> load(String credentialId);

    /**
     * Stores a credential atomically, replacing the one of the same key.
     *
     * @param credentialId the key
     * @param credential the credential
     * @throws mcp.api.McpException when it cannot be stored; the previous credential is then unchanged
     */
    void save(String credentialId, StoredCredential credential);

    /**
     * @param credentialId the key
     * @return whether there was a credential to delete
     */
    boolean delete(String credentialId);

    /** @return the keys of the stored credentials, sorted */
    List<String> credentialIds();

    /**
     * The store as a host with this environment and home uses it. ServiceLoader makes a store with no
     * arguments, before any host exists, so a store whose default place is under the user's directories can
     * only have taken them from the JVM; the host calls this on its store to place it under its own home
     * and environment instead ({@code McpHost.Builder.home}, {@code environment}).
     *
     * @param environment the host's environment (for the XDG variables and the store's own settings)
     * @param home the host's home directory, which wins over {@code HOME} in the environment
     * @return a store in the place the host's user directories give, when this store was made for the
     *     default place ({@link mcp.api.UserDirectories#of(Map, Path)} has the rule); otherwise this store
     *     itself. The default returns this store: for one that keeps nothing under the home (in memory, an
     *     operating system's keychain) or was given its place explicitly
     */
    default AuthStorage forUser(Map<String, String> environment, Path home) {
        return this;
    }

    /**
     * Takes the exclusive lock of one credential, for a read, renew and save that no other holder may
     * interleave with. The OAuth client renews a credential only under it, after reading the store again:
     * two holders of one rotating refresh token would otherwise both spend it, and the authorization server
     * takes one and refuses the other, or, seeing a replay, revokes the credential of both.
     *
     * <p>The lock is reentrant for the thread that holds it, and that thread releases it ({@link
     * CredentialLock#close()}). The default excludes the other threads of this JVM (one lock per store
     * instance and credential id), which is enough for a store no other process reads; a store that other
     * processes share overrides it to exclude them too, the {@code file} store with a lock file beside the
     * credential.
     *
     * @param credentialId the key; it need not have a credential yet
     * @param timeout how long to wait while another holder has it; zero tries once
     * @return the lock, held; close it
     * @throws mcp.api.McpException when it is not obtained within {@code timeout}, or the thread is
     *     interrupted while waiting; the message says who holds it where the store can tell
     */
    default CredentialLock lock(String credentialId, Duration timeout) {
        return InProcessCredentialLocks.lock(this, credentialId, timeout);
    }

    /** The held lock of one credential, from {@link #lock}. */
    interface CredentialLock extends AutoCloseable {

        /** Releases the lock; by the thread that took it. Closing it again does nothing. */
        @Override
        void close();
    }

    /**
     * @return a store that keeps credentials in this process only (id {@code memory}): for a session
     *     that must leave nothing on disk, and for tests
     */
    static AuthStorage inMemory() {
        return new MemoryAuthStorage();
    }
}
