package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Claude Code's config files ({@code claude}, priority 80), servers under {@code mcpServers} in the
 * common shape, in Claude Code's own precedence (local, then project, then user scope):
 * <ol>
 *   <li><b>local scope</b>: {@code ~/.claude.json} keeps per-project state under
 *       {@code projects["<absolute directory>"]}; the {@code mcpServers} of the working directory
 *       and of each parent up to the repository root, nearest first (level user, since the file is
 *       the user's; location {@code /projects/<escaped directory>/mcpServers/<name>});</li>
 *   <li><b>project scope</b>: {@code .mcp.json} and {@code .claude/mcp.json} in each searched
 *       directory, nearest first;</li>
 *   <li><b>user scope</b>: the top-level {@code mcpServers} of {@code ~/.claude.json}; when that file
 *       has no such object (missing, unreadable, or without the key), {@code ~/.claude/mcp.json}.</li>
 * </ol>
 * The rest of {@code ~/.claude.json} (history, settings, other projects) is ignored, but for what
 * the user decided: a project-scope server that Claude Code would not start here (not approved,
 * declined) and a server disabled for this project are inactive, with Claude Code's reason (see
 * {@link ClaudeConsent}).
 */
public final class ClaudeSource extends FileSource {

    private static final String SERVERS = "mcpServers";

    /** Creates the source; ServiceLoader calls this. */
    public ClaudeSource() {
        super("claude", "Claude Code", 80);
    }

    @Override
    List<String> projectFiles() {
        return List.of(".mcp.json", ".claude/mcp.json");
    }

    @Override
    void collect(Context context, SearchPath search, Findings findings) {
        ConfigFile claudeJson = userFile(search.home().resolve(".claude.json"), search);
        ConfigFile fallback = userFile(search.home().resolve(".claude/mcp.json"), search);

        // Read once: the file feeds both the local and the user scope, and a problem is reported once.
        Optional<ObjectNode> root = readRoot(claudeJson, findings);
        ClaudeConsent consent = ClaudeConsent.read(root, search, findings);
        Findings userAndLocal = findings.withConsent(consent::disabledForProject);
        Findings project = findings.withConsent(consent::projectServer);

        root.ifPresent(r -> guarded(claudeJson, "", findings, () -> readLocalScope(claudeJson, r, search, userAndLocal)));
        for (ConfigFile file : projectConfigFiles(search, List.of(claudeJson.path(), fallback.path()))) {
            readFile(file, search, project);
        }
        root.ifPresent(r -> guarded(claudeJson, "", findings,
                () -> readServers(claudeJson, r, "", SERVERS, search, userAndLocal)));
        boolean hasUserServers = root.map(r -> r.get(SERVERS)).filter(JsonNode::isObject).isPresent();
        if (!hasUserServers) {
            readFile(fallback, search, userAndLocal);
        }
    }

    private void readLocalScope(ConfigFile claudeJson, ObjectNode root, SearchPath search, Findings findings) {
        for (Path dir : search.directories()) {
            SearchPath.folderEntry(root.get("projects"), dir).ifPresent(project -> readServers(claudeJson,
                    project.getValue(), Pointers.child("/projects", project.getKey()), SERVERS, search, findings));
        }
    }
}
