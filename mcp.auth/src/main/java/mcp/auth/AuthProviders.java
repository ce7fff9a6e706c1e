package mcp.auth;

import java.nio.file.Path;
import java.util.Map;
import mcp.api.spi.AuthStorage;
import mcp.auth.internal.FileAuthStorage;

/**
 * The id of the file auth storage and factories for it.
 *
 * <p>The host normally finds the storage (and the {@code browser} and {@code headless} authorization UIs)
 * with {@link java.util.ServiceLoader}; an embedder that switches discovery off passes
 * {@link #defaultAuthStorage()} to the host builder instead ({@code mcp.transport.http.HttpTransports}
 * offers the same factories, as it did before this module existed).
 *
 * <h2>{@code file}: the auth storage</h2>
 * One owner-only JSON file per credential in {@code $MCP_HOST_CREDENTIALS_DIR}, else
 * {@code $XDG_CONFIG_HOME/mcp-host/credentials}, else {@code ~/.config/mcp-host/credentials}
 * ({@link mcp.api.UserDirectories} has the rule; the home and environment are the host's); written
 * atomically; a file others may read or write, or a corrupt one, is refused with a message that names
 * the file and the fix but never its content.
 */
public final class AuthProviders {

    /** The id of the file auth storage. */
    public static final String FILE_STORAGE_ID = "file";

    private AuthProviders() {
    }

    /**
     * @param directory the directory of the credential files; created owner-only on the first save
     * @return a file auth storage (id {@value #FILE_STORAGE_ID}) in that directory
     */
    public static AuthStorage fileAuthStorage(Path directory) {
        return new FileAuthStorage(directory);
    }

    /**
     * @return the file auth storage (id {@value #FILE_STORAGE_ID}) in the default directory, read from
     *     the JVM's environment ({@code $HOME}, else {@code user.home}): the one ServiceLoader finds. A host
     *     given it moves it under the host's own home and environment ({@link AuthStorage#forUser})
     */
    public static AuthStorage defaultAuthStorage() {
        return new FileAuthStorage();
    }

    /**
     * @param environment the environment ({@code MCP_HOST_CREDENTIALS_DIR}, {@code XDG_CONFIG_HOME})
     * @param home the user's home directory (it wins over {@code HOME} in the environment)
     * @return the file auth storage (id {@value #FILE_STORAGE_ID}) in the default directory of this environment
     *     and home: the one a host with them uses by default, for a tool that reads or writes the same credentials
     */
    public static AuthStorage defaultAuthStorage(Map<String, String> environment, Path home) {
        return FileAuthStorage.forDefaultPlace(environment, home);
    }
}
