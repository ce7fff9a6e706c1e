package mcp.config.internal.sources;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.ConsultedFile;
import mcp.api.OwnerState;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata.Level;
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
 * @param rules the merged allow and deny lists
 */
record ClaudePolicy(Optional<ConfigFile> managedFile, ServerRules rules) {

    /** Moves the managed directory (absolute path). */
    static final String DIRECTORY_VARIABLE = "MCP_HOST_CLAUDE_MANAGED_DIR";

    static ClaudePolicy read(ClaudeConsent consent, SearchPath search, Findings findings) {
        Path directory = managedDirectory(search.environment());
        Path root = consent.projectRoot();
        Path managedSettings = directory.resolve("managed-settings.json");
        Optional<ClaudeConsent.Lists> managed = ConfigReader.read(
                new ConfigFile(managedSettings, Level.USER, root, Format.JSON), findings)
                .map(node -> new ClaudeConsent.Lists(managedSettings.toString(), managedSettings, node));
        boolean managedOnly = managed.map(m -> m.node().path("allowManagedMcpServersOnly").asBoolean(false))
                .orElse(false);

        List<ServerRules.Rule> deny = new ArrayList<>();
        List<ServerRules.Rule> allow = null; // null: no place sets an allow list, so every server is allowed
        List<ClaudeConsent.Lists> places = new ArrayList<>();
        managed.ifPresent(places::add);
        places.addAll(consent.lists());
        for (ClaudeConsent.Lists place : places) {
            ServerRules.rules(place, ServerRules.DENIED, findings).ifPresent(deny::addAll);
            if (managedOnly && place != managed.get()) {
                continue; // allowManagedMcpServersOnly: the others' allow lists do not count
            }
            Optional<List<ServerRules.Rule>> allowed = ServerRules.rules(place, ServerRules.ALLOWED, findings);
            if (allowed.isPresent()) {
                allow = allow == null ? new ArrayList<>() : allow;
                allow.addAll(allowed.get());
            }
        }
        if (!consent.trusted()) {
            // An untrusted project's settings cannot approve or widen anything, but a deny list only blocks.
            for (String name : List.of(".claude/settings.json", ".claude/settings.local.json")) {
                Path path = root.resolve(name).normalize();
                ConfigReader.read(new ConfigFile(path, Level.PROJECT, root, Format.JSON), findings.detached())
                        .flatMap(node -> ServerRules.rules(new ClaudeConsent.Lists(path.toString(), path, node),
                                ServerRules.DENIED, findings.detached()))
                        .ifPresent(deny::addAll);
            }
        }
        Path managedMcp = directory.resolve("managed-mcp.json");
        Optional<ConfigFile> managedFile = Files.exists(managedMcp) || Files.isSymbolicLink(managedMcp)
                ? Optional.of(new ConfigFile(managedMcp, Level.USER, root, Format.JSON)) : Optional.empty();
        if (managedFile.isEmpty()) {
            // Read by the source when it is there; its coming takes control, so its absence is watched too.
            findings.consulted(new ConsultedFile(managedMcp, ConsultedFile.State.MISSING));
        }
        return new ClaudePolicy(managedFile, new ServerRules("Claude Code's managed policy",
                Optional.ofNullable(allow).map(List::copyOf), List.copyOf(deny), search.environment()));
    }

    static Path managedDirectory(Map<String, String> environment) {
        return Platform.current().machinePath(environment, DIRECTORY_VARIABLE, "/etc/claude-code",
                "/Library/Application Support/ClaudeCode", "C:\\Program Files\\ClaudeCode");
    }

    /** @return that Claude Code's policy keeps this (non-managed) server from loading, or empty */
    Optional<OwnerState> decide(ServerSpec server) {
        if (managedFile.isPresent()) {
            return Optional.of(new OwnerState(OwnerState.Kind.BLOCKED, "not in Claude Code's managed-mcp.json ("
                    + managedFile.get().path() + "), which has exclusive control over Claude Code's MCP servers"));
        }
        return rules.check(server, true);
    }

    /** @return that a server of {@code managed-mcp.json} does not load, or empty */
    Optional<OwnerState> decideManaged(ServerSpec server) {
        return rules.check(server, ServerRules.usesVariables(server));
    }
}
