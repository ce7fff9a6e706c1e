package mcp.api.spi;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

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
     * @param directory where to keep entries; absent: the provider's default location
     * @param home the user's home directory
     * @param environment the environment, for XDG variables
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
    }
}
