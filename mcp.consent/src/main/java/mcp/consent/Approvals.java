package mcp.consent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import mcp.api.ApprovalState;
import mcp.api.McpJson;
import mcp.consent.internal.StateFiles;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * mcp-host's approvals of project-level servers: for each config file and server name, whether the user
 * approved or denied it, and for an approval the hash of the {@link ServerDefinition} approved (and its
 * masked form, to show what changed). A server is approved only in the definition approved: a changed
 * command, argument, variable, URL or header makes it pending again, and a renamed server is a new one.
 *
 * <p>The file is {@code $XDG_STATE_HOME/mcp-host/approvals.json} (else under {@code ~/.local/state}),
 * owner-only and written atomically under a lock; it holds no secret value, only fingerprints (an HMAC
 * keyed with a random salt kept in the same file) that tell two values apart. A file that cannot be read
 * approves nothing, and is never overwritten: an approval then fails with the file and position named.
 * Thread-safe.
 */
public final class Approvals {

    /** The file name under the state directory. */
    public static final String FILE_NAME = "approvals.json";
    private static final int VERSION = 1;

    private final Path file;
    private final Clock clock;
    /**
     * The salt of a file not written yet: one per store, so that the fingerprints shown before the first
     * decision are the ones the file then holds.
     */
    private final byte[] freshSalt = new byte[16];

    private Approvals(Path file, Clock clock) {
        this.file = file.toAbsolutePath().normalize();
        this.clock = clock;
        new SecureRandom().nextBytes(freshSalt);
    }

    /**
     * @param file the approvals file
     * @return approvals kept in that file
     */
    public static Approvals at(Path file) {
        return new Approvals(Objects.requireNonNull(file, "file"), Clock.systemUTC());
    }

    /**
     * @param environment the environment ({@code XDG_STATE_HOME})
     * @param home the user's home directory
     * @return the user's approvals, in mcp-host's state directory
     */
    public static Approvals forUser(Map<String, String> environment, Path home) {
        return at(StateFiles.directory(environment, home).resolve(FILE_NAME));
    }

    /** @return the approvals file */
    public Path file() {
        return file;
    }

    /** A decision that is stored. */
    public enum Decision {
        /** Approved in one definition. */
        APPROVED,
        /** Denied, whatever the definition. */
        DENIED
    }

    /**
     * One stored decision.
     *
     * @param configFile the config file that defines the server
     * @param server the server's name in it
     * @param decision approved or denied
     * @param definitionHash the hash of the definition decided on
     * @param definition that definition, masked
     * @param at when
     */
    public record Entry(Path configFile, String server, Decision decision, String definitionHash, JsonNode definition,
            Instant at) {
        /** Validates. */
        public Entry {
            Objects.requireNonNull(configFile, "configFile");
            Objects.requireNonNull(server, "server");
            Objects.requireNonNull(decision, "decision");
            Objects.requireNonNull(definitionHash, "definitionHash");
            Objects.requireNonNull(definition, "definition");
            Objects.requireNonNull(at, "at");
        }

        boolean matches(Path otherFile, String otherServer) {
            return configFile.equals(key(otherFile)) && server.equals(otherServer);
        }
    }

    /**
     * The approvals as read once; a discovery works on one snapshot.
     *
     * @param entries the stored decisions
     * @param problem why the file could not be read (then there are no entries): its path, position and error
     * @param salt the key of the fingerprints
     */
    public record Snapshot(List<Entry> entries, Optional<String> problem, byte[] salt) {
        /** Copies. */
        public Snapshot {
            entries = List.copyOf(entries);
            Objects.requireNonNull(problem, "problem");
            salt = salt.clone();
        }

        /**
         * @param configFile the file that defines the server
         * @param server its name
         * @return the stored decision about it, if any
         */
        public Optional<Entry> find(Path configFile, String server) {
            return entries.stream().filter(e -> e.matches(configFile, server)).findFirst();
        }

        /** @return the fingerprint function of this file's salt */
        public UnaryOperator<String> fingerprint() {
            return value -> Approvals.fingerprint(salt, value);
        }

        /**
         * @param configFile the file that defines the server
         * @param server its name
         * @param definition its definition as the file writes it now
         * @return its state: approved in this definition, changed, denied or pending, with the reason
         */
        public ApprovalState stateOf(Path configFile, String server, ServerDefinition definition) {
            JsonNode masked = definition.masked(fingerprint());
            List<String> lines = ServerDefinition.describe(masked);
            if (problem.isPresent()) {
                return new ApprovalState(ApprovalState.Kind.PENDING, definition.hash(), lines, List.of(),
                        "not approved: mcp-host's approvals file could not be read (" + problem.get() + ")");
            }
            Optional<Entry> entry = find(configFile, server);
            if (entry.isEmpty()) {
                return new ApprovalState(ApprovalState.Kind.PENDING, definition.hash(), lines, List.of(),
                        "project server not approved in mcp-host yet: run `mcp-host approve " + server + "`");
            }
            Entry e = entry.get();
            String date = e.at().toString().substring(0, 10);
            if (e.decision() == Decision.DENIED) {
                return new ApprovalState(ApprovalState.Kind.DENIED, definition.hash(), lines, List.of(),
                        "denied in mcp-host on " + date + ": run `mcp-host approve " + server + "` to allow it");
            }
            if (e.definitionHash().equals(definition.hash())) {
                return new ApprovalState(ApprovalState.Kind.APPROVED, definition.hash(), lines, List.of(),
                        "approved in mcp-host on " + date);
            }
            List<String> changes = ServerDefinition.changes(e.definition(), masked);
            if (changes.isEmpty()) {
                changes = List.of("a value changed (hidden)");
            }
            return new ApprovalState(ApprovalState.Kind.CHANGED, definition.hash(), lines, changes,
                    "its definition changed since it was approved on " + date + ": check it and run `mcp-host approve "
                    + server + "`");
        }
    }

