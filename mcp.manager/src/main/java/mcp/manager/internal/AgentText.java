package mcp.manager.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Text a server gives that reaches the agent or a terminal (tool titles and descriptions, server
 * instructions), made clean and bounded: a server must not steer a model with text its user cannot
 * see, nor a terminal with escape sequences, nor fill the context with one description.
 *
 * <ul>
 *   <li>terminal control sequences (CSI, OSC, other {@code ESC} sequences) and the other C0 and C1
 *       control characters are removed; tab, line feed and carriage return stay;</li>
 *   <li>invisible characters are removed: Unicode tag characters (U+E0000 to U+E007F), direction
 *       overrides, embeddings, isolates and marks (U+202A to U+202E, U+2066 to U+2069, U+200E, U+200F,
 *       U+061C), zero-width spaces and no-break joiners (U+200B, U+2060, U+FEFF, U+180E), and runs of two
 *       or more zero-width joiners or non-joiners (a single one stays: scripts and emoji need it);</li>
 *   <li>what remains is cut to a maximum number of characters, never inside a surrogate pair, with an
 *       ellipsis.</li>
 * </ul>
 */
public final class AgentText {

    /** The default cap of a tool's description, in characters. */
    public static final int DEFAULT_MAX_DESCRIPTION = 2_048;

    /** The cap of a tool's title. */
    public static final int MAX_TITLE = 256;

    private static final Pattern CONTROL_SEQUENCE = Pattern.compile(
            "\\u001B\\[[0-?]*[ -/]*[@-~]"                      // CSI
            + "|\\u001B\\][^\\u0007\\u001B]*(?:\\u0007|\\u001B\\\\)?" // OSC, to BEL or ST
            + "|\\u009B[0-?]*[ -/]*[@-~]"                      // 8-bit CSI
            + "|\\u001B[ -/]*[0-~]");                          // any other escape sequence
    private static final Pattern CONTROL = Pattern.compile("[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F]");
    private static final Pattern INVISIBLE = Pattern.compile(
            "[\\x{E0000}-\\x{E007F}\\u202A-\\u202E\\u2066-\\u2069\\u200E\\u200F\\u061C\\u200B\\u2060\\uFEFF\\u180E]"
            + "|[\\u200C\\u200D]{2,}");

    private AgentText() {
    }

    /**
     * @param text the cleaned text
     * @param changes what was done, for a warning ({@code "removed 3 terminal control sequences"}); empty
     *     when the text came through unchanged
     */
    public record Cleaned(String text, List<String> changes) {
        /** Validates and copies. */
        public Cleaned {
            Objects.requireNonNull(text, "text");
            changes = List.copyOf(changes);
        }
    }

    /**
     * @param text a server's text
     * @param max the most characters to keep, at least 1
     * @return the text, clean and at most {@code max} characters long, and what was changed
     */
    public static Cleaned clean(String text, int max) {
        List<String> changes = new ArrayList<>();
        String result = remove(CONTROL_SEQUENCE, text, "terminal control sequence", changes);
        result = remove(CONTROL, result, "control character", changes);
        result = remove(INVISIBLE, result, "invisible character", changes);
        if (result.codePointCount(0, result.length()) > max) {
            int end = result.offsetByCodePoints(0, Math.max(1, max - 1));
            changes.add("cut from " + result.length() + " to " + max + " characters");
            result = result.substring(0, end) + "…";
        }
        return new Cleaned(result, changes);
    }

    private static String remove(Pattern pattern, String text, String what, List<String> changes) {
        Matcher m = pattern.matcher(text);
        int count = 0;
        while (m.find()) {
            count++;
        }
        if (count == 0) {
            return text;
        }
        changes.add("removed " + count + " " + what + (count == 1 ? "" : "s"));
        return m.replaceAll("");
    }
}
