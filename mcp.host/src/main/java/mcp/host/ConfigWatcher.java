package mcp.host;

import static java.nio.file.StandardWatchEventKinds.ENTRY_CREATE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_DELETE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_MODIFY;
import static java.nio.file.StandardWatchEventKinds.OVERFLOW;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import mcp.api.ConsultedFile;
import mcp.api.McpException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches a host's config files and reloads what changed ({@link McpHost#reloadChanged()}) when they do; made by
 * {@link McpHost#watchConfigs}.
 *
 * <p><b>What it watches.</b> The files the host's latest load or reload consulted
 * ({@link mcp.config.DiscoveryResult#consultedFiles()}): those it read, those it looked for and did not find (a
 * project's {@code .mcp.json} created later starts its servers), and the entries of the directories it listed (a
 * Gemini CLI extension installed). Each is watched through its directory, with the file system's
 * {@link WatchService}; for a file whose directory does not exist yet, through the nearest directory above it that
 * does, watched again deeper as the directories appear. A file that is a symbolic link is watched at its target too.
 * After each reload (the watcher's or anyone's) the set is taken again from the new discovery. Until the host's
 * first load there is nothing to watch, and the watcher waits for it.
 *
 * <p><b>Debounce.</b> A reload runs once the watched files have been quiet for the debounce (300 ms by default), so
 * a burst of writes (an editor's save, an agent's {@code mcp add} writing a file twice, a script) is one reload; a
 * burst that goes on longer than ten debounces is reloaded then, and again after it. Writes made while a reload
 * runs make one more reload after it.
 *
 * <p><b>A file caught half written.</b> Its servers keep running as they were, reported in
 * {@link ReloadResult#held()} with the file's problem (file and position); once the file is complete, the next
 * reload applies it. A file that is valid but says less (its servers removed) is applied as it reads.
 *
 * <p>One daemon thread, {@code mcp-host-config-watcher}, does the watching and the reloads; the listener is called on
 * it, after each reload, and must not block for long. {@link #close()} (and closing the host) stops it within a
 * bound. On Linux the watch service is inotify; on macOS the JDK polls (changes are seen within about ten seconds).
 */
public final class ConfigWatcher implements AutoCloseable {

    /** How long the files must be quiet before a reload, unless the host is told otherwise. */
    public static final Duration DEFAULT_DEBOUNCE = Duration.ofMillis(300);

    private static final Logger LOG = LoggerFactory.getLogger(ConfigWatcher.class);
    /** How long the thread sleeps between looks when nothing happens: a reload by someone else is seen by then. */
    private static final long IDLE_MILLIS = 1_000;
    /** How long {@link #close()} waits for a reload in flight to finish, then as long again once interrupted. */
    private static final long CLOSE_WAIT_MILLIS = 5_000;

    /** Told of each reload the watcher ran. */
    @FunctionalInterface
    public interface Listener {
        /**
         * Called on the watcher's thread after each reload it ran, changed or not.
         *
         * @param files the watched files the file system said changed since the reload before (empty when the reload
         *     was for a change seen only by comparing the files, or for an overflow of events)
         * @param result what the reload did: which servers were started, stopped, restarted, kept and held
         */
        void onReload(List<Path> files, ReloadResult result);
    }

    private final McpHost host;
    private final long debounceNanos;
    private final long maxDelayNanos;
    private final Listener listener;
    private final WatchService service;
    private final Thread thread;
    private volatile boolean closed;
    private volatile Set<Path> watchedDirectories = Set.of();

    // The rest belongs to the watcher's thread.
    /** The registered directories, by path. */
    private final Map<Path, WatchKey> keys = new LinkedHashMap<>();
    /** The discovery the watched set was taken from; a new one (any reload) is taken up at the next look. */
    private McpHost.Applied watching;
    /** The consulted files (and their links' targets): any event on one counts. */
    private final Set<Path> files = new HashSet<>();
    /** The directories above them: their coming and going counts, and makes the watch go deeper or higher. */
    private final Set<Path> ancestors = new HashSet<>();
    /** The directories whose entries were listed: any event in one counts. */
    private final Set<Path> listed = new HashSet<>();
    /** The files the events named since the last reload. */
    private final Set<Path> changed = new LinkedHashSet<>();
    /** When the first change of the pending burst, and its last, were seen ({@link System#nanoTime()}); -1: none. */
    private long burstStart = -1;
    private long lastChange = -1;

    private ConfigWatcher(McpHost host, Duration debounce, Listener listener) throws IOException {
        this.host = host;
        this.debounceNanos = debounce.toNanos();
        this.maxDelayNanos = debounce.multipliedBy(10).toNanos();
        this.listener = listener;
        this.service = FileSystems.getDefault().newWatchService();
        this.thread = new Thread(this::run, "mcp-host-config-watcher");
        thread.setDaemon(true);
    }

    static ConfigWatcher start(McpHost host, Duration debounce, Listener listener) {
        Objects.requireNonNull(listener, "listener");
        if (debounce.isNegative()) {
            throw new IllegalArgumentException("the debounce must not be negative, got " + debounce);
        }
        ConfigWatcher watcher;
        try {
            watcher = new ConfigWatcher(host, debounce, listener);
        } catch (IOException | UnsupportedOperationException e) {
            throw new McpException("Config files cannot be watched here: " + e.getMessage(), e);
        }
        watcher.thread.start();
        return watcher;
    }

    /** @return whether the watcher's thread is still running */
    public boolean isRunning() {
        return thread.isAlive();
    }

    /**
     * @return the directories watched now: the directory of each consulted file, or the nearest one above it that
     *     exists, and the directories whose entries count
     */
    public Set<Path> watchedDirectories() {
        return watchedDirectories;
    }

    /**
     * Stops watching: the thread ends once a reload in flight has finished (waited for a few seconds, then
     * interrupted). Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        try {
            service.close(); // wakes the thread out of its wait for events
        } catch (IOException e) {
            LOG.debug("Closing the config watch service failed", e);
        }
        if (Thread.currentThread() == thread) {
            return; // the listener closed it: the thread ends when the listener returns
        }
        try {
            thread.join(CLOSE_WAIT_MILLIS);
            if (thread.isAlive()) {
                thread.interrupt();
                thread.join(CLOSE_WAIT_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.warn("The MCP config watcher did not stop within {} ms", 2 * CLOSE_WAIT_MILLIS);
        }
    }

    private void run() {
        LOG.debug("Watching MCP config files");
        try {
            while (!closed) {
                takeUpLatest();
                long now = System.nanoTime();
                long wait = burstStart < 0 ? TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS) : due() - now;
                WatchKey key = wait > 0 ? service.poll(wait, TimeUnit.NANOSECONDS) : service.poll();
                boolean moved = false;
                while (key != null) {
                    moved |= handle(key);
                    key = service.poll();
                }
                if (moved) {
                    watch();
                }
                if (burstStart >= 0 && System.nanoTime() - due() >= 0 && !closed) {
                    reload();
                }
            }
        } catch (ClosedWatchServiceException | InterruptedException e) {
            // Closed: nothing more to watch.
        } catch (RuntimeException | Error e) {
            LOG.warn("The MCP config watcher stopped: {}", e.toString(), e);
        } finally {
            try {
                service.close();
            } catch (IOException e) {
                LOG.debug("Closing the config watch service failed", e);
            }
            watchedDirectories = Set.of();
            LOG.debug("Stopped watching MCP config files");
        }
    }

    /** When the pending burst is reloaded: once quiet for the debounce, or at the latest ten debounces after it began. */
    private long due() {
        long quiet = lastChange + debounceNanos;
        long latest = burstStart + maxDelayNanos;
        return quiet - latest < 0 ? quiet : latest;
    }

    private void changed(Path file) {
        long now = System.nanoTime();
        if (burstStart < 0) {
            burstStart = now;
        }
        lastChange = now;
        if (file != null) {
            changed.add(file);
        }
    }

    /**
     * Takes up the files of the host's latest load or reload, if they are not the ones watched, and looks for a
     * change made before they were watched: a file that does not look as it did right after its discovery read it.
     */
    private void takeUpLatest() {
        McpHost.Applied latest = host.applied();
        if (latest == null || latest == watching) {
            return;
        }
        watching = latest;
        List<ConsultedFile> consulted = latest.discovery().consultedFiles();
        files.clear();
        ancestors.clear();
        listed.clear();
        for (ConsultedFile file : consulted) {
            files.add(file.path());
            if (file.state() == ConsultedFile.State.LISTED) {
                listed.add(file.path());
            }
            target(file.path()).ifPresent(files::add);
        }
        for (Path file : files) {
            for (Path dir = file.getParent(); dir != null; dir = dir.getParent()) {
                ancestors.add(dir);
            }
        }
        watch();
        if (!FileStamp.of(consulted).equals(latest.seen())) {
            LOG.debug("An MCP config file changed while it was not watched yet");
            changed(null);
        }
    }

    /** The target of a file that is a symbolic link, where an edit of it happens. */
    private static Optional<Path> target(Path file) {
        if (!Files.isSymbolicLink(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(file.toRealPath());
        } catch (IOException | SecurityException e) {
            return Optional.empty(); // dangling: its link is watched, and discovery reports it
        }
    }

    /** Registers the directories the files need now and drops the others. */
    private void watch() {
        Set<Path> wanted = new LinkedHashSet<>();
        for (Path file : files) {
            if (listed.contains(file) && Files.isDirectory(file)) {
                wanted.add(file);
            }
            Path parent = file.getParent();
            if (parent != null) {
                wanted.add(parent);
            }
        }
        Set<Path> registered = new LinkedHashSet<>();
        for (Path dir : wanted) {
            register(dir).ifPresent(registered::add);
        }
        keys.entrySet().removeIf(entry -> {
            if (registered.contains(entry.getKey())) {
                return false;
            }
            entry.getValue().cancel();
            return true;
        });
        watchedDirectories = Set.copyOf(keys.keySet());
        LOG.debug("Watching {} MCP config files through {} directories", files.size(), keys.size());
    }

    /** Registers the directory, or the nearest one above it that exists; empty if none can be. */
    private Optional<Path> register(Path dir) {
        for (Path candidate = dir; candidate != null; candidate = candidate.getParent()) {
            WatchKey known = keys.get(candidate);
            if (known != null && known.isValid()) {
                return Optional.of(candidate);
            }
            if (!Files.isDirectory(candidate)) {
                continue;
            }
            try {
                keys.put(candidate, candidate.register(service, ENTRY_CREATE, ENTRY_DELETE, ENTRY_MODIFY));
                return Optional.of(candidate);
            } catch (IOException | SecurityException e) {
                // Gone since the look, or not to be watched: the one above it then.
                LOG.debug("Cannot watch {}: {}", candidate, e.toString());
            }
        }
        return Optional.empty();
    }

    /**
     * Notes the events of one directory that concern a watched file.
     *
     * @return whether a directory on a watched file's path came or went, so that the watch must move
     */
    private boolean handle(WatchKey key) {
        Path dir = (Path) key.watchable();
        boolean moved = false;
        for (WatchEvent<?> event : key.pollEvents()) {
            if (event.kind() == OVERFLOW) {
                // Events were lost: anything may have changed.
                changed(null);
                moved = true;
                continue;
            }
            Path path = dir.resolve((Path) event.context());
            boolean structural = event.kind() == ENTRY_CREATE || event.kind() == ENTRY_DELETE;
            if (files.contains(path) || listed.contains(dir)) {
                changed(files.contains(path) ? path : dir);
                moved |= structural;
            } else if (structural && ancestors.contains(path)) {
                changed(null);
                moved = true;
            }
        }
        if (!key.reset()) {
            keys.remove(dir); // the directory is gone: the one above it is watched instead
            moved = true;
        }
        return moved;
    }

    private void reload() {
        List<Path> seen = List.copyOf(changed);
        changed.clear();
        burstStart = -1;
        lastChange = -1;
        LOG.debug("MCP config files changed ({}); reloading", seen.isEmpty() ? "seen by their stamps" : seen);
        ReloadResult result;
        try {
            result = host.reloadChanged();
        } catch (McpException e) {
            if (!closed) {
                // Another load held the host too long: the change is still to be applied, after another debounce.
                LOG.warn("Reloading MCP servers after a config change failed: {}; trying again", e.getMessage());
                changed.addAll(seen);
                changed(null);
            }
            return;
        }
        if (closed) {
            return; // cut short by the close: nobody is to hear of it
        }
        try {
            listener.onReload(seen, result);
        } catch (RuntimeException e) {
            LOG.warn("A config watcher's listener failed: {}", e.toString(), e);
        }
    }
}
