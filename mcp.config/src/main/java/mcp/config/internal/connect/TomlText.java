package mcp.config.internal.connect;

import java.util.ArrayList;
import java.util.List;

/**
 * Cuts the tables of one top-level key out of a TOML document by lines ({@code [key.x]}, {@code [key.x.y]},
 * {@code [[key...]]}, each up to the next table header), and puts other text in their place, so that every other
 * line of the file (its comments, its order) stays as it was.
 */
public final class TomlText {

    private TomlText() {
    }

    /**
     * @param text the document
     * @param key the top-level key
     * @param replacement the text that takes the place of the first such table (or goes at the end when there is
     *     none), ending with a newline
     * @return the document with every table of the key replaced
     * @throws IllegalArgumentException when the key is also written outside tables of its own (a dotted key or an
     *     inline table), which this does not edit
     */
    public static String replaceTables(String text, String key, String replacement) {
        List<String> lines = lines(text);
        StringBuilder out = new StringBuilder();
        boolean inside = false;
        boolean placed = false;
        boolean multiline = false;
        boolean seenHeader = false;
        for (String line : lines) {
            String header = multiline ? null : header(line);
            if (header != null) {
                seenHeader = true;
                inside = path(header).get(0).equals(key);
                if (inside && !placed) {
                    out.append(replacement);
                    placed = true;
                }
            } else if (!multiline && !seenHeader && line.strip().matches("\"?" + java.util.regex.Pattern.quote(key)
                    + "\"?\\s*[.=].*")) {
                throw new IllegalArgumentException("\"" + key + "\" is written as a dotted key or an inline table;"
                        + " only [" + key + ".<name>] tables are edited");
            }
            if (countTripleQuotes(line) % 2 == 1) {
                multiline = !multiline;
            }
            if (!inside) {
                out.append(line);
            }
        }
        if (!placed) {
            if (out.length() > 0 && out.charAt(out.length() - 1) != '\n') {
                out.append('\n');
            }
            if (out.length() > 0 && !out.toString().endsWith("\n\n")) {
                out.append('\n');
            }
            out.append(replacement);
        }
        return out.toString();
    }

    /**
     * @param text the document
     * @param key the top-level key
     * @return the text of every table of the key, in order
     */
    public static String tables(String text, String key) {
        StringBuilder out = new StringBuilder();
        boolean inside = false;
        boolean multiline = false;
        for (String line : lines(text)) {
            String header = multiline ? null : header(line);
            if (header != null) {
                inside = path(header).get(0).equals(key);
            }
            if (countTripleQuotes(line) % 2 == 1) {
                multiline = !multiline;
            }
            if (inside) {
                out.append(line);
            }
        }
        if (out.length() > 0 && out.charAt(out.length() - 1) != '\n') {
            out.append('\n');
        }
        return out.toString();
    }

    /** The lines with their line ends. */
    private static List<String> lines(String text) {
        List<String> lines = new ArrayList<>();
        int start = 0;
        while (start < text.length()) {
            int end = text.indexOf('\n', start);
            end = end < 0 ? text.length() : end + 1;
            lines.add(text.substring(start, end));
            start = end;
        }
        return lines;
    }

    private static int countTripleQuotes(String line) {
        int count = 0;
        for (String quote : List.of("\"\"\"", "'''")) {
            for (int i = line.indexOf(quote); i >= 0; i = line.indexOf(quote, i + 3)) {
                count++;
            }
        }
        return count;
    }

    /** The inside of a table header line, or null. */
    private static String header(String line) {
        String s = line.strip();
        if (!s.startsWith("[")) {
            return null;
        }
        boolean array = s.startsWith("[[");
        int open = array ? 2 : 1;
        int close = closing(s, open);
        if (close < 0) {
            return null;
        }
        return s.substring(open, close);
    }

    private static int closing(String s, int from) {
        char quote = 0;
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == '\\' && quote == '"') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == ']') {
                return i;
            }
        }
        return -1;
    }

    /** The parts of a dotted key, unquoted. */
    static List<String> path(String key) {
        List<String> parts = new ArrayList<>();
        StringBuilder part = new StringBuilder();
        char quote = 0;
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (quote != 0) {
                if (c == '\\' && quote == '"' && i + 1 < key.length()) {
                    part.append(key.charAt(++i));
                } else if (c == quote) {
                    quote = 0;
                } else {
                    part.append(c);
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == '.') {
                parts.add(part.toString().strip());
                part.setLength(0);
            } else {
                part.append(c);
            }
        }
        parts.add(part.toString().strip());
        return parts;
    }
}
