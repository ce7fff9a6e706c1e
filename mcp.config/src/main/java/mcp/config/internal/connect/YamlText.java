package mcp.config.internal.connect;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds one top-level block mapping of a YAML document and the entries in it by lines, so that entries can be cut out
 * and one put in while every other line of the file (its comments, its other settings, its quoting) stays as it was.
 * A YAML round trip would lose the comments and the quoting. Only the plain layout goose itself writes is edited: the
 * key at column 0 with its entries indented below it; anything else (a flow mapping, tabs, several documents) is
 * refused, and the caller checks the edit by parsing both texts.
 */
public final class YamlText {

    private static final Pattern KEY = Pattern.compile(
            "(\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^']|'')*'|[^\\s#:{}\\[\\],&*!|>'\"%@`-][^#:]*?|-[^\\s#:][^#:]*?)\\s*:(?:\\s.*)?");

    private YamlText() {
    }

    /**
     * One entry of the block.
     *
     * @param name the entry's key, unquoted
     * @param start where its first line starts
     * @param end where the line after its last one starts
     */
    public record Entry(String name, int start, int end) {
    }

    /**
     * The block of a top-level key.
     *
     * @param start where the key's line starts
     * @param end where the line after its last entry starts
     * @param inline the key's line has its value on it ({@code key: {}}, {@code key: null}): no entries below
     * @param indent the entries' indentation (two spaces when it has none)
     * @param entries its entries, in order
     */
    public record Block(int start, int end, boolean inline, String indent, List<Entry> entries) {
        /** Copies. */
        public Block {
            entries = List.copyOf(entries);
        }
    }

    /**
     * @param text the document
     * @param key the top-level key
     * @return its block, or null when the document has no such key
     * @throws IllegalArgumentException when the document or the block is laid out in a way this does not edit
     */
    public static Block block(String text, String key) {
        List<int[]> lines = lines(text);
        Block found = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = line(text, lines.get(i));
            if (i > 0 && (line.startsWith("---") || line.startsWith("..."))) {
                throw new IllegalArgumentException("it holds several YAML documents, which mcp-host does not edit");
            }
            if (line.startsWith("{") || line.startsWith("\t")) {
                throw new IllegalArgumentException("its root is not a block mapping indented with spaces, which"
                        + " mcp-host does not edit");
            }
            String name = keyOf(line);
            if (name == null || !name.equals(key)) {
                continue;
            }
            if (found != null) {
                throw new IllegalArgumentException("it has the key " + key + " twice");
            }
            found = entries(text, lines, i, key);
        }
        return found;
    }

    private static Block entries(String text, List<int[]> lines, int at, String key) {
        String keyLine = line(text, lines.get(at));
        String value = stripComment(keyLine.substring(keyLine.indexOf(':') + 1)).strip();
        boolean inline = !value.isEmpty();
        if (inline && !value.equals("{}") && !value.equals("null") && !value.equals("~")) {
            throw new IllegalArgumentException("\"" + key + "\" is written on one line (" + value + "); only a block"
                    + " of entries below it is edited");
        }
        int last = at;
        String indent = null;
        List<Integer> starts = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = at + 1; i < lines.size(); i++) {
            String line = line(text, lines.get(i));
            String content = line.strip();
            if (content.isEmpty() || content.startsWith("#")) {
                if (!line.startsWith("#") && !content.isEmpty()) {
                    last = i;
                }
                continue;
            }
            int spaces = 0;
            while (spaces < line.length() && line.charAt(spaces) == ' ') {
                spaces++;
            }
            if (spaces == 0) {
                break;
            }
            if (line.charAt(spaces) == '\t') {
                throw new IllegalArgumentException("\"" + key + "\" is indented with tabs");
            }
            if (inline) {
                throw new IllegalArgumentException("\"" + key + "\" has a value on its line and lines below it");
            }
            if (content.matches("(?s).*(^|[\\s\\[{,:])[&*!][^\\s].*") || content.startsWith("<<")) {
                throw new IllegalArgumentException("\"" + key + "\" uses YAML anchors, aliases, merge keys or tags,"
                        + " which mcp-host does not edit");
            }
            last = i;
            if (indent == null) {
                indent = line.substring(0, spaces);
            }
            if (spaces < indent.length()) {
                throw new IllegalArgumentException("the entries of \"" + key + "\" are not evenly indented");
            }
            if (spaces == indent.length()) {
                String name = keyOf(content);
                if (name == null) {
                    throw new IllegalArgumentException("\"" + key + "\" holds a line that is not an entry: " + content);
                }
                starts.add(i);
                names.add(name);
            }
        }
        List<Entry> entries = new ArrayList<>();
        int end = lines.get(last)[1];
        for (int k = 0; k < starts.size(); k++) {
            int from = lines.get(starts.get(k))[0];
            int to = k + 1 < starts.size() ? lines.get(starts.get(k + 1))[0] : end;
            entries.add(new Entry(names.get(k), from, to));
        }
        return new Block(lines.get(at)[0], end, inline, indent == null ? "  " : indent, entries);
    }

    /** A mapping key at the start of the line, unquoted, or null. */
    private static String keyOf(String line) {
        if (line.isEmpty() || line.charAt(0) == ' ' || line.charAt(0) == '#') {
            return null;
        }
        Matcher m = KEY.matcher(line.stripTrailing());
        if (!m.matches()) {
            return null;
        }
        String key = m.group(1);
        if (key.startsWith("\"")) {
            return mcp.api.McpJson.mapper().readValue(key, String.class);
        }
        if (key.startsWith("'")) {
            return key.substring(1, key.length() - 1).replace("''", "'");
        }
        return key.strip();
    }

    private static String stripComment(String value) {
        int hash = value.indexOf(" #");
        return hash < 0 ? value : value.substring(0, hash);
    }

    /** Each line's start and the start of the next (with its line end). */
    private static List<int[]> lines(String text) {
        List<int[]> lines = new ArrayList<>();
        int start = 0;
        while (start < text.length()) {
            int end = text.indexOf('\n', start);
            end = end < 0 ? text.length() : end + 1;
            lines.add(new int[] {start, end});
            start = end;
        }
        return lines;
    }

    private static String line(String text, int[] line) {
        String s = text.substring(line[0], line[1]);
        return s.endsWith("\n") ? s.substring(0, s.length() - (s.endsWith("\r\n") ? 2 : 1)) : s;
    }
}
