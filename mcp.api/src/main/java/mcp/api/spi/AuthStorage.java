package mcp.api.spi;

import java.util.List;
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
     * @return a store that keeps credentials in this process only (id {@code memory}): for a session
     *     that must leave nothing on disk, and for tests
     */
    static AuthStorage inMemory() {
        return new MemoryAuthStorage();
    }
}
