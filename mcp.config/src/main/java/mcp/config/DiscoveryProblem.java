package mcp.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Something a person should know about the discovered configs: a file that could not be read, a
 * capability source or filter that failed, an unset environment variable, an invalid server.
 *
 * <p>Messages never hold env or header values; they name files, positions, servers, fields and
 * variable names.
 *
 * @param severity {@link Severity#WARNING} for what was read around or worked around,
 *     {@link Severity#ERROR} for a server that was skipped as invalid (and for a hard failure)
 * @param file the file concerned, when known
 * @param location where in the file: line and column ({@code 3:14}) or a JSON pointer
 *     ({@code /mcpServers/git}), or {@code ""} when unknown
 * @param server the server concerned, or {@code ""} when the problem is not about one server
 * @param message what is wrong, for people
 */
public record DiscoveryProblem(Severity severity, Optional<Path> file, String location, String server,
        String message) {

    /** How serious a problem is. */
    public enum Severity {
        /** Discovery went on around it; what it concerns may be missing or unexpanded. */
        WARNING,
        /** A server was skipped as invalid, or discovery itself failed. */
        ERROR
    }

    /** Validates. */
    public DiscoveryProblem {
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(message, "message");
    }

    /**
     * The problem in one line for people, like a compiler message: {@code <file>:<location>: <message>},
     * leaving out the file or the location (and its separator) when it is unknown.
     *
     * @return the line, e.g. {@code /home/me/.cursor/mcp.json:/mcpServers/git: Server "git": stdio server requires "command" field}
     */
    public String describe() {
        List<String> where = new ArrayList<>(2);
        file.map(Path::toString).filter(s -> !s.isEmpty()).ifPresent(where::add);
        if (!location.isEmpty()) {
            where.add(location);
        }
        return where.isEmpty() ? message : String.join(":", where) + ": " + message;
    }
}
