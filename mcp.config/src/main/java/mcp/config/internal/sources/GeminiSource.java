package mcp.config.internal.sources;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import mcp.api.CallPolicy.Decision;
import mcp.api.ConsultedFile;
import mcp.api.OwnerState;
import mcp.api.ServerConfig.AuthRef;
import mcp.api.SourceMetadata.Level;
import mcp.api.ToolRule;
import mcp.api.ToolRule.Match;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Gemini CLI's settings files ({@code gemini}, priority 60): the system settings
 * ({@code /etc/gemini-cli/settings.json} on Linux, or {@code $GEMINI_CLI_SYSTEM_SETTINGS_PATH}),
 * {@code .gemini/settings.json} of the working directory, and {@code ~/.gemini/settings.json}, servers under
 * {@code mcpServers}, in that precedence.
 *
 * <p>Gemini's entry is the common shape with its own names for the remote endpoint and the tool
 * filters, read as Gemini CLI 0.61.0 reads them ({@code createUrlTransport} and {@code connectToMcpServer} of its
 * {@code mcp-client.ts}): {@code httpUrl} is a Streamable HTTP endpoint whatever {@code type} says, and wins over
 * {@code url}; {@code url} is legacy SSE with {@code type: "sse"} and Streamable HTTP otherwise (type {@code http}),
 * and without a {@code type} Gemini tries legacy SSE only when Streamable HTTP failed, as mcp-host's {@code http}
 * transport does when the server refuses its first POST. The per-tool decisions, as Gemini CLI 0.61.0 applies them
 * ({@code isEnabled} of {@code mcp-client.ts}, its policy engine; seen in the tools it offered its model,
 * interop/agents/regenerate.sh, scenario {@code gemini-tools}): {@code excludeTools} withholds the tools it names
 * exactly, {@code includeTools} every tool it does not name (an entry {@code name(...)} names {@code name}), the
 * exclusion winning; {@code trust: true} runs the server's tools without confirmation, and so does naming the server
 * in {@code mcp.allowed} (see {@link GeminiConsent#rules}). Gemini expands
 * {@code $NAME} as well as {@code ${NAME}}, so the bare form is translated (see {@link Variables#gemini()}).
 * What the user decided (folder trust, {@code mcp.allowed}, {@code mcp.excluded}) makes servers inactive,
 * see {@link #collect}. A remote entry's {@code oauth} block becomes its OAuth client ({@link #oauthClient}).
 */
public final class GeminiSource extends FileSource {

    /** Creates the source; ServiceLoader calls this. */
    public GeminiSource() {
        super("gemini", "Gemini CLI", 60);
    }

    @Override
    List<Path> userFiles(SearchPath search) {
        return List.of(search.home().resolve(".gemini/settings.json"));
    }

    /** Moves the system settings file (absolute path), as Gemini CLI itself allows. */
    static final String SYSTEM_SETTINGS_VARIABLE = "GEMINI_CLI_SYSTEM_SETTINGS_PATH";

    /**
     * As Gemini CLI 0.61.0 does ({@code gemini mcp list}, docs/discovery.md): the system settings (which
     * override the rest), the working directory's {@code .gemini/settings.json} (no parent's), the user's;
     * in a folder the user has not trusted every server is disabled, the user's too, unless folder trust is
     * off ({@code security.folderTrust.enabled: false}); {@code mcp.allowed} and {@code mcp.excluded} block
     * the servers they leave out or name.
     */
    @Override
    void collect(Context context, SearchPath search, Findings findings) {
        ConfigFile system = userFile(systemSettings(search), search);
        ConfigFile user = userFile(search.home().resolve(".gemini/settings.json"), search);
        Path cwd = search.workingDirectory();
        ConfigFile workspace = new ConfigFile(cwd.resolve(".gemini/settings.json").normalize(),
                Level.PROJECT, cwd, Format.JSON);
        Optional<ObjectNode> systemRoot = system.path().equals(user.path()) ? Optional.empty() : readRoot(system, findings);
        Optional<ObjectNode> userRoot = readRoot(user, findings);
        boolean workspaceIsUser = workspace.path().equals(user.path()) || workspace.path().equals(system.path());
        Optional<ObjectNode> workspaceRoot = workspaceIsUser ? Optional.empty() : readRoot(workspace, findings);
        GeminiConsent consent = GeminiConsent.read(
                systemRoot.map(r -> new GeminiConsent.Settings(r, system.path())),
                userRoot.map(r -> new GeminiConsent.Settings(r, user.path())),
                workspaceRoot.map(r -> new GeminiConsent.Settings(r, workspace.path())), search, findings);
        Findings gated = findings.withToolRules(consent::rules).withConsent(consent::decide);
        readServers(system, systemRoot, search, findings, gated);
        readServers(workspace, workspaceRoot, search, findings, gated);
        readServers(user, userRoot, search, findings, gated);
        readExtensions(search, consent, findings);
    }

    private void readServers(ConfigFile file, Optional<ObjectNode> root, SearchPath search, Findings findings,
            Findings gated) {
        root.ifPresent(r -> guarded(file, "", findings, () -> readServers(file, r, "", "mcpServers", search, gated)));
    }

    /**
     * The extensions installed for the user ({@code ~/.gemini/extensions/<name>/gemini-extension.json}, in
     * name order), after the settings files, whose servers win over an extension's of the same name.
     * Gemini CLI 0.61.0 loads no workspace extensions ({@code .gemini/extensions} of the project). An
     * extension disabled for the working directory in {@code extension-enablement.json} contributes nothing
     * (its servers are inactive); folder trust and the allow/exclude lists bind as for the other servers.
     */
    private void readExtensions(SearchPath search, GeminiConsent consent, Findings findings) {
        Path root = search.home().resolve(".gemini/extensions");
        List<Path> extensions;
        try (Stream<Path> dirs = Files.list(root)) {
            extensions = dirs.filter(Files::isDirectory).sorted().toList();
        } catch (IOException | RuntimeException e) {
            // No extensions yet: installing the first one creates the directory.
            findings.consulted(new ConsultedFile(root, ConsultedFile.State.MISSING));
            return;
        }
        findings.consulted(new ConsultedFile(root, ConsultedFile.State.LISTED));
        ConfigFile enablementFile = userFile(root.resolve("extension-enablement.json"), search);
        Optional<ObjectNode> enablement = readRoot(enablementFile, findings);
        for (Path dir : extensions) {
            ConfigFile file = userFile(dir.resolve("gemini-extension.json"), search);
            String extension = dir.getFileName().toString();
            Optional<String> disabledBy = enablement.flatMap(rules -> disablingRule(rules, extension,
                    search.workingDirectory()));
            readFile(file, search, findings.withConsent(server -> disabledBy
                    .map(rule -> new OwnerState(OwnerState.Kind.DISABLED_FOR_PROJECT, "the Gemini CLI extension \""
                            + extension + "\" is disabled here (rule \"" + rule + "\" in " + enablementFile.path()
                            + "): enable it with `gemini extensions enable " + extension + " --scope workspace`"))
                    .or(() -> consent.decide(server))).withToolRules(consent::rules));
        }
    }

    /**
     * As Gemini CLI decides whether an extension is enabled in a folder: enabled unless the last rule of its
     * {@code overrides} that matches the folder starts with {@code !}; a rule ending in {@code *} matches the
     * folder and what is below it, one without only that folder.
     *
     * @return the rule that disables it, or empty when it is enabled
     */
    static Optional<String> disablingRule(ObjectNode enablement, String extension, Path folder) {
        JsonNode overrides = enablement.path(extension).path("overrides");
        String last = null;
        boolean enabled = true;
        for (JsonNode item : overrides.isArray() ? overrides : List.<JsonNode>of()) {
            String rule = item.asString("");
            boolean disable = rule.startsWith("!");
            String pattern = disable ? rule.substring(1) : rule;
            boolean subfolders = pattern.endsWith("*");
            Optional<Path> base = SearchPath.absolutePath(subfolders ? pattern.substring(0, pattern.length() - 1) : pattern);
            if (base.isPresent() && (subfolders ? folder.startsWith(base.get()) : folder.equals(base.get()))) {
                enabled = !disable;
                last = rule;
            }
        }
        return enabled ? Optional.empty() : Optional.ofNullable(last);
    }

    private static Path systemSettings(SearchPath search) {
        return Platform.current().machinePath(search.environment(), SYSTEM_SETTINGS_VARIABLE,
                "/etc/gemini-cli/settings.json", "/Library/Application Support/GeminiCli/settings.json",
                "C:\\ProgramData\\gemini-cli\\settings.json");
    }

    @Override
    Variables variables(ConfigFile file, SearchPath search) {
        if (file.path().getFileName().toString().equals("gemini-extension.json")) {
            return Variables.geminiExtension(file.path().getParent(), search.workingDirectory());
        }
        return Variables.gemini();
    }

    @Override
    void readServer(ServerEntry entry, SpecBuilder spec) {
        CommonShape.read(entry, spec);
        Optional<String> httpUrl = entry.string("httpUrl");
        if (httpUrl.isPresent()) {
            spec.url = httpUrl;
            spec.type = Optional.of("http");
        } else if (spec.url.isPresent()) {
            // Only "sse" opens a legacy SSE stream; Gemini's settings schema allows "stdio" beside "sse" and "http",
            // and a url with it (or with a type outside the schema, which Gemini warns about and keeps) is POSTed to.
            spec.type = Optional.of(spec.type.filter("sse"::equals).isPresent() ? "sse" : "http");
        }
        if (spec.url.isPresent()) {
            // Gemini CLI picks httpUrl, then url, then command: an endpoint beside a command wins (gemini mcp list).
            spec.command = Optional.empty();
            spec.args = List.of();
            spec.env.clear();
            spec.cwd = Optional.empty();
        } else if (spec.command.isPresent()) {
            spec.inheritedEnv = Optional.of(GeminiEnvironment.inherited(entry.environment()));
        }
        toolRules(entry, spec);
        if (spec.url.isPresent()) {
            entry.nested("oauth").ifPresent(oauth -> spec.auth = oauthClient(entry, oauth));
        }
    }

    static final String OWNER = "Gemini CLI";

    /** Exclusions first (they win over inclusions), then {@code trust}; first match wins. */
    private static void toolRules(ServerEntry entry, SpecBuilder spec) {
        String server = "mcpServers." + entry.name();
        Optional<Path> file = Optional.of(entry.file().path());
        entry.stringList("excludeTools", false).filter(tools -> !tools.isEmpty()).ifPresent(tools ->
                spec.toolRules.add(new ToolRule(Decision.DENY, new Match.Named(Set.copyOf(tools)), OWNER,
                        server + ".excludeTools", file)));
        entry.stringList("includeTools", false).ifPresent(tools -> {
            Set<String> named = new HashSet<>();
            for (String tool : tools) {
                named.add(tool);
                // Gemini CLI also takes "name(...)" for the tool "name".
                int open = tool.indexOf('(');
                if (open > 0) {
                    named.add(tool.substring(0, open));
                }
            }
            spec.toolRules.add(new ToolRule(Decision.DENY, new Match.AllBut(named), OWNER,
                    server + ".includeTools (not listed)", file));
        });
        if (entry.bool("trust").orElse(false)) {
            spec.toolRules.add(new ToolRule(Decision.ALLOW, new Match.AnyTool(), OWNER, server + ".trust", file));
        }
    }

    /** Gemini CLI's redirect URI when the block names none, on the port it listens on. */
    static final String REDIRECT_URI = "http://localhost/oauth/callback";

    /** The port Gemini CLI listens on for every OAuth redirect, when set. */
    static final String CALLBACK_PORT_VARIABLE = "OAUTH_CALLBACK_PORT";

    /**
     * {@code oauth}, as Gemini CLI 0.61.0's {@code MCPOAuthProvider} takes it: {@code clientId}, {@code clientSecret}
     * (sent in the token request's body, {@code client_secret_post}), {@code authorizationUrl} and {@code tokenUrl}
     * (then nothing is discovered), {@code issuer}, {@code scopes}, {@code redirectUri} (default
     * {@code http://localhost:<port>/oauth/callback}, the port of {@code OAUTH_CALLBACK_PORT} or any). Gemini CLI
     * expands {@code $VAR} and {@code ${VAR}} in every value of its settings, a secret kept in a variable
     * ({@code "clientSecret": "$CORP_SECRET"}) included, and so does mcp-host, from the discovery's environment.
     * {@code audiences} (an extra {@code audience} parameter), {@code tokenParamName} and {@code registrationUrl}
     * are not read; {@code enabled} changes nothing, since mcp-host starts OAuth whenever the server asks.
     */
    private static Optional<AuthRef> oauthClient(ServerEntry entry, ServerEntry oauth) {
        Map<String, String> options = new LinkedHashMap<>();
        Map<String, String> names = new LinkedHashMap<>();
        names.put("clientId", "clientId");
        names.put("clientSecret", "clientSecret");
        names.put("authorizationUrl", "authorizationEndpoint");
        names.put("tokenUrl", "tokenEndpoint");
        names.put("issuer", "issuer");
        names.put("redirectUri", "redirectUri");
        names.forEach((theirs, ours) -> oauth.string(theirs).map(value -> expanded(entry, "oauth." + theirs, value))
                .filter(value -> !value.isEmpty()).ifPresent(value -> options.put(ours, value)));
        oauth.stringList("scopes", false).filter(scopes -> !scopes.isEmpty()).ifPresent(scopes -> options.put("scope",
                String.join(" ", scopes.stream().map(scope -> expanded(entry, "oauth.scopes", scope)).toList())));
        if (oauth.has("audiences")) {
            oauth.note("audiences", "\"oauth.audiences\" (an audience parameter Gemini CLI adds to the OAuth requests) is"
                    + " not supported by mcp-host; the requests go without it");
        }
        if (options.containsKey("clientSecret")) {
            options.put("tokenEndpointAuthMethod", "client_secret_post");
        }
        options.putIfAbsent("redirectUri", REDIRECT_URI);
        Optional.ofNullable(entry.environment().get(CALLBACK_PORT_VARIABLE)).map(String::trim)
                .filter(port -> port.matches("[0-9]{1,5}") && Integer.parseInt(port) > 0 && Integer.parseInt(port) <= 65535)
                .ifPresent(port -> options.put("callbackPort", port));
        return Optional.of(new AuthRef("oauth", entry.name(), options));
    }

    /** A value with its variables expanded as Gemini CLI expands them when it loads its settings. */
    private static String expanded(ServerEntry entry, String field, String value) {
        return mcp.config.internal.Expansion.expand(value, entry.environment(), variable -> entry.note(
                field.contains(".") ? field.substring(0, field.indexOf('.')) : field, "environment variable \""
                        + variable + "\" is not set (in \"" + field + "\")"));
    }
}