    /** @return the approvals as they are now; never throws (a broken file is a snapshot with a problem) */
    public Snapshot snapshot() {
        try {
            return parse(StateFiles.read(file));
        } catch (IOException e) {
            return new Snapshot(List.of(), Optional.of(file + ": " + e), new byte[0]);
        }
    }

    /**
     * Approves a server in this definition (replacing any earlier decision about it).
     *
     * @param configFile the file that defines it
     * @param server its name
     * @param definition its definition as the file writes it now
     * @throws IOException when the approvals file cannot be read or written (nothing is changed then)
     */
    public void approve(Path configFile, String server, ServerDefinition definition) throws IOException {
        store(configFile, server, Decision.APPROVED, definition);
    }

    /**
     * Denies a server (replacing any earlier decision about it): it is not started, nor asked about, until
     * approved.
     *
     * @param configFile the file that defines it
     * @param server its name
     * @param definition its definition as the file writes it now
     * @throws IOException when the approvals file cannot be read or written
     */
    public void deny(Path configFile, String server, ServerDefinition definition) throws IOException {
        store(configFile, server, Decision.DENIED, definition);
    }

    /**
     * Forgets the decision about a server: it is pending again.
     *
     * @param configFile the file that defines it
     * @param server its name
     * @return whether there was a decision
     * @throws IOException when the approvals file cannot be read or written
     */
    public boolean revoke(Path configFile, String server) throws IOException {
        return StateFiles.locked(file, () -> {
            Snapshot current = readForUpdate();
            List<Entry> kept = current.entries().stream().filter(e -> !e.matches(configFile, server)).toList();
            if (kept.size() == current.entries().size()) {
                return false;
            }
            StateFiles.write(file, encode(kept, current.salt()));
            return true;
        });
    }

    private void store(Path configFile, String server, Decision decision, ServerDefinition definition)
            throws IOException {
        StateFiles.locked(file, () -> {
            Snapshot current = readForUpdate();
            List<Entry> entries = new ArrayList<>();
            current.entries().stream().filter(e -> !e.matches(configFile, server)).forEach(entries::add);
            entries.add(new Entry(key(configFile), server, decision, definition.hash(),
                    definition.masked(current.fingerprint()), clock.instant()));
            StateFiles.write(file, encode(entries, current.salt()));
            return null;
        });
    }

    /** @return the file's content; a broken file fails the update instead of being replaced */
    private Snapshot readForUpdate() throws IOException {
        Snapshot current = parse(StateFiles.read(file));
        if (current.problem().isPresent()) {
            throw new IOException("mcp-host's approvals file could not be read (" + current.problem().get()
                    + "); it was left as it is: fix or remove it");
        }
        return current;
    }

    private Snapshot parse(Optional<byte[]> bytes) {
        if (bytes.isEmpty()) {
            return new Snapshot(List.of(), Optional.empty(), freshSalt);
        }
        JsonNode root;
        try {
            root = McpJson.mapper().readTree(bytes.get());
        } catch (JacksonException e) {
            TokenStreamLocation at = e.getLocation();
            String position = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            return broken("not valid JSON" + position);
        }
        if (root == null || !root.isObject() || root.path("version").asInt(0) != VERSION
                || !root.path("salt").isString() || !root.path("approvals").isArray()) {
            return broken("not an approvals file of version " + VERSION);
        }
        byte[] salt;
        try {
            salt = HexFormat.of().parseHex(root.get("salt").asString());
        } catch (IllegalArgumentException e) {
            return broken("/salt is not hex");
        }
        List<Entry> entries = new ArrayList<>();
        int index = 0;
        for (JsonNode item : root.get("approvals")) {
            String where = "/approvals/" + index++;
            try {
                entries.add(new Entry(Path.of(item.get("file").asString()), item.get("server").asString(),
                        Decision.valueOf(item.get("decision").asString().toUpperCase(java.util.Locale.ROOT)),
                        item.get("sha256").asString(), item.get("definition"), Instant.parse(item.get("at").asString())));
            } catch (RuntimeException e) {
                return broken(where + " is not a valid entry");
            }
        }
        return new Snapshot(entries, Optional.empty(), salt);
    }

    private Snapshot broken(String what) {
        return new Snapshot(List.of(), Optional.of(file + ": " + what), new byte[0]);
    }

    private static byte[] encode(List<Entry> entries, byte[] salt) {
        ObjectNode root = McpJson.object();
        root.put("version", VERSION);
        root.put("salt", HexFormat.of().formatHex(salt));
        ArrayNode array = root.putArray("approvals");
        for (Entry e : entries) {
            ObjectNode item = array.addObject();
            item.put("file", e.configFile().toString());
            item.put("server", e.server());
            item.put("decision", e.decision().name().toLowerCase(java.util.Locale.ROOT));
            item.put("sha256", e.definitionHash());
            item.set("definition", e.definition());
            item.put("at", e.at().toString());
        }
        return McpJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(root).getBytes(StandardCharsets.UTF_8);
    }

    /** The key of a config file: its real path when it exists, so that a symlinked checkout is one project. */
    static Path key(Path configFile) {
        Path absolute = configFile.toAbsolutePath().normalize();
        try {
            return absolute.toRealPath();
        } catch (IOException e) {
            return absolute;
        }
    }

    static String fingerprint(byte[] salt, String value) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(salt.length == 0 ? new byte[1] : salt, "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(value.getBytes(StandardCharsets.UTF_8)), 0, 4);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
