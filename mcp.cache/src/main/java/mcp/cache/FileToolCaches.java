package mcp.cache;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import mcp.api.UserDirectories;
import mcp.api.spi.ToolCacheProvider;
import mcp.cache.internal.FileToolCacheProvider;

/**
 * The file tool cache's id, its defaults, its location rule, and a factory for its provider.
 *
 * <p>The host normally finds the provider with {@link java.util.ServiceLoader}; an embedder that
 * switches discovery off passes {@link #provider()} to the host builder instead.
 *
 * <p>What the cache does, in short:
 * <ul>
 *   <li><b>Location.</b> {@link ToolCacheProvider.Settings#directory()} when given (used as is), else
 *       {@link #defaultDirectory(Path, Map)}. Only the settings' home and environment are consulted,
 *       never the JVM's. The directory is created on the first write, owner-only ({@code rwx------})
 *       where the file system has POSIX permissions; an existing directory is left as it is.</li>
 *   <li><b>File names.</b> One file per server. A server name that matches
 *       {@code [A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}} is stored as {@code <name>.json}. Any other name (empty,
 *       too long, with a path separator, a dot first, non-ASCII, ...) is stored as {@code _<h>.json},
 *       where {@code <h>} is the first 32 hex digits of the SHA-256 of the name's UTF-8 bytes. So every
 *       name is safe and no name reaches outside the directory. Because two names can share a file (a
 *       case-insensitive file system, a name that looks like a hash), the file also records the server
 *       name, and a read for another name is a miss.</li>
 *   <li><b>Content.</b> {@code {"version":1,"server":"<name>","configHash":"<hash>",
 *       "savedAt":"<ISO-8601 instant>","tools":[...]}}, each tool in its MCP JSON form, and optionally
 *       {@code "protocolVersion"} (the era the server spoke) and {@code "fresh":{"until":"<instant>",
 *       "scope":"public|private","context":"<hash>"}} (a 2026-07-28 {@code ttlMs}/{@code cacheScope} hint,
 *       see {@link mcp.api.spi.ToolCache.Freshness}). The file holds tool definitions and hashes, never a
 *       config value.</li>
 *   <li><b>Read.</b> Returns the tools only when the file exists, parses, has version
 *       {@value #FORMAT_VERSION}, has the expected shape and server name, the same config hash, and
 *       {@code savedAt + ttl} is not before now. A missing file, another config hash or an expired
 *       entry is a normal miss, logged at DEBUG; anything else (unreadable, not JSON, another version,
 *       a wrong shape) is a miss with one WARN naming the file and the problem. A read never throws.</li>
 *   <li><b>Write.</b> To an owner-only ({@code rw-------}) temp file in the same directory, then an
 *       atomic rename over the old file, so concurrent writers and readers never see a partial file.
 *       A failure is one WARN naming the file and the reason; a write never throws.</li>
 *   <li><b>Remove.</b> Deletes the file if present; a failure is a WARN.</li>
 * </ul>
 * Log messages name files and servers, never tool arguments or config values. Null arguments are
 * programming errors and throw {@link NullPointerException}.
 */
public final class FileToolCaches {

    /** The provider id. */
    public static final String PROVIDER_ID = "file";

    /** How long an entry stays valid unless the settings say otherwise: 30 days. */
    public static final Duration DEFAULT_TTL = Duration.ofDays(30);

    /** The version of the file format this cache reads and writes. */
    public static final int FORMAT_VERSION = 1;

    private FileToolCaches() {
    }

    /**
     * A new file tool cache provider, the same one {@link java.util.ServiceLoader} finds.
     *
     * @return a provider with id {@value #PROVIDER_ID}
     */
    public static ToolCacheProvider provider() {
        return new FileToolCacheProvider();
    }

    /**
     * The directory used when the settings name none: {@code tools} in mcp-host's cache directory
     * ({@link UserDirectories#cache()}), i.e. {@code $XDG_CACHE_HOME/mcp-host/tools} when
     * {@code XDG_CACHE_HOME} is set to an absolute path, else {@code <home>/.cache/mcp-host/tools}. A
     * relative or empty {@code XDG_CACHE_HOME} is ignored, as the XDG Base Directory specification
     * requires.
     *
     * @param home the user's home directory
     * @param environment the environment to read {@code XDG_CACHE_HOME} from
     * @return the default cache directory (not created)
     */
    public static Path defaultDirectory(Path home, Map<String, String> environment) {
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(environment, "environment");
        return UserDirectories.of(environment, home).cache().resolve("tools");
    }
}
