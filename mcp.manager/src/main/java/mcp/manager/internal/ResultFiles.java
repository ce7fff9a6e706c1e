package mcp.manager.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import mcp.api.internal.OwnerOnlyFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session's directory of results too large for the agent's context: made on the first such result, owner-only
 * ({@code rwx------}, each file {@code rw-------} from creation on), under the given parent (default
 * {@code java.io.tmpdir}) as {@code mcp-host-results-<random>}; removed with its files by {@link #close()} unless
 * kept.
 *
 * <p>Thread-safe: calls finish on several threads; one lock guards the directory and the counter.
 */
public final class ResultFiles implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ResultFiles.class);

    private final Optional<Path> parent;
    private final boolean keep;
    private final Object lock = new Object();
    /** Made on the first save; null before and after close. Guarded by {@link #lock}. */
    private Path directory;
    private int saved;
    private boolean closed;

    /**
     * @param parent where the directory is made; empty: {@code java.io.tmpdir}
     * @param keep whether {@link #close()} leaves the directory and its files
     */
    public ResultFiles(Optional<Path> parent, boolean keep) {
        this.parent = parent;
        this.keep = keep;
    }

    /**
     * Saves one result's text.
     *
     * @param server the server's name
     * @param tool the tool's name on it
     * @param text the whole text
     * @return the file, owner-only
     * @throws UncheckedIOException when it cannot be written (nothing is left behind then)
     * @throws IllegalStateException after {@link #close()}
     */
    public Path save(String server, String tool, String text) {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("the session's result files are closed");
            }
            Path file = null;
            try {
                if (directory == null) {
                    Path base = parent.orElseGet(() -> Path.of(System.getProperty("java.io.tmpdir")));
                    Files.createDirectories(base);
                    directory = Files.createTempDirectory(base, "mcp-host-results-",
                            OwnerOnlyFiles.ownerOnly("rwx------"));
                }
                saved++;
                file = directory.resolve(safe(server) + "-" + safe(tool) + "-" + saved + ".txt");
                try (SeekableByteChannel channel = Files.newByteChannel(file,
                        Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                        OwnerOnlyFiles.ownerOnly("rw-------"))) {
                    ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
                    while (bytes.hasRemaining()) {
                        channel.write(bytes);
                    }
                }
                return file;
            } catch (IOException e) {
                if (file != null) {
                    try {
                        Files.deleteIfExists(file);
                    } catch (IOException ignored) {
                        // Reported below with the write's failure.
                    }
                }
                throw new UncheckedIOException(e);
            }
        }
    }

    /** @return the directory, once a result was saved and until closed */
    public Optional<Path> directory() {
        synchronized (lock) {
            return Optional.ofNullable(directory);
        }
    }

    /** Removes the directory and its files, unless kept; later saves fail. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            if (directory == null || keep) {
                return;
            }
            try (Stream<Path> files = Files.list(directory)) {
                for (Path file : (Iterable<Path>) files::iterator) {
                    Files.deleteIfExists(file);
                }
                Files.deleteIfExists(directory);
            } catch (IOException e) {
                LOG.warn("Could not remove the session's result files in {}: {}", directory, e.toString());
            }
            directory = null;
        }
    }

    /** A name part that is safe in a file name on every system: letters, digits, {@code _ . -}, at most 60. */
    private static String safe(String name) {
        String cleaned = name.replaceAll("[^A-Za-z0-9_.-]", "_");
        cleaned = cleaned.startsWith(".") ? "_" + cleaned.substring(1) : cleaned;
        return cleaned.length() > 60 ? cleaned.substring(0, 60) : cleaned.isEmpty() ? "_" : cleaned;
    }
}
