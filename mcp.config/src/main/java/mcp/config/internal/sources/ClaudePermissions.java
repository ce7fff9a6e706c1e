package mcp.config.internal.sources;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import mcp.api.CallPolicy.Decision;
import mcp.api.ConsultedFile;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata.Level;
import mcp.api.ToolRule;
import mcp.api.ToolRule.Match;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Claude Code's {@code permissions.deny}, {@code permissions.ask} and {@code permissions.allow} rules for MCP tools,
 * read as Claude Code 2.1.328 applies them (each rule below was seen in the tool list it sent its model and in the
 * calls it let run in {@code claude -p}: interop/agents/regenerate.sh, scenarios {@code claude-permissions*}):
 * <ul>
 *   <li>The files: the managed settings ({@code managed-settings.json} and then every {@code *.json} of
 *       {@code managed-settings.d/}, by name, in the managed directory), the user's {@code ~/.claude/settings.json},
 *       the working directory's {@code .claude/settings.json} (not a parent's, not the repository root's), and the
 *       {@code .claude/settings.local.json} of the repository root and of the working directory (not of a folder
 *       between them). Their rules add up; {@code allowManagedPermissionRulesOnly: true} in the managed settings
 *       keeps the managed rules only.</li>
 *   <li>In a folder not trusted in Claude Code, the allow rules of the shared {@code .claude/settings.json} do not
 *       count (its deny and ask rules do, and so does the local file).</li>
 *   <li>A deny rule anywhere wins; then an ask rule anywhere; then an allow rule. A denied tool is not offered to
 *       the model. An ask rule asks even where an allow rule is more specific.</li>
 *   <li>A rule names the tool as Claude Code does, {@code mcp__<server>__<tool>}, each name with every character
 *       but letters, digits, {@code _} and {@code -} replaced by {@code _}; {@code mcp__<server>} is every tool of
 *       the server. {@code *} matches any characters ({@code mcp__github__delete_*}, {@code mcp__*}); an allow
 *       rule with a {@code *} counts only when it starts with a literal {@code mcp__<server>__}. A rule with
 *       parentheses, or {@code mcp__<server>__} with no tool, matches no MCP tool.</li>
 * </ul>
 *
 * @param deny the deny rules that count, in file order
 * @param ask the ask rules that count
 * @param allow the allow rules that count
 */
record ClaudePermissions(List<Written> deny, List<Written> ask, List<Written> allow) {

    private static final String PREFIX = "mcp__";
    private static final String OWNER = "Claude Code";

    /** One rule as a settings file writes it. */
    record Written(Decision decision, String text, Path file) {
        String shown() {
            return "permissions." + decision.id() + " \"" + text + "\"";
        }
    }

    /** One settings file whose rules count, with whether its allow rules do. */
    private record Place(Path file, ObjectNode node, boolean allows) {
    }

    static ClaudePermissions read(ClaudeConsent consent, SearchPath search, Findings findings) {
        Path root = consent.projectRoot();
        Path managedDirectory = ClaudePolicy.managedDirectory(search.environment());
        List<Place> managed = new ArrayList<>();
        read(managedDirectory.resolve("managed-settings.json"), Level.USER, root, findings)
                .ifPresent(node -> managed.add(new Place(managedDirectory.resolve("managed-settings.json"), node, true)));
        for (Path dropIn : dropIns(managedDirectory.resolve("managed-settings.d"), findings)) {
            read(dropIn, Level.USER, root, findings).ifPresent(node -> managed.add(new Place(dropIn, node, true)));
        }
        List<Place> places = new ArrayList<>(managed);
        boolean managedOnly = managed.stream()
                .anyMatch(place -> place.node().path("allowManagedPermissionRulesOnly").asBoolean(false));
        if (!managedOnly) {
            Path user = search.home().resolve(".claude/settings.json").normalize();
            read(user, Level.USER, root, findings).ifPresent(node -> places.add(new Place(user, node, true)));
            Path directory = search.workingDirectory();
            Path shared = directory.resolve(".claude/settings.json").normalize();
            read(shared, Level.PROJECT, root, findings)
                    .ifPresent(node -> places.add(new Place(shared, node, consent.trusted())));
            List<Path> locals = root.equals(directory) ? List.of(directory) : List.of(root, directory);
            for (Path folder : locals) {
                Path local = folder.resolve(".claude/settings.local.json").normalize();
                read(local, Level.PROJECT, root, findings).ifPresent(node -> places.add(new Place(local, node, true)));
            }
        }
        List<Written> deny = new ArrayList<>();
        List<Written> ask = new ArrayList<>();
        List<Written> allow = new ArrayList<>();
        for (Place place : places) {
            collect(place, Decision.DENY, deny);
            collect(place, Decision.ASK, ask);
            if (place.allows()) {
                collect(place, Decision.ALLOW, allow);
            }
        }
        return new ClaudePermissions(List.copyOf(deny), List.copyOf(ask), List.copyOf(allow));
    }

