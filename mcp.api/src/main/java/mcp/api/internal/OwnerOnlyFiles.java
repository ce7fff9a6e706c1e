package mcp.api.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The one way mcp-host writes a file that only its user may read (credentials, tool cache entries,
 * approvals, pins): owner-only from creation on ({@code rw-------} in a {@code rwx------} directory, where
 * the file system has POSIX permissions), so there is no moment at which another user could open it, and
 * atomically (a temporary file beside it, forced to disk, then renamed over it), so a crash never publishes
 * an empty or half-written file. For mcp-host's own modules only: this package is exported to them alone.
 */
public final class OwnerOnlyFiles {

    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

    private OwnerOnlyFiles() {
    }

    /**
     * Replaces a file's content, creating its directory (owner-only) if needed.
     *
     * @param file the file
     * @param bytes its new content
     * @param tempPrefix the start of the temporary file's name (a dot hides it from directory listings)
     * @throws IOException when it cannot be written; the old content is then still there, and no
     *     temporary file is left
     */
    public static void replace(Path file, byte[] bytes, String tempPrefix) throws IOException {
        Path directory = file.toAbsolutePath().getParent();
        createDirectory(directory);
        Path temp = Files.createTempFile(directory, tempPrefix, ".tmp", ownerOnly("rw-------"));
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                // On disk before the rename, so a crash cannot publish an empty file.
                channel.force(true);
            }
            try {
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                // Same directory, so only on exotic file systems; a plain replace is the best left.
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            temp = null;
        } finally {
            if (temp != null) {
                Files.deleteIfExists(temp);
            }
        }
    }

    /**
     * @param directory a directory
     * @throws IOException when it does not exist and cannot be created (owner-only)
     */
    public static void createDirectory(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            Files.createDirectories(directory, ownerOnly("rwx------"));
        }
    }

    /**
     * @param permissions POSIX permissions such as {@code rw-------}
     * @return them as a creation attribute, or none where the file system has no POSIX permissions
     */
    public static FileAttribute<?>[] ownerOnly(String permissions) {
        return POSIX ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(permissions))}
                : new FileAttribute<?>[0];
    }
}
