package mcp.auth.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.UserDirectories;
import mcp.api.internal.OwnerOnlyFiles;
import mcp.api.StoredCredential;
import mcp.api.spi.AuthStorage;
import mcp.auth.AuthProviders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.UnexpectedEndOfInputException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code file} auth storage: one JSON file per credential in one directory.
 *
 * <ul>
 *   <li>Directory: {@code $MCP_HOST_CREDENTIALS_DIR} when set, else {@code credentials} in mcp-host's
 *       config directory ({@link UserDirectories#config()}): {@code $XDG_CONFIG_HOME/mcp-host/credentials}
 *       (an absolute {@code XDG_CONFIG_HOME} only, as the XDG spec says), else
 *       {@code ~/.config/mcp-host/credentials}. The environment and home are a host's when it placed the
 *       store with {@link #forUser}, else the JVM's ({@code $HOME}, else {@code user.home}). It is created on
 *       the first save, owner-only ({@code rwx------}) on POSIX file systems.</li>
 *   <li>File name: the credential id, with every character but {@code a-z}, {@code 0-9}, {@code -} and
 *       {@code .} (not first) escaped: {@code A} is {@code _a}, {@code _} is {@code __}, anything else
 *       is {@code %xx} per UTF-8 byte; then {@code .json}. So any id is a safe name ({@code ../x},
 *       {@code a/b}, non-ASCII), no two ids share a file even on a case-insensitive file system, and
 *       the ids can be listed back from the names. An id whose name would be longer than
 *       {@value #MAX_FILE_NAME} characters is refused.</li>
 *   <li>Content: an object with {@code access_token}, {@code token_type}, {@code refresh_token},
 *       {@code expires_at} and {@code obtained_at} (ISO-8601 instants), {@code scopes} (an array of
 *       strings) and {@code attributes} (an object of strings). Absent optional parts are left out.</li>
 *   <li>Save: written to an owner-only ({@code rw-------}) temp file in the same directory, forced to
 *       disk, then renamed over the old file, so a reader sees the old credential or the new one,
 *       never a mix, and a failed save leaves the old one in place.</li>
 *   <li>Load: a file that group or others may read or write is refused, with its permissions and the
 *       {@code chmod 600} that fixes it, before anything is read from it. A corrupt file is refused
 *       with the problem and its line and column, never with any of its content.</li>
 *   <li>Lock ({@link #lock}): an OS file lock ({@link FileChannel#tryLock()}) on an empty owner-only file
 *       beside the credential, the credential's file name with {@code .lock} for {@code .json}, together with
 *       a lock of this JVM for the same file (the OS lock belongs to the whole JVM, so it cannot tell its
 *       threads apart). Not the credential file itself: a save renames a new file over it, and a lock on the
 *       old one would not exclude a process that opens the new one. The lock file stays when the credential
 *       is deleted: removing it would let two processes lock two different files of the same name. The OS
 *       releases the lock of a process that ends, however it ends, so no lock outlives its holder.</li>
 * </ul>
 *
 * <p>Tokens and secrets are never logged or put in a message; log lines and messages name the
 * credential id and the file only. Thread-safe: nothing is kept in memory but the locks, every save
 * has its own temp file, and the rename that publishes it is atomic (so concurrent saves of one id
 * leave one of them whole, and so do several processes). Public with a public no-argument constructor
 * for {@link java.util.ServiceLoader}.
 */
public final class FileAuthStorage implements AuthStorage {

    /** The environment variable that moves the directory. */
    public static final String DIRECTORY_VARIABLE = "MCP_HOST_CREDENTIALS_DIR";

    /** The longest file name used, {@code .json} included: below every common file system's 255. */
    static final int MAX_FILE_NAME = 240;

    /** A credential file is small; anything bigger is not one of ours, and is not read whole into memory. */
    static final long MAX_FILE_BYTES = 1024 * 1024;

    private static final Logger LOG = LoggerFactory.getLogger(FileAuthStorage.class);

    private static final String SUFFIX = ".json";

    private static final String LOCK_SUFFIX = ".lock";

    /**
     * How long a waiter first pauses before it tries a lock file that another process holds again, and the
     * longest pause: the pause doubles from the first to the longest, since a renewal takes milliseconds on a
     * local server and a second on a slow one, and a waiter should neither spin nor lag behind.
     */
    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final long LONGEST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /**
     * The lock of each lock file in this JVM, by its path, for every instance of this store (two stores of one
     * directory must exclude each other too). An entry is never removed, since a thread may be waiting on it;
     * there is one per credential used.
     */
    private static final ConcurrentHashMap<Path, LockSlot> LOCKS = new ConcurrentHashMap<>();

    private static final Set<PosixFilePermission> OPEN_TO_OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);

    private static final String ACCESS_TOKEN = "access_token";
    private static final String TOKEN_TYPE = "token_type";
    private static final String REFRESH_TOKEN = "refresh_token";
    private static final String EXPIRES_AT = "expires_at";
    private static final String SCOPES = "scopes";
    private static final String OBTAINED_AT = "obtained_at";
    private static final String ATTRIBUTES = "attributes";

    private final Path directory;
    /** Whether the directory is the default one (not given), which {@link #forUser} moves to a host's home. */
    private final boolean defaultPlace;

    /**
     * Creates the store in the default directory of the JVM's environment and home ({@code $HOME}, else
     * {@code user.home}; see the class comment). A host moves it under its own home with {@link #forUser}.
     */
    public FileAuthStorage() {
        this(defaultDirectory(System.getenv()), true);
    }

    /**
     * @param directory the directory of the credential files; created on the first save when missing
     */
    public FileAuthStorage(Path directory) {
        this(directory, false);
    }

    private FileAuthStorage(Path directory, boolean defaultPlace) {
        this.directory = Objects.requireNonNull(directory, "directory").toAbsolutePath().normalize();
        this.defaultPlace = defaultPlace;
    }

    /**
     * @param environment the environment ({@value #DIRECTORY_VARIABLE}, {@code XDG_CONFIG_HOME})
     * @param home the user's home directory
     * @return the store in the default directory of this environment and home
     */
    public static FileAuthStorage forDefaultPlace(Map<String, String> environment, Path home) {
        return new FileAuthStorage(defaultDirectory(environment, home), true);
    }

    /**
     * @param environment the environment: {@code HOME} as {@link UserDirectories#home(Map)} reads it, then as
     *     {@link #defaultDirectory(Map, Path)}
     * @return the default directory
     */
    static Path defaultDirectory(Map<String, String> environment) {
        return defaultDirectory(environment, UserDirectories.home(environment));
    }

    /**
     * @param environment the environment: {@value #DIRECTORY_VARIABLE}, {@code XDG_CONFIG_HOME}
     * @param home the user's home directory (it wins over {@code HOME} in the environment)
     * @return the default directory: {@code $MCP_HOST_CREDENTIALS_DIR}, else {@code credentials} in
     *     mcp-host's config directory ({@link UserDirectories#config()})
     */
    static Path defaultDirectory(Map<String, String> environment, Path home) {
        String explicit = environment.get(DIRECTORY_VARIABLE);
        if (explicit != null && !explicit.isBlank()) {
            return Path.of(explicit).toAbsolutePath().normalize();
        }
        return UserDirectories.of(environment, home).config().resolve("credentials");
    }

    /**
     * @return the store in the default directory of this environment and home when this one is in the default
     *     directory (made by ServiceLoader or {@link AuthProviders#defaultAuthStorage()}); this store when its
     *     directory was given
     */
    @Override
    public AuthStorage forUser(Map<String, String> environment, Path home) {
        Objects.requireNonNull(environment, "environment");
        Objects.requireNonNull(home, "home");
        return defaultPlace ? forDefaultPlace(environment, home) : this;
    }

    @Override
    public String id() {
        return AuthProviders.FILE_STORAGE_ID;
    }

    /** @return the directory of the credential files */
    public Path directory() {
        return directory;
    }

    /**
     * @param credentialId a credential id
     * @return the file that holds (or would hold) its credential
     * @throws McpException if the id is empty or too long for a file name
     */
    public Path file(String credentialId) {
        return directory.resolve(fileName(credentialId));
    }

    @Override
    public Optional<StoredCredential> load(String credentialId) {
        Path file = file(credentialId);
        byte[] bytes;
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            if (!attributes.isRegularFile()) {
                throw new McpException("Credential file " + file + " of " + quoted(credentialId)
                        + " is not a regular file; remove it and log in again");
            }
            checkOwnerOnly(file);
            if (attributes.size() > MAX_FILE_BYTES) {
                throw corrupt(file, "it is larger than " + MAX_FILE_BYTES + " bytes");
            }
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            LOG.debug("No stored credential {} in {}", quoted(credentialId), directory);
            return Optional.empty();
        } catch (IOException e) {
            throw new McpException("Could not read credential file " + file + " of " + quoted(credentialId) + ": "
                    + reason(e), e);
        }
        StoredCredential credential = decode(file, bytes);
        LOG.debug("Loaded stored credential {} from {}", quoted(credentialId), file);
        return Optional.of(credential);
    }

    @Override
    public void save(String credentialId, StoredCredential credential) {
        Objects.requireNonNull(credential, "credential");
        Path file = file(credentialId);
        byte[] bytes = encode(credential);
        try {
            OwnerOnlyFiles.replace(file, bytes, ".credential-");
            LOG.debug("Saved credential {} to {}", quoted(credentialId), file);
        } catch (IOException e) {
            throw new McpException("Could not save credential " + quoted(credentialId) + " to " + file + ": "
                    + reason(e) + "; the previous credential is unchanged", e);
        }
    }

    @Override
    public boolean delete(String credentialId) {
        Path file = file(credentialId);
        try {
            boolean deleted = Files.deleteIfExists(file);
            if (deleted) {
                LOG.debug("Deleted credential {}: {}", quoted(credentialId), file);
            }
            return deleted;
        } catch (IOException e) {
            throw new McpException("Could not delete credential file " + file + " of " + quoted(credentialId) + ": "
                    + reason(e), e);
        }
    }

    @Override
    public List<String> credentialIds() {
        List<String> ids = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*" + SUFFIX)) {
            for (Path file : files) {
                // Temp files, and files of other tools, have names no id encodes to: they are skipped.
                credentialId(file.getFileName().toString()).ifPresent(ids::add);
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            return List.of();
        } catch (IOException e) {
            throw new McpException("Could not list the credential directory " + directory + ": " + reason(e), e);
        }
        ids.sort(null);
        return List.copyOf(ids);
    }

    /**
     * @param credentialId a credential id
     * @return the file that {@link #lock} locks for it
     * @throws McpException if the id is empty or too long for a file name
     */
    public Path lockFile(String credentialId) {
        String name = fileName(credentialId);
        return directory.resolve(name.substring(0, name.length() - SUFFIX.length()) + LOCK_SUFFIX);
    }

    /**
     * Locks one credential against the threads of this JVM and against other processes (see the class
     * comment). The directory and the lock file are made, owner-only, when missing. Where the lock file
     * cannot be made or locked (a read-only directory, a file system without locks), the lock holds in this
     * JVM only, as the store did before it had locks, and a warning says so: renewals still work, and only
     * processes that renew at the same moment may race.
     *
     * @throws McpException when the lock is not obtained within {@code timeout}, naming the lock file
     */
    @Override
    public CredentialLock lock(String credentialId, Duration timeout) {
        if (Objects.requireNonNull(timeout, "timeout").isNegative()) {
            throw new IllegalArgumentException("the timeout is negative: " + timeout);
        }
        Path lockFile = lockFile(credentialId);
        long deadline = System.nanoTime() + timeout.toNanos();
        LockSlot slot = LOCKS.computeIfAbsent(lockFile, file -> new LockSlot());
        try {
            if (!slot.threads.tryLock(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw busy(credentialId, lockFile, timeout, "another thread of this process");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new McpException("Interrupted while waiting for the lock of credential " + quoted(credentialId), e);
        }
        boolean held = false;
        try {
            if (slot.threads.getHoldCount() == 1) {
                slot.channel = lockAcrossProcesses(credentialId, lockFile, deadline, timeout);
            }
            held = true;
            return new HeldLock(slot, credentialId);
        } finally {
            if (!held) {
                slot.threads.unlock();
            }
        }
    }

    /** @return the channel whose OS lock is held (closing it releases the lock), or null where there is none */
    private FileChannel lockAcrossProcesses(String credentialId, Path lockFile, long deadline, Duration timeout) {
        FileChannel channel = null;
        try {
            OwnerOnlyFiles.createDirectory(directory);
            channel = FileChannel.open(lockFile, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS), OwnerOnlyFiles.ownerOnly("rw-------"));
            long pause = FIRST_PAUSE_NANOS;
            while (true) {
                FileLock lock;
                try {
                    lock = channel.tryLock();
                } catch (OverlappingFileLockException e) {
                    // Another copy of this class in the JVM (another class loader) holds it: wait as for a process.
                    lock = null;
                }
                if (lock != null) {
                    FileChannel locked = channel;
                    channel = null;
                    return locked;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw busy(credentialId, lockFile, timeout, "another process");
                }
                if (pause == FIRST_PAUSE_NANOS) {
                    LOG.debug("Credential {}: another process holds its lock {}; waiting", quoted(credentialId), lockFile);
                }
                TimeUnit.NANOSECONDS.sleep(Math.min(pause, left));
                pause = Math.min(pause * 2, LONGEST_PAUSE_NANOS);
            }
        } catch (IOException e) {
            LOG.warn("Credential {}: the lock file {} cannot be used ({}); renewals are kept apart in this process only",
                    quoted(credentialId), lockFile, reason(e));
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new McpException("Interrupted while waiting for the lock of credential " + quoted(credentialId), e);
        } finally {
            closeQuietly(channel);
        }
    }

    private static McpException busy(String credentialId, Path lockFile, Duration timeout, String who) {
        return new McpException("The credential " + quoted(credentialId) + " is being renewed by " + who
                + ", which did not release its lock " + lockFile + " within " + seconds(timeout) + ". Try again; if "
                + "this goes on, look for a hung mcp-host process (a process that ends releases its lock, so removing "
                + "the file does not help)");
    }

    private static String seconds(Duration timeout) {
        long millis = timeout.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                LOG.debug("Closing a credential lock file failed: {}", reason(e));
            }
        }
    }

    /**
     * The lock of one lock file in this JVM. {@code threads} decides which thread holds it; {@code channel}, the
     * open lock file whose OS lock that thread's outermost hold took, is touched only by the holding thread.
     */
    private static final class LockSlot {
        final ReentrantLock threads = new ReentrantLock();
        FileChannel channel;
    }

    private static final class HeldLock implements CredentialLock {
        private final LockSlot slot;
        private final String credentialId;
        private boolean released;

        HeldLock(LockSlot slot, String credentialId) {
            this.slot = slot;
            this.credentialId = credentialId;
        }

        @Override
        public void close() {
            if (released) {
                return;
            }
            if (!slot.threads.isHeldByCurrentThread()) {
                throw new IllegalStateException("the lock of credential " + quoted(credentialId)
                        + " is released by another thread than the one that took it");
            }
            released = true;
            try {
                if (slot.threads.getHoldCount() == 1) {
                    // Closing the channel releases its OS lock.
                    closeQuietly(slot.channel);
                    slot.channel = null;
                }
            } finally {
                slot.threads.unlock();
            }
        }
    }

    @Override
    public String toString() {
        return "FileAuthStorage[" + directory + "]";
    }

    // ---- file names ------------------------------------------------------------------------------

    /**
     * @param credentialId a credential id
     * @return its file name (see the class comment)
     * @throws McpException if the id is empty or the name would be too long
     */
    static String fileName(String credentialId) {
        Objects.requireNonNull(credentialId, "credentialId");
        if (credentialId.isEmpty()) {
            throw new McpException("A credential id is empty; give the server's auth a \"credentialId\"");
        }
        ByteBuffer bytes;
        try {
            // Strictly: a lone surrogate would otherwise become '?' and share the file of another id.
            bytes = StandardCharsets.UTF_8.newEncoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).encode(CharBuffer.wrap(credentialId));
        } catch (CharacterCodingException e) {
            throw new McpException("Credential id " + quoted(abbreviate(credentialId)) + " is not valid Unicode "
                    + "(it has a lone surrogate); choose another \"credentialId\"");
        }
        StringBuilder name = new StringBuilder(credentialId.length() + SUFFIX.length());
        for (int i = 0; bytes.hasRemaining(); i++) {
            int b = bytes.get() & 0xff;
            if ((b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || b == '-' || (b == '.' && i > 0)) {
                name.append((char) b);
            } else if (b >= 'A' && b <= 'Z') {
                name.append('_').append((char) (b - 'A' + 'a'));
            } else if (b == '_') {
                name.append("__");
            } else {
                name.append('%').append(Character.forDigit(b >> 4, 16)).append(Character.forDigit(b & 0xf, 16));
            }
        }
        name.append(SUFFIX);
        if (name.length() > MAX_FILE_NAME) {
            throw new McpException("Credential id " + quoted(abbreviate(credentialId)) + " is too long: its file name "
                    + "would have " + name.length() + " characters, at most " + MAX_FILE_NAME
                    + " are allowed. Choose a shorter \"credentialId\".");
        }
        return name.toString();
    }

    /** @return the credential id a file name encodes, or empty when it is not such a name */
    static Optional<String> credentialId(String fileName) {
        if (!fileName.endsWith(SUFFIX) || fileName.length() == SUFFIX.length()) {
            return Optional.empty();
        }
        String encoded = fileName.substring(0, fileName.length() - SUFFIX.length());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '_' && i + 1 < encoded.length()) {
                char next = encoded.charAt(++i);
                if (next == '_') {
                    bytes.write('_');
                } else if (next >= 'a' && next <= 'z') {
                    bytes.write(next - 'a' + 'A');
                } else {
                    return Optional.empty();
                }
            } else if (c == '%' && i + 2 < encoded.length()) {
                int high = Character.digit(encoded.charAt(i + 1), 16);
                int low = Character.digit(encoded.charAt(i + 2), 16);
                if (high < 0 || low < 0) {
                    return Optional.empty();
                }
                bytes.write(high << 4 | low);
                i += 2;
            } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.') {
                bytes.write(c);
            } else {
                return Optional.empty();
            }
        }
        String id;
        try {
            id = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
        // Only the one name this store writes for the id counts (not "%41" for "A", nor upper-case hex).
        try {
            return fileName(id).equals(fileName) ? Optional.of(id) : Optional.empty();
        } catch (McpException e) {
            return Optional.empty();
        }
    }

    // ---- permissions -----------------------------------------------------------------------------

    private boolean isPosix() {
        return directory.getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    private void checkOwnerOnly(Path file) throws IOException {
        if (!isPosix()) {
            return;
        }
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
        if (permissions.stream().anyMatch(OPEN_TO_OTHERS::contains)) {
            // Nothing is read from a file others could have read or written: it may be leaked or planted.
            throw new McpException("Credential file " + file + " has permissions "
                    + PosixFilePermissions.toString(permissions) + ", so other users may read or change it; it is "
                    + "not used until only its owner can. Fix: chmod 600 " + file);
        }
    }

    // ---- content ---------------------------------------------------------------------------------

    private static byte[] encode(StoredCredential credential) {
        ObjectNode root = McpJson.object();
        root.put(ACCESS_TOKEN, credential.accessToken());
        root.put(TOKEN_TYPE, credential.tokenType());
        credential.refreshToken().ifPresent(token -> root.put(REFRESH_TOKEN, token));
        credential.expiresAt().ifPresent(expiry -> root.put(EXPIRES_AT, expiry.toString()));
        ArrayNode scopes = root.putArray(SCOPES);
        credential.scopes().forEach(scopes::add);
        root.put(OBTAINED_AT, credential.obtainedAt().toString());
        ObjectNode attributes = root.putObject(ATTRIBUTES);
        // Sorted, so that a file does not change when only the map's order would.
        new TreeMap<>(credential.attributes()).forEach(attributes::put);
        return (McpJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static StoredCredential decode(Path file, byte[] bytes) {
        JsonNode root;
        try {
            root = McpJson.mapper().readTree(bytes);
        } catch (JacksonException e) {
            // Jackson's own message quotes the input, which holds tokens: only the kind and the place.
            throw corrupt(file, problem(e));
        }
        if (root == null || root.isMissingNode()) {
            throw corrupt(file, "it is empty");
        }
        if (!root.isObject()) {
            throw corrupt(file, "it is not a JSON object");
        }
        String accessToken = requiredString(file, root, ACCESS_TOKEN);
        if (accessToken.isEmpty()) {
            throw corrupt(file, "\"" + ACCESS_TOKEN + "\" is empty");
        }
        String tokenType = optionalString(file, root, TOKEN_TYPE).orElse("Bearer");
        Optional<String> refreshToken = optionalString(file, root, REFRESH_TOKEN).filter(token -> !token.isEmpty());
        Optional<Instant> expiresAt = optionalString(file, root, EXPIRES_AT)
                .map(text -> instant(file, EXPIRES_AT, text));
        Instant obtainedAt = instant(file, OBTAINED_AT, requiredString(file, root, OBTAINED_AT));
        List<String> scopes = new ArrayList<>();
        JsonNode scopeArray = present(root, SCOPES);
        if (scopeArray != null) {
            if (!scopeArray.isArray()) {
                throw corrupt(file, "\"" + SCOPES + "\" is not an array of strings");
            }
            for (JsonNode scope : scopeArray) {
                if (!scope.isString()) {
                    throw corrupt(file, "\"" + SCOPES + "\" is not an array of strings");
                }
                scopes.add(scope.stringValue());
            }
        }
        Map<String, String> attributes = new LinkedHashMap<>();
        JsonNode attributeObject = present(root, ATTRIBUTES);
        if (attributeObject != null) {
            if (!attributeObject.isObject()) {
                throw corrupt(file, "\"" + ATTRIBUTES + "\" is not an object of strings");
            }
            for (Map.Entry<String, JsonNode> entry : attributeObject.properties()) {
                if (!entry.getValue().isString()) {
                    throw corrupt(file, "\"" + ATTRIBUTES + "\" is not an object of strings");
                }
                attributes.put(entry.getKey(), entry.getValue().stringValue());
            }
        }
        return new StoredCredential(accessToken, tokenType, refreshToken, expiresAt, scopes, obtainedAt, attributes);
    }

    /** @return what is wrong, with the line and column, and nothing of the input */
    private static String problem(JacksonException e) {
        String kind;
        if (e instanceof UnexpectedEndOfInputException) {
            kind = "it is not valid JSON: it ends early";
        } else if (e instanceof StreamConstraintsException) {
            kind = "it is not valid JSON: it exceeds a limit of the JSON parser";
        } else {
            kind = "it is not valid JSON";
        }
        TokenStreamLocation location = e.getLocation();
        if (location == null || location.getLineNr() <= 0) {
            return kind;
        }
        return kind + " (line " + location.getLineNr()
                + (location.getColumnNr() > 0 ? ", column " + location.getColumnNr() : "") + ")";
    }

    private static JsonNode present(JsonNode root, String field) {
        JsonNode value = root.get(field);
        return value == null || value.isNull() ? null : value;
    }

    private static String requiredString(Path file, JsonNode root, String field) {
        return optionalString(file, root, field)
                .orElseThrow(() -> corrupt(file, "\"" + field + "\" is missing"));
    }

    private static Optional<String> optionalString(Path file, JsonNode root, String field) {
        JsonNode value = present(root, field);
        if (value == null) {
            return Optional.empty();
        }
        if (!value.isString()) {
            throw corrupt(file, "\"" + field + "\" is not a string");
        }
        return Optional.of(value.stringValue());
    }

    private static Instant instant(Path file, String field, String text) {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw corrupt(file, "\"" + field + "\" is not an ISO-8601 instant such as 2025-01-31T12:00:00Z");
        }
    }

    private static McpException corrupt(Path file, String problem) {
        return new McpException("Credential file " + file + " is corrupt: " + problem
                + ". Delete it and log in to the server again.");
    }

    // ---- messages --------------------------------------------------------------------------------

    /**
     * A credential id for a message or log line: in quotes, with control characters escaped, because
     * ids come from config files and must not be able to forge log lines.
     */
    static String quoted(String id) {
        StringBuilder out = new StringBuilder(id.length() + 2).append('"');
        id.codePoints().forEach(c -> {
            if (c == '"' || c == '\\') {
                out.append('\\').appendCodePoint(c);
            } else if (Character.isISOControl(c)) {
                out.append(String.format("\\u%04x", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.append('"').toString();
    }

    private static String abbreviate(String id) {
        return id.length() <= 40 ? id : id.substring(0, 40) + "...";
    }

    private static String reason(IOException e) {
        // FileSystemException messages already name the file(s) and the OS reason.
        String type = e.getClass().getSimpleName();
        return e.getMessage() == null ? type : type + ": " + e.getMessage();
    }
}
