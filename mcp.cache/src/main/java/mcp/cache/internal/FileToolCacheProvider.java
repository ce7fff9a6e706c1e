package mcp.cache.internal;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;
import mcp.api.spi.ToolCache;
import mcp.api.spi.ToolCacheProvider;
import mcp.cache.FileToolCaches;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code file} tool cache provider: resolves the directory and opens a {@link FileToolCache} on it.
 * Stateless and thread-safe; public with a public no-argument constructor because
 * {@link java.util.ServiceLoader} instantiates it.
 */
public final class FileToolCacheProvider implements ToolCacheProvider {

    private static final Logger LOG = LoggerFactory.getLogger(FileToolCacheProvider.class);

    /** Creates the provider. */
    public FileToolCacheProvider() {
    }

    @Override
    public String id() {
        return FileToolCaches.PROVIDER_ID;
    }

    @Override
    public ToolCache open(Settings settings) {
        Objects.requireNonNull(settings, "settings");
        Path directory = settings.directory()
                .orElseGet(() -> FileToolCaches.defaultDirectory(settings.home(), settings.environment()));
        LOG.debug("Tool cache in {} (entries valid for {})", directory, settings.ttl());
        // Nothing is created here: a session that only reads never leaves a directory behind.
        return new FileToolCache(directory, settings.ttl(), Clock.systemUTC());
    }
}
