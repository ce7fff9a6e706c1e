package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.Map;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.CallPolicy;
import mcp.api.OwnerState;
import mcp.api.OwnerState.Kind;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;
import mcp.api.ToolRule;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.MissingNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the user decided in Gemini CLI about the servers of this folder (checked against
 * {@code gemini mcp list} of Gemini CLI 0.61.0, see docs/discovery.md):
 * <ul>
 *   <li><b>Folder trust</b> is on unless the user's settings say {@code security.folderTrust.enabled:
 *       false}. Then the working directory must be trusted in {@code ~/.gemini/trustedFolders.json}
 *       ({@code "<dir>": "TRUST_FOLDER"} trusts it and what is below; {@code "TRUST_PARENT"} trusts the
 *       parent of the key and what is below; {@code "DO_NOT_TRUST"} distrusts; the longest matching
 *       folder decides). In an untrusted folder every server is inactive, the user's too.</li>
 *   <li>{@code mcp.allowed}: a server it does not name is blocked; {@code mcp.excluded}: a server it
 *       names is blocked; each from the settings file of highest precedence that sets it (system, then the
 *       workspace's in a trusted folder, then the user's). Folder trust is switched by the system or the
 *       user settings only.</li>
 * </ul>
 * A trust file that cannot be read is a problem of that file and trusts nothing.
 *
 * @param folder the working directory's trust, when folder trust is on: trusted, or untrusted (then no server
 *     starts)
 * @param allowed {@code mcp.allowed}, when the user's settings have it
 * @param excluded {@code mcp.excluded}
 * @param allowedIn the settings file {@code allowed} is from, for the reason
 * @param excludedIn the settings file {@code excluded} is from, for the reason
 */
record GeminiConsent(Optional<OwnerState> folder, Optional<Set<String>> allowed,
        Set<String> excluded, Path allowedIn, Path excludedIn) {

    /** One settings file that was read, with its path. */
    record Settings(ObjectNode node, Path path) {
    }

    /**
     * @param system the system settings, if any
     * @param user the user's settings, if any
     * @param workspace the workspace settings, whose lists count only in a trusted folder
     */
    static GeminiConsent read(Optional<Settings> system, Optional<Settings> user, Optional<Settings> workspace,
            SearchPath search, Findings findings) {
        boolean trustOn = Stream.of(system, user).flatMap(Optional::stream)
                .map(s -> s.node().path("security").path("folderTrust").path("enabled"))
                .filter(JsonNode::isBoolean).map(JsonNode::asBoolean).findFirst().orElse(true);
        Optional<OwnerState> folder = Optional.empty();
        if (trustOn) {
            Path file = search.home().resolve(".gemini/trustedFolders.json");
            Optional<ObjectNode> folders = ConfigReader.read(
                    new ConfigFile(file, SourceMetadata.Level.USER, search.projectRoot(), Format.JSON), findings);
            Path cwd = search.workingDirectory();
            folder = Optional.of(folders.map(rules -> trusted(rules, cwd)).orElse(false)
                    ? new OwnerState(Kind.TRUSTED, "the folder " + cwd + " is trusted in Gemini CLI (" + file + ")")
                    : new OwnerState(Kind.UNTRUSTED_FOLDER, "the folder " + cwd + " is not trusted in Gemini CLI, which"
                            + " then starts no server: trust it when `gemini` asks (or in " + file + ")"));
        }
        List<Settings> byPrecedence = new ArrayList<>();
        system.ifPresent(byPrecedence::add);
        if (folder.map(OwnerState::startsServer).orElse(true)) {
            workspace.ifPresent(byPrecedence::add);
        }
        user.ifPresent(byPrecedence::add);
        Optional<Settings> allowedIn = setting(byPrecedence, "allowed");
        Optional<Settings> excludedIn = setting(byPrecedence, "excluded");
        Path none = search.home().resolve(".gemini/settings.json");
        return new GeminiConsent(folder, allowedIn.flatMap(s -> names(s.node().path("mcp").get("allowed"))),
                excludedIn.flatMap(s -> names(s.node().path("mcp").get("excluded"))).orElse(Set.of()),
                allowedIn.map(Settings::path).orElse(none), excludedIn.map(Settings::path).orElse(none));
    }

    private static Optional<Settings> setting(List<Settings> byPrecedence, String key) {
        return byPrecedence.stream().filter(s -> s.node().path("mcp").path(key).isArray()).findFirst();
    }

    private static Optional<Set<String>> names(JsonNode list) {
        if (list == null || !list.isArray()) {
            return Optional.empty();
        }
        return Optional.of(list.valueStream().filter(JsonNode::isString).map(JsonNode::asString)
                .collect(Collectors.toUnmodifiableSet()));
    }

    /** The nearest folder that a rule covers and that holds {@code cwd} decides; no rule, untrusted. */
    private static boolean trusted(ObjectNode folders, Path cwd) {
        int nearest = -1;
        boolean trusted = false;
        for (Map.Entry<String, JsonNode> rule : folders.properties()) {
            String level = rule.getValue().asString("");
            Optional<Path> covered = SearchPath.absolutePath(rule.getKey())
                    .map(key -> level.equals("TRUST_PARENT") ? key.getParent() : key);
            boolean known = level.equals("TRUST_FOLDER") || level.equals("TRUST_PARENT") || level.equals("DO_NOT_TRUST");
            if (known && covered.isPresent() && cwd.startsWith(covered.get())
                    && covered.get().getNameCount() >= nearest) {
                nearest = covered.get().getNameCount();
                trusted = !level.equals("DO_NOT_TRUST");
            }
        }
        return trusted;
    }

    /**
     * Gemini CLI's policy engine lets a server named in {@code mcp.allowed} run its tools without confirmation
     * ({@code Settings (MCP Allowed)} of its {@code createPolicyEngineConfig}).
     *
     * @param server a Gemini CLI server
     * @return that rule for it, or none
     */
    List<ToolRule> rules(ServerSpec server) {
        if (allowed.filter(names -> names.contains(server.name())).isEmpty()) {
            return List.of();
        }
        return List.of(new ToolRule(CallPolicy.Decision.ALLOW, new ToolRule.Match.AnyTool(), GeminiSource.OWNER,
                "mcp.allowed", Optional.of(allowedIn)));
    }

    /** @return what Gemini CLI decided about this server here, or empty when nothing had to be decided */
    Optional<OwnerState> decide(ServerSpec server) {
        if (folder.filter(state -> !state.startsServer()).isPresent()) {
            return folder;
        }
        if (allowed.isPresent() && !allowed.get().contains(server.name())) {
            return Optional.of(new OwnerState(Kind.BLOCKED, "blocked in Gemini CLI: mcp.allowed of " + allowedIn
                    + " does not name it"));
        }
        if (excluded.contains(server.name())) {
            return Optional.of(new OwnerState(Kind.BLOCKED, "blocked in Gemini CLI: mcp.excluded of " + excludedIn
                    + " names it"));
        }
        return folder;
    }
}
