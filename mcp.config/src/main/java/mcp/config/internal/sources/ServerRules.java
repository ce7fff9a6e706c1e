package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import mcp.api.OwnerState;
import mcp.api.ServerSpec;
import mcp.config.internal.Expansion;
import tools.jackson.databind.JsonNode;

/**
 * Allow and deny lists of MCP servers in Claude Code's terms (https://code.claude.com/docs/en/managed-mcp),
 * which mcp-host's own managed policy shares so that one policy reads the same in both: entries of one key,
 * {@code serverName} (exact), {@code serverCommand} (the exact argv) or {@code serverUrl} ({@code *}
 * wildcards, scheme and host without case, a pattern without a path matching every path). A denied server
 * never loads; with an allow list, a stdio server must match a {@code serverCommand} entry (a
 * {@code serverName} one counts only when there is none), a remote one a {@code serverUrl} entry (likewise);
 * an empty allow list allows nothing. Commands and URLs are compared after {@code ${VAR}} expansion on both
 * sides (a server's values only where its tool expands them).
 *
 * @param owner whose policy, for the reasons, e.g. {@code Claude Code's managed policy}
 * @param allow the allow list, absent when no place sets one
 * @param deny the deny list
 * @param environment the variables entries and servers expand from
 */
record ServerRules(String owner, Optional<List<ServerRules.Rule>> allow, List<ServerRules.Rule> deny,
        Map<String, String> environment) {

    static final String ALLOWED = "allowedMcpServers";
    static final String DENIED = "deniedMcpServers";

    /** One entry of a list, and where it was written (for the reason). */
    record Rule(String key, JsonNode value, String where) {
    }

    /**
     * @return the list's valid entries, or empty when the place does not set the list; a bad entry is reported
     *     and dropped
     */
    static Optional<List<Rule>> rules(ClaudeConsent.Lists place, String key, Findings findings) {
        JsonNode list = place.node().get(key);
        String where = place.where();
        Path file = place.file();
        if (list == null || list.isNull()) {
            return Optional.empty();
        }
        List<Rule> rules = new ArrayList<>();
        if (!list.isArray()) {
            findings.problem(file, "/" + key, "", "\"" + key + "\" must be an array; ignored");
            return Optional.of(rules);
        }
        for (int i = 0; i < list.size(); i++) {
            JsonNode item = list.get(i);
            Optional<Rule> rule = item.isObject() && item.size() == 1 ? Optional.of(item.properties().iterator().next())
                    .filter(e -> valid(e.getKey(), e.getValue())).map(e -> new Rule(e.getKey(), e.getValue(), where))
                    : Optional.empty();
            if (rule.isEmpty()) {
                // As Claude Code 2.1.154 and later: an invalid entry is dropped, not the whole list.
                findings.problem(file, "/" + key + "/" + i, "", "entry " + i + " of \"" + key
                        + "\" must have exactly one of serverName (a string), serverCommand (an array of strings) or"
                        + " serverUrl (a string); ignored");
            } else {
                rules.add(rule.get());
            }
        }
        return Optional.of(rules);
    }

    private static boolean valid(String key, JsonNode value) {
        switch (key) {
            case "serverName":
            case "serverUrl":
                return value.isString() && !value.stringValue().isEmpty();
            case "serverCommand":
                return value.isArray() && !value.isEmpty() && value.valueStream().allMatch(JsonNode::isString);
            default:
                return false;
        }
    }

    /**
     * @param allowListApplies false for a server its administrator provides (it skips the allow list)
     * @return that the rules keep the server from loading, or empty
     */
    Optional<OwnerState> check(ServerSpec server, boolean allowListApplies) {
        List<String> argv = argv(server);
        Optional<String> url = server.url().filter(u -> argv.isEmpty()).map(u -> expanded(u, server.expandVariables()));
        for (Rule rule : deny) {
            if (matches(rule, server.name(), argv, url)) {
                return blocked("blocked by " + owner + " (" + DENIED + " in " + rule.where() + ")");
            }
        }
        if (allow.isEmpty() || !allowListApplies) {
            return Optional.empty();
        }
        String strictKey = argv.isEmpty() ? "serverUrl" : "serverCommand";
        boolean strict = allow.get().stream().anyMatch(rule -> rule.key().equals(strictKey));
        for (Rule rule : allow.get()) {
            if ((strict ? rule.key().equals(strictKey) : rule.key().equals("serverName"))
                    && matches(rule, server.name(), argv, url)) {
                return Optional.empty();
            }
        }
        return blocked("not allowed by " + owner + " (" + ALLOWED + " of "
                + allow.get().stream().map(Rule::where).distinct().reduce((a, b) -> a + ", " + b).orElse("the settings")
                + " names no " + (strict ? (argv.isEmpty() ? "URL pattern" : "command") : "name") + " of this server)");
    }

    private static Optional<OwnerState> blocked(String reason) {
        return Optional.of(new OwnerState(OwnerState.Kind.BLOCKED, reason));
    }

    private boolean matches(Rule rule, String name, List<String> argv, Optional<String> url) {
        switch (rule.key()) {
            case "serverName":
                return rule.value().stringValue().equals(name);
            case "serverCommand":
                if (argv.isEmpty() || rule.value().size() != argv.size()) {
                    return false;
                }
                for (int i = 0; i < argv.size(); i++) {
                    if (!expanded(rule.value().get(i).stringValue(), true).equals(argv.get(i))) {
                        return false;
                    }
                }
                return true;
            default: // serverUrl
                return url.filter(u -> urlMatches(expanded(rule.value().stringValue(), true), u)).isPresent();
        }
    }

    /** @return the server's argv as Claude Code would spawn it, empty for a remote server */
    private List<String> argv(ServerSpec server) {
        if (server.command().isEmpty() || server.type().filter(t -> !t.equals("stdio")).isPresent()) {
            return List.of();
        }
        List<String> argv = new ArrayList<>();
        argv.add(expanded(server.command().get(), server.expandVariables()));
        server.args().forEach(arg -> argv.add(expanded(arg, server.expandVariables())));
        return argv;
    }

    private String expanded(String value, boolean expand) {
        return expand ? Expansion.expand(value, environment, unset -> { }) : value;
    }

    static boolean usesVariables(ServerSpec server) {
        List<String> values = new ArrayList<>(server.args());
        server.command().ifPresent(values::add);
        server.url().ifPresent(values::add);
        values.addAll(server.env().values());
        values.addAll(server.headers().values());
        return values.stream().anyMatch(v -> v.contains("${"));
    }

    /**
     * A URL pattern: {@code *} matches anything, anywhere; scheme and host compare without case, a trailing
     * dot of the host is ignored; the path compares with case, and a pattern without a path matches any.
     */
    static boolean urlMatches(String pattern, String url) {
        String[] p = split(pattern);
        String[] u = split(url);
        String path = p[1].isEmpty() ? "*" : p[1];
        return glob(p[0], true).matcher(u[0]).matches() && glob(path, false).matcher(u[1]).matches();
    }

    /** @return {scheme://authority lower-cased with the host's trailing dot removed, the rest} */
    private static String[] split(String url) {
        int scheme = url.indexOf("://");
        int slash = url.indexOf('/', scheme < 0 ? 0 : scheme + 3);
        String head = slash < 0 ? url : url.substring(0, slash);
        String rest = slash < 0 ? "" : url.substring(slash);
        head = head.toLowerCase(Locale.ROOT).replaceFirst("\\.(:[^:]*)?$", "$1");
        return new String[] {head, rest};
    }

    private static Pattern glob(String pattern, boolean ignoreCase) {
        List<String> parts = new ArrayList<>();
        for (String part : pattern.split("\\*", -1)) {
            parts.add(Pattern.quote(part));
        }
        return Pattern.compile(String.join(".*", parts), ignoreCase ? Pattern.CASE_INSENSITIVE : 0);
    }
}
