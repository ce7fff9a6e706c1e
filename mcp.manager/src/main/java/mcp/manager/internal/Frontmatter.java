package mcp.manager.internal;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.schema.CoreSchema;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The YAML frontmatter of a skill's {@code SKILL.md}: found, parsed, and compared field by field with the
 * frontmatter of the skill's entry.
 *
 * <p>The block is the text between a first line {@code ---} and the next line {@code ---} (a byte order mark
 * before it, trailing blanks and CRLF line ends allowed), as the Agent Skills format has it. The YAML is read by
 * snakeyaml-engine's own loader (YAML 1.2, core schema), which resolves anchors and aliases itself, refuses
 * duplicate keys and bounds what aliases may expand to; the value becomes JSON nodes, bounded in depth and size, so
 * a self-referencing alias is a failure, not a stack overflow.
 */
final class Frontmatter {

    /** Deeper than this, a frontmatter value is refused: a real one nests two or three levels. */
    static final int MAX_DEPTH = 64;
    /** More values than this (aliases expand), and it is refused. */
    static final int MAX_VALUES = 100_000;

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** A file whose frontmatter cannot be read or compared; the message says why. */
    static final class Unreadable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreadable(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * One {@code SKILL.md} split.
     *
     * @param yaml the text of the frontmatter block
     * @param body what follows the block
     */
    record Split(String yaml, String body) {
    }

    private Frontmatter() {
    }

    /**
     * @param text the whole {@code SKILL.md}
     * @return its frontmatter block and its body
     * @throws Unreadable when the file does not begin with a {@code ---} block that a {@code ---} line closes
     */
    static Split split(String text) throws Unreadable {
        String rest = text.startsWith("\uFEFF") ? text.substring(1) : text;
        int firstEnd = lineEnd(rest, 0);
        if (!isDelimiter(rest, 0, firstEnd)) {
            throw new Unreadable("it does not begin with a YAML frontmatter block (a line ---)");
        }
        int start = next(rest, firstEnd);
        for (int line = start; line < rest.length(); line = next(rest, lineEnd(rest, line))) {
            int end = lineEnd(rest, line);
            if (isDelimiter(rest, line, end)) {
                String yaml = rest.substring(start, line);
                return new Split(yaml, rest.substring(next(rest, end)));
            }
        }
        throw new Unreadable("its YAML frontmatter block has no closing line ---");
    }

    /**
     * @param yaml the text of a frontmatter block
     * @return it as JSON: an object
     * @throws Unreadable when it is not YAML, not a mapping, or a value JSON cannot hold
     */
    static ObjectNode parse(String yaml) throws Unreadable {
        LoadSettings settings = LoadSettings.builder()
                .setSchema(new CoreSchema())
                .setAllowDuplicateKeys(false)
                .setAllowRecursiveKeys(false)
                .setLabel("SKILL.md frontmatter")
                .build();
        Object value;
        try {
            value = new Load(settings).loadFromString(yaml);
        } catch (YamlEngineException e) {
            throw new Unreadable("its frontmatter is not valid YAML: " + firstLine(e.getMessage()));
        }
        if (!(value instanceof Map)) {
            throw new Unreadable("its frontmatter is not a YAML mapping");
        }
        return (ObjectNode) new Converter().json(value, 0);
    }

    /**
     * Compares the file's frontmatter with the entry's, field by field: the same fields, each with the same value
     * (numbers by value, so {@code 2} and {@code 2.0} agree).
     *
     * @param file the frontmatter of the {@code SKILL.md} read
     * @param entry the frontmatter of the entry
     * @return one line per field that differs, empty when they agree
     */
    static List<String> differences(JsonNode file, JsonNode entry) {
        Set<String> fields = new TreeSet<>(file.propertyNames());
        fields.addAll(entry.propertyNames());
        List<String> differences = new ArrayList<>();
        for (String field : fields) {
            JsonNode a = file.get(field);
            JsonNode b = entry.get(field);
            if (a == null || b == null || !same(a, b)) {
                differences.add(AgentText.clean(field, 64).text() + ": the file has " + shown(a) + ", the entry "
                        + shown(b));
            }
        }
        return differences;
    }

    private static String shown(JsonNode value) {
        return value == null ? "no such field" : AgentText.clean(value.toString(), 120).text();
    }

    /** Deep equality of JSON values, numbers compared by value. */
    static boolean same(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            if (!finite(a) || !finite(b)) {
                return a.doubleValue() == b.doubleValue(); // .inf and .nan of YAML: no JSON number equals them
            }
            return decimal(a).compareTo(decimal(b)) == 0;
        }
        if (a.isObject() && b.isObject()) {
            if (a.size() != b.size()) {
                return false;
            }
            for (String name : a.propertyNames()) {
                JsonNode other = b.get(name);
                if (other == null || !same(a.get(name), other)) {
                    return false;
                }
            }
            return true;
        }
        if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) {
                return false;
            }
            Iterator<JsonNode> other = b.iterator();
            for (JsonNode item : a) {
                if (!same(item, other.next())) {
                    return false;
                }
            }
            return true;
        }
        return a.equals(b);
    }

    private static boolean finite(JsonNode number) {
        return number.isIntegralNumber() || Double.isFinite(number.doubleValue());
    }

    private static BigDecimal decimal(JsonNode number) {
        return number.isIntegralNumber() ? new BigDecimal(number.bigIntegerValue()) : number.decimalValue();
    }

    /** Java values of the YAML loader to JSON nodes, bounded. */
    private static final class Converter {
        private int values;

        JsonNode json(Object value, int depth) throws Unreadable {
            if (++values > MAX_VALUES) {
                throw new Unreadable("its frontmatter expands to more than " + MAX_VALUES + " values");
            }
            if (depth > MAX_DEPTH) {
                throw new Unreadable("its frontmatter nests deeper than " + MAX_DEPTH + " levels");
            }
            if (value == null) {
                return NODES.nullNode();
            } else if (value instanceof String s) {
                return NODES.stringNode(s);
            } else if (value instanceof Boolean b) {
                return NODES.booleanNode(b);
            } else if (value instanceof Integer i) {
                return NODES.numberNode(i);
            } else if (value instanceof Long l) {
                return NODES.numberNode(l);
            } else if (value instanceof BigInteger big) {
                return NODES.numberNode(big);
            } else if (value instanceof Double d) {
                return NODES.numberNode(d);
            } else if (value instanceof Float f) {
                return NODES.numberNode(f.doubleValue());
            } else if (value instanceof Map<?, ?> map) {
                ObjectNode object = NODES.objectNode();
                for (Map.Entry<?, ?> field : map.entrySet()) {
                    object.set(String.valueOf(field.getKey()), json(field.getValue(), depth + 1));
                }
                return object;
            } else if (value instanceof Collection<?> items) {
                ArrayNode array = NODES.arrayNode();
                for (Object item : items) {
                    array.add(json(item, depth + 1));
                }
                return array;
            } else if (value instanceof byte[] bytes) {
                return NODES.binaryNode(bytes);
            }
            throw new Unreadable("its frontmatter holds a value JSON cannot (" + value.getClass().getSimpleName() + ")");
        }
    }

    private static int lineEnd(String text, int from) {
        int n = text.indexOf('\n', from);
        return n < 0 ? text.length() : n;
    }

    private static int next(String text, int lineEnd) {
        return Math.min(text.length(), lineEnd + 1);
    }

    private static boolean isDelimiter(String text, int start, int end) {
        String line = text.substring(start, end);
        return line.startsWith("---") && line.substring(3).isBlank();
    }

    private static String firstLine(String message) {
        String text = String.valueOf(message).strip();
        int n = text.indexOf('\n');
        return AgentText.clean(n < 0 ? text : text.substring(0, n), 200).text();
    }
}
