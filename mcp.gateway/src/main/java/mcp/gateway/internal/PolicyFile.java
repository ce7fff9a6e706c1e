package mcp.gateway.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import mcp.api.McpException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A policy file, read at start and again whenever it changes. A file that cannot be read or is invalid at start fails
 * the start; later, a bad version keeps the policy in force, and the problem (naming the file and where in it) is
 * logged and reported, until a good version replaces it.
 *
 * <p>The file is polled (its modification time, size and, when those are unchanged, nothing more) every
 * {@code interval} on a daemon thread: one file, a cheap check, and it works on every file system, an editor's
 * rename-over or a Kubernetes ConfigMap's symlink swap included, where a directory watch misses changes. A file
 * modified less than {@link #RACY} before it was looked at is compared by content too until it is older: a second
 * write of the same size within the file system's timestamp tick leaves time and size as they were (as git treats
 * its "racily clean" files).
 *
 * <p>State: the policy in force in one volatile field, replaced whole; the poller alone writes it.
 */
public final class PolicyFile implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PolicyFile.class);
    /** The most bytes of a policy file. */
    private static final int MAX_BYTES = 4 << 20;
    /** How recent a modification time may hide a later write: above any file system's timestamp tick. */
    static final Duration RACY = Duration.ofSeconds(2);

    private final Path file;
    private final Consumer<String> problems;
    private final Runnable changed;
    private final ScheduledExecutorService poller;
    private volatile Policy policy;
    private Object stamp;
    /** Whether the file's time was within {@link #RACY} of the moment {@link #stamp} was taken. */
    private boolean racy;
    private byte[] content;

    /**
     * Reads the file and starts watching it.
     *
     * @param file the file
     * @param interval how often to look at it
     * @param problems told of a bad version (the policy in force stays)
     * @param changed told after a new policy took force
     * @throws McpException when the file cannot be read or is not a valid policy
     */
    public PolicyFile(Path file, Duration interval, Consumer<String> problems, Runnable changed) {
        this.file = Objects.requireNonNull(file, "file");
        this.problems = Objects.requireNonNull(problems, "problems");
        this.changed = Objects.requireNonNull(changed, "changed");
        this.stamp = stamp();
        this.content = read();
        this.policy = Policy.parse(new String(content, StandardCharsets.UTF_8), file.toString());
        this.poller = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "mcp-gateway-policy-" + file.getFileName());
            thread.setDaemon(true);
            return thread;
        });
        long millis = Math.max(10, interval.toMillis());
        poller.scheduleWithFixedDelay(this::poll, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** @return the policy in force */
    public Policy policy() {
        return policy;
    }

    /** @return the file */
    public Path file() {
        return file;
    }

    /** Looks at the file now (the poller does it every interval). */
    public synchronized void poll() {
        try {
            Object now = stamp();
            if (now.equals(stamp) && !racy) {
                return;
            }
            stamp = now;
            byte[] bytes = read();
            if (Arrays.equals(bytes, content)) {
                return;
            }
            content = bytes;
            Policy next = Policy.parse(new String(bytes, StandardCharsets.UTF_8), file.toString());
            policy = next;
            LOG.info("Gateway: policy {} reloaded ({} rules)", file, next.rules().size());
            changed.run();
        } catch (McpException e) {
            String message = e.getMessage() + "; the previous policy stays in force";
            LOG.warn("Gateway: {}", message);
            problems.accept(message);
        } catch (RuntimeException e) {
            LOG.warn("Gateway: policy {} could not be reloaded: {}", file, e.toString());
            problems.accept("Policy " + file + " could not be reloaded: " + e + "; the previous policy stays in force");
        }
    }

    /** The file's time, size and identity, and whether the time is recent enough to hide a write ({@link #racy}). */
    private Object stamp() {
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            long modified = attributes.lastModifiedTime().toMillis();
            racy = System.currentTimeMillis() - modified < RACY.toMillis();
            return modified + ":" + attributes.size() + ":" + attributes.fileKey();
        } catch (NoSuchFileException e) {
            racy = false;
            return "missing";
        } catch (IOException e) {
            racy = false;
            return "unreadable: " + e;
        }
    }

    private byte[] read() {
        try {
            if (Files.size(file) > MAX_BYTES) {
                throw new McpException("Policy " + file + " is larger than " + MAX_BYTES + " bytes");
            }
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new McpException("Policy " + file + " does not exist");
        } catch (IOException e) {
            throw new McpException("Policy " + file + " could not be read: " + e.getMessage());
        }
    }

    @Override
    public void close() {
        poller.shutdownNow();
    }
}
