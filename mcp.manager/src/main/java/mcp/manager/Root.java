package mcp.manager;

import java.util.Objects;
import java.util.Optional;

/**
 * A root the client offers to servers ({@code roots/list}): a directory the server may work in.
 *
 * @param uri a {@code file://} URI
 * @param name a name for people, if any
 */
public record Root(String uri, Optional<String> name) {
    /** Validates. */
    public Root {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(name, "name");
    }

    /**
     * @param directory a directory
     * @return a root for it, named after its last path element
     */
    public static Root of(java.nio.file.Path directory) {
        java.nio.file.Path absolute = directory.toAbsolutePath().normalize();
        java.nio.file.Path fileName = absolute.getFileName();
        return new Root(absolute.toUri().toString(), Optional.ofNullable(fileName).map(Object::toString));
    }
}