    /**
     * A settings file, its problem reported once: the approvals and the managed policy read some of the same
     * files, and report theirs.
     */
    private static Optional<ObjectNode> read(Path path, Level level, Path root, Findings findings) {
        Findings own = findings.detached();
        Optional<ObjectNode> node = ConfigReader.read(new ConfigFile(path.normalize(), level, root, Format.JSON), own);
        if (!findings.hasProblem(path.normalize())) {
            own.result().problems().forEach(findings::problem);
        }
        return node;
    }

    private static List<Path> dropIns(Path directory, Findings findings) {
        if (!Files.isDirectory(directory)) {
            findings.consulted(new ConsultedFile(directory, ConsultedFile.State.MISSING));
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            findings.consulted(new ConsultedFile(directory, ConsultedFile.State.LISTED));
            return files.filter(file -> file.getFileName().toString().endsWith(".json")).sorted().toList();
        } catch (IOException e) {
            return List.of(); // as unreadable as a missing directory: no rule from it
        }
    }

    private static void collect(Place place, Decision decision, List<Written> into) {
        JsonNode list = place.node().path("permissions").path(decision.id());
        if (!list.isArray()) {
            return;
        }
        for (JsonNode item : list) {
            if (item.isString() && item.asString().startsWith(PREFIX)) {
                into.add(new Written(decision, item.asString(), place.file()));
            }
        }
    }

    /** @return whether no rule counts, so that no server needs any */
    boolean isEmpty() {
        return deny.isEmpty() && ask.isEmpty() && allow.isEmpty();
    }

    /**
     * @param server a Claude Code server
     * @return the rules that concern its tools, in Claude Code's precedence: deny, ask, allow
     */
    List<ToolRule> rules(ServerSpec server) {
        String prefix = PREFIX + Match.Glob.normalize(server.name()) + "__";
        List<ToolRule> rules = new ArrayList<>();
        for (List<Written> kind : List.of(deny, ask, allow)) {
            for (Written written : kind) {
                match(written, prefix).ifPresent(match -> rules.add(new ToolRule(written.decision(), match, OWNER,
                        written.shown(), Optional.of(written.file()))));
            }
        }
        return rules;
    }

    /** What one rule matches of the server whose tools' names start with {@code prefix}, if anything. */
    private static Optional<Match> match(Written written, String prefix) {
        String text = written.text();
        if (text.contains("(") || text.contains(")")) {
            return Optional.empty(); // a content rule: Claude Code matches no MCP tool with it
        }
        if (!text.contains("*")) {
            if (text.equals(prefix.substring(0, prefix.length() - 2))) {
                return Optional.of(new Match.AnyTool());
            }
            return text.startsWith(prefix) && text.length() > prefix.length()
                    ? Optional.of(new Match.Glob(prefix, text)) : Optional.empty();
        }
        if (written.decision() == Decision.ALLOW) {
            // Claude Code keeps an allow wildcard only behind a literal server: mcp__<server>__...
            int separator = text.indexOf("__", PREFIX.length());
            String server = separator < 0 ? text.substring(PREFIX.length()) : text.substring(PREFIX.length(), separator);
            if (separator < 0 || server.contains("*") || !text.startsWith(prefix)) {
                return Optional.empty();
            }
        }
        return couldMatch(text, prefix) ? Optional.of(new Match.Glob(prefix, text)) : Optional.empty();
    }

    /** Whether the pattern matches a name that starts with {@code prefix}: one of this server's tools. */
    static boolean couldMatch(String glob, String prefix) {
        int g = 0;
        int t = 0;
        int star = -1;
        int resume = 0;
        while (t < prefix.length()) {
            if (g < glob.length() && glob.charAt(g) == '*') {
                star = g++;
                resume = t;
            } else if (g < glob.length() && glob.charAt(g) == prefix.charAt(t)) {
                g++;
                t++;
            } else if (star >= 0) {
                g = star + 1;
                t = ++resume;
            } else {
                return false;
            }
        }
        // The prefix is consumed; the rest of the pattern can match a tool's name (if it is not empty).
        return g < glob.length() || star >= 0;
    }
}
