package mcp.consent.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import mcp.api.McpJson;
import mcp.api.ToolDefinition;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The canonical form of a tool definition and readable diffs between two of them. Canonical: a JSON
 * object of {@code annotations}, {@code description}, {@code inputSchema}, {@code name},
 * {@code outputSchema} and {@code title} (absent ones left out), every object's keys sorted at every
 * depth, so that a server that sends the same definition in another key order hashes alike.
 *
 * <p>Diff lines show the server's text, which may be hostile: control, format (bidi overrides,
 * zero-width and tag characters) and other invisible characters appear as <code>&#92;u{XXXX}</code>, and long
 * values are cut.
 */
public final class ToolDiff {

    /** The fields compared, in the order a diff reports them. */
    public static final List<String> FIELDS = List.of("title", "description", "inputSchema", "outputSchema",
            "annotations");
    private static final int MAX_VALUE = 160;
    private static final int MAX_LINES = 40;
    private static final int MAX_TEXT_LINES = 400;

    private ToolDiff() {
    }

    /**
     * @param tool a tool as its server listed it
     * @return its canonical JSON
     */
    public static ObjectNode canonical(ToolDefinition tool) {
        // _meta is for the host (result size hints, UI links) and execution for its client (tasks), not the model: a
        // change there is no new definition, and pins made before they were kept stay valid.
        ObjectNode json = tool.toJson();
        json.remove("_meta");
        json.remove("execution");
        return (ObjectNode) sorted(json);
    }

    /**
     * @param node any JSON
     * @return a copy whose objects have their keys sorted, at every depth
     */
    public static JsonNode sorted(JsonNode node) {
        if (node.isObject()) {
            ObjectNode copy = McpJson.object();
            for (String name : new TreeSet<>(node.propertyNames())) {
                copy.set(name, sorted(node.get(name)));
            }
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = McpJson.mapper().createArrayNode();
            node.forEach(item -> copy.add(sorted(item)));
            return copy;
        }
        return node;
    }

    /**
     * @param canonical a canonical definition
     * @return it without its name: what a rename keeps
     */
    public static ObjectNode withoutName(ObjectNode canonical) {
        ObjectNode copy = canonical.deepCopy();
        copy.remove("name");
        return copy;
    }

    /**
     * @param before the pinned canonical definition
     * @param after the listed one
     * @return the fields that differ, in {@link #FIELDS} order
     */
    public static List<String> fields(JsonNode before, JsonNode after) {
        return FIELDS.stream().filter(field -> !Objects.equals(before.get(field), after.get(field))).toList();
    }

    /**
     * @param before the pinned canonical definition
     * @param after the listed one
     * @return one line per difference, at most {@value #MAX_LINES}
     */
    public static List<String> diff(JsonNode before, JsonNode after) {
        List<String> lines = new ArrayList<>();
        for (String field : fields(before, after)) {
            diff(field, before.get(field), after.get(field), lines);
        }
        return capped(lines);
    }

    /**
     * @param before the pinned text, or {@code null} for none
     * @param after the text now, or {@code null} for none
     * @return a line diff: {@code - } a line only before, {@code + } a line only after
     */
    public static List<String> textDiff(String before, String after) {
        List<String> lines = new ArrayList<>();
        if (before == null || after == null) {
            lines.add(before == null ? "added: " + quoted(after) : "removed (was " + quoted(before) + ")");
        } else {
            lines.addAll(lineDiff("", before, after));
        }
        return capped(lines);
    }

    private static void diff(String path, JsonNode old, JsonNode now, List<String> lines) {
        if (Objects.equals(old, now)) {
            return;
        }
        if (old == null) {
            lines.add(path + ": added " + show(now));
        } else if (now == null) {
            lines.add(path + ": removed (was " + show(old) + ")");
        } else if (old.isObject() && now.isObject()) {
            TreeSet<String> names = new TreeSet<>(old.propertyNames());
            names.addAll(now.propertyNames());
            for (String name : names) {
                diff(path + "." + escape(name), old.get(name), now.get(name), lines);
            }
        } else if (old.isString() && now.isString()
                && (old.asString().contains("\n") || now.asString().contains("\n"))) {
            lines.addAll(lineDiff(path + ": ", old.asString(), now.asString()));
        } else {
            lines.add(path + ": " + show(old) + " -> " + show(now));
        }
    }

    /** A longest-common-subsequence diff of two texts' lines. */
    private static List<String> lineDiff(String prefix, String before, String after) {
        List<String> a = before.lines().toList();
        List<String> b = after.lines().toList();
        if (a.size() > MAX_TEXT_LINES || b.size() > MAX_TEXT_LINES) {
            return List.of(prefix + "changed (" + a.size() + " lines -> " + b.size() + " lines)");
        }
        int[][] common = new int[a.size() + 1][b.size() + 1];
        for (int i = a.size() - 1; i >= 0; i--) {
            for (int j = b.size() - 1; j >= 0; j--) {
                common[i][j] = a.get(i).equals(b.get(j)) ? common[i + 1][j + 1] + 1
                        : Math.max(common[i + 1][j], common[i][j + 1]);
            }
        }
        List<String> lines = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < a.size() || j < b.size()) {
            if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
                i++;
                j++;
            } else if (i < a.size() && (j == b.size() || common[i + 1][j] >= common[i][j + 1])) {
                lines.add(prefix + "- " + cut(escape(a.get(i++))));
            } else {
                lines.add(prefix + "+ " + cut(escape(b.get(j++))));
            }
        }
        return lines;
    }

    private static List<String> capped(List<String> lines) {
        if (lines.size() <= MAX_LINES) {
            return lines;
        }
        List<String> kept = new ArrayList<>(lines.subList(0, MAX_LINES - 1));
        kept.add("... " + (lines.size() - kept.size()) + " more differences");
        return kept;
    }

    private static String show(JsonNode value) {
        return value.isString() ? quoted(value.asString()) : cut(escape(McpJson.mapper().writeValueAsString(value)));
    }

    private static String quoted(String text) {
        return "\"" + cut(escape(text)) + "\"";
    }

    private static String cut(String text) {
        return text.length() <= MAX_VALUE ? text : text.substring(0, MAX_VALUE - 1) + "…";
    }

    /**
     * @param text a server's text
     * @return it with every control, format, private-use, unassigned or separator character other than a
     *     plain space shown as <code>&#92;u{XXXX}</code>, so that nothing in it is invisible or acts on a terminal
     */
    public static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(cp -> {
            int type = Character.getType(cp);
            boolean hidden = Character.isISOControl(cp) || type == Character.FORMAT || type == Character.PRIVATE_USE
                    || type == Character.UNASSIGNED || type == Character.SURROGATE
                    || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR
                    || (type == Character.SPACE_SEPARATOR && cp != ' ');
            if (hidden) {
                out.append("\\u{").append(Integer.toHexString(cp).toUpperCase(java.util.Locale.ROOT)).append('}');
            } else {
                out.appendCodePoint(cp);
            }
        });
        return out.toString();
    }
}
