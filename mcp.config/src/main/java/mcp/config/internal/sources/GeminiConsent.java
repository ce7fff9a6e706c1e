package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;
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
 *   <li>{@code mcp.allowed} of the user's settings: a server it does not name is blocked;
 *       {@code mcp.excluded}: a server it names is blocked.</li>
 * </ul>
 * A trust file that cannot be read is a problem of that file and trusts nothing.
 *
 * @param untrusted the reason when the working directory is not trusted
 * @param allowed {@code mcp.allowed}, when the user's settings have it
 * @param excluded {@code mcp.excluded}
 * @param settings the user's settings file, for the reasons
 */
record GeminiConsent(Optional<String> untrusted, Optional<Set<String>> allowed, Set<String> excluded,
        Path settings) {

    static GeminiConsent read(Optional<ObjectNode> userSettings, Path settingsPath, SearchPath search, Findings findings) {
        boolean trustOn = userSettings.map(s -> s.path("security").path("folderTrust").path("enabled"))
                .filter(JsonNode::isBoolean).map(JsonNode::asBoolean).orElse(true);
        Optional<String> untrusted = Optional.empty();
        if (trustOn) {
            Path file = search.home().resolve(".gemini/trustedFolders.json");
            Optional<ObjectNode> folders = ConfigReader.read(
                    new ConfigFile(file, SourceMetadata.Level.USER, search.projectRoot(), Format.JSON), findings);
            Path cwd = search.workingDirectory();
            if (!folders.map(rules -> trusted(rules, cwd)).orElse(false)) {
                untrusted = Optional.of("the folder " + cwd + " is not trusted in Gemini CLI, which then starts no"
                        + " server: trust it when `gemini` asks (or in " + file + ")");
            }
        }
        JsonNode mcp = userSettings.map(s -> s.path("mcp")).orElse(MissingNode.getInstance());
        return new GeminiConsent(untrusted, names(mcp.get("allowed")), names(mcp.get("excluded")).orElse(Set.of()),
                settingsPath);
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

    /** @return why Gemini CLI would not start this server here, or empty */
    Optional<String> decide(ServerSpec server) {
        if (untrusted.isPresent()) {
            return untrusted;
        }
        if (allowed.isPresent() && !allowed.get().contains(server.name())) {
            return Optional.of("blocked in Gemini CLI: mcp.allowed of " + settings + " does not name it");
        }
        if (excluded.contains(server.name())) {
            return Optional.of("blocked in Gemini CLI: mcp.excluded of " + settings + " names it");
        }
        return Optional.empty();
    }
}
