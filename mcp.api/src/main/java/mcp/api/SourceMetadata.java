package mcp.api;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a server config came from.
 *
 * @param providerId the capability source's id, e.g. {@code claude}
 * @param providerName its display name, e.g. {@code Claude Code}
 * @param path the absolute path of the file, when the config came from a file
 * @param level whether the file belongs to the user, the project, or mcp-host itself
 */
public record SourceMetadata(String providerId, String providerName, Optional<Path> path, Level level) {

    /** Validates. */
    public SourceMetadata {
        Objects.requireNonNull(providerId, "providerId");
        Objects.requireNonNull(providerName, "providerName");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(level, "level");
    }

    /** The scope of a config file. */
    public enum Level {
        /** A file in the user's home or XDG directories. */
        USER,
        /** A file in the working directory or one of its parents up to the repository root. */
        PROJECT,
        /** A config given to mcp-host directly (builder, {@code --config}). */
        NATIVE
    }
}
