package mcp.config.internal.sources;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.ConsultedFile;
import mcp.api.ServerConfig.AuthRef;
import mcp.api.spi.CapabilitySource.Problem;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One server entry of a config file, with typed reads of its fields.
 *
 * <p>A read of a field with the wrong type records a problem (with the field's pointer and what
 * was expected) and returns empty; the source then skips the whole server, since starting it with
 * a field silently dropped could do something the user did not ask for. A {@code null} value counts
 * as absent: tools that write their config back often write {@code null} for "not set". Every
 * string value goes through the source's {@link Variables}.
 */
final class ServerEntry {

    private final ConfigFile file;
    private final String name;
    private final String pointer;
    private final ObjectNode node;
    private final Variables variables;
    private final Map<String, String> environment;
    /** Every problem met, in field order; {@link #failed} tells whether one of them skips the server. */
    private final List<Problem> problems;
    /** The files besides its own that the entry's reads consulted (an {@code envFile}), shared with nested entries. */
    private final List<ConsultedFile> consulted;
    /** The entry a {@link #nested} one belongs to, which fails with it; {@code null} for a server entry. */
    private final ServerEntry parent;
    /** The object that holds the servers' key (the file's top level for most formats), or {@code null}. */
    private final ObjectNode holder;
    /** Its JSON pointer ({@code ""} for the top level). */
    private final String holderPointer;
    private boolean failed;

    ServerEntry(ConfigFile file, String name, String pointer, ObjectNode node, Variables variables,
            Map<String, String> environment) {
        this(file, name, pointer, node, variables, environment, null, "");
    }

    /**
     * @param holder the object that holds the servers' key, for settings a format keeps beside its servers (VS
     *     Code's {@code sandbox}); {@code null} when there is none
     * @param holderPointer its JSON pointer
     */
    ServerEntry(ConfigFile file, String name, String pointer, ObjectNode node, Variables variables,
            Map<String, String> environment, ObjectNode holder, String holderPointer) {
        this.file = file;
        this.name = name;
        this.pointer = pointer;
        this.node = node;
        this.variables = variables;
        this.environment = environment;
        this.problems = new ArrayList<>();
        this.consulted = new ArrayList<>();
        this.parent = null;
        this.holder = holder;
        this.holderPointer = holderPointer;
    }

    private ServerEntry(ServerEntry parent, String pointer, ObjectNode node) {
        this.file = parent.file;
        this.name = parent.name;
        this.pointer = pointer;
        this.node = node;
        this.variables = parent.variables;
        this.environment = parent.environment;
        this.problems = parent.problems;
        this.consulted = parent.consulted;
        this.parent = parent;
        this.holder = null;
        this.holderPointer = "";
    }

    /** @return the environment of the discovery, for a tool that resolves variables itself (Codex) */
    Map<String, String> environment() {
        return environment;
    }

    /** @return the file the entry is in */
    ConfigFile file() {
        return file;
    }

    /** @return the server's name as written */
    String name() {
        return name;
    }

    /** @return the entry's JSON pointer, e.g. {@code /mcpServers/git} */
    String pointer() {
        return pointer;
    }

    /** @return the translation in use, to ask it about inputs */
    Variables variables() {
        return variables;
    }

    /** @return whether a field of the entry had the wrong type, so the server must be skipped */
    boolean failed() {
        return failed;
    }

    /** @return the problems met, whether or not they skip the server */
    List<Problem> problems() {
        return problems;
    }

    /** Notes a file besides the entry's own that one of its reads consulted, found or not. */
    void consulted(ConsultedFile file) {
        consulted.add(file);
    }

    /** @return the files besides its own that the entry's reads consulted */
    List<ConsultedFile> consultedFiles() {
        return consulted;
    }

    /** @return whether the field is present and not {@code null} */
    boolean has(String key) {
        JsonNode value = node.get(key);
        return value != null && !value.isNull();
    }

    /** Records a problem about a field that is ignored; the server still loads. */
    void note(String key, String message) {
        problems.add(new Problem(file.path(), Pointers.child(pointer, key), name, message));
    }

    /** Records a problem that skips the server. */
    void error(String location, String message) {
        problems.add(new Problem(file.path(), location, name, message));
        fail();
    }

    /**
     * Leaves the server out on purpose and without a problem: the entry names nothing mcp-host could
     * start (a Zed extension's server, a goose builtin that runs inside goose).
     */
    void skip() {
        fail();
    }

    /**
     * Skips the server when one of the values read so far needs a reference that the tool resolves and
     * mcp-host cannot ({@link Variables#firstUnsupported}: a file's content); call it after the reads.
     */
    void refuseUnsupportedReferences() {
        variables.firstUnsupported().ifPresent(reference -> error(reference.pointer(), "server \"" + name
                + "\" uses \"" + reference.variable() + "\", a file's content, which mcp-host does not read;"
                + " set the value in the file or an environment variable"));
    }

