package mcp.consent;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import mcp.api.McpJson;
import mcp.api.ServerSpec;
import mcp.api.internal.Secrets;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A server's definition as its file writes it, before any {@code ${VAR}} expansion or secret resolution:
 * what an approval is bound to. Its fields are the ones that decide what runs and where it connects:
 * {@code type}, {@code command}, {@code args}, {@code env}, {@code cwd}, {@code url}, {@code headers},
 * {@code headersHelper} (a command that runs before the connect, as the server's own command does),
 * {@code inheritEnv} (the host variables a stdio server inherits, when not all) and {@code sandbox} (the rules of
 * the sandbox it asks for: a looser sandbox is a new definition to approve). The
 * {@linkplain #hash() hash} is the SHA-256 of its canonical JSON (keys sorted, empty fields left out), so
 * two files that write the same definition in another order or format hash alike.
 *
 * <p>{@link #masked(UnaryOperator)} gives the form that may be shown and stored: env and header values
 * that are not plain variable references, values of secret-looking arguments ({@code --api-key=...},
 * {@code --token X}), and the credentials and secret-looking query parameters of URLs (the rule of
 * {@code mcp.api.internal.Secrets}, the same as in logs, status and errors) are replaced by a fingerprint,
 * so that {@link #changes(JsonNode, JsonNode)} can still say that a value changed without anyone seeing it.
 */
public final class ServerDefinition {

    private static final String HASH_PREFIX = "mcp-host server definition 1\n";

    private final ObjectNode canonical;
    private final String hash;

    private ServerDefinition(ObjectNode canonical) {
        this.canonical = canonical;
        this.hash = sha256(HASH_PREFIX + McpJson.mapper().writeValueAsString(canonical));
    }

    /**
     * @param asWritten the entry as its capability source read it, before expansion and filters
     * @return its definition
     */
    public static ServerDefinition of(ServerSpec asWritten) {
        Objects.requireNonNull(asWritten, "asWritten");
        // Keys in alphabetical order, so that the JSON text is canonical.
        ObjectNode json = McpJson.object();
        if (!asWritten.args().isEmpty()) {
            ArrayNode args = json.putArray("args");
            asWritten.args().forEach(args::add);
        }
        asWritten.command().ifPresent(command -> json.put("command", command));
        asWritten.cwd().ifPresent(cwd -> json.put("cwd", cwd));
        putSorted(json, "env", asWritten.env());
        putSorted(json, "headers", asWritten.headers());
        asWritten.headersHelper().ifPresent(helper -> json.put("headersHelper", helper.command()));
        asWritten.inheritedEnv().ifPresent(names -> {
            ArrayNode array = json.putArray("inheritEnv");
            names.stream().sorted().forEach(array::add);
        });
        asWritten.sandbox().ifPresent(sandbox -> {
            ObjectNode rules = json.putObject("sandbox");
            ObjectNode files = McpJson.object();
            putList(files, "allowWrite", sandbox.filesystem().allowWrite());
            putList(files, "denyRead", sandbox.filesystem().denyRead());
            putList(files, "denyWrite", sandbox.filesystem().denyWrite());
            if (!files.isEmpty()) {
                rules.set("filesystem", files);
            }
            ObjectNode network = McpJson.object();
            putList(network, "allowedDomains", sandbox.network().allowedDomains());
            putList(network, "deniedDomains", sandbox.network().deniedDomains());
            if (!network.isEmpty()) {
                rules.set("network", network);
            }
        });
        asWritten.type().ifPresent(type -> json.put("type", type));
        asWritten.url().ifPresent(url -> json.put("url", url));
        return new ServerDefinition(json);
    }

    /** A list in its order (the order of rules is what the file says), when not empty. */
    private static void putList(ObjectNode json, String field, List<String> values) {
        if (!values.isEmpty()) {
            ArrayNode array = json.putArray(field);
            values.forEach(array::add);
        }
    }

    private static void putSorted(ObjectNode json, String field, Map<String, String> values) {
        if (!values.isEmpty()) {
            ObjectNode object = json.putObject(field);
            new TreeMap<>(values).forEach(object::put);
        }
    }

    /** @return the SHA-256 of the canonical definition, in lower-case hex */
    public String hash() {
        return hash;
    }

    /**
     * @param fingerprint turns a secret value into a short fingerprint that tells values apart without
     *     revealing them (see {@link Approvals})
     * @return the definition with every secret-looking value replaced by {@code <hidden FINGERPRINT>}
     */
    public ObjectNode masked(UnaryOperator<String> fingerprint) {
        ObjectNode masked = canonical.deepCopy();
        for (String field : List.of("env", "headers")) {
            if (masked.get(field) instanceof ObjectNode values) {
                for (String name : new ArrayList<>(values.propertyNames())) {
                    String value = values.get(name).asString();
                    if (!Secrets.isReference(value)) {
                        values.put(name, hidden(fingerprint, value));
                    }
                }
            }
        }
        // One rule for arguments and URLs everywhere (logs, status, errors): mcp.api.internal.Secrets.
        UnaryOperator<String> hide = value -> hidden(fingerprint, value);
        if (masked.get("args") instanceof ArrayNode args) {
            List<String> shown = Secrets.maskArgs(args.valueStream().map(JsonNode::asString).toList(), hide);
            for (int i = 0; i < shown.size(); i++) {
                args.set(i, shown.get(i));
            }
        }
        if (masked.get("url") != null) {
            masked.put("url", Secrets.maskUrl(masked.get("url").asString(), hide));
        }
        if (masked.get("headersHelper") != null) {
            // A shell command: its words by the rule of arguments (a "--token X" in it is hidden).
            List<String> words = List.of(masked.get("headersHelper").asString().split(" ", -1));
            masked.put("headersHelper", String.join(" ", Secrets.maskArgs(words, hide)));
        }
        return masked;
    }

    private static String hidden(UnaryOperator<String> fingerprint, String value) {
        return "<hidden " + fingerprint.apply(value) + ">";
    }

    /**
     * @param masked a masked definition
     * @return one {@code field: value} line per field, for people
     */
    public static List<String> describe(JsonNode masked) {
        List<String> lines = new ArrayList<>();
        for (String field : masked.propertyNames()) {
            lines.add(field + ": " + McpJson.mapper().writeValueAsString(masked.get(field)));
        }
        return lines;
    }

    /**
     * @param before the masked definition that was approved
     * @param after the masked definition the file writes now
     * @return what changed, one line per field (per variable or header for {@code env} and {@code headers}, per
     *     argument when their number is the same), e.g. {@code command: "node" -> "bash"},
     *     {@code args[2]: "a.js" -> "b.js"}, {@code env.API_KEY: changed (value hidden)}
     */
    public static List<String> changes(JsonNode before, JsonNode after) {
        Set<String> fields = new LinkedHashSet<>();
        before.propertyNames().forEach(fields::add);
        after.propertyNames().forEach(fields::add);
        List<String> lines = new ArrayList<>();
        for (String field : fields.stream().sorted().toList()) {
            JsonNode old = before.get(field);
            JsonNode now = after.get(field);
            if (Objects.equals(old, now)) {
                continue;
            }
            if ((field.equals("env") || field.equals("headers")) && (old == null || old.isObject())
                    && (now == null || now.isObject())) {
                lines.addAll(mapChanges(field, old, now));
            } else if (old != null && now != null && old.isArray() && now.isArray() && old.size() == now.size()) {
                // As many arguments as before: name the ones that changed, a long argv stays readable.
                for (int i = 0; i < old.size(); i++) {
                    if (!old.get(i).equals(now.get(i))) {
                        lines.add(field + "[" + i + "]: " + show(old.get(i)) + " -> " + show(now.get(i)));
                    }
                }
            } else {
                lines.add(field + ": " + show(old) + " -> " + show(now));
            }
        }
        return lines;
    }

    private static List<String> mapChanges(String field, JsonNode old, JsonNode now) {
        Set<String> all = new java.util.TreeSet<>();
        Optional.ofNullable(old).ifPresent(o -> o.propertyNames().forEach(all::add));
        Optional.ofNullable(now).ifPresent(n -> n.propertyNames().forEach(all::add));
        List<String> lines = new ArrayList<>();
        for (String name : all) {
            JsonNode a = old == null ? null : old.get(name);
            JsonNode b = now == null ? null : now.get(name);
            if (Objects.equals(a, b)) {
                continue;
            }
            String label = field + "." + name + ": ";
            if (a == null) {
                lines.add(label + "added " + b);
            } else if (b == null) {
                lines.add(label + "removed (was " + a + ")");
            } else if (a.asString().startsWith("<hidden ") && b.asString().startsWith("<hidden ")) {
                lines.add(label + "changed (value hidden)");
            } else {
                lines.add(label + a + " -> " + b);
            }
        }
        return lines;
    }

    private static String show(JsonNode value) {
        return value == null ? "(none)" : McpJson.mapper().writeValueAsString(value);
    }

    static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    @Override
    public String toString() {
        return "ServerDefinition[" + hash + "]";
    }
}
