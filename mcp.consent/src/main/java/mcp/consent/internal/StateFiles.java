package mcp.consent.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import mcp.api.UserDirectories;
import mcp.api.internal.OwnerOnlyFiles;

/**
 * mcp-host's state files: under {@link UserDirectories#state()} ({@code $XDG_STATE_HOME/mcp-host/} when that is
 * an absolute path, else {@code ~/.local/state/mcp-host/}); written owner-only from
 * creation on, atomically ({@link OwnerOnlyFiles}), and changed under a lock
 * file (and, between the threads of one JVM, a lock of its own), so that two mcp-host processes or
 * threads never lose each other's update.
 */
public final class StateFiles {

    /**
     * A lock per lock file for the threads of this JVM: a file lock is held by the whole JVM, and a second
     * thread asking for it gets an OverlappingFileLockException instead of waiting.
     */
    private static final Map<Path, ReentrantLock> IN_PROCESS = new ConcurrentHashMap<>();

    private StateFiles() {
    }

    /**
     * @param environment the environment ({@code XDG_STATE_HOME})
     * @param home the user's home directory
     * @return mcp-host's state directory
     */
    public static Path directory(Map<String, String> environment, Path home) {
        return UserDirectories.of(environment, home).state();
    }

    /**
     * @param file a state file
     * @return its bytes, or empty when there is no such file
     * @throws IOException when it exists but cannot be read
     */
    public static Optional<byte[]> read(Path file) throws IOException {
        try {
            return Optional.of(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /**
     * Replaces a state file atomically, owner-only ({@code rw-------}, its directory {@code rwx------}).
     *
     * @param file the file
     * @param bytes its new content
     * @throws IOException when it cannot be written (the old content is then still there)
     */
    public static void write(Path file, byte[] bytes) throws IOException {
        OwnerOnlyFiles.replace(file, bytes, file.getFileName() + ".");
    }

    /** A change that reads a state file, computes, and writes it back. */
    @FunctionalInterface
    public interface Update<T> {
        /**
         * @return the result of the change
         * @throws IOException when reading or writing fails
         */
        T run() throws IOException;
    }

    /**
     * Runs a read-modify-write of a state file while holding its lock file ({@code FILE.lock}), which
     * other mcp-host processes take too.
     *
     * @param file the state file
     * @param update the change
     * @param <T> its result
     * @return its result
     * @throws IOException when the lock or the change fails
     */
    public static <T> T locked(Path file, Update<T> update) throws IOException {
        Path directory = file.toAbsolutePath().getParent();
        OwnerOnlyFiles.createDirectory(directory);
        Path lockFile = directory.resolve(file.getFileName() + ".lock");
        if (!Files.exists(lockFile)) {
            try {
                Files.createFile(lockFile, OwnerOnlyFiles.ownerOnly("rw-------"));
            } catch (java.nio.file.FileAlreadyExistsException e) {
                // Another process made it first.
            }
        }
        ReentrantLock local = IN_PROCESS.computeIfAbsent(lockFile.toAbsolutePath().normalize(), p -> new ReentrantLock());
        local.lock();
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE);
                FileLock lock = channel.lock()) {
            return update.run();
        } finally {
            local.unlock();
        }
    }

}