    private void fail() {
        failed = true;
        if (parent != null) {
            parent.fail();
        }
    }

    /**
     * @return the field's value when present and not {@code null}, for a field whose type decides how
     *     to read it (Zed's {@code command}, a string or an object; opencode's {@code oauth}, an object
     *     or {@code false})
     */
    Optional<JsonNode> node(String key) {
        return Optional.ofNullable(value(key));
    }

    /**
     * @return the entry of a field that holds an object (an {@code oauth} block, Zed's older
     *     {@code command: {path, args, env}}): reads of it report here, at its own pointers, and a
     *     wrong type in it skips this server; empty when absent, or when not an object (a problem)
     */
    Optional<ServerEntry> nested(String key) {
        JsonNode value = value(key);
        if (value == null) {
            return Optional.empty();
        }
        if (!value.isObject()) {
            return wrong(key, file.format().anObject(), value);
        }
        return Optional.of(new ServerEntry(this, Pointers.child(pointer, key), (ObjectNode) value));
    }

    /**
     * @return the entry of an object that the file keeps beside its servers, under {@code key} of the object that
     *     holds them (VS Code's file-wide {@code sandbox}): read like {@link #nested}, at its own pointers, and a
     *     wrong type in it skips this server; empty when absent, or when not an object (a problem)
     */
    Optional<ServerEntry> besideServers(String key) {
        JsonNode value = holder == null ? null : holder.get(key);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        String at = Pointers.child(holderPointer, key);
        if (!value.isObject()) {
            error(at, quote(key) + " must be " + file.format().anObject() + ", got " + describe(value));
            return Optional.empty();
        }
        return Optional.of(new ServerEntry(this, at, (ObjectNode) value));
    }

    /** @return the keys the entry has, in file order (a table of tools, keyed by their names) */
    List<String> keys() {
        List<String> keys = new ArrayList<>();
        node.propertyNames().forEach(keys::add);
        return keys;
    }

    Optional<String> string(String key) {
        JsonNode value = value(key);
        if (value == null) {
            return Optional.empty();
        }
        if (!value.isString()) {
            return wrong(key, "a string", value);
        }
        return Optional.of(variables.translate(value.stringValue(), Pointers.child(pointer, key)));
    }

    /**
     * @param key the field
     * @param scalarsAsText whether a number or boolean item counts as its text ({@code "--port", 8080})
     * @return the list, or empty when absent or wrong
     */
    Optional<List<String>> stringList(String key, boolean scalarsAsText) {
        JsonNode value = value(key);
        if (value == null) {
            return Optional.empty();
        }
        String expected = "an array of strings";
        if (!value.isArray()) {
            return wrong(key, expected, value);
        }
        List<String> list = new ArrayList<>();
        String at = Pointers.child(pointer, key);
        for (int i = 0; i < value.size(); i++) {
            JsonNode item = value.get(i);
            String itemPointer = Pointers.child(at, i);
            Optional<String> text = text(item, scalarsAsText, itemPointer);
            if (text.isEmpty()) {
                error(itemPointer, quote(key) + " must be " + expected + ", got " + describe(item) + " at index " + i);
                return Optional.empty();
            }
            list.add(text.get());
        }
        return Optional.of(list);
    }

    /**
     * A map of strings ({@code env}, {@code headers}); a number or boolean value counts as its text,
     * since {@code "PORT": 8080} clearly means the string.
     */
    Optional<Map<String, String>> stringMap(String key) {
        JsonNode value = value(key);
        if (value == null) {
            return Optional.empty();
        }
        String expected = file.format().anObject() + " of strings";
        if (!value.isObject()) {
            return wrong(key, expected, value);
        }
        Map<String, String> map = new LinkedHashMap<>();
        String at = Pointers.child(pointer, key);
        for (Map.Entry<String, JsonNode> e : value.properties()) {
            String itemPointer = Pointers.child(at, e.getKey());
            Optional<String> text = text(e.getValue(), true, itemPointer);
            if (text.isEmpty()) {
                error(itemPointer, quote(key) + " must be " + expected + ", got " + describe(e.getValue())
                        + " for " + quote(e.getKey()));
                return Optional.empty();
            }
            map.put(e.getKey(), text.get());
        }
        return Optional.of(map);
    }

    /** A whole number of milliseconds; a fraction is rounded. */
    Optional<Long> millis(String key) {
        return number(key, "a number of milliseconds", 1);
    }

    /** A number of seconds (Codex), as milliseconds, rounded. */
    Optional<Long> secondsAsMillis(String key) {
        return number(key, "a number of seconds", 1000);
    }

