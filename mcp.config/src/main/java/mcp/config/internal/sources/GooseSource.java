package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.ServerSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * goose's config file ({@code goose}, priority 55), as goose documents it
 * (https://block.github.io/goose/docs/guides/config-files): the user's {@code config.yaml}, in
 * {@code $GOOSE_PATH_ROOT/config} when that is an absolute path, else {@code %APPDATA%\Block\goose\config}
 * on Windows and {@code $XDG_CONFIG_HOME/goose} or {@code ~/.config/goose} elsewhere; goose has no
 * project-level file. Its servers are the {@code extensions}, each named by its key, with
 * {@code enabled} and {@code type}:
 * <ul>
 *   <li>{@code stdio}: {@code cmd}, {@code args}, {@code envs} (values), {@code env_keys} (names goose
 *       takes from the environment or its secret store: each becomes {@code ${NAME}}, which mcp-host
 *       expands from the environment; a value written in {@code envs} wins);</li>
 *   <li>{@code streamable_http} (type {@code http}): {@code uri}, {@code headers}; goose substitutes
 *       {@code $NAME} and {@code ${NAME}} in both from the extension's {@code envs} and
 *       {@code env_keys} (see {@link Variables#goose}). {@code socket} (HTTP over a Unix socket) is not
 *       supported: the server is reported and skipped;</li>
 *   <li>{@code sse} (type {@code sse}): goose no longer starts SSE extensions, so the entry is
 *       inactive with that reason;</li>
 *   <li>{@code builtin}, {@code platform}, {@code frontend}: run inside goose or its UI, nothing to
 *       launch: left out without a problem; {@code inline_python} (Python code goose runs with
 *       {@code uvx}) is reported and skipped.</li>
 * </ul>
 * {@code timeout} is in seconds; {@code available_tools}, when not empty, is the tool allow-list. As
 * in goose, {@code envs} and {@code env_keys} never set the variables goose refuses to let an extension
 * override ({@code PATH}, {@code LD_PRELOAD}, {@code NODE_OPTIONS}, ...): each is reported and left out.
 * Anchors and aliases are resolved as goose's YAML reader does ({@link YamlTree}).
 *
 * <p>Priority 55, with opencode: an agent CLI, so above the editors (50), and below the agent CLIs
 * whose files mcp-host has followed longest (Claude Code 80, Codex 70, Gemini CLI 60).
 */
public final class GooseSource extends FileSource {

    private static final Logger LOG = LoggerFactory.getLogger(GooseSource.class);

    /** goose's {@code Envs::DISALLOWED_KEYS} (extension.rs), compared ignoring case as goose does. */
    private static final Set<String> DISALLOWED = Stream.of("PATH", "PATHEXT", "SystemRoot", "windir",
                    "LD_LIBRARY_PATH", "LD_PRELOAD", "LD_AUDIT", "LD_DEBUG", "LD_BIND_NOW", "LD_ASSUME_KERNEL",
                    "DYLD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "DYLD_FRAMEWORK_PATH", "PYTHONPATH", "PYTHONHOME",
                    "NODE_OPTIONS", "RUBYOPT", "GEM_PATH", "GEM_HOME", "CLASSPATH", "GO111MODULE", "GOROOT",
                    "APPINIT_DLLS", "SESSIONNAME", "ComSpec", "TEMP", "TMP", "LOCALAPPDATA", "USERPROFILE",
                    "HOMEDRIVE", "HOMEPATH")
            .map(key -> key.toUpperCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());

    private final Platform platform;

    /**
     * @param key a variable's name
     * @return whether goose refuses to let an extension set it (connect leaves it out of a moved entry, as goose does)
     */
    public static boolean disallowed(String key) {
        return DISALLOWED.contains(key.toUpperCase(Locale.ROOT));
    }

    /** Creates the source; ServiceLoader calls this. */
    public GooseSource() {
        this(Platform.current());
    }

    GooseSource(Platform platform) {
        super("goose", "goose", 55);
        this.platform = platform;
    }

    @Override
    List<Path> userFiles(SearchPath search) {
        Map<String, String> environment = search.environment();
        Path configDir = SearchPath.absolutePath(environment.get("GOOSE_PATH_ROOT"))
                .map(root -> root.resolve("config"))
                .orElseGet(() -> platform == Platform.WINDOWS
                        ? platform.appData(search.home(), environment).resolve("Block/goose/config")
                        : Platform.xdgConfigHome(search.home(), environment).resolve("goose"));
        return List.of(configDir.resolve("config.yaml").normalize());
    }

    @Override
    Format format() {
        return Format.YAML;
    }

    @Override
    Optional<String> container(ObjectNode root) {
        return Optional.of("extensions");
    }

    @Override
    void collect(Context context, SearchPath search, Findings findings) {
        super.collect(context, search, findings.withUnstartable(GooseSource::unsupportedByGoose));
    }

    private static Optional<String> unsupportedByGoose(ServerSpec server) {
        if (server.type().filter("sse"::equals).isPresent()) {
            return Optional.of("goose no longer starts SSE extensions (type: sse); change the type to"
                    + " streamable_http if the server speaks Streamable HTTP");
        }
        return Optional.empty();
    }

    @Override
    void readServer(ServerEntry entry, SpecBuilder spec) {
        // goose passes values as written; env_keys it reads itself, from its environment (below).
        spec.expandVariables = false;
        Optional<String> type = entry.string("type");
        if (type.isEmpty()) {
            if (!entry.failed()) {
                entry.error(entry.pointer(), "\"type\" must be stdio, streamable_http, sse, builtin, platform,"
                        + " frontend or inline_python, got none");
            }
            return;
        }
        spec.enabled = entry.bool("enabled");
        switch (type.get()) {
            case "stdio":
                spec.type = type;
                spec.command = entry.string("cmd");
                spec.args = entry.stringList("args", true).orElse(spec.args);
                spec.env.putAll(environment(entry).merged());
                break;
            case "streamable_http":
                spec.type = Optional.of("http");
                readRemote(entry, spec);
                if (entry.has("socket")) {
                    entry.error(Pointers.child(entry.pointer(), "socket"), "\"socket\" (HTTP over a Unix socket)"
                            + " is not supported by mcp-host");
                }
                break;
            case "sse":
                spec.type = type;
                readRemote(entry, spec);
                break;
            case "builtin":
            case "platform":
            case "frontend":
                LOG.debug("goose: extension \"{}\" is of type {}, which runs inside goose: nothing to launch",
                        entry.name(), type.get());
                entry.skip();
                return;
            case "inline_python":
                entry.error(Pointers.child(entry.pointer(), "type"), "inline_python extensions (Python code goose"
                        + " runs with uvx) are not supported by mcp-host");
                return;
            default:
                entry.error(Pointers.child(entry.pointer(), "type"), "\"type\" must be stdio, streamable_http, sse,"
                        + " builtin, platform, frontend or inline_python, got \"" + type.get() + "\"");
                return;
        }
        spec.timeoutMillis = entry.secondsAsMillis("timeout");
        spec.enabledTools = entry.stringList("available_tools", false).filter(tools -> !tools.isEmpty());
    }

    /** {@code uri} and {@code headers}, with goose's substitution from the extension's environment. */
    private void readRemote(ServerEntry entry, SpecBuilder spec) {
        Environment environment = environment(entry);
        Variables variables = Variables.goose(environment.envs(), environment.keys());
        spec.url = entry.string("uri").map(uri -> variables.translate(uri, Pointers.child(entry.pointer(), "uri")));
        entry.stringMap("headers").ifPresent(headers -> headers.forEach((header, value) -> spec.headers.put(header,
                variables.translate(value, Pointers.child(Pointers.child(entry.pointer(), "headers"), header)))));
    }

    /**
     * An extension's environment, without the variables goose refuses to set.
     *
     * @param envs the {@code envs} values as written
     * @param keys the {@code env_keys} that the discovery's environment sets, with their values (goose takes
     *     them from its environment, else its secret store, which mcp-host cannot read)
     */
    private record Environment(Map<String, String> envs, Map<String, String> keys) {
        /** @return the keys' values, then the values written, which win */
        Map<String, String> merged() {
            Map<String, String> env = new LinkedHashMap<>(keys);
            env.putAll(envs);
            return env;
        }
    }

    private Environment environment(ServerEntry entry) {
        Map<String, String> keys = new LinkedHashMap<>();
        for (String key : entry.stringList("env_keys", true).orElse(List.of())) {
            String value = entry.environment().get(key);
            if (!allowed(entry, "env_keys", key)) {
                continue;
            }
            if (value == null) {
                entry.note("env_keys", "\"" + key + "\" is not set in the environment, and mcp-host cannot read goose's"
                        + " secret store; the server starts without it");
            } else {
                keys.put(key, value);
            }
        }
        Map<String, String> envs = new LinkedHashMap<>();
        entry.stringMap("envs").ifPresent(written -> written.forEach((key, value) -> {
            if (allowed(entry, "envs", key)) {
                envs.put(key, value);
            }
        }));
        return new Environment(envs, keys);
    }

    /** @return whether goose lets an extension set the variable; reports it when not */
    private static boolean allowed(ServerEntry entry, String field, String key) {
        if (DISALLOWED.contains(key.toUpperCase(Locale.ROOT))) {
            entry.note(field, "goose does not let an extension set " + key + "; it is ignored");
            return false;
        }
        return true;
    }
}
