package mcp.manager.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import mcp.api.internal.OwnerOnlyFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A log file that several mcp-host processes may append to at once, owner-only ({@code rw-------} in a
 * {@code rwx------} directory), rotated at a size bound keeping a few old files ({@code NAME.1} the newest).
 *
 * <p>Each line is one {@code write} to a file opened with {@code O_APPEND} and closed again, so the lines of
 * several writers never interleave, and no writer keeps a renamed file open. Rotation happens under a lock
 * file ({@code NAME.lock}) taken with {@code tryLock}: a writer that finds it taken leaves the rotation to
 * whoever holds it; the size is checked again under the lock, so two writers never rotate twice. A line
 * another process appends between the check and the rename lands in {@code NAME.1}, which is still the log.
 *
 * <p>A failure to write warns once per file and is otherwise ignored: the log never breaks a session.
 */
public final class LogFile {

    private static final Logger LOG = LoggerFactory.getLogger(LogFile.class);
    private static final Set<StandardOpenOption> APPEND = Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.APPEND);

    private final Path file;
    private final long maxBytes;
    private final int keep;
    private final AtomicBoolean warned = new AtomicBoolean();

    /**
     * @param file the log file
     * @param maxBytes the size past which it is rotated
     * @param keep how many rotated files are kept (at least 1)
     */
    public LogFile(Path file, long maxBytes, int keep) {
        this.file = file.toAbsolutePath().normalize();
        this.maxBytes = maxBytes;
        this.keep = Math.max(1, keep);
    }

    private static final java.util.regex.Pattern SAFE_NAME = java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    /**
     * @param serverName a server's name, any text
     * @return the name of its log file: {@code NAME.log} for a plain name (letters, digits, {@code _.-}, not
     *     starting with a dot, at most 64 characters), else the name with every character but letters, digits, {@code _-} made {@code _},
     *     at most 48 of them, and {@code -} and the start of its SHA-256, so that two names never share a file
     */
    public static String fileName(String serverName) {
        if (SAFE_NAME.matcher(serverName).matches()) {
            return serverName + ".log";
        }
        String plain = serverName.replaceAll("[^A-Za-z0-9_-]", "_");
        plain = plain.substring(0, Math.min(48, plain.length()));
        return plain + "-" + Sha256.hex(serverName).substring(0, 12) + ".log";
    }

    /** @return the file */
    public Path file() {
        return file;
    }

    /**
     * Appends one line (a line feed is added), rotating the file afterwards if it grew past the bound.
     *
     * @param line the line, without a line break
     */
    public void append(String line) {
        ByteBuffer bytes = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
        try {
            OwnerOnlyFiles.createDirectory(file.getParent());
            long size;
            try (FileChannel channel = FileChannel.open(file, APPEND, OwnerOnlyFiles.ownerOnly("rw-------"))) {
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                size = channel.size();
            }
            if (size > maxBytes) {
                rotate();
            }
        } catch (IOException | RuntimeException e) {
            if (warned.compareAndSet(false, true)) {
                LOG.warn("Cannot write the server log {}: {}; its messages are kept in memory only", file, e.toString());
            }
        }
    }

    private void rotate() throws IOException {
        Path lockFile = file.resolveSibling(file.getFileName() + ".lock");
        try (FileChannel channel = FileChannel.open(lockFile, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
                OwnerOnlyFiles.ownerOnly("rw-------"))) {
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                return; // another writer of this JVM rotates it now
            }
            if (lock == null) {
                return; // another process rotates it now
            }
            try (lock) {
                if (Files.size(file) <= maxBytes) {
                    return; // rotated already
                }
                Files.deleteIfExists(rotated(keep));
                for (int i = keep - 1; i >= 1; i--) {
                    moveIfExists(rotated(i), rotated(i + 1));
                }
                moveIfExists(file, rotated(1));
            }
        }
    }

    private static void moveIfExists(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        } catch (NoSuchFileException e) {
            // Not there (yet): nothing to move.
        }
    }

    /**
     * @param index 1 for the newest rotated file
     * @return the path of that rotated file
     */
    public Path rotated(int index) {
        return file.resolveSibling(file.getFileName() + "." + index);
    }

    /**
     * @return the lines of the rotated files and the file, oldest first; a file that is not there is skipped
     * @throws IOException when a file that is there cannot be read
     */
    public List<String> lines() throws IOException {
        List<String> lines = new ArrayList<>();
        for (int i = keep; i >= 0; i--) {
            Path path = i == 0 ? file : rotated(i);
            try {
                // Decoded with replacement: a torn or foreign byte must not hide the rest of the log.
                new String(Files.readAllBytes(path), StandardCharsets.UTF_8).lines().forEach(lines::add);
            } catch (NoSuchFileException e) {
                // None yet, or rotated away between the listing and now.
            }
        }
        return lines;
    }
}