    Optional<Boolean> bool(String key) {
        JsonNode value = value(key);
        if (value == null) {
            return Optional.empty();
        }
        if (!value.isBoolean()) {
            return wrong(key, "true or false", value);
        }
        return Optional.of(value.booleanValue());
    }

    /**
     * {@code {type, credentialId, ...options}}: {@code type} and {@code credentialId} strings, every
     * other key an OAuth client option ({@link AuthRef#options()}) whose value is a string, or a number
     * or boolean that counts as its text ({@code "callbackPort": 8123}).
     */
    Optional<AuthRef> auth(String key) {
        JsonNode value = value(key);
        if (value == null) {
            return Optional.empty();
        }
        String expected = file.format().anObject() + " with string \"type\" and \"credentialId\"";
        if (!value.isObject()) {
            return wrong(key, expected, value);
        }
        String at = Pointers.child(pointer, key);
        String[] parts = new String[2];
        String[] names = {"type", "credentialId"};
        for (int i = 0; i < names.length; i++) {
            JsonNode part = value.get(names[i]);
            if (part == null || part.isNull()) {
                error(at, quote(key) + " must be " + expected + ", got no " + quote(names[i]));
                return Optional.empty();
            }
            if (!part.isString()) {
                error(Pointers.child(at, names[i]), quote(key) + " must be " + expected + ", got "
                        + describe(part) + " for " + quote(names[i]));
                return Optional.empty();
            }
            parts[i] = variables.translate(part.stringValue(), Pointers.child(at, names[i]));
        }
        Map<String, String> options = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : value.properties()) {
            String option = e.getKey();
            if (option.equals(names[0]) || option.equals(names[1]) || e.getValue().isNull()) {
                continue;
            }
            String optionPointer = Pointers.child(at, option);
            Optional<String> text = text(e.getValue(), true, optionPointer);
            if (text.isEmpty()) {
                error(optionPointer, quote(key) + " options must be strings, numbers or booleans, got "
                        + describe(e.getValue()) + " for " + quote(option));
                return Optional.empty();
            }
            options.put(option, text.get());
        }
        return Optional.of(new AuthRef(parts[0], parts[1], options));
    }

    private Optional<Long> number(String key, String expected, long scale) {
        JsonNode value = value(key);
        if (value == null) {
            return Optional.empty();
        }
        if (!value.isNumber()) {
            return wrong(key, expected, value);
        }
        if (value.isIntegralNumber() && value.canConvertToLong()) {
            try {
                return Optional.of(Math.multiplyExact(value.longValue(), scale));
            } catch (ArithmeticException e) {
                return outOfRange(key, expected);
            }
        }
        // A fraction (1.5 seconds), or an integer too big for a long (which is out of range anyway).
        double scaled = value.doubleValue() * scale;
        if (!Double.isFinite(scaled) || Math.abs(scaled) >= 0x1p63) {
            return outOfRange(key, expected);
        }
        return Optional.of(Math.round(scaled));
    }

    private <T> Optional<T> outOfRange(String key, String expected) {
        error(Pointers.child(pointer, key), quote(key) + " must be " + expected + ", got a number out of range");
        return Optional.empty();
    }

    private Optional<String> text(JsonNode item, boolean scalarsAsText, String itemPointer) {
        if (item.isString()) {
            return Optional.of(variables.translate(item.stringValue(), itemPointer));
        }
        if (scalarsAsText && (item.isNumber() || item.isBoolean())) {
            return Optional.of(item.asString());
        }
        return Optional.empty();
    }

    /** @return the field's value as written, absent when missing or {@code null}; no translation */
    JsonNode value(String key) {
        JsonNode value = node.get(key);
        return value == null || value.isNull() ? null : value;
    }

    private <T> Optional<T> wrong(String key, String expected, JsonNode got) {
        error(Pointers.child(pointer, key), quote(key) + " must be " + expected + ", got " + describe(got));
        return Optional.empty();
    }

    private String describe(JsonNode node) {
        return describe(node, file.format());
    }

    static String quote(String key) {
        return "\"" + key + "\"";
    }

    /** @return "a string", "an array", "an object" (or "a table" in TOML), ... for messages */
    static String describe(JsonNode node, Format format) {
        switch (node.getNodeType()) {
            case STRING:
                return "a string";
            case NUMBER:
                return "a number";
            case BOOLEAN:
                return "a boolean";
            case ARRAY:
                return "an array";
            case OBJECT:
                return format.anObject();
            case NULL:
                return "null";
            default:
                // Binary or POJO: TOML dates and times when the mapper is told to parse them.
                return "a " + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT) + " value";
        }
    }
}
