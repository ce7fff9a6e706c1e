package mcp.consent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import mcp.api.McpJson;
import mcp.api.ToolChanges;
import mcp.api.ToolChanges.Kind;
import mcp.api.ToolChanges.ToolChange;
import mcp.api.ToolDefinition;
import mcp.consent.internal.StateFiles;
import mcp.consent.internal.ToolDiff;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The pinned tool definitions of servers: for each server definition (keyed by the
 * {@linkplain ServerDefinition#hash() hash of its approved definition}, not by its name), the tools it
 * listed when first connected or last approved, each as its canonical JSON and that JSON's SHA-256, and
 * its {@code instructions}. A later listing is {@linkplain #compare compared} with them: a tool whose
 * title, description, input or output schema or annotations changed is withheld from the agent and
 * reported with a readable diff until the user {@linkplain #accept(String) accepts} the listing.
 *
 * <p>Rules of a comparison:
 * <ul>
 *   <li>No pins yet for the key: the listing is pinned as it is, and all of it is exposed (trust on first
 *       use, like the approval of the server itself).</li>
 *   <li>A changed tool, or changed instructions: withheld and reported; the pin stays as it was.</li>
 *   <li>A new tool: exposed, reported and pinned at once; in strict mode withheld until accepted.</li>
 *   <li>A removed tool: reported and unpinned (should it come back, it is a new tool).</li>
 *   <li>A removed tool plus a new one whose definition is the same apart from the name: reported as
 *       renamed, and treated as a new tool (exposed and re-pinned; withheld in strict mode), since what it
 *       does and says did not change.</li>
 *   <li>A pins file that cannot be read: every tool and the instructions are withheld, the problem (file
 *       and position) reported, and the file left as it is until the user accepts the listing.</li>
 * </ul>
 * Whenever something is withheld, the whole listing as seen is kept beside the pins ("observed"), so that
 * {@link #accept(String)} (the {@code mcp-host approve NAME --tools} command) accepts exactly what was
 * reported, without connecting to the server.
 *
 * <p>Files: {@code pins/KEY.json} and {@code pins/KEY.observed.json} under mcp-host's state directory,
 * owner-only, written atomically under a lock file. They hold tool definitions and instructions as the
 * server sent them, the server's name, and no value of its config (no environment variable, header or
 * argument). Thread-safe, and safe between processes.
 */
public final class ToolPins {

    /** The directory under the state directory. */
    public static final String DIRECTORY = "pins";
    private static final int VERSION = 1;
    private static final Pattern KEY = Pattern.compile("[0-9a-f]{64}");

    private final Path directory;
    private final Clock clock;

    private ToolPins(Path directory, Clock clock) {
        this.directory = directory.toAbsolutePath().normalize();
        this.clock = clock;
    }

    /**
     * @param directory the directory of the pins files
     * @return pins kept there
     */
    public static ToolPins at(Path directory) {
        return new ToolPins(Objects.requireNonNull(directory, "directory"), Clock.systemUTC());
    }

    /**
     * @param environment the environment ({@code XDG_STATE_HOME})
     * @param home the user's home directory
     * @return the user's pins: {@code pins/} in mcp-host's state directory
     */
    public static ToolPins forUser(Map<String, String> environment, Path home) {
        return at(StateFiles.directory(environment, home).resolve(DIRECTORY));
    }

    /** @return the directory of the pins files */
    public Path directory() {
        return directory;
    }

    /**
     * @param key a pin key
     * @return the file of its pins
     * @throws IllegalArgumentException when the key is not a SHA-256 in lower-case hex
     */
    public Path file(String key) {
        return directory.resolve(checked(key) + ".json");
    }

    private Path observedFile(String key) {
        return directory.resolve(checked(key) + ".observed.json");
    }

    private static String checked(String key) {
        Objects.requireNonNull(key, "key");
        if (!KEY.matcher(key).matches()) {
            throw new IllegalArgumentException("A pin key is a SHA-256 in lower-case hex, got \"" + key + "\"");
        }
        return key;
    }

    /**
     * @param tool a tool as its server listed it
     * @return the SHA-256 of its canonical JSON, the value pinned
     */
    public static String hash(ToolDefinition tool) {
        return ServerDefinition.sha256(McpJson.mapper().writeValueAsString(ToolDiff.canonical(tool)));
    }

    /**
     * What a comparison decided.
     *
     * @param exposed the tools the agent may get, in the listing's order, as the server sent them
     * @param changes what differs from the pins, with what is withheld
     * @param instructionsExposed whether the agent may get the server's instructions (they are the pinned ones)
     */
    public record Verdict(List<ToolDefinition> exposed, ToolChanges changes, boolean instructionsExposed) {
        /** Copies. */
        public Verdict {
            exposed = List.copyOf(exposed);
            Objects.requireNonNull(changes, "changes");
        }
    }

    /** One pinned tool. */
    private record Pin(String hash, ObjectNode definition) {
    }

    /** A pins or observed file as read: tools by name in listing order, the instructions (null: none). */
    private record Listing(String server, Map<String, Pin> tools, String instructions, JsonNode report) {
    }

    /**
     * Compares a listing with the pins of its key, updates them as the class comment says, and decides what
     * the agent gets. Never throws for a file problem: an unreadable pins file withholds everything (and is
     * reported in {@link ToolChanges#problem()}); a pins file that cannot be written is logged by the caller
     * through the verdict being exposed as if pinned.
     *
     * @param key the hash of the server's approved definition
     * @param server the server's name, for reports (the pins are not keyed by it)
     * @param instructions the server's {@code instructions}, if any
     * @param tools the listing, as the server sent it
     * @param strictNewTools whether new (and renamed) tools are withheld until accepted
     * @return what the agent gets and what is reported
     */
    public Verdict compare(String key, String server, Optional<String> instructions, List<ToolDefinition> tools,
            boolean strictNewTools) {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(instructions, "instructions");
        Path file = file(key);
        Map<String, Pin> listed = pinsOf(tools);
        String text = instructions.orElse(null);
        try {
            return StateFiles.locked(file, () -> {
                Optional<byte[]> bytes = StateFiles.read(file);
                if (bytes.isEmpty()) {
                    StateFiles.write(file, encode(server, listed, text, null));
                    Files.deleteIfExists(observedFile(key));
                    return new Verdict(tools, ToolChanges.none(server, key), true);
                }
                Listing pinned;
                try {
                    pinned = parse(file, bytes.get());
                } catch (IOException e) {
                    return unverified(key, server, listed, text, e.getMessage());
                }
                return compare(key, server, pinned, listed, text, tools, strictNewTools);
            });
        } catch (IOException | RuntimeException e) {
            // Fail closed: whatever went wrong, nothing unverified reaches the agent.
            return unverified(key, server, listed, text, file + ": " + e);
        }
    }

    private Verdict unverified(String key, String server, Map<String, Pin> listed, String text, String problem) {
        List<ToolChange> changes = listed.keySet().stream().map(name -> new ToolChange(Kind.UNVERIFIED, name,
                Optional.empty(), List.of(), List.of("cannot be compared with its pin: " + problem), true)).toList();
        ToolChanges report = new ToolChanges(server, key, changes, Optional.empty(), Optional.of(problem));
        try {
            StateFiles.write(observedFile(key), encode(server, listed, text, report));
        } catch (IOException e) {
            // Nothing to accept later, then; the problem is reported all the same.
        }
        return new Verdict(List.of(), report, false);
    }

    private Verdict compare(String key, String server, Listing pinned, Map<String, Pin> listed, String text,
            List<ToolDefinition> tools, boolean strict) throws IOException {
        Map<String, Pin> next = new LinkedHashMap<>();
        List<ToolChange> changes = new ArrayList<>();
        List<String> added = new ArrayList<>();
        for (Map.Entry<String, Pin> tool : listed.entrySet()) {
            Pin pin = pinned.tools().get(tool.getKey());
            if (pin == null) {
                added.add(tool.getKey());
            } else if (pin.hash().equals(tool.getValue().hash())) {
                next.put(tool.getKey(), pin);
            } else {
                next.put(tool.getKey(), pin);
                changes.add(new ToolChange(Kind.CHANGED, tool.getKey(), Optional.empty(),
                        ToolDiff.fields(pin.definition(), tool.getValue().definition()),
                        ToolDiff.diff(pin.definition(), tool.getValue().definition()), true));
            }
        }
        List<String> removed = new ArrayList<>(pinned.tools().keySet());
        removed.removeAll(listed.keySet());
        for (String name : added) {
            Pin pin = listed.get(name);
            Optional<String> previous = removed.stream().filter(old -> ToolDiff.withoutName(
                    pinned.tools().get(old).definition()).equals(ToolDiff.withoutName(pin.definition()))).findFirst();
            previous.ifPresent(removed::remove);
            if (!strict) {
                next.put(name, pin);
            }
            changes.add(previous.isPresent()
                    ? new ToolChange(Kind.RENAMED, name, previous, List.of("name"),
                            List.of("name: \"" + ToolDiff.escape(previous.get()) + "\" -> \"" + ToolDiff.escape(name)
                                    + "\""), strict)
                    : new ToolChange(Kind.ADDED, name, Optional.empty(), List.of(), List.of(), strict));
        }
        for (String name : removed) {
            changes.add(new ToolChange(Kind.REMOVED, name, Optional.empty(), List.of(), List.of(), false));
        }
        Optional<ToolChanges.InstructionsChange> instructions = Objects.equals(pinned.instructions(), text)
                ? Optional.empty()
                : Optional.of(new ToolChanges.InstructionsChange(ToolDiff.textDiff(pinned.instructions(), text)));
        ToolChanges report = new ToolChanges(server, key, changes, instructions, Optional.empty());
        if (!next.keySet().equals(pinned.tools().keySet()) || !server.equals(pinned.server())) {
            StateFiles.write(file(key), encode(server, next, pinned.instructions(), null));
        }
        if (report.hasWithheld()) {
            StateFiles.write(observedFile(key), encode(server, listed, text, report));
        } else {
            Files.deleteIfExists(observedFile(key));
        }
        List<ToolDefinition> exposed = tools.stream().filter(tool -> {
            Pin pin = next.get(tool.name());
            return pin != null && pin.hash().equals(listed.get(tool.name()).hash());
        }).toList();
        return new Verdict(exposed, report, instructions.isEmpty());
    }

    /**
     * Pins a listing as it is (the user accepted it), replacing the key's pins and anything observed.
     *
     * @param key the hash of the server's approved definition
     * @param server the server's name
     * @param instructions its instructions, if any
     * @param tools its listing
     * @throws IOException when the pins cannot be written
     */
    public void pin(String key, String server, Optional<String> instructions, List<ToolDefinition> tools)
            throws IOException {
        Path file = file(key);
        byte[] bytes = encode(server, pinsOf(tools), instructions.orElse(null), null);
        StateFiles.locked(file, () -> {
            StateFiles.write(file, bytes);
            Files.deleteIfExists(observedFile(key));
            return null;
        });
    }

    /**
     * @param key the hash of a server's approved definition
     * @return what its last listing withheld, when something is waiting to be accepted (a report with only a
     *     {@linkplain ToolChanges#problem() problem} when the observed listing cannot be read)
     */
    public Optional<ToolChanges> observed(String key) {
        Path observed = observedFile(key);
        try {
            Optional<byte[]> bytes = StateFiles.read(observed);
            if (bytes.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(report(parse(observed, bytes.get()), key));
        } catch (IOException e) {
            return Optional.of(new ToolChanges("", key, List.of(), Optional.empty(), Optional.of(e.getMessage())));
        }
    }

    /**
     * Accepts what the last listing of a server withheld: its whole listing as observed becomes the pins
     * (a pins file that could not be read is replaced). This is what {@code mcp-host approve NAME --tools}
     * does; it needs no connection. A running manager picks the new pins up at its next listing
     * ({@code McpManager.acceptToolChanges} does both at once).
     *
     * @param key the hash of the server's approved definition
     * @return what was accepted, as it was reported; empty when nothing was waiting
     * @throws IOException when the files cannot be read or written (nothing is changed then)
     */
    public Optional<ToolChanges> accept(String key) throws IOException {
        Path file = file(key);
        Path observed = observedFile(key);
        return StateFiles.locked(file, () -> {
            Optional<byte[]> bytes = StateFiles.read(observed);
            if (bytes.isEmpty()) {
                return Optional.empty();
            }
            Listing listing = parse(observed, bytes.get());
            StateFiles.write(file, encode(listing.server(), listing.tools(), listing.instructions(), null));
            Files.delete(observed);
            return Optional.of(report(listing, key));
        });
    }

    /**
     * The cached tools that may be offered before their server is connected: only those whose definition
     * is exactly the pinned one. Never throws: without readable pins, none.
     *
     * @param key the hash of the server's approved definition
     * @param cached tools from the tool cache
     * @return those of them that match their pins
     */
    public List<ToolDefinition> verified(String key, List<ToolDefinition> cached) {
        Path file = file(key);
        try {
            Optional<byte[]> bytes = StateFiles.read(file);
            if (bytes.isEmpty()) {
                return List.of();
            }
            Map<String, Pin> pinned = parse(file, bytes.get()).tools();
            return cached.stream().filter(tool -> pinned.containsKey(tool.name())
                    && pinned.get(tool.name()).hash().equals(hash(tool))).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /**
     * Forgets the pins of a key (its next listing is pinned as on first use).
     *
     * @param key the hash of a server's approved definition
     * @return whether there were pins or an observed listing
     * @throws IOException when a file cannot be removed
     */
    public boolean forget(String key) throws IOException {
        Path file = file(key);
        return StateFiles.locked(file, () -> Files.deleteIfExists(file) | Files.deleteIfExists(observedFile(key)));
    }

    // ------------------------------------------------------------------ files

    private static Map<String, Pin> pinsOf(List<ToolDefinition> tools) {
        Map<String, Pin> pins = new LinkedHashMap<>();
        for (ToolDefinition tool : tools) {
            ObjectNode canonical = ToolDiff.canonical(tool);
            pins.putIfAbsent(tool.name(), new Pin(
                    ServerDefinition.sha256(McpJson.mapper().writeValueAsString(canonical)), canonical));
        }
        return pins;
    }

    private byte[] encode(String server, Map<String, Pin> tools, String instructions, ToolChanges report) {
        ObjectNode root = McpJson.object();
        root.put("version", VERSION);
        root.put("server", server);
        root.put("at", clock.instant().toString());
        if (instructions != null) {
            root.putObject("instructions").put("sha256", ServerDefinition.sha256(instructions)).put("text", instructions);
        }
        ArrayNode array = root.putArray("tools");
        tools.forEach((name, pin) -> array.addObject().put("name", name).put("sha256", pin.hash())
                .set("definition", pin.definition()));
        if (report != null) {
            root.set("report", encode(report));
        }
        return McpJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(root).getBytes(StandardCharsets.UTF_8);
    }

    private static ObjectNode encode(ToolChanges report) {
        ObjectNode json = McpJson.object();
        ArrayNode tools = json.putArray("tools");
        for (ToolChange change : report.tools()) {
            ObjectNode item = tools.addObject();
            item.put("kind", change.kind().name());
            item.put("tool", change.tool());
            change.previousName().ifPresent(name -> item.put("previousName", name));
            change.fields().forEach(item.putArray("fields")::add);
            change.diff().forEach(item.putArray("diff")::add);
            item.put("withheld", change.withheld());
        }
        report.instructions().ifPresent(change -> change.diff().forEach(json.putArray("instructionsDiff")::add));
        report.problem().ifPresent(problem -> json.put("problem", problem));
        return json;
    }

    private static ToolChanges report(Listing listing, String key) throws IOException {
        JsonNode json = listing.report();
        if (json == null || !json.isObject()) {
            return ToolChanges.none(listing.server(), key);
        }
        try {
            List<ToolChange> changes = new ArrayList<>();
            for (JsonNode item : json.path("tools")) {
                changes.add(new ToolChange(Kind.valueOf(item.get("kind").asString()), item.get("tool").asString(),
                        Optional.ofNullable(item.get("previousName")).map(JsonNode::asString), strings(item.path("fields")),
                        strings(item.path("diff")), item.path("withheld").asBoolean(false)));
            }
            Optional<ToolChanges.InstructionsChange> instructions = json.has("instructionsDiff")
                    ? Optional.of(new ToolChanges.InstructionsChange(strings(json.get("instructionsDiff"))))
                    : Optional.empty();
            return new ToolChanges(listing.server(), key, changes, instructions,
                    Optional.ofNullable(json.get("problem")).map(JsonNode::asString));
        } catch (RuntimeException e) {
            throw new IOException("its report is not valid");
        }
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(item -> values.add(item.asString()));
        return values;
    }

    private static Listing parse(Path file, byte[] bytes) throws IOException {
        JsonNode root;
        try {
            root = McpJson.mapper().readTree(bytes);
        } catch (JacksonException e) {
            TokenStreamLocation at = e.getLocation();
            String position = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            throw new IOException(file + ": not valid JSON" + position);
        }
        if (root == null || !root.isObject() || root.path("version").asInt(0) != VERSION
                || !root.path("tools").isArray() || !root.path("server").isString()) {
            throw new IOException(file + ": not a pins file of version " + VERSION);
        }
        String instructions = null;
        if (root.has("instructions")) {
            JsonNode text = root.get("instructions").get("text");
            if (text == null || !text.isString()) {
                throw new IOException(file + ": /instructions has no text");
            }
            instructions = text.asString();
        }
        Map<String, Pin> tools = new LinkedHashMap<>();
        Map<String, Integer> seen = new HashMap<>();
        int index = 0;
        for (JsonNode item : root.get("tools")) {
            String where = "/tools/" + index++;
            JsonNode name = item.get("name");
            JsonNode sha = item.get("sha256");
            JsonNode definition = item.get("definition");
            if (name == null || !name.isString() || sha == null || !sha.isString() || definition == null
                    || !definition.isObject() || seen.put(name.asString(), index) != null) {
                throw new IOException(file + ": " + where + " is not a valid pin");
            }
            tools.put(name.asString(), new Pin(sha.asString(), (ObjectNode) ToolDiff.sorted(definition)));
        }
        return new Listing(root.get("server").asString(), tools, instructions, root.get("report"));
    }
}
