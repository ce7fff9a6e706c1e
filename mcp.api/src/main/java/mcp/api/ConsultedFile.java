package mcp.api;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A file that discovery read or looked for, and what it found there. A host that watches its configs watches
 * exactly these: a file that was missing counts as much as one that was read, since creating it (a project's
 * {@code .mcp.json}, a tool installed later) changes what is configured.
 *
 * @param path the file, absolute and normalized
 * @param state what discovery found there
 */
public record ConsultedFile(Path path, State state) {

    /** What discovery found at a path; declared from the least to the most telling. */
    public enum State {
        /** Looked for, and not there: creating it counts. */
        MISSING,
        /** Read: a change of its content counts. */
        READ,
        /** A directory whose entries were listed (a tool's extensions): an entry that comes or goes counts too. */
        LISTED,
        /**
         * There, but it could not be read or parsed as a whole (a syntax error, a dangling link, not a regular file),
         * so what it configures is unknown; the problem that says why names it.
         */
        UNREADABLE
    }

    /** Validates and normalizes. */
    public ConsultedFile {
        path = Objects.requireNonNull(path, "path").toAbsolutePath().normalize();
        Objects.requireNonNull(state, "state");
    }

    /**
     * @param other what another reader of the same file found (two sources may read one settings file)
     * @return the more telling of the two: a file one reader could not parse is unreadable, whatever the other did
     */
    public ConsultedFile merge(ConsultedFile other) {
        if (!other.path.equals(path)) {
            throw new IllegalArgumentException("not the same file: " + path + " and " + other.path);
        }
        return other.state.compareTo(state) > 0 ? other : this;
    }
}
