package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import mcp.api.CallPolicy.Decision;
import mcp.api.OwnerState;
import mcp.api.SourceMetadata.Level;
import mcp.api.ToolRule;
import mcp.api.ToolRule.Match;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * OpenAI Codex's config files ({@code codex}, priority 70): {@code ~/.codex/config.toml} (or
 * {@code $CODEX_HOME/config.toml} when {@code CODEX_HOME} is an absolute path) and
 * {@code .codex/config.toml} of the working directory, whose servers count only in a folder the user
 * trusts in Codex (see {@link #collect}); servers are the {@code [mcp_servers.<name>]} tables.
 *
 * <p>Read as Codex 0.169.0 reads them (its {@code rmcp-client}, checked with {@code codex mcp get --json}):
 * <ul>
 *   <li>values are literal: Codex expands no {@code ${VAR}}, so neither does mcp-host for these entries;</li>
 *   <li>{@code command}, {@code args}, {@code cwd}, {@code url}, {@code enabled} as written;</li>
 *   <li>the environment: a stdio server inherits only {@link #DEFAULT_ENV_VARS} and the variables named
 *       in {@code env_vars} (names, or tables with a {@code name}), plus {@code env} (table) on top;</li>
 *   <li>{@code http_headers} (table), then {@code env_http_headers} (header = variable name): the
 *       variable's value, and no header at all when the variable is unset or blank; then
 *       {@code bearer_token_env_var}: {@code Authorization: Bearer <value>}; a server whose bearer variable
 *       is unset or empty is not started (Codex fails it), each later one winning;</li>
 *   <li>{@code startup_timeout_sec} (seconds, fractions allowed) or {@code startup_timeout_ms}: the connect
 *       timeout; {@code tool_timeout_sec}: the tool-call timeout;</li>
 *   <li>the per-tool decisions, as Codex 0.169.0 applies them (its tool list and the calls {@code codex exec}
 *       let run, interop/agents/regenerate.sh, scenario {@code codex-tools}; its source, {@code McpServerConfig}
 *       and {@code mcp_tool_call.rs}): {@code enabled_tools} (only those tools, by exact name) and
 *       {@code disabled_tools} (never those) withhold tools from the model; {@code approval_mode} of
 *       {@code [mcp_servers.<name>.tools.<tool>]}, else the server's {@code default_tools_approval_mode}, decides
 *       each call: {@code "approve"} runs it without asking, {@code "prompt"} asks every time, {@code "writes"}
 *       asks unless the tool says {@code readOnlyHint}, {@code "auto"} (the default) is Codex's own judgement
 *       and no decision of the user's ({@link mcp.api.CallPolicy#DEFAULT});</li>
 *   <li>OAuth, for an HTTP server with an {@code [mcp_servers.<name>.oauth]} table, {@code scopes} or
 *       {@code oauth_resource} ({@link #oauthClient}): {@code oauth.client_id} and {@code oauth.client_secret} (as
 *       {@code codex mcp add --oauth-client-id --oauth-client-secret} writes them), {@code scopes}, the RFC 8707
 *       {@code oauth_resource}, and the redirect URI Codex sends: {@code oauth.callback_url} when it ends with the
 *       server's callback id, else the top-level {@code mcp_oauth_callback_url} with the id appended, else
 *       {@code http://127.0.0.1:<port>/callback/<id>}, on {@code oauth.callback_port}, else the top-level
 *       {@code mcp_oauth_callback_port}, else any port.</li>
 * </ul>
 * The type is left unset: validation infers {@code stdio} from {@code command} and {@code http}
 * from {@code url}, which is what Codex does. Unknown keys are ignored.
 */
public final class CodexSource extends FileSource {

    /** Creates the source; ServiceLoader calls this. */
    public CodexSource() {
        super("codex", "OpenAI Codex", 70);
    }

    @Override
    List<Path> userFiles(SearchPath search) {
        Map<String, String> environment = search.environment();
        Path codexHome = SearchPath.absolutePath(environment.get("CODEX_HOME"))
                .orElse(search.home().resolve(".codex"));
        return List.of(codexHome.resolve("config.toml").normalize());
    }

    @Override
    List<String> projectFiles() {
        return List.of(".codex/config.toml");
    }

    /**
     * As Codex 0.169.0 does ({@code codex mcp list}, docs/discovery.md): the project file is the working
     * directory's {@code .codex/config.toml} only, and its servers count only when the user file trusts
     * that directory ({@code [projects."<dir>"] trust_level = "trusted"}); otherwise they are inactive.
     */
    @Override
    void collect(Context context, SearchPath search, Findings all) {
        Path userPath = userFiles(search).get(0);
        ConfigFile user = userFile(userPath, search);
        Optional<ObjectNode> userRoot = readRoot(user, all);
        Findings findings = all.withAdjustment(callbacks(userRoot));
        Path cwd = search.workingDirectory();
        Path projectPath = cwd.resolve(".codex/config.toml").normalize();
        if (!projectPath.equals(userPath)) {
            Optional<OwnerState> trust = Optional.of(userRoot.filter(root -> trusted(root, cwd)).isPresent()
                    ? new OwnerState(OwnerState.Kind.TRUSTED, "the folder " + cwd + " is trusted in Codex"
                            + " (trust_level = \"trusted\" in " + userPath + ")")
                    : new OwnerState(OwnerState.Kind.UNTRUSTED_FOLDER, "the folder " + cwd + " is not trusted in Codex:"
                            + " trust it when `codex` asks, or set trust_level = \"trusted\" under [projects.\"" + cwd
                            + "\"] in " + userPath));
            readFile(new ConfigFile(projectPath, Level.PROJECT, cwd, Format.TOML), search,
                    findings.withConsent(server -> trust));
        }
        userRoot.ifPresent(root -> guarded(user, "", findings,
                () -> readServers(user, root, "", "mcp_servers", search, findings)));
    }

    /**
     * The top-level callback settings of the user's file, which Codex applies to every server's login: the redirect
     * URI and the port of an OAuth client that does not set its own.
     */
    private static java.util.function.UnaryOperator<mcp.api.ServerSpec> callbacks(Optional<ObjectNode> userRoot) {
        Optional<String> port = userRoot.map(root -> root.get("mcp_oauth_callback_port"))
                .filter(node -> node != null && node.isIntegralNumber() && node.asLong() > 0 && node.asLong() <= 65535)
                .map(node -> Long.toString(node.asLong()));
        Optional<String> base = userRoot.map(root -> root.get("mcp_oauth_callback_url"))
                .filter(node -> node != null && node.isString() && !node.stringValue().isBlank())
                .map(JsonNode::stringValue);
        return spec -> {
            if (spec.auth().isEmpty() || spec.url().isEmpty()) {
                return spec;
            }
            mcp.api.ServerConfig.AuthRef auth = spec.auth().get();
            Map<String, String> options = new java.util.LinkedHashMap<>(auth.options());
            String id = callbackId(spec.url().get());
            options.computeIfAbsent("redirectUri", none -> base.map(b -> b.replaceAll("/+$", "") + "/" + id)
                    .orElse("http://127.0.0.1/callback/" + id));
            port.ifPresent(p -> options.putIfAbsent("callbackPort", p));
            return spec.toBuilder().auth(Optional.of(auth.withOptions(options))).build();
        };
    }

    /**
     * The id Codex puts at the end of a server's OAuth callback path, so that one listener can tell the logins of
     * its servers apart: the first 9 bytes of the SHA-256 of the server's URL, base64url without padding.
     */
    static String callbackId(String url) {
        try {
            byte[] hash = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(url.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(java.util.Arrays.copyOf(hash, 9));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** @return whether {@code [projects."<dir>"]} of the user file says {@code trust_level = "trusted"} */
    private static boolean trusted(ObjectNode userRoot, Path dir) {
        return SearchPath.folderEntry(userRoot.get("projects"), dir)
                .filter(project -> "trusted".equals(project.getValue().path("trust_level").asString(null)))
                .isPresent();
    }

    @Override
    Format format() {
        return Format.TOML;
    }

    @Override
    Optional<String> container(ObjectNode root) {
        return Optional.of("mcp_servers");
    }

    /** What a Codex stdio server inherits from the environment on Unix, besides its {@code env_vars}. */
    static final List<String> DEFAULT_ENV_VARS = List.of("HOME", "LOGNAME", "PATH", "SHELL", "USER",
            "__CF_USER_TEXT_ENCODING", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ");

    @Override
    void readServer(ServerEntry entry, SpecBuilder spec) {
        spec.expandVariables = false;
        spec.command = entry.string("command");
        spec.args = entry.stringList("args", true).orElse(spec.args);
        List<String> inherited = new ArrayList<>(DEFAULT_ENV_VARS);
        inherited.addAll(envVarNames(entry));
        spec.inheritedEnv = Optional.of(inherited);
        entry.stringMap("env").ifPresent(spec.env::putAll);
        spec.cwd = entry.string("cwd");
        spec.url = entry.string("url");

        Map<String, String> environment = entry.environment();
        entry.stringMap("http_headers").ifPresent(spec.headers::putAll);
        entry.stringMap("env_http_headers").ifPresent(headers -> headers.forEach((header, variable) ->
                value(environment, variable).ifPresent(value -> putHeader(spec, header, value))));
        entry.string("bearer_token_env_var").ifPresent(variable -> value(environment, variable).ifPresentOrElse(
                token -> putHeader(spec, "Authorization", "Bearer " + token),
                () -> entry.error(Pointers.child(entry.pointer(), "bearer_token_env_var"), "environment variable \""
                        + variable + "\" (bearer_token_env_var) is not set or empty; Codex does not start the server")));

        spec.timeoutMillis = entry.secondsAsMillis("startup_timeout_sec").or(() -> entry.millis("startup_timeout_ms"));
        spec.toolTimeoutMillis = entry.secondsAsMillis("tool_timeout_sec");
        spec.enabled = entry.bool("enabled");
        toolRules(entry, spec);
        if (spec.url.isPresent() && spec.command.isEmpty()
                && spec.headers.keySet().stream().noneMatch("Authorization"::equalsIgnoreCase)) {
            // A bearer token of the config (bearer_token_env_var, http_headers) comes before OAuth in Codex.
            spec.auth = oauthClient(entry, spec.url.get());
        }
    }

    private static final String OWNER = "Codex";

    /**
     * The tool lists and approval modes, first match wins: a withheld tool is withheld whatever its mode, and a
     * tool's own {@code approval_mode} (even {@code "auto"}) stands before the server's default.
     */
    private static void toolRules(ServerEntry entry, SpecBuilder spec) {
        String table = "mcp_servers." + tomlKey(entry.name());
        Optional<Path> file = Optional.of(entry.file().path());
        entry.stringList("enabled_tools", false).ifPresent(tools -> spec.toolRules.add(new ToolRule(Decision.DENY,
                new Match.AllBut(Set.copyOf(tools)), OWNER, table + ".enabled_tools (not listed)", file)));
        entry.stringList("disabled_tools", false).filter(tools -> !tools.isEmpty()).ifPresent(tools ->
                spec.toolRules.add(new ToolRule(Decision.DENY, new Match.Named(Set.copyOf(tools)), OWNER,
                        table + ".disabled_tools", file)));
        Set<String> own = new TreeSet<>();
        entry.nested("tools").ifPresent(tools -> {
            for (String tool : tools.keys()) {
                tools.nested(tool).flatMap(settings -> mode(settings, "approval_mode")).ifPresent(mode -> {
                    own.add(tool);
                    approval(spec, mode, new Match.Named(Set.of(tool)), table + ".tools." + tomlKey(tool)
                            + ".approval_mode = \"" + mode + "\"", file);
                });
            }
        });
        mode(entry, "default_tools_approval_mode").ifPresent(mode -> approval(spec, mode, new Match.AllBut(own),
                table + ".default_tools_approval_mode = \"" + mode + "\"", file));
    }

    /** An approval mode, or empty (absent, or not one Codex knows: a problem that skips the server, as Codex fails). */
    private static Optional<String> mode(ServerEntry entry, String key) {
        Optional<String> mode = entry.string(key);
        if (mode.isPresent() && !List.of("auto", "prompt", "approve", "writes").contains(mode.get())) {
            entry.error(Pointers.child(entry.pointer(), key), "\"" + key + "\" must be \"auto\", \"prompt\", \"writes\""
                    + " or \"approve\", got \"" + mode.get() + "\"; Codex does not load such a config");
            return Optional.empty();
        }
        return mode;
    }

    private static void approval(SpecBuilder spec, String mode, Match tools, String rule, Optional<Path> file) {
        switch (mode) {
            case "approve" -> spec.toolRules.add(new ToolRule(Decision.ALLOW, tools, OWNER, rule, file));
            case "prompt" -> spec.toolRules.add(new ToolRule(Decision.ASK, tools, OWNER, rule, file));
            case "writes" -> {
                spec.toolRules.add(new ToolRule(Decision.ALLOW, new Match.Both(tools, new Match.ReadOnly(true)),
                        OWNER, rule, file));
                spec.toolRules.add(new ToolRule(Decision.ASK, tools, OWNER, rule, file));
            }
            default -> { } // "auto": Codex's own judgement, nothing the user decided
        }
    }

    /** A TOML key as a rule shows it: bare when it can be, quoted otherwise. */
    private static String tomlKey(String key) {
        return key.matches("[A-Za-z0-9_-]+") ? key : "\"" + key.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /**
     * The OAuth client of an HTTP server, as Codex 0.169.0 takes it for {@code codex mcp login} and when the server
     * asks at connect: {@code oauth.client_id}, {@code oauth.client_secret} (which Codex accepts only with an id),
     * {@code oauth.callback_port}, {@code oauth.callback_url} (used as written only when it ends with the server's
     * callback id, as Codex does), {@code scopes}, {@code oauth_resource}. The top-level callback settings come in
     * {@link #callbacks}. Codex's enterprise managed authorization ({@code auth = "ema_auth"}) is reported.
     */
    private static Optional<mcp.api.ServerConfig.AuthRef> oauthClient(ServerEntry entry, String url) {
        Map<String, String> options = new java.util.LinkedHashMap<>();
        Optional<ServerEntry> oauth = entry.nested("oauth");
        boolean asked = oauth.isPresent() || entry.has("scopes") || entry.has("oauth_resource");
        oauth.ifPresent(table -> {
            Optional<String> clientId = table.string("client_id").filter(id -> !id.isEmpty());
            clientId.ifPresent(id -> options.put("clientId", id));
            table.string("client_secret").ifPresent(secret -> {
                if (clientId.isEmpty() || secret.isEmpty()) {
                    table.error(Pointers.child(table.pointer(), "client_secret"), "\"oauth.client_secret\" needs "
                            + "\"oauth.client_id\" and must not be empty; Codex refuses it");
                } else {
                    options.put("clientSecret", secret);
                }
            });
            table.node("callback_port").ifPresent(port -> {
                if (port.isIntegralNumber() && port.asLong() > 0 && port.asLong() <= 65535) {
                    options.put("callbackPort", Long.toString(port.asLong()));
                } else {
                    table.error(Pointers.child(table.pointer(), "callback_port"), "\"oauth.callback_port\" must be a"
                            + " port number; Codex refuses it");
                }
            });
            table.string("callback_url").ifPresent(callback -> {
                if (callback.replaceAll("/+$", "").endsWith("/" + callbackId(url))) {
                    options.put("redirectUri", callback);
                } else {
                    table.note("callback_url", "\"oauth.callback_url\" does not end with this server's callback id \""
                            + callbackId(url) + "\", so Codex appends the id to its default callback instead, and so"
                            + " does mcp-host");
                }
            });
        });
        entry.stringList("scopes", false).filter(list -> !list.isEmpty())
                .ifPresent(scopes -> options.put("scope", String.join(" ", scopes)));
        entry.string("oauth_resource").filter(resource -> !resource.isBlank())
                .ifPresent(resource -> options.put("resource", resource));
        if (entry.string("auth").filter("ema_auth"::equals).isPresent()) {
            entry.note("auth", "Codex's enterprise managed authorization (auth = \"ema_auth\") is not supported by"
                    + " mcp-host; the server is authorized with the usual flow");
        }
        return asked ? Optional.of(new mcp.api.ServerConfig.AuthRef("oauth", entry.name(), options)) : Optional.empty();
    }

    /** {@code env_vars}: names, or tables {@code {name = "X", source = "local"}}; anything else is reported. */
    private static List<String> envVarNames(ServerEntry entry) {
        JsonNode value = entry.value("env_vars");
        List<String> names = new ArrayList<>();
        if (value == null) {
            return names;
        }
        String at = Pointers.child(entry.pointer(), "env_vars");
        if (!value.isArray()) {
            entry.error(at, "\"env_vars\" must be an array of names, got " + ServerEntry.describe(value, Format.TOML));
            return names;
        }
        for (int i = 0; i < value.size(); i++) {
            JsonNode item = value.get(i);
            JsonNode name = item.isObject() ? item.get("name") : item;
            if (name == null || !name.isString() || name.stringValue().isEmpty()) {
                entry.error(Pointers.child(at, i), "\"env_vars\" items must be names or tables with a \"name\", got "
                        + ServerEntry.describe(item, Format.TOML) + " at index " + i);
                return names;
            }
            if (item.isObject() && "remote".equals(item.path("source").asString(null))) {
                entry.error(Pointers.child(at, i), "\"env_vars\" entry \"" + name.stringValue()
                        + "\" uses source \"remote\", which needs Codex's remote execution; not supported here");
                return names;
            }
            names.add(name.stringValue());
        }
        return names;
    }

    /** As Codex reads a variable for a header: absent when unset or blank. */
    private static Optional<String> value(Map<String, String> environment, String variable) {
        return Optional.ofNullable(environment.get(variable)).filter(v -> !v.trim().isEmpty());
    }

    /** HTTP header names are case-insensitive: a later value replaces {@code authorization} too. */
    private static void putHeader(SpecBuilder spec, String header, String value) {
        spec.headers.keySet().removeIf(existing -> existing.equalsIgnoreCase(header));
        spec.headers.put(header, value);
    }
}
