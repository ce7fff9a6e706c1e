package mcp.manager;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import mcp.api.UserDirectories;
import mcp.manager.internal.LogFile;
import mcp.manager.internal.LogMessages;

/**
 * The servers' log files: one per server name in a directory ({@code logs/} in mcp-host's state directory for
 * {@link #forUser}), each line one message as JSON ({@code time}, {@code level}, {@code logger}, {@code data}),
 * owner-only, rotated past {@link #MAX_FILE_BYTES} keeping {@link #KEPT_FILES} older files ({@code NAME.log.1}
 * the newest). Several mcp-host processes may write one server's file at once (whole lines; the rotation is
 * under a lock file and tolerates races). A file that cannot be written is warned about once; the messages then
 * stay in memory only.
 */
public final class ServerLogFiles {

    /** The directory under the state directory. */
    public static final String DIRECTORY = "logs";
    /** The size past which a server's log file is rotated. */
    public static final long MAX_FILE_BYTES = 1L << 20;
    /** How many rotated files of a server are kept. */
    public static final int KEPT_FILES = 3;

    private final Path directory;
    private final long maxFileBytes;

    private ServerLogFiles(Path directory, long maxFileBytes) {
        this.directory = directory.toAbsolutePath().normalize();
        this.maxFileBytes = maxFileBytes;
    }

    /**
     * @param directory the directory of the log files
     * @return the log files kept there
     */
    public static ServerLogFiles at(Path directory) {
        return new ServerLogFiles(Objects.requireNonNull(directory, "directory"), MAX_FILE_BYTES);
    }

    /**
     * @param directory the directory of the log files
     * @param maxFileBytes the size past which a file is rotated (for tests)
     * @return the log files kept there
     */
    static ServerLogFiles at(Path directory, long maxFileBytes) {
        return new ServerLogFiles(directory, maxFileBytes);
    }

    /**
     * @param environment the environment ({@code XDG_STATE_HOME})
     * @param home the user's home directory
     * @return the user's server logs: {@code logs/} in mcp-host's state directory ({@code $XDG_STATE_HOME/mcp-host/},
     *     else {@code ~/.local/state/mcp-host/})
     */
    public static ServerLogFiles forUser(Map<String, String> environment, Path home) {
        return at(UserDirectories.of(environment, home).state().resolve(DIRECTORY));
    }

    /** @return the directory of the log files */
    public Path directory() {
        return directory;
    }

    /**
     * @param serverName a server
     * @return its log file ({@code NAME.log}; a name that is not a plain file name gets a safe one with a hash)
     */
    public Path file(String serverName) {
        return logFile(serverName).file();
    }

    private LogFile logFile(String serverName) {
        return new LogFile(directory.resolve(LogFile.fileName(Objects.requireNonNull(serverName, "serverName"))),
                maxFileBytes, KEPT_FILES);
    }

    /**
     * @param serverName a server
     * @param capacity the most entries kept in memory
     * @return a log for it that also appends every entry to its file
     */
    public ServerLog open(String serverName, int capacity) {
        LogFile file = logFile(serverName);
        return new ServerLog(serverName, capacity, entry -> file.append(LogMessages.json(entry).toString()));
    }

    /**
     * @param serverName a server
     * @param last the most entries to return (the newest); 0 or less: all
     * @return its stored entries, oldest first, from its rotated files and its file (lines that are not entries
     *     are skipped; none when it has no file)
     * @throws IOException when a file that is there cannot be read
     */
    public List<ServerLogEntry> read(String serverName, int last) throws IOException {
        List<ServerLogEntry> entries = new ArrayList<>();
        for (String line : logFile(serverName).lines()) {
            LogMessages.parse(line).ifPresent(entries::add);
        }
        return last > 0 && entries.size() > last ? List.copyOf(entries.subList(entries.size() - last, entries.size()))
                : List.copyOf(entries);
    }
}
