package mcp.api;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The user's directories that mcp-host keeps its files in, by one rule shared by the command line, the host
 * and every store:
 *
 * <ul>
 *   <li><b>Home:</b> {@code $HOME} when it is set to an absolute path, else the JVM's {@code user.home}. The
 *       environment comes first because {@code user.home} comes from the password database and ignores
 *       {@code HOME}: a process started with another {@code HOME} (a test, a sandbox, a service account's
 *       wrapper) means that one, and a shell, Git and every XDG tool take it.</li>
 *   <li><b>Config, state and cache:</b> {@code $XDG_CONFIG_HOME}, {@code $XDG_STATE_HOME} and
 *       {@code $XDG_CACHE_HOME} when set to an absolute path, else {@code ~/.config}, {@code ~/.local/state}
 *       and {@code ~/.cache} under that home. An empty or relative value is ignored, as the XDG Base
 *       Directory specification says: it would depend on the directory a process happens to run in.</li>
 * </ul>
 *
 * <p>Every variable is read from one environment map, the one given here, never from the JVM's behind it:
 * {@code mcp.host.McpHost.Builder} passes its own ({@code environment(Map)}) with its home ({@code home(Path)}),
 * so that every file a host reads or writes by default follows them. Third-party providers that get a home and
 * an environment ({@link mcp.api.spi.ToolCacheProvider.Settings}) use the same rule through
 * {@link #of(Map, Path)}.
 *
 * @param home the user's home directory (absolute)
 * @param configHome the base of user-level config files (absolute): {@code $XDG_CONFIG_HOME}, else
 *     {@code ~/.config}
 * @param stateHome the base of state kept between runs (absolute): {@code $XDG_STATE_HOME}, else
 *     {@code ~/.local/state}
 * @param cacheHome the base of caches that may be deleted at any time (absolute): {@code $XDG_CACHE_HOME},
 *     else {@code ~/.cache}
 */
public record UserDirectories(Path home, Path configHome, Path stateHome, Path cacheHome) {

    /** The name of mcp-host's own directory under each base. */
    public static final String APPLICATION = "mcp-host";

    /** Validates (every path absolute) and normalizes. */
    public UserDirectories {
        home = checked(home, "home");
        configHome = checked(configHome, "configHome");
        stateHome = checked(stateHome, "stateHome");
        cacheHome = checked(cacheHome, "cacheHome");
    }

    private static Path checked(Path path, String name) {
        Objects.requireNonNull(path, name);
        if (!path.isAbsolute()) {
            throw new IllegalArgumentException(name + " must be an absolute path, got \"" + path + "\"");
        }
        return path.normalize();
    }

    /**
     * The directories of the user this environment describes: the home by the rule of this class, and the XDG
     * directories from the same environment.
     *
     * @param environment the environment ({@code HOME}, {@code XDG_CONFIG_HOME}, {@code XDG_STATE_HOME},
     *     {@code XDG_CACHE_HOME})
     * @return the directories
     */
    public static UserDirectories of(Map<String, String> environment) {
        return of(environment, home(environment));
    }

    /**
     * The directories under a home chosen by the caller (which wins over {@code $HOME}), with the XDG
     * directories from this environment.
     *
     * @param environment the environment ({@code XDG_CONFIG_HOME}, {@code XDG_STATE_HOME},
     *     {@code XDG_CACHE_HOME}; {@code HOME} is not read)
     * @param home the user's home directory (made absolute)
     * @return the directories
     */
    public static UserDirectories of(Map<String, String> environment, Path home) {
        Objects.requireNonNull(environment, "environment");
        Path absoluteHome = Objects.requireNonNull(home, "home").toAbsolutePath().normalize();
        return new UserDirectories(absoluteHome,
                absolute(environment.get("XDG_CONFIG_HOME")).orElse(absoluteHome.resolve(".config")),
                absolute(environment.get("XDG_STATE_HOME")).orElse(absoluteHome.resolve(".local").resolve("state")),
                absolute(environment.get("XDG_CACHE_HOME")).orElse(absoluteHome.resolve(".cache")));
    }

    /**
     * @param environment the environment ({@code HOME})
     * @return {@code $HOME} when it is an absolute path, else the JVM's {@code user.home} (see the class comment)
     */
    public static Path home(Map<String, String> environment) {
        Objects.requireNonNull(environment, "environment");
        return absolute(environment.get("HOME"))
                .orElseGet(() -> Path.of(System.getProperty("user.home")).toAbsolutePath().normalize());
    }

    /**
     * @param value a directory named by an environment variable, possibly absent
     * @return it, normalized, when it is a non-empty absolute path on this platform; empty otherwise (a value
     *     that is no path here at all, with a NUL character say, is ignored like a relative one)
     */
    public static Optional<Path> absolute(String value) {
        if (value == null || value.isEmpty()) {
            return Optional.empty();
        }
        try {
            Path path = Path.of(value);
            return path.isAbsolute() ? Optional.of(path.normalize()) : Optional.empty();
        } catch (InvalidPathException e) {
            return Optional.empty();
        }
    }

    /** @return mcp-host's user-level config directory: {@code mcp-host} under {@link #configHome()} */
    public Path config() {
        return configHome.resolve(APPLICATION);
    }

    /** @return mcp-host's state directory (approvals, pins, server logs): {@code mcp-host} under {@link #stateHome()} */
    public Path state() {
        return stateHome.resolve(APPLICATION);
    }

    /** @return mcp-host's cache directory: {@code mcp-host} under {@link #cacheHome()} */
    public Path cache() {
        return cacheHome.resolve(APPLICATION);
    }
}
