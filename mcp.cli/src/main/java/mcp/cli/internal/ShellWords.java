package mcp.cli.internal;

import java.util.ArrayList;
import java.util.List;

/** Splits a shell line into words the way a POSIX shell would for the simple cases people type. */
final class ShellWords {

    private ShellWords() {
    }

    /**
     * @param line the line
     * @return its words ({@link mcp.api.internal.ShellWords#split})
     * @throws CliException (usage) on an unclosed quote
     */
    static List<String> split(String line) {
        try {
            return mcp.api.internal.ShellWords.split(line);
        } catch (IllegalArgumentException e) {
            throw CliException.usage(e.getMessage());
        }
    }

    /**
     * Splits a {@code /call} line: words up to the first {@code {}, then the rest of the line as
     * one JSON word, so JSON needs no quoting ({@code /call mcp_kit_echo {"message": "hi there"}}).
     */
    static List<String> splitCall(String line) {
        int json = line.indexOf('{');
        if (json < 0) {
            return split(line);
        }
        List<String> words = new ArrayList<>(split(line.substring(0, json)));
        words.add(line.substring(json).strip());
        return words;
    }
}
