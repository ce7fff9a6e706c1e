package mcp.api.spi;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import mcp.api.ConsultedFile;
import mcp.api.ServerSpec;

/**
 * Reads MCP server configs from one place (a tool's config files, an environment variable, a
 * service) and tags each with where it came from. Sources with a higher {@link #priority()} win
 * when two define a server of one name.
 *
 * <p>A source never throws for bad input: a file it cannot read or parse becomes a
 * {@link Problem} naming the file and position, and the rest still loads.
 */
public interface CapabilitySource {

    /** @return a stable id, e.g. {@code claude} */
    String id();

    /** @return a name for people, e.g. {@code Claude Code} */
    String displayName();

    /** @return the priority; higher wins (built-ins use 5 to 100) */
    int priority();

    /**
     * @param context where to look
     * @return the servers found and the problems met
     */
    Result discover(Context context);

    /**
     * Where a source looks. Sources never read the real home or environment directly, so tests can
     * give them a fixture.
     *
     * @param workingDirectory the project's working directory
     * @param home the user's home directory
     * @param environment the environment variables
     */
    record Context(Path workingDirectory, Path home, Map<String, String> environment) {
        /** Validates and copies. */
        public Context {
            Objects.requireNonNull(workingDirectory, "workingDirectory");
            Objects.requireNonNull(home, "home");
            environment = Map.copyOf(environment);
        }
    }

    /**
     * @param servers the servers found, in file order
     * @param problems what could not be read, each naming its file
     * @param inactive entries that the tool owning the file would not start for this user in this
     *     folder (pending approval, declined, disabled for the project, an untrusted folder, a policy):
     *     listed with that reason, never started
     * @param consultedFiles every file this call read or looked for, found or not, with what it found: a host
     *     that watches its configs discovers again when one of them changes, and keeps the servers of one that is
     *     {@link ConsultedFile.State#UNREADABLE unreadable} running as they were (a file caught half written). A
     *     source that reads nothing from files, or does not say, leaves it empty: its servers then change only
     *     when something else makes the host discover again
     */
    record Result(List<ServerSpec> servers, List<Problem> problems, List<Inactive> inactive,
            List<ConsultedFile> consultedFiles) {
        /** Copies. */
        public Result {
            servers = List.copyOf(servers);
            problems = List.copyOf(problems);
            inactive = List.copyOf(inactive);
            consultedFiles = List.copyOf(consultedFiles);
        }

        /** A result that names no file it consulted. */
        public Result(List<ServerSpec> servers, List<Problem> problems, List<Inactive> inactive) {
            this(servers, problems, inactive, List.of());
        }

        /** A result without inactive entries, naming no file it consulted. */
        public Result(List<ServerSpec> servers, List<Problem> problems) {
            this(servers, problems, List.of());
        }
    }

    /**
     * An entry that its owning tool would not start here, and that tool's reason.
     *
     * @param server the entry as written
     * @param reason for people: the tool's state and how to change it (never an env or header value)
     */
    record Inactive(ServerSpec server, String reason) {
        /** Validates. */
        public Inactive {
            Objects.requireNonNull(server, "server");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * Something a person should know about a config file.
     *
     * @param file the file
     * @param location line and column ({@code 3:14}) or JSON pointer, or {@code ""} when unknown
     * @param server the server concerned, or {@code ""}
     * @param message what is wrong
     */
    record Problem(Path file, String location, String server, String message) {
        /** Validates. */
        public Problem {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(location, "location");
            Objects.requireNonNull(server, "server");
            Objects.requireNonNull(message, "message");
        }
    }
}
