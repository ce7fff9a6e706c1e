package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.OwnerState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Zed's settings files ({@code zed}, priority 50), as Zed documents them
 * (https://zed.dev/docs/ai/mcp, https://zed.dev/docs/worktree-trust): servers under
 * {@code context_servers} of the user's {@code settings.json} and of {@code .zed/settings.json} in the
 * project (JSONC). The user file is in Zed's config folder: {@code $FLATPAK_XDG_CONFIG_HOME/zed},
 * else {@code $XDG_CONFIG_HOME/zed} or {@code ~/.config/zed} on Linux, {@code ~/.config/zed} on macOS,
 * {@code %APPDATA%\Zed} on Windows.
 *
 * <p>An entry is what Zed's settings schema makes of it, tried in Zed's order:
 * <ul>
 *   <li>with {@code command}: a local server over stdio: {@code command} (a string), {@code args},
 *       {@code env}, {@code timeout} (seconds); Zed's older shape, {@code command: {path, args, env}},
 *       is read too. A {@code url} beside {@code command} is ignored, as in Zed;</li>
 *   <li>with {@code url}: a remote server over Streamable HTTP (type {@code http}): {@code url},
 *       {@code headers}, {@code timeout} (seconds), {@code oauth} ({@code client_id},
 *       {@code client_secret}: an {@code oauth} auth reference);</li>
 *   <li>otherwise a server provided by a Zed extension ({@code settings}, {@code source: "extension"}),
 *       which only the extension knows how to start: left out without a problem.</li>
 * </ul>
 * {@code enabled} (default true) applies to all; {@code source: "custom"} and {@code remote} (run on
 * a remote development host) are ignored. Zed expands no variables: values are taken as written.
 *
 * <p>Zed starts the servers of a project's settings only in a worktree the user trusted, and keeps
 * those decisions in its database, which mcp-host does not read: project servers are inactive unless
 * the user's settings say {@code "session": {"trust_all_worktrees": true}}.
 *
 * <p>Priority 50, as for the other editors (Cursor, Windsurf, Kiro): below the agent CLIs, above VS
 * Code and the user-level Claude Desktop file.
 */
public final class ZedSource extends FileSource {

    private static final Logger LOG = LoggerFactory.getLogger(ZedSource.class);
    private static final String SERVERS = "context_servers";

    private final Platform platform;

    /** Creates the source; ServiceLoader calls this. */
    public ZedSource() {
        this(Platform.current());
    }

    ZedSource(Platform platform) {
        super("zed", "Zed", 50);
        this.platform = platform;
    }

    @Override
    List<Path> userFiles(SearchPath search) {
        Map<String, String> environment = search.environment();
        Path configDir;
        switch (platform) {
            case WINDOWS:
                configDir = platform.appData(search.home(), environment).resolve("Zed");
                break;
            case MACOS:
                configDir = search.home().resolve(".config/zed");
                break;
            default:
                configDir = SearchPath.absolutePath(environment.get("FLATPAK_XDG_CONFIG_HOME"))
                        .orElseGet(() -> Platform.xdgConfigHome(search.home(), environment)).resolve("zed");
                break;
        }
        return List.of(configDir.resolve("settings.json").normalize());
    }

    @Override
    List<String> projectFiles() {
        return List.of(".zed/settings.json");
    }

    @Override
    Optional<String> container(ObjectNode root) {
        return Optional.of(SERVERS);
    }

    @Override
    void collect(Context context, SearchPath search, Findings findings) {
        List<Path> userPaths = userFiles(search);
        ConfigFile user = userFile(userPaths.get(0), search);
        Optional<ObjectNode> userRoot = readRoot(user, findings);
        boolean trustAll = userRoot.map(root -> root.path("session").path("trust_all_worktrees"))
                .filter(JsonNode::isBoolean).map(JsonNode::booleanValue).orElse(false);
        Optional<OwnerState> trust = trustAll
                ? Optional.of(new OwnerState(OwnerState.Kind.TRUSTED, "every worktree is trusted in Zed"
                        + " (session.trust_all_worktrees in " + user.path() + ")"))
                : Optional.of(new OwnerState(OwnerState.Kind.UNTRUSTED_FOLDER,
                        "Zed starts the servers of a project's .zed/settings.json only in a worktree you"
                        + " trusted, and mcp-host cannot read Zed's trust decisions: set \"session\":"
                        + " {\"trust_all_worktrees\": true} in " + user.path()
                        + ", or configure the server in that file"));
        Findings project = findings.withConsent(server -> trust);
        for (ConfigFile file : projectConfigFiles(search, userPaths)) {
            readFile(file, search, project);
        }
        userRoot.ifPresent(root -> guarded(user, "", findings,
                () -> readServers(user, root, "", SERVERS, search, findings)));
    }

    @Override
    void readServer(ServerEntry entry, SpecBuilder spec) {
        spec.expandVariables = false; // Zed passes values as written
        spec.enabled = entry.bool("enabled");
        Optional<JsonNode> command = entry.node("command");
        if (command.isPresent()) {
            spec.type = Optional.of("stdio");
            if (command.get().isObject()) {
                entry.nested("command").ifPresent(legacy -> {
                    spec.command = legacy.string("path");
                    spec.args = legacy.stringList("args", true).orElse(spec.args);
                    legacy.stringMap("env").ifPresent(spec.env::putAll);
                });
            } else {
                spec.command = entry.string("command");
                spec.args = entry.stringList("args", true).orElse(spec.args);
                entry.stringMap("env").ifPresent(spec.env::putAll);
            }
            spec.timeoutMillis = entry.secondsAsMillis("timeout");
        } else if (entry.has("url")) {
            spec.type = Optional.of("http");
            spec.url = entry.string("url");
            entry.stringMap("headers").ifPresent(spec.headers::putAll);
            spec.timeoutMillis = entry.secondsAsMillis("timeout");
            spec.auth = OAuthClient.read(entry, "oauth",
                    Map.of("client_id", "clientId", "client_secret", "clientSecret"));
        } else {
            LOG.debug("zed: \"{}\" at {} is provided by a Zed extension: nothing mcp-host can start",
                    entry.name(), entry.pointer());
            entry.skip();
        }
    }
}
