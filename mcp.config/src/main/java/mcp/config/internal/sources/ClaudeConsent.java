package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import mcp.api.OwnerState;
import mcp.api.OwnerState.Kind;
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
 *
 * @param projectRoot the project as Claude Code keys it
 * @param lists the places whose lists count, the user's settings first
 * @param projectEntry the project's entry in {@code ~/.claude.json}, if any (its trust decides the rest)
 */
record ClaudeConsent(Path projectRoot, List<Lists> lists, Optional<Lists> projectEntry) {

    private static final String ENABLED = "enabledMcpjsonServers";
    private static final String DISABLED = "disabledMcpjsonServers";
    private static final String ENABLE_ALL = "enableAllProjectMcpServers";

    /** One place that may hold the lists: where, for a reason; the file it is in, for a problem. */
    record Lists(String where, Path file, ObjectNode node) {
        boolean names(String key, String server) {
            JsonNode list = node.get(key);
            return list != null && list.isArray()
                    && list.valueStream().anyMatch(item -> item.isString() && item.asString().equals(server));
        }

        boolean enablesAll() {
            JsonNode all = node.get(ENABLE_ALL);
            return all != null && all.isBoolean() && all.asBoolean();
        }
    }

    /**
     * @param claudeJson {@code ~/.claude.json}, already read (empty when missing or broken)
     * @param findings where problems of the settings files go
     */
    static ClaudeConsent read(Optional<ObjectNode> claudeJson, SearchPath search, Findings findings) {
        Path root = search.projectRoot();
        Optional<Lists> entry = claudeJson.flatMap(r -> SearchPath.folderEntry(r.get("projects"), root))
                .map(project -> new Lists("~/.claude.json (projects[\"" + project.getKey() + "\"])",
                        search.home().resolve(".claude.json"), project.getValue()));
        List<Lists> lists = new ArrayList<>();
        settings(search.home().resolve(".claude/settings.json"), SourceMetadata.Level.USER, root, findings)
                .ifPresent(lists::add);
        if (trusts(entry)) {
            settings(root.resolve(".claude/settings.json"), SourceMetadata.Level.PROJECT, root, findings)
                    .ifPresent(lists::add);
            settings(root.resolve(".claude/settings.local.json"), SourceMetadata.Level.PROJECT, root, findings)
                    .ifPresent(lists::add);
            entry.ifPresent(lists::add);
        }
        return new ClaudeConsent(root, List.copyOf(lists), entry);
    }

    /** @return whether the project's folder is trusted in Claude Code, so that its settings count */
    boolean trusted() {
        return trusts(projectEntry);
    }

    private static boolean trusts(Optional<Lists> projectEntry) {
        return projectEntry.map(e -> e.node().path("hasTrustDialogAccepted").asBoolean(false)).orElse(false);
    }

    private static Optional<Lists> settings(Path path, SourceMetadata.Level level, Path root, Findings findings) {
        ConfigFile file = new ConfigFile(path.normalize(), level, root, Format.JSON);
        return ConfigReader.read(file, findings).map(node -> new Lists(path.toString(), file.path(), node));
    }

    /** @return what Claude Code decided about this {@code .mcp.json} server here: approved, or why not */
    Optional<OwnerState> projectServer(ServerSpec server) {
        Optional<OwnerState> disabled = disabledForProject(server);
        if (disabled.isPresent()) {
            return disabled;
        }
        String name = server.name();
        for (Lists place : lists) {
            if (place.names(DISABLED, name)) {
                return state(Kind.DECLINED, "declined in Claude Code (" + DISABLED + " in " + place.where() + ")");
            }
        }
        for (Lists place : lists) {
            if (place.enablesAll() || place.names(ENABLED, name)) {
                return state(Kind.APPROVED, "approved in Claude Code (" + (place.enablesAll() ? ENABLE_ALL : ENABLED)
                        + " in " + place.where() + ")");
            }
        }
        return state(Kind.PENDING_APPROVAL, "pending approval in Claude Code"
                + (trusts(projectEntry) ? "" : " (the folder " + projectRoot + " is not trusted in Claude Code)")
                + ": approve it in `claude` (/mcp), or name it in " + ENABLED + " of ~/.claude/settings.json");
    }

    /** @return that Claude Code disabled this user or local server for the project, or empty */
    Optional<OwnerState> disabledForProject(ServerSpec server) {
        return projectEntry.filter(entry -> entry.names("disabledMcpServers", server.name()))
                .flatMap(entry -> state(Kind.DISABLED_FOR_PROJECT, "disabled for this project in Claude Code"
                        + " (disabledMcpServers in " + entry.where() + "): enable it in `claude` (/mcp)"));
    }

    private static Optional<OwnerState> state(Kind kind, String reason) {
        return Optional.of(new OwnerState(kind, reason));
    }
}
