package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * Claude Code's config files ({@code claude}, priority 80), servers under {@code mcpServers}, read as
 * Claude Code 2.1.328 reads them ({@code claude mcp list}, docs/discovery.md), in its precedence:
 * <ol>
 *   <li><b>local scope</b>: the {@code mcpServers} of the project's entry in {@code ~/.claude.json}
 *       ({@code projects["<project>"]}, the project being the repository root, else the working
 *       directory; level user, since the file is the user's);</li>
 *   <li><b>project scope</b>: {@code .mcp.json} of the working directory and of every parent up to the
 *       file system's root, nearest first (Claude Code does not stop at the repository root);</li>
 *   <li><b>user scope</b>: the top-level {@code mcpServers} of {@code ~/.claude.json}.</li>
 * </ol>
 * {@code ${VAR}} and {@code ${VAR:-default}} are expanded in every scope (command, args, env, url,
 * headers). The {@code type} decides the transport: {@code stdio}
 * (the default when there is no {@code url}), {@code http} (alias {@code streamable-http}), {@code sse};
 * with a type, the other transport's field is ignored; an entry with a {@code url} and no type is skipped
 * with Claude Code's own warning, and {@code ws} (Claude Code's WebSocket transport) is reported as not
 * supported. {@code MCP_TIMEOUT} and {@code MCP_TOOL_TIMEOUT} of the environment (milliseconds) are the
 * startup and tool-call timeouts of every Claude Code server. The rest of {@code ~/.claude.json} is
 * ignored but for what the user decided: approvals, a
 * server disabled for the project ({@link ClaudeConsent}), the administrator's managed policy
 * ({@link ClaudePolicy}), and the permission rules of the servers' tools ({@link ClaudePermissions}).
 */
public final class ClaudeSource extends FileSource {

    private static final String SERVERS = "mcpServers";

    /** Creates the source; ServiceLoader calls this. */
    public ClaudeSource() {
        super("claude", "Claude Code", 80);
    }

    @Override
    void collect(Context context, SearchPath search, Findings findings) {
        ConfigFile claudeJson = userFile(search.home().resolve(".claude.json"), search);
        // Read once: the file feeds both the local and the user scope, and a problem is reported once.
        Optional<ObjectNode> root = readRoot(claudeJson, findings);
        ClaudeConsent consent = ClaudeConsent.read(root, search, findings);
        ClaudePolicy policy = ClaudePolicy.read(consent, search, findings);
        ClaudePermissions permissions = ClaudePermissions.read(consent, search, findings);
        // Every Claude Code server, whatever its scope, gets the permission rules of its tools.
        Findings ruled = permissions.isEmpty() ? findings : findings.withToolRules(permissions::rules);
        Findings userAndLocal = ruled.withConsent(
                server -> policy.decide(server).or(() -> consent.disabledForProject(server)));
        Findings project = ruled.withConsent(server -> policy.decide(server).or(() -> consent.projectServer(server)));

        policy.managedFile().ifPresent(file -> readFile(file, search, ruled.withConsent(policy::decideManaged)));
        root.ifPresent(r -> guarded(claudeJson, "", findings, () -> SearchPath.folderEntry(r.get("projects"),
                consent.projectRoot()).ifPresent(entry -> readServers(claudeJson, entry.getValue(),
                        Pointers.child("/projects", entry.getKey()), SERVERS, search, userAndLocal))));
        for (ConfigFile file : projectConfigFiles(search, List.of(claudeJson.path()))) {
            readFile(file, search, project);
        }
        root.ifPresent(r -> guarded(claudeJson, "", findings,
                () -> readServers(claudeJson, r, "", SERVERS, search, userAndLocal)));
    }

    @Override
    List<String> projectFiles() {
        return List.of(".mcp.json");
    }

    /** Every folder from the working directory up to the root: Claude Code does not stop at the repository's. */
    @Override
    List<Path> projectDirectories(SearchPath search) {
        return search.ancestors();
    }

    @Override
    void readServer(ServerEntry entry, SpecBuilder spec) {
        CommonShape.read(entry, spec);
        // Claude Code's timeouts are environment variables (milliseconds), for every server alike.
        spec.timeoutMillis = spec.timeoutMillis.or(() -> millis(entry.environment().get("MCP_TIMEOUT")));
        spec.toolTimeoutMillis = spec.toolTimeoutMillis.or(() -> millis(entry.environment().get("MCP_TOOL_TIMEOUT")));
        Optional<String> type = spec.type.map(t -> t.trim().toLowerCase(Locale.ROOT));
        if (type.isEmpty()) {
            if (spec.command.isPresent()) {
                spec.url = Optional.empty(); // stdio: Claude Code ignores a url beside the command
            } else if (spec.url.isPresent()) {
                entry.error(Pointers.child(entry.pointer(), "url"), "has a \"url\" but no \"type\"; Claude Code skips it:"
                        + " add \"type\": \"http\" (or \"sse\") to this entry");
            }
            return;
        }
        switch (type.get()) {
            case "stdio":
                spec.url = Optional.empty();
                spec.headers.clear();
                break;
            case "http":
            case "streamable-http":
                spec.type = Optional.of("http");
                dropStdioFields(spec);
                break;
            case "sse":
                dropStdioFields(spec);
                break;
            case "ws":
                entry.error(Pointers.child(entry.pointer(), "type"), "uses Claude Code's WebSocket transport (\"ws\"),"
                        + " which mcp-host does not support");
                break;
            default:
                entry.error(Pointers.child(entry.pointer(), "type"), "unknown MCP server type \""
                        + spec.type.orElse("") + "\"; Claude Code skips it");
                break;
        }
    }

    private static Optional<Long> millis(String value) {
        try {
            return value == null ? Optional.empty() : Optional.of(Long.parseLong(value.trim())).filter(ms -> ms > 0);
        } catch (NumberFormatException e) {
            return Optional.empty(); // Claude Code ignores it too
        }
    }

    private static void dropStdioFields(SpecBuilder spec) {
        spec.command = Optional.empty();
        spec.args = List.of();
        spec.env.clear();
        spec.cwd = Optional.empty();
    }
}
