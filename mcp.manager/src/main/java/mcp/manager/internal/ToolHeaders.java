package mcp.manager.internal;

import java.util.HashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * The {@code x-mcp-header} annotations of a tool's input schema (2026-07-28, SEP-2243): a property that names
 * a header {@code Mcp-Param-<name>} into which its argument is mirrored. A tool whose annotations break the
 * rules is not one a client may offer: the name must be a header token (RFC 9110), unique within the schema
 * whatever its case; the property's type {@code string}, {@code integer} or {@code boolean}; and the property
 * reachable from the root through {@code properties} alone (never inside {@code items}, {@code oneOf},
 * {@code $ref} targets and the like, never the root itself).
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
}
