package mcp.config.internal.sources;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import mcp.api.OwnerState;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata.Level;
import mcp.config.internal.Expansion;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Claude Code's managed MCP policy, read as its documentation describes it
 * (https://code.claude.com/docs/en/managed-mcp) and checked against Claude Code 2.1.328 where it runs here:
 * <ul>
 *   <li>{@code managed-mcp.json} in the managed directory ({@code /etc/claude-code} on Linux,
 *       {@code /Library/Application Support/ClaudeCode} on macOS, {@code C:\Program Files\ClaudeCode} on
 *       Windows): when present, Claude Code loads only its servers; every other Claude Code server is
 *       inactive. A file that cannot be read still takes control, with no servers (fail closed).</li>
 *   <li>{@code allowedMcpServers} / {@code deniedMcpServers}: entries of one key each, {@code serverName}
 *       (exact), {@code serverCommand} (the exact argv) or {@code serverUrl} (with {@code *} wildcards, the
 *       host case-insensitive, a pattern without a path matching every path). The lists merge from the
 *       managed settings ({@code managed-settings.json} beside {@code managed-mcp.json}), the user's
 *       {@code ~/.claude/settings.json} and, in a folder trusted in Claude Code, the project's settings; a
 *       project's deny list counts even untrusted (it can only block). {@code allowManagedMcpServersOnly}
 *       in the managed settings keeps the managed allow list only.</li>
 *   <li>A denied server never loads. When an allow list is set anywhere, a stdio server must match a
 *       {@code serverCommand} entry (a {@code serverName} one when there is none), a remote server a
 *       {@code serverUrl} entry (likewise); an empty list allows nothing. Servers of
 *       {@code managed-mcp.json} skip the allow list unless they use {@code ${VAR}}.</li>
 *   <li>Commands and URLs are compared after {@code ${VAR}} expansion on both sides (a server's values
 *       only where Claude Code expands them).</li>
 * </ul>
 * The managed directory can be moved with the environment variable {@value #DIRECTORY_VARIABLE} (an
 * absolute path), for tests and unusual installs.
 *
 * @param managedFile {@code managed-mcp.json}, when it exists
 * @param allow the merged allow list, absent when no place sets one
 * @param deny the merged deny list
 * @param environment the variables policy entries and servers expand from
 */
record ClaudePolicy(Optional<ConfigFile> managedFile, Optional<List<Rule>> allow, List<Rule> deny,
        Map<String, String> environment) {

    /** Moves the managed directory (absolute path). */
    static final String DIRECTORY_VARIABLE = "MCP_HOST_CLAUDE_MANAGED_DIR";

    private static final String ALLOWED = "allowedMcpServers";
    private static final String DENIED = "deniedMcpServers";

    /** One entry of a list, and where it was written (for the reason). */
    record Rule(String key, JsonNode value, String where) {
    }

    static ClaudePolicy read(ClaudeConsent consent, SearchPath search, Findings findings) {
        Path directory = managedDirectory(search.environment());
        Path root = consent.projectRoot();
        Path managedSettings = directory.resolve("managed-settings.json");
        Optional<ObjectNode> managed = ConfigReader.read(new ConfigFile(managedSettings, Level.USER, root, Format.JSON),
                findings);
        boolean managedOnly = managed.map(m -> m.path("allowManagedMcpServersOnly").asBoolean(false)).orElse(false);

        List<Rule> deny = new ArrayList<>();
        List<Rule> allow = null; // null: no place sets an allow list, so every server is allowed
        List<ClaudeConsent.Lists> places = new ArrayList<>();
        managed.ifPresent(m -> places.add(new ClaudeConsent.Lists(managedSettings.toString(), managedSettings, m)));
        places.addAll(consent.lists());
        for (ClaudeConsent.Lists place : places) {
            rules(place, DENIED, findings).ifPresent(deny::addAll);
            boolean isManaged = managed.isPresent() && place == places.get(0);
            Optional<List<Rule>> allowed = isManaged || !managedOnly ? rules(place, ALLOWED, findings) : Optional.empty();
            if (allowed.isPresent()) {
                allow = allow == null ? new ArrayList<>() : allow;
                allow.addAll(allowed.get());
            }
        }
        if (!consent.trusted()) {
            // An untrusted project's settings cannot approve or widen anything, but a deny list only blocks.
            for (String name : List.of(".claude/settings.json", ".claude/settings.local.json")) {
                Path path = root.resolve(name).normalize();
                ConfigReader.read(new ConfigFile(path, Level.PROJECT, root, Format.JSON), new Findings())
                        .flatMap(node -> rules(new ClaudeConsent.Lists(path.toString(), path, node), DENIED, new Findings()))
                        .ifPresent(deny::addAll);
            }
        }
        Path managedMcp = directory.resolve("managed-mcp.json");
        Optional<ConfigFile> managedFile = Files.exists(managedMcp)
                ? Optional.of(new ConfigFile(managedMcp, Level.USER, root, Format.JSON)) : Optional.empty();
        return new ClaudePolicy(managedFile, Optional.ofNullable(allow).map(List::copyOf), List.copyOf(deny),
                search.environment());
    }

    private static Path managedDirectory(Map<String, String> environment) {
        return Platform.current().machinePath(environment, DIRECTORY_VARIABLE, "/etc/claude-code",
                "/Library/Application Support/ClaudeCode", "C:\\Program Files\\ClaudeCode");
    }

    /**
     * @return the list's valid entries, or empty when the place does not set the list; a bad entry is reported
     *     and dropped
     */
    private static Optional<List<Rule>> rules(ClaudeConsent.Lists place, String key, Findings findings) {
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

    /** @return that Claude Code's policy keeps this (non-managed) server from loading, or empty */
    Optional<OwnerState> decide(ServerSpec server) {
        if (managedFile.isPresent()) {
            return blocked("not in Claude Code's managed-mcp.json (" + managedFile.get().path()
                    + "), which has exclusive control over Claude Code's MCP servers");
        }
        return check(server, true);
    }

    /** @return that a server of {@code managed-mcp.json} does not load, or empty */
    Optional<OwnerState> decideManaged(ServerSpec server) {
        return check(server, usesVariables(server));
    }

    private Optional<OwnerState> check(ServerSpec server, boolean allowListApplies) {
        List<String> argv = argv(server);
        Optional<String> url = server.url().filter(u -> argv.isEmpty()).map(u -> expanded(u, server.expandVariables()));
        for (Rule rule : deny) {
            if (matches(rule, server.name(), argv, url)) {
                return blocked("blocked by Claude Code's managed policy (" + DENIED + " in " + rule.where() + ")");
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
        return blocked("not allowed by Claude Code's managed policy (" + ALLOWED + " of "
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

    private static boolean usesVariables(ServerSpec server) {
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
