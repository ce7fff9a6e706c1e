package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import mcp.api.SourceMetadata.Level;
import tools.jackson.databind.node.ObjectNode;

/**
 * OpenAI Codex's config files ({@code codex}, priority 70): {@code ~/.codex/config.toml} (or
 * {@code $CODEX_HOME/config.toml} when {@code CODEX_HOME} is an absolute path) and
 * {@code .codex/config.toml} of the working directory, whose servers count only in a folder the user
 * trusts in Codex (see {@link #collect}); servers are the {@code [mcp_servers.<name>]} tables.
 *
 * <p>Codex names its fields differently, and keeps secrets out of the file by naming environment
 * variables; each such name becomes a {@code ${NAME}} reference, which mcp-host expands later:
 * <ul>
 *   <li>{@code command}, {@code args}, {@code cwd}, {@code url}, {@code enabled} as written;</li>
 *   <li>{@code env} (table), plus {@code env_vars} (names): {@code NAME = ${NAME}}; a name also in
 *       {@code env} keeps the value written there;</li>
 *   <li>{@code http_headers} (table), plus {@code env_http_headers} (header = variable name):
 *       {@code header = ${VAR}}, plus {@code bearer_token_env_var}:
 *       {@code Authorization = Bearer ${VAR}}, each later one winning;</li>
 *   <li>{@code startup_timeout_sec}, {@code tool_timeout_sec} (seconds, fractions allowed) and
 *       {@code startup_timeout_ms}: the timeout is the largest one given, in milliseconds, since
 *       mcp-host has one timeout for connecting and for calls;</li>
 *   <li>{@code enabled_tools}, {@code disabled_tools}: the tool filters.</li>
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
    List<Path> userFiles(SearchPath search, Map<String, String> environment) {
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
    void collect(Context context, SearchPath search, Findings findings) {
        Path userPath = userFiles(search, context.environment()).get(0);
        ConfigFile user = userFile(userPath, search);
        Optional<ObjectNode> userRoot = readRoot(user, findings);
        Path cwd = search.workingDirectory();
        Path projectPath = cwd.resolve(".codex/config.toml").normalize();
        if (!projectPath.equals(userPath)) {
            Optional<String> untrusted = userRoot.filter(root -> trusted(root, cwd)).isPresent() ? Optional.empty()
                    : Optional.of("the folder " + cwd + " is not trusted in Codex: trust it when `codex` asks, or set"
                            + " trust_level = \"trusted\" under [projects.\"" + cwd + "\"] in " + userPath);
            readFile(new ConfigFile(projectPath, Level.PROJECT, cwd, Format.TOML), search,
                    findings.withConsent(server -> untrusted));
        }
        userRoot.ifPresent(root -> guarded(user, "", findings,
                () -> readServers(user, root, "", "mcp_servers", search, findings)));
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

    @Override
    void readServer(ServerEntry entry, SpecBuilder spec) {
        spec.command = entry.string("command");
        spec.args = entry.stringList("args", true).orElse(spec.args);
        entry.stringList("env_vars", false).ifPresent(names -> names.forEach(name -> spec.env.put(name, reference(name))));
        entry.stringMap("env").ifPresent(spec.env::putAll);
        spec.cwd = entry.string("cwd");
        spec.url = entry.string("url");

        entry.stringMap("http_headers").ifPresent(spec.headers::putAll);
        entry.stringMap("env_http_headers").ifPresent(headers -> headers.forEach(
                (header, variable) -> putHeader(spec, header, reference(variable))));
        entry.string("bearer_token_env_var").ifPresent(
                variable -> putHeader(spec, "Authorization", "Bearer " + reference(variable)));

        spec.timeoutMillis = Stream.of(
                        entry.secondsAsMillis("startup_timeout_sec"),
                        entry.secondsAsMillis("tool_timeout_sec"),
                        entry.millis("startup_timeout_ms"))
                .flatMap(Optional::stream)
                .max(Long::compare);
        spec.enabled = entry.bool("enabled");
        spec.enabledTools = entry.stringList("enabled_tools", false);
        spec.disabledTools = entry.stringList("disabled_tools", false).orElse(spec.disabledTools);
    }

    private static String reference(String variable) {
        return "${" + variable + "}";
    }

    /** HTTP header names are case-insensitive: a later value replaces {@code authorization} too. */
    private static void putHeader(SpecBuilder spec, String header, String value) {
        spec.headers.keySet().removeIf(existing -> existing.equalsIgnoreCase(header));
        spec.headers.put(header, value);
    }
}
