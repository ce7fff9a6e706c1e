package mcp.config.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import mcp.api.ServerSpec;
import mcp.api.internal.ShellWords;

/**
 * Recognises an entry that runs mcp-host's own gateway, {@code mcp-host serve}, directly or through a wrapper
 * ({@code npx}, {@code env}, {@code sh -c "..."}, {@code java -m mcp.cli/mcp.cli.Main serve}, ...). A user who puts
 * every agent behind the gateway writes such an entry into the agents' configs, which mcp-host reads too: started as
 * one of its own servers, the gateway would bring every server a second time, and a gateway that started it would
 * start itself without end. So mcp-host never connects to itself.
 *
 * <p>A wrapper script of the user's own cannot be read from here; the gateway refuses to start under another one for
 * that case (it marks the environment of what it starts).
 */
public final class SelfReference {

    /** What the launcher is called: the image's script, the checkout's, a Windows wrapper, an npm-style spec. */
    private static final Set<String> LAUNCHERS = Set.of("mcp-host", "mcp-host.sh", "mcp-host.cmd", "mcp-host.bat",
            "mcp-host.exe");
    /** The main class, as {@code java -m} or {@code java -cp} names it. */
    private static final Set<String> MAIN_CLASSES = Set.of("mcp.cli/mcp.cli.Main", "mcp.cli.Main");
    /** Shells whose {@code -c} string is a command line of its own. */
    private static final Set<String> SHELLS = Set.of("sh", "bash", "zsh", "dash", "ksh", "fish", "cmd", "cmd.exe",
            "powershell", "powershell.exe", "pwsh");

    private SelfReference() {
    }

    /**
     * @param server a discovered entry
     * @return why it is mcp-host's own gateway, or empty when it is not
     */
    public static Optional<String> of(ServerSpec server) {
        if (server.command().isEmpty()) {
            return Optional.empty();
        }
        List<String> words = new ArrayList<>();
        words.add(server.command().get());
        words.addAll(server.args());
        // Said first in a few words, for list and status lines: what the entry is, and that it is skipped.
        return runsServe(words) ? Optional.of("served by mcp-host serve, skipped: this entry runs mcp-host's own "
                + "gateway (directly or through a wrapper), and mcp-host never connects to itself; it reads this file's "
                + "other servers itself, so none starts twice") : Optional.empty();
    }

    /**
     * Whether a command line starts mcp-host and asks it to {@code serve}, at any depth of wrapping. The word
     * {@code serve} anywhere after the launcher counts (options with values, {@code --config FILE}, may come
     * first); no other command of mcp-host takes it as an argument.
     */
    static boolean runsServe(List<String> words) {
        List<String> flat = flatten(words);
        for (int i = 0; i < flat.size(); i++) {
            if (isLauncher(flat.get(i)) && flat.subList(i + 1, flat.size()).contains("serve")) {
                return true;
            }
        }
        return false;
    }

    /** The words, with each shell's command string ({@code -c}, {@code -lc}, {@code /c}, ...) split into words. */
    private static List<String> flatten(List<String> words) {
        List<String> flat = new ArrayList<>();
        boolean shell = false;
        for (int i = 0; i < words.size(); i++) {
            String word = words.get(i);
            flat.add(word);
            if (shell && takesCommand(word) && i + 1 < words.size()) {
                flat.addAll(flatten(split(words.get(++i))));
                shell = false;
            } else if (SHELLS.contains(baseName(word))) {
                shell = true;
            } else if (!word.startsWith("-") && !word.startsWith("/")) {
                shell = false;
            }
        }
        return flat;
    }

    /** {@code -c} and clusters that end in it ({@code -lc}), {@code /c}, {@code /k}, {@code -Command}. */
    private static boolean takesCommand(String option) {
        String lower = option.toLowerCase(Locale.ROOT);
        return lower.equals("/c") || lower.equals("/k") || lower.equals("-command")
                || lower.matches("-[a-z]*c");
    }

    /** A shell string's words; one that does not split (an unclosed quote) by its blanks alone. */
    private static List<String> split(String line) {
        try {
            return ShellWords.split(line);
        } catch (IllegalArgumentException e) {
            return List.of(line.strip().split("\\s+"));
        }
    }

    private static boolean isLauncher(String word) {
        String name = baseName(word);
        int version = name.indexOf('@', 1);
        String bare = version > 0 ? name.substring(0, version) : name;
        return LAUNCHERS.contains(bare) || MAIN_CLASSES.contains(word);
    }

    private static String baseName(String word) {
        int slash = Math.max(word.lastIndexOf('/'), word.lastIndexOf('\\'));
        return word.substring(slash + 1).toLowerCase(Locale.ROOT);
    }
}
