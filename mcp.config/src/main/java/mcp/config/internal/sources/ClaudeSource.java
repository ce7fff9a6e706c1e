package mcp.config.internal.sources;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import mcp.api.ConsultedFile;
import mcp.api.HeaderCommands;
import mcp.api.McpJson;
import mcp.api.ServerConfig.AuthRef;
import mcp.api.ServerSpec;
import tools.jackson.databind.JsonNode;
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
 * startup and tool-call timeouts of every Claude Code server.
 *
 * <p>A remote entry's {@code headersHelper} (a shell command printing a JSON object of headers) runs before the
 * connect and again when the server refuses a request, with {@code CLAUDE_CODE_MCP_SERVER_NAME} and
 * {@code CLAUDE_CODE_MCP_SERVER_URL} set, in {@code ~/.claude} for the user's and managed servers and in the working
 * directory for local and project ones, which only a folder trusted in Claude Code runs (as Claude Code 2.1.328
 * does). Its {@code oauth} block ({@code clientId}, {@code callbackPort}, {@code scopes},
 * {@code authServerMetadataUrl}) becomes the OAuth client of the server, with the redirect URI Claude Code
 * registers ({@code http://localhost:<port>/callback}), the port of {@code MCP_OAUTH_CALLBACK_PORT} when set, and
 * the client secret {@code claude mcp add --client-secret} keeps in {@code ~/.claude/.credentials.json}.
 *
 * <p>The rest of {@code ~/.claude.json} is ignored but for what the user decided: approvals, a
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
        Findings project = ruled.withConsent(server -> policy.decide(server).or(() -> consent.projectServer(server)))
                .withAdjustment(repoResident(consent, findings));
        // A helper of the user's or the administrator's runs where Claude Code runs it: in its own folder.
        UnaryOperator<ServerSpec> operator = spec -> helperIn(spec, search.home().resolve(".claude"));

        policy.managedFile().ifPresent(file -> readFile(file, search, ruled.withConsent(policy::decideManaged)
                .withAdjustment(operator)));
        root.ifPresent(r -> guarded(claudeJson, "", findings, () -> SearchPath.folderEntry(r.get("projects"),
                consent.projectRoot()).ifPresent(entry -> readServers(claudeJson, entry.getValue(),
                        Pointers.child("/projects", entry.getKey()), SERVERS, search,
                        userAndLocal.withAdjustment(repoResident(consent, findings))))));
        for (ConfigFile file : projectConfigFiles(search, List.of(claudeJson.path()))) {
            readFile(file, search, project);
        }
        root.ifPresent(r -> guarded(claudeJson, "", findings,
                () -> readServers(claudeJson, r, "", SERVERS, search, userAndLocal.withAdjustment(operator))));
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

    /**
     * The headers helper of a local or project server runs only in a folder the user trusts in Claude Code: a
     * cloned repository's {@code .mcp.json} must not run a command before anyone looked at it. Claude Code then
     * connects without the helper's headers, and so does mcp-host.
     */
    private static UnaryOperator<ServerSpec> repoResident(ClaudeConsent consent, Findings findings) {
        return spec -> {
            if (spec.headersHelper().isEmpty() || consent.trusted()) {
                return spec;
            }
            findings.problem(spec.source().path().orElse(Path.of("")), Pointers.child(spec.location(), "headersHelper"),
                    spec.name(), "headersHelper not run: the folder " + consent.projectRoot() + " is not trusted in Claude"
                    + " Code (as Claude Code does, the server connects without its headers); trust it when `claude` asks");
            return spec.toBuilder().headersHelper(Optional.empty()).build();
        };
    }

    private static ServerSpec helperIn(ServerSpec spec, Path directory) {
        return spec.headersHelper().isEmpty() ? spec : spec.toBuilder().headersHelper(Optional.of(
                new HeaderCommands.Helper(spec.headersHelper().get().command(), Optional.of(directory.toString()))))
                .build();
    }

    @Override
    void readServer(ServerEntry entry, SpecBuilder spec, SearchPath search) {
        readServer(entry, spec);
        if (spec.url.isEmpty() || entry.failed()) {
            return; // a stdio server: Claude Code reads neither field for it
        }
        entry.string("headersHelper").filter(command -> !command.isBlank())
                .ifPresent(command -> spec.headersHelper = Optional.of(new HeaderCommands.Helper(command, Optional.empty())));
        Optional<ServerEntry> oauth = entry.nested("oauth");
        if (oauth.isPresent() && spec.headers.keySet().stream().noneMatch("Authorization"::equalsIgnoreCase)) {
            // A configured Authorization header turns Claude Code's OAuth off for the server: its block is unused.
            spec.auth = oauthClient(entry, oauth.get(), search);
        }
    }

    /** Claude Code's redirect URI, on the port it listens on: {@code http://localhost:<port>/callback}. */
    static final String REDIRECT_URI = "http://localhost/callback";

    /** Overrides the callback port of every server, as in Claude Code. */
    static final String CALLBACK_PORT_VARIABLE = "MCP_OAUTH_CALLBACK_PORT";

    /**
     * {@code oauth}: {@code clientId}, {@code callbackPort} (a positive integer), {@code scopes} (one space-separated
     * string), {@code authServerMetadataUrl} (https only); Claude Code refuses an entry whose block breaks these
     * rules, and so does mcp-host. {@code xaa} (cross-app access through an identity provider that
     * {@code claude mcp xaa setup} keeps elsewhere) is reported and left out.
     */
    private static Optional<AuthRef> oauthClient(ServerEntry entry, ServerEntry oauth, SearchPath search) {
        Map<String, String> options = new LinkedHashMap<>();
        Optional<String> clientId = oauth.string("clientId");
        clientId.ifPresent(id -> options.put("clientId", id));
        oauth.node("callbackPort").ifPresent(port -> {
            if (port.isIntegralNumber() && port.asLong() > 0 && port.asLong() <= 65535) {
                options.put("callbackPort", Long.toString(port.asLong()));
            } else {
                oauth.error(Pointers.child(oauth.pointer(), "callbackPort"), "\"oauth.callbackPort\" must be a port"
                        + " number; Claude Code refuses this entry");
            }
        });
        oauth.string("scopes").ifPresent(scopes -> {
            if (scopes.isEmpty()) {
                oauth.error(Pointers.child(oauth.pointer(), "scopes"), "\"oauth.scopes\" is empty; Claude Code refuses "
                        + "this entry");
            } else {
                options.put("scope", scopes);
            }
        });
        oauth.string("authServerMetadataUrl").ifPresent(url -> {
            if (!url.startsWith("https://") || url.length() > 4096) {
                oauth.error(Pointers.child(oauth.pointer(), "authServerMetadataUrl"), "\"oauth.authServerMetadataUrl\""
                        + " must be an https:// URL; Claude Code refuses this entry");
            } else {
                options.put("authServerMetadataUrl", url);
            }
        });
        if (oauth.bool("xaa").orElse(false)) {
            oauth.note("xaa", "\"oauth.xaa\" (cross-app access) needs the identity provider that `claude mcp xaa setup`"
                    + " keeps, which mcp-host does not read; the server is authorized with the usual flow");
        }
        if (options.isEmpty() || entry.failed()) {
            return Optional.empty();
        }
        callbackPort(entry.environment().get(CALLBACK_PORT_VARIABLE)).ifPresent(port -> options.put("callbackPort", port));
        options.put("redirectUri", REDIRECT_URI);
        if (clientId.isPresent()) {
            clientSecret(entry, search.home().resolve(".claude/.credentials.json"))
                    .ifPresent(secret -> options.put("clientSecret", secret));
        }
        return Optional.of(new AuthRef("oauth", entry.name(), options));
    }

    /** {@code MCP_OAUTH_CALLBACK_PORT}: a port number, else ignored (Claude Code ignores it too). */
    private static Optional<String> callbackPort(String value) {
        try {
            int port = value == null ? 0 : Integer.parseInt(value.trim());
            return port > 0 && port <= 65535 ? Optional.of(Integer.toString(port)) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * The client secret {@code claude mcp add --client-secret} stored on Linux: in {@code ~/.claude/.credentials.json},
     * under {@code mcpOAuthClientConfig["<name>|<key>"].clientSecret}, where the key is the first 16 hex digits of
     * the SHA-256 of the entry's {@code {"type", "url", "headers"}} as JSON, as written (no secret named, no
     * secret read: an entry whose transport changed gets none, as in Claude Code). On macOS Claude Code keeps it
     * in the Keychain, which mcp-host does not read. Nothing of the file is logged or reported but its path.
     */
    static Optional<String> clientSecret(ServerEntry entry, Path credentials) {
        if (!Files.isRegularFile(credentials)) {
            entry.consulted(new ConsultedFile(credentials, ConsultedFile.State.MISSING));
            return Optional.empty();
        }
        JsonNode root;
        try {
            if (Files.size(credentials) > 1024 * 1024) {
                entry.consulted(new ConsultedFile(credentials, ConsultedFile.State.UNREADABLE));
                return Optional.empty();
            }
            root = McpJson.mapper().readTree(Files.readString(credentials, StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            entry.consulted(new ConsultedFile(credentials, ConsultedFile.State.UNREADABLE));
            entry.note("oauth", "the client secret Claude Code keeps in " + credentials + " cannot be read ("
                    + e.getClass().getSimpleName() + "); the server is authorized without it");
            return Optional.empty();
        }
        entry.consulted(new ConsultedFile(credentials, ConsultedFile.State.READ));
        JsonNode secret = root == null ? null : root.path("mcpOAuthClientConfig").path(credentialKey(entry))
                .path("clientSecret");
        return secret != null && secret.isString() && !secret.stringValue().isEmpty()
                ? Optional.of(secret.stringValue()) : Optional.empty();
    }

    /** Claude Code's key of a server's OAuth state: {@code name|} and 16 hex digits of the hash of its connection. */
    static String credentialKey(ServerEntry entry) {
        ObjectNode connection = McpJson.object();
        entry.node("type").ifPresent(type -> connection.set("type", type));
        entry.node("url").ifPresent(url -> connection.set("url", url));
        connection.set("headers", entry.node("headers").orElse(McpJson.object()));
        String json = McpJson.mapper().writeValueAsString(connection);
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(json.getBytes(StandardCharsets.UTF_8));
            return entry.name() + "|" + HexFormat.of().formatHex(hash).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
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
