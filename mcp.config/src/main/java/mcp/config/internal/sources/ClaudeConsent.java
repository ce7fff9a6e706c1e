package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the user decided in Claude Code about the servers of this folder, read as Claude Code reads it
 * (checked against {@code claude mcp list} of Claude Code 2.1.328, see docs/discovery.md):
 * <ul>
 *   <li>A <b>project server</b> (from {@code .mcp.json}) runs only once approved: named in
 *       {@code enabledMcpjsonServers}, or {@code enableAllProjectMcpServers: true}. Named in
 *       {@code disabledMcpjsonServers} anywhere, it is declined, whatever else says.</li>
 *   <li>The lists count from the user's {@code ~/.claude/settings.json} always; from the project's
 *       {@code .claude/settings.json} and {@code .claude/settings.local.json}, and from the project's
 *       entry in {@code ~/.claude.json}, only when that entry says {@code hasTrustDialogAccepted: true}:
 *       a cloned repository cannot approve its own servers.</li>
 *   <li>The project is the repository root (else the working directory), as Claude Code keys it;
 *       trusting a parent folder does not count for it.</li>
 *   <li>{@code disabledMcpServers} of the project's entry disables any server of that name for the
 *       project (Claude Code applies it to user and local servers; applied to project servers too,
 *       since a disabled name must never start).</li>
 * </ul>
 * A settings file that cannot be read is a problem of that file and approves nothing.
 */
final class ClaudeConsent {

    private static final String ENABLED = "enabledMcpjsonServers";
    private static final String DISABLED = "disabledMcpjsonServers";
    private static final String ENABLE_ALL = "enableAllProjectMcpServers";

    /** One place that may hold the lists, and the file it is in (for the reason). */
    private record Lists(String where, ObjectNode node) {
        boolean names(String key, String server) {
            JsonNode list = node.get(key);
            if (list == null || !list.isArray()) {
                return false;
            }
            for (JsonNode item : list) {
                if (item.isString() && item.asString().equals(server)) {
                    return true;
                }
            }
            return false;
        }

        boolean enablesAll() {
            JsonNode all = node.get(ENABLE_ALL);
            return all != null && all.isBoolean() && all.asBoolean();
        }
    }

    private final Path projectRoot;
    private final boolean trusted;
    private final List<Lists> lists;
    private final Optional<Lists> projectEntry;

    private ClaudeConsent(Path projectRoot, boolean trusted, List<Lists> lists, Optional<Lists> projectEntry) {
        this.projectRoot = projectRoot;
        this.trusted = trusted;
        this.lists = lists;
        this.projectEntry = projectEntry;
    }

    /**
     * @param claudeJson {@code ~/.claude.json}, already read (empty when missing or broken)
     * @param findings where problems of the settings files go
     */
    static ClaudeConsent read(Optional<ObjectNode> claudeJson, SearchPath search, Findings findings) {
        Path root = search.projectRoot();
        Optional<Lists> entry = claudeJson.flatMap(r -> projectEntry(r, root))
                .map(node -> new Lists("~/.claude.json (projects[\"" + root + "\"])", node));
        boolean trusted = entry.map(e -> e.node().path("hasTrustDialogAccepted").asBoolean(false)).orElse(false);
        List<Lists> lists = new ArrayList<>();
        settings(search.home().resolve(".claude/settings.json"), SourceMetadata.Level.USER, root, findings)
                .ifPresent(lists::add);
        if (trusted) {
            settings(root.resolve(".claude/settings.json"), SourceMetadata.Level.PROJECT, root, findings)
                    .ifPresent(lists::add);
            settings(root.resolve(".claude/settings.local.json"), SourceMetadata.Level.PROJECT, root, findings)
                    .ifPresent(lists::add);
            entry.ifPresent(lists::add);
        }
        return new ClaudeConsent(root, trusted, lists, entry);
    }

    private static Optional<Lists> settings(Path path, SourceMetadata.Level level, Path root, Findings findings) {
        ConfigFile file = new ConfigFile(path.normalize(), level, root, Format.JSON);
        return ConfigReader.read(file, findings).map(node -> new Lists(path.toString(), node));
    }

    /** Claude Code writes the keys as absolute paths; compare them as paths (a trailing '/', '..'). */
    private static Optional<ObjectNode> projectEntry(ObjectNode claudeJson, Path root) {
        JsonNode projects = claudeJson.get("projects");
        if (projects == null || !projects.isObject()) {
            return Optional.empty();
        }
        for (String key : projects.propertyNames()) {
            JsonNode project = projects.get(key);
            if (project.isObject() && SearchPath.absolutePath(key).filter(root::equals).isPresent()) {
                return Optional.of((ObjectNode) project);
            }
        }
        return Optional.empty();
    }

    /** @return why Claude Code would not start this {@code .mcp.json} server here, or empty when approved */
    Optional<String> projectServer(ServerSpec server) {
        Optional<String> disabled = disabledForProject(server);
        if (disabled.isPresent()) {
            return disabled;
        }
        String name = server.name();
        for (Lists place : lists) {
            if (place.names(DISABLED, name)) {
                return Optional.of("declined in Claude Code (" + DISABLED + " in " + place.where() + ")");
            }
        }
        for (Lists place : lists) {
            if (place.enablesAll() || place.names(ENABLED, name)) {
                return Optional.empty();
            }
        }
        return Optional.of("pending approval in Claude Code"
                + (trusted ? "" : " (the folder " + projectRoot + " is not trusted in Claude Code)")
                + ": approve it in `claude` (/mcp), or name it in " + ENABLED + " of ~/.claude/settings.json");
    }

    /** @return why Claude Code would not start this user or local server here, or empty */
    Optional<String> disabledForProject(ServerSpec server) {
        return projectEntry.filter(entry -> entry.names("disabledMcpServers", server.name()))
                .map(entry -> "disabled for this project in Claude Code (disabledMcpServers in " + entry.where()
                        + "): enable it in `claude` (/mcp)");
    }
}
