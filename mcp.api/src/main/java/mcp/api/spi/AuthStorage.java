package mcp.api.spi;

import java.nio.file.Path;
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
     * @return a store that keeps credentials in this process only (id {@code memory}): for a session
     *     that must leave nothing on disk, and for tests
     */
    static AuthStorage inMemory() {
        return new MemoryAuthStorage();
    }
}
