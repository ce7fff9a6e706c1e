package mcp.api.spi;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import mcp.api.UserDirectories;

/** Creates {@link ToolCache}s. The built-in provider ({@code file}) keeps one JSON file per server. */
public interface ToolCacheProvider {

    /** @return a stable id, e.g. {@code file} */
    String id();

    /**
     * @param settings where and how long to keep entries
     * @return a cache; never fails (a cache that cannot work returns misses and logs warnings)
     */
    ToolCache open(Settings settings);

    /**
     * @param directory where to keep entries; absent: the provider's default location, found from the home and
     *     the environment by {@link #directories()}
     * @param home the user's home directory, as the host decided it (it wins over {@code HOME} in the environment)
     * @param environment the host's environment, for XDG variables
     * @param ttl how long an entry stays valid (default 30 days)
     */
    record Settings(Optional<Path> directory, Path home, Map<String, String> environment, Duration ttl) {
        /** Validates and copies. */
        public Settings {
            Objects.requireNonNull(directory, "directory");
            Objects.requireNonNull(home, "home");
            environment = Map.copyOf(environment);
            Objects.requireNonNull(ttl, "ttl");
        }

        /**
         * @return the user's directories under this home and environment ({@link UserDirectories#of(Map, Path)}):
         *     a provider keeps its default location under {@link UserDirectories#cacheHome()} so that it follows
         *     the host's home and {@code XDG_CACHE_HOME}, never the JVM's
         */
        public UserDirectories directories() {
            return UserDirectories.of(environment, home);
        }
    }
}
