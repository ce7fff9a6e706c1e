package mcp.config.internal.connect;

import java.util.Optional;

/**
 * Finds the text of one top-level member of a JSON or JSONC document (comments, trailing commas) without parsing it
 * into a tree, so that a change to that member leaves every other byte of the file as it was: its comments, its key
 * order, its spacing.
 */
public final class JsonText {

    private JsonText() {
    }

    /**
     * Where a top-level member is.
     *
     * @param keyStart where its key's opening quote is
     * @param valueStart where its value begins
     * @param valueEnd just after its value
     */
    public record Member(int keyStart, int valueStart, int valueEnd) {
    }

    /**
     * @param text the document
     * @param key the member's key
     * @return where the root object's member of that key is, if the root is an object that has it
     * @throws IllegalArgumentException when the text is not a JSON object
     */
    public static Optional<Member> member(String text, String key) {
        int i = skip(text, 0);
        if (i >= text.length() || text.charAt(i) != '{') {
            throw new IllegalArgumentException("not a JSON object");
        }
        i = skip(text, i + 1);
        while (i < text.length() && text.charAt(i) != '}') {
            if (text.charAt(i) == ',') {
                i = skip(text, i + 1);
                continue;
            }
            int keyStart = i;
            int keyEnd = string(text, i);
            String name = mcp.api.McpJson.mapper().readValue(text.substring(keyStart, keyEnd),
                    String.class);
            i = skip(text, keyEnd);
            if (i >= text.length() || text.charAt(i) != ':') {
                throw new IllegalArgumentException("no ':' after the key " + name);
            }
            int valueStart = skip(text, i + 1);
            int valueEnd = value(text, valueStart);
            if (name.equals(key)) {
                return Optional.of(new Member(keyStart, valueStart, valueEnd));
            }
            i = skip(text, valueEnd);
        }
        if (i >= text.length()) {
            throw new IllegalArgumentException("the root object does not end");
        }
        return Optional.empty();
    }

    /**
     * @param text the document
     * @return where the root object's closing brace is
     */
    public static int rootEnd(String text) {
        int start = skip(text, 0);
        int end = value(text, start);
        return end - 1;
    }

    /** @return whether the root object has no member */
    public static boolean rootEmpty(String text) {
        int i = skip(text, skip(text, 0) + 1);
        return i < text.length() && text.charAt(i) == '}';
    }

    /** The indentation of the line that holds this offset. */
    public static String indentAt(String text, int offset) {
        int lineStart = text.lastIndexOf('\n', offset - 1) + 1;
        int i = lineStart;
        while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
            i++;
        }
        return text.substring(lineStart, i);
    }

    /** Past whitespace and comments. */
    static int skip(String text, int i) {
        while (i < text.length()) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c) || c == '\uFEFF') {
                i++;
            } else if (text.startsWith("//", i)) {
                int end = text.indexOf('\n', i);
                i = end < 0 ? text.length() : end + 1;
            } else if (text.startsWith("/*", i)) {
                int end = text.indexOf("*/", i + 2);
                if (end < 0) {
                    throw new IllegalArgumentException("a comment does not end");
                }
                i = end + 2;
            } else {
                return i;
            }
        }
        return i;
    }

    /** Just after the string that starts here. */
    private static int string(String text, int i) {
        if (i >= text.length() || text.charAt(i) != '"') {
            throw new IllegalArgumentException("a key is not a string at offset " + i);
        }
        for (int j = i + 1; j < text.length(); j++) {
            char c = text.charAt(j);
            if (c == '\\') {
                j++;
            } else if (c == '"') {
                return j + 1;
            }
        }
        throw new IllegalArgumentException("a string does not end");
    }

    /** Just after the value that starts here. */
    private static int value(String text, int i) {
        if (i >= text.length()) {
            throw new IllegalArgumentException("a value is missing");
        }
        char c = text.charAt(i);
        if (c == '"') {
            return string(text, i);
        }
        if (c == '{' || c == '[') {
            int depth = 0;
            int j = i;
            while (j < text.length()) {
                char d = text.charAt(j);
                if (d == '"') {
                    j = string(text, j);
                    continue;
                }
                if (text.startsWith("//", j) || text.startsWith("/*", j)) {
                    j = skip(text, j);
                    continue;
                }
                if (d == '{' || d == '[') {
                    depth++;
                } else if (d == '}' || d == ']') {
                    depth--;
                    if (depth == 0) {
                        return j + 1;
                    }
                }
                j++;
            }
            throw new IllegalArgumentException("an object or array does not end");
        }
        int j = i;
        while (j < text.length() && ",}] \t\r\n/".indexOf(text.charAt(j)) < 0) {
            j++;
        }
        return j;
    }
}
