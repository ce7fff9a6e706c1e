package mcp.search.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The vectors of one embedding model, by the SHA-256 of the text embedded: in memory, and appended to one file when
 * a directory is given, so that a tool whose definition is unchanged is embedded once, not at every start.
 *
 * <p>The file is a run of records (32 bytes of hash, the dimension as an int, the floats; little-endian), written
 * a batch per append. A torn or foreign tail is ignored when read. It is only a cache: past {@link #MAX_FILE_BYTES}
 * it is started afresh when opened, rather than compacted, since nothing says which of its vectors are still
 * wanted; a definition that comes back is embedded again. Thread-safe.
 */
public final class VectorStore {

    /** About 40,000 vectors of 384 floats. */
    static final long MAX_FILE_BYTES = 64L << 20;
    private static final int MAX_DIMENSION = 8192;

    private final Map<String, float[]> vectors = new ConcurrentHashMap<>();
    private final Optional<Path> file;
    /** Counts additions, so that a ranker knows when its matrix is behind. */
    private final AtomicLong version = new AtomicLong();
    /** Set once an append failed: the store goes on in memory. */
    private volatile String fileProblem;

    /**
     * @param file the file to read and append to; empty to keep vectors in memory only
     */
    public VectorStore(Optional<Path> file) {
        this.file = file;
        file.ifPresent(this::read);
    }

    /**
     * @param text a text as it is embedded
     * @return its key: the SHA-256 of its UTF-8 bytes, in hex
     */
    public static String key(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this Java runtime", e);
        }
    }

    /**
     * @param key a text's key
     * @return its unit vector, or null when it was not embedded yet
     */
    public float[] get(String key) {
        return vectors.get(key);
    }

    /** @return the number of additions so far */
    public long version() {
        return version.get();
    }

    /** @return how many vectors the store holds */
    public int size() {
        return vectors.size();
    }

    /** @return why the file is not written, if it is not */
    public Optional<String> fileProblem() {
        return Optional.ofNullable(fileProblem);
    }

    /**
     * Adds vectors (normalised to unit length here) and appends them to the file.
     *
     * @param keys the texts' keys
     * @param raw their vectors, as the model gave them
     */
    public void addAll(List<String> keys, List<float[]> raw) {
        if (keys.size() != raw.size()) {
            throw new IllegalArgumentException("the model returned " + raw.size() + " vectors for " + keys.size()
                    + " texts");
        }
        int bytes = 0;
        float[][] unit = new float[raw.size()][];
        for (int i = 0; i < unit.length; i++) {
            unit[i] = normalise(raw.get(i));
            bytes += 32 + 4 + 4 * unit[i].length;
        }
        for (int i = 0; i < unit.length; i++) {
            vectors.put(keys.get(i), unit[i]);
        }
        version.incrementAndGet();
        if (file.isPresent() && fileProblem == null) {
            ByteBuffer buffer = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < unit.length; i++) {
                buffer.put(HexFormat.of().parseHex(keys.get(i))).putInt(unit[i].length);
                for (float f : unit[i]) {
                    buffer.putFloat(f);
                }
            }
            buffer.flip();
            synchronized (this) {
                try (FileChannel out = FileChannel.open(file.get(), StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                    while (buffer.hasRemaining()) {
                        out.write(buffer);
                    }
                } catch (IOException e) {
                    fileProblem = file.get() + ": " + e;
                }
            }
        }
    }

    /**
     * @param vector a vector
     * @return it scaled to unit length (a copy; zero stays zero)
     */
    public static float[] normalise(float[] vector) {
        double sum = 0;
        for (float f : vector) {
            sum += (double) f * f;
        }
        float[] unit = vector.clone();
        if (sum > 0) {
            float scale = (float) (1 / Math.sqrt(sum));
            for (int i = 0; i < unit.length; i++) {
                unit[i] *= scale;
            }
        }
        return unit;
    }

    private void read(Path path) {
        try {
            Files.createDirectories(path.getParent());
            if (!Files.exists(path)) {
                return;
            }
            if (Files.size(path) > MAX_FILE_BYTES) {
                Files.delete(path);
                return;
            }
            ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(path)).order(ByteOrder.LITTLE_ENDIAN);
            byte[] hash = new byte[32];
            while (in.remaining() >= 36) {
                in.get(hash);
                int dimension = in.getInt();
                if (dimension <= 0 || dimension > MAX_DIMENSION || in.remaining() < 4 * dimension) {
                    break;
                }
                float[] vector = new float[dimension];
                for (int d = 0; d < dimension; d++) {
                    vector[d] = in.getFloat();
                }
                vectors.put(HexFormat.of().formatHex(hash), vector);
            }
            version.incrementAndGet();
        } catch (IOException e) {
            fileProblem = path + ": " + e;
        }
    }
}
