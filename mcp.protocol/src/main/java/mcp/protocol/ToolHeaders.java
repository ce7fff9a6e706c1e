package mcp.protocol;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * The {@code x-mcp-header} annotations of a tool's input schema (2026-07-28, SEP-2243): a property that names
 * a header {@code Mcp-Param-<name>} into which its argument is mirrored. A tool whose annotations break the
 * rules is not one a client may offer: the name must be a header token (RFC 9110), unique within the schema
 * whatever its case; the property's type {@code string}, {@code integer} or {@code boolean}; and the property
 * reachable from the root through {@code properties} alone (never inside {@code items}, {@code oneOf},
 * {@code $ref} targets and the like, never the root itself).
 *
 * <p>A client mirrors each annotated argument of a {@code tools/call} into its header ({@link #annotations},
 * {@link #headerText}); a server checks that the headers say what the arguments say ({@link #mismatch}).
 */
public final class ToolHeaders {

    /** The header name annotation. */
    public static final String ANNOTATION = "x-mcp-header";
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+\\-.^_`|~0-9A-Za-z]+");
    private static final Set<String> TYPES = Set.of("string", "integer", "boolean");

    private ToolHeaders() {
    }

    /**
     * @param inputSchema a tool's input schema
     * @return why its annotations make the tool invalid, or empty when they are fine (or there are none)
     */
    public static Optional<String> problem(JsonNode inputSchema) {
        return walk(inputSchema, "", false, new HashSet<>());
    }

    /**
     * @param property whether {@code node} is a property schema reached through {@code properties} keys only
     */
    private static Optional<String> walk(JsonNode node, String path, boolean property, Set<String> seen) {
        if (node == null || !node.isObject()) {
            if (node != null && node.isArray()) {
                for (int i = 0; i < node.size(); i++) {
                    Optional<String> problem = walk(node.get(i), path + "/" + i, false, seen);
                    if (problem.isPresent()) {
                        return problem;
                    }
                }
            }
            return Optional.empty();
        }
        JsonNode annotation = node.get(ANNOTATION);
        if (annotation != null) {
            String at = path.isEmpty() ? "the root" : path;
            if (!property) {
                return Optional.of(ANNOTATION + " at " + at + " is not on a property reached through \"properties\" alone");
            }
            if (!annotation.isString() || !TOKEN.matcher(annotation.asString()).matches()) {
                return Optional.of(ANNOTATION + " at " + at + " is not a header name token: " + annotation);
            }
            if (!seen.add(annotation.asString().toLowerCase(Locale.ROOT))) {
                return Optional.of(ANNOTATION + " \"" + annotation.asString() + "\" is used twice (ignoring case)");
            }
            JsonNode type = node.get("type");
            if (type == null || !type.isString() || !TYPES.contains(type.asString())) {
                return Optional.of(ANNOTATION + " at " + at + " is on a property of type " + type
                        + ", not string, integer or boolean");
            }
        }
        for (String key : node.propertyNames()) {
            JsonNode child = node.get(key);
            if (key.equals("properties") && child.isObject()) {
                for (String name : child.propertyNames()) {
                    Optional<String> problem = walk(child.get(name), path + "/properties/" + name,
                            property || path.isEmpty(), seen);
                    if (problem.isPresent()) {
                        return problem;
                    }
                }
            } else if (!key.equals(ANNOTATION)) {
                Optional<String> problem = walk(child, path + "/" + key, false, seen);
                if (problem.isPresent()) {
                    return problem;
                }
            }
        }
        return Optional.empty();
    }

    /**
     * One annotated property.
     *
     * @param name the header's name after {@link McpHeaders#PARAM_PREFIX}
     * @param path the property names from the root to the argument
     */
    public record Annotation(String name, List<String> path) {
        /** Copies. */
        public Annotation {
            path = List.copyOf(path);
        }

        /** @return the header's full name */
        public String header() {
            return McpHeaders.PARAM_PREFIX + name;
        }
    }

    /**
     * @param inputSchema a tool's input schema
     * @return its annotations, on properties reached through {@code properties} alone
     */
    public static List<Annotation> annotations(JsonNode inputSchema) {
        List<Annotation> found = new ArrayList<>();
        collect(inputSchema, new ArrayList<>(), found);
        return found;
    }

    private static void collect(JsonNode schema, List<String> path, List<Annotation> found) {
        if (schema == null || !schema.isObject()) {
            return;
        }
        JsonNode annotation = schema.get(ANNOTATION);
        if (!path.isEmpty() && annotation != null && annotation.isString()) {
            found.add(new Annotation(annotation.asString(), path));
        }
        JsonNode properties = schema.get("properties");
        if (properties != null && properties.isObject()) {
            for (String property : properties.propertyNames()) {
                path.add(property);
                collect(properties.get(property), path, found);
                path.remove(path.size() - 1);
            }
        }
    }

    /**
     * @param arguments a call's arguments
     * @param path the property names to an argument
     * @return the argument, or {@code null} when absent
     */
    public static JsonNode valueAt(JsonNode arguments, List<String> path) {
        JsonNode value = arguments;
        for (String property : path) {
            value = value == null || !value.isObject() ? null : value.get(property);
        }
        return value;
    }

    /** The largest integer a header may carry exactly (the JSON-safe range, as the spec says). */
    private static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

    /**
     * The text an argument's header carries, before {@link McpHeaders#encode}: a string as it is, an integer in
     * decimal, a boolean as {@code true} or {@code false}.
     *
     * @param value an argument, or {@code null}
     * @return its text; empty for an absent or {@code null} argument, or one of another type
     */
    public static Optional<String> headerText(JsonNode value) {
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (value.isString()) {
            return Optional.of(value.asString());
        }
        if (value.isBoolean()) {
            return Optional.of(value.asBoolean() ? "true" : "false");
        }
        if (value.isIntegralNumber() && value.canConvertToLong() && Math.abs(value.asLong()) <= MAX_SAFE_INTEGER) {
            return Optional.of(Long.toString(value.asLong()));
        }
        return Optional.empty();
    }

    /**
     * What a server finds wrong with the {@code Mcp-Param-*} headers of a {@code tools/call}: an argument with a value
     * whose header is missing, malformed (a Base64 form that is not valid Base64) or says something else, or a header
     * for an argument that has no value.
     *
     * @param inputSchema the tool's input schema
     * @param arguments the call's arguments
     * @param header the request's headers, by name
     * @return what is wrong, or empty
     */
    public static Optional<String> mismatch(JsonNode inputSchema, JsonNode arguments,
            Function<String, Optional<String>> header) {
        for (Annotation annotation : annotations(inputSchema)) {
            Optional<String> expected = headerText(valueAt(arguments, annotation.path()));
            Optional<String> given = header.apply(annotation.header()).map(String::trim);
            String argument = "arguments." + String.join(".", annotation.path());
            if (expected.isEmpty()) {
                if (given.isPresent()) {
                    return Optional.of(annotation.header() + " is given but " + argument + " has no value");
                }
                continue;
            }
            if (given.isEmpty()) {
                return Optional.of(annotation.header() + " is missing but " + argument + " has a value");
            }
            Optional<String> decoded = McpHeaders.decode(given.get());
            if (decoded.isEmpty()) {
                return Optional.of(annotation.header() + " is not valid Base64 in its =?base64?...?= form");
            }
            if (!decoded.equals(expected)) {
                return Optional.of(annotation.header() + " does not say what " + argument + " says");
            }
        }
        return Optional.empty();
    }
}
