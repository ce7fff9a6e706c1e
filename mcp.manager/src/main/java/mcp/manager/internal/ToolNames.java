package mcp.manager.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The naming rule of bridged tools (SPEC §9): {@code mcp_<server>_<tool>}, each part lower-cased,
 * every run of characters outside {@code [a-z0-9_]} turned into one {@code _}, runs of {@code _}
 * collapsed, leading and trailing {@code _} trimmed, empty parts named {@code server} /
 * {@code tool}; a tool name that starts with {@code <server>_} loses that prefix once. A name over
 * {@value #MAX_LENGTH} characters is cut and given a stable hash suffix; names that collide in one
 * tool set get deterministic hash suffixes, so distinct tools never share a name.
 */
public final class ToolNames {

    /** The longest name: what the strictest model APIs accept. */
    public static final int MAX_LENGTH = 64;

    private ToolNames() {
    }

    /** A tool to name: its server's and its own original names. */
    public record Key(String server, String tool) {
    }

    /**
     * @param part a server or tool name
     * @return the part under the rule, possibly empty
     */
    static String sanitize(String part) {
        // One pass instead of two regular expressions (every tool of every server is named again on each
        // registry rebuild): keep [a-z0-9] runs, and join them with one '_' wherever anything else stood
        // between them; nothing else at either end. Lower-casing first, as before, because a non-ASCII
        // letter may lower-case to ASCII (the Kelvin sign to 'k').
        String lower = part.toLowerCase(Locale.ROOT);
        StringBuilder out = new StringBuilder(lower.length());
        boolean separator = false;
        for (int i = 0; i < lower.length(); i++) {
            char c = lower.charAt(i);
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
                if (separator && out.length() > 0) {
                    out.append('_');
                }
                separator = false;
                out.append(c);
            } else {
                separator = true;
            }
        }
        return out.toString();
    }

    /**
     * @param server the server's name
     * @param tool the tool's name on that server
     * @return the tool's name before collisions are resolved
     */
    public static String baseName(String server, String tool) {
        String serverPart = sanitize(server);
        if (serverPart.isEmpty()) {
            serverPart = "server";
        }
        String toolPart = sanitize(tool);
        if (toolPart.startsWith(serverPart + "_")) {
            toolPart = toolPart.substring(serverPart.length() + 1);
        }
        if (toolPart.isEmpty()) {
            toolPart = "tool";
        }
        String name = "mcp_" + serverPart + "_" + toolPart;
        return name.length() <= MAX_LENGTH ? name : withSuffix(name, hash(server, tool, 8));
    }

    /**
     * Names a set of tools: each gets its base name unless an earlier tool of the list has it, in
     * which case it gets a suffix derived from its own original names (so the suffix does not depend
     * on how many others collide).
     *
     * @param keys the tools, in a stable order
     * @return their names, in the same order, all distinct
     */
    public static List<String> assign(List<Key> keys) {
        Set<String> used = new HashSet<>();
        List<String> names = new ArrayList<>(keys.size());
        for (Key key : keys) {
            String base = baseName(key.server(), key.tool());
            String name = base;
            for (int attempt = 0; !used.add(name); attempt++) {
                String seed = attempt == 0 ? "" : "#" + attempt;
                name = withSuffix(base, hash(key.server(), key.tool() + seed, 6));
            }
            names.add(name);
        }
        return names;
    }

    private static String withSuffix(String name, String suffix) {
        String head = name.substring(0, Math.min(name.length(), MAX_LENGTH - suffix.length() - 1));
        while (head.endsWith("_")) {
            head = head.substring(0, head.length() - 1);
        }
        return head + "_" + suffix;
    }

    private static String hash(String server, String tool, int hexDigits) {
        return Sha256.hex(server + "\u0000" + tool).substring(0, hexDigits);
    }
}
