package mcp.api.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a shell line into words the way a POSIX shell would for the simple cases people type: the shell's own
 * command line and the {@code sh -c} strings of server entries are read by the same rule.
 */
public final class ShellWords {

    private ShellWords() {
    }

    /**
     * Splits on blanks; {@code '...'} keeps everything literally, {@code "..."} keeps blanks and
     * takes {@code \"} and {@code \\}, and a backslash outside quotes escapes the next character.
     *
     * @param line the line
     * @return the words
     * @throws IllegalArgumentException on an unclosed quote
     */
    public static List<String> split(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote == '\'') {
                if (c == '\'') {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (quote == '"') {
                if (c == '"') {
                    quote = 0;
                } else if (c == '\\' && i + 1 < line.length() && (line.charAt(i + 1) == '"' || line.charAt(i + 1) == '\\')) {
                    word.append(line.charAt(++i));
                } else {
                    word.append(c);
                }
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                inWord = true;
                if (c == '\'' || c == '"') {
                    quote = c;
                } else if (c == '\\' && i + 1 < line.length()) {
                    word.append(line.charAt(++i));
                } else {
                    word.append(c);
                }
            }
        }
        if (quote != 0) {
            throw new IllegalArgumentException("Unclosed " + quote + " in: " + line);
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }
}
