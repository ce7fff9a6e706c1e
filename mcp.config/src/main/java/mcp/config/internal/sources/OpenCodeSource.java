package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * opencode's config files ({@code opencode}, priority 55), as opencode documents them
 * (https://opencode.ai/docs/mcp-servers for OpenCode 2, https://opencode.ai/v1/docs/mcp-servers/ and
 * https://opencode.ai/docs/config/ for OpenCode 1): {@code opencode.json} and {@code opencode.jsonc}
 * (JSONC) in each directory from the working directory up to the repository root, nearest first,
 * then the file {@code OPENCODE_CONFIG} names (absolute), then {@code opencode.json} and
 * {@code opencode.jsonc} in {@code $XDG_CONFIG_HOME/opencode} or {@code ~/.config/opencode}.
 *
 * <p>Both shapes are read, since both versions read the same files: OpenCode 2's servers under
 * {@code mcp.servers} ({@code disabled}, no {@code enabled}; {@code timeout} an object of
 * {@code startup}, {@code catalog} and {@code execution} milliseconds; snake_case {@code oauth}
 * fields), and OpenCode 1's directly under {@code mcp} ({@code enabled}; {@code timeout} a number of
 * milliseconds; camelCase {@code oauth} fields). An entry is
 * <ul>
 *   <li>{@code type: "local"}: stdio, {@code command} the argv (executable first), {@code environment},
 *       {@code cwd} as written;</li>
 *   <li>{@code type: "remote"}: Streamable HTTP (type {@code http}), {@code url}, {@code headers}, and
 *       a pre-registered {@code oauth} client as an {@code oauth} auth reference ({@code oauth: false}
 *       only turns opencode's automatic OAuth off, which mcp-host does only when a server asks).</li>
 * </ul>
 * The timeout is the largest one given, since mcp-host has one for connecting and for calls.
 * {@code codemode} and {@code protocol} are opencode's own and ignored. opencode substitutes
 * {@code {env:NAME}} (empty when unset) and {@code {file:path}}; see {@link Variables#opencode()}.
 *
 * <p>Priority 55, with goose: an agent CLI, so above the editors (50), and below the agent CLIs whose
 * files mcp-host has followed longest (Claude Code 80, Codex 70, Gemini CLI 60).
 */
public final class OpenCodeSource extends FileSource {

    private static final List<String> NAMES = List.of("opencode.json", "opencode.jsonc");
    private static final String V2_PREFIX = "/mcp/servers/";

    /** Creates the source; ServiceLoader calls this. */
    public OpenCodeSource() {
        super("opencode", "opencode", 55);
    }

    @Override
    List<Path> userFiles(SearchPath search) {
        Map<String, String> environment = search.environment();
        List<Path> files = new ArrayList<>();
        SearchPath.absolutePath(environment.get("OPENCODE_CONFIG")).ifPresent(files::add);
        Path dir = Platform.xdgConfigHome(search.home(), environment).resolve("opencode");
        NAMES.forEach(name -> files.add(dir.resolve(name).normalize()));
        return files;
    }

    @Override
    List<String> projectFiles() {
        return NAMES;
    }

    @Override
    Variables variables(ConfigFile file, SearchPath search) {
        return Variables.opencode(search.environment());
    }

    /** Reads each file's OpenCode 2 servers, then its OpenCode 1 ones (see the class comment). */
    @Override
    void collect(Context context, SearchPath search, Findings findings) {
        List<Path> user = userFiles(search);
        List<ConfigFile> files = new ArrayList<>(projectConfigFiles(search, user));
        user.forEach(path -> files.add(userFile(path, search)));
        for (ConfigFile file : files) {
            readRoot(file, findings).ifPresent(root -> guarded(file, "", findings, () -> readMcp(file, root, search, findings)));
        }
    }

    private void readMcp(ConfigFile file, ObjectNode root, SearchPath search, Findings findings) {
        JsonNode mcp = root.get("mcp");
        if (mcp == null || mcp.isNull()) {
            return;
        }
        if (!mcp.isObject()) {
            readServers(file, root, "", "mcp", search, findings); // reports the wrong type
            return;
        }
        JsonNode servers = mcp.get("servers");
        // A V1 server may be named "servers": it has a string "type", which a V2 map of servers has not.
        boolean v2 = servers != null && servers.isObject() && !servers.path("type").isString();
        if (v2) {
            readServers(file, (ObjectNode) mcp, "/mcp", "servers", search, findings);
        }
        ObjectNode v1 = ((ObjectNode) mcp).deepCopy();
        if (v2) {
            v1.remove("servers");
            v1.remove("timeout"); // V2's defaults for every server
        }
        if (!v1.isEmpty()) {
            ObjectNode wrapper = root.objectNode();
            wrapper.set("mcp", v1);
            readServers(file, wrapper, "", "mcp", search, findings);
        }
    }

    @Override
    void readServer(ServerEntry entry, SpecBuilder spec) {
        spec.expandVariables = false; // opencode's only variables, {env:NAME}, are replaced by Variables.opencode
        boolean v2 = entry.pointer().startsWith(V2_PREFIX);
        Optional<String> type = entry.string("type");
        if (type.isEmpty()) {
            if (!entry.failed()) {
                entry.error(entry.pointer(), "\"type\" must be \"local\" or \"remote\", got none");
            }
            return;
        }
        switch (type.get()) {
            case "local":
                readLocal(entry, spec);
                break;
            case "remote":
                readRemote(entry, spec, v2);
                break;
            default:
                entry.error(Pointers.child(entry.pointer(), "type"),
                        "\"type\" must be \"local\" or \"remote\", got \"" + type.get() + "\"");
                return;
        }
        if (v2) {
            spec.enabled = entry.bool("disabled").map(disabled -> !disabled);
            if (entry.has("enabled")) {
                entry.note("enabled", "OpenCode 2 has no \"enabled\"; it is ignored, use \"disabled\"");
            }
            spec.timeoutMillis = entry.nested("timeout").flatMap(timeout -> Stream.of(
                            timeout.millis("startup"), timeout.millis("catalog"), timeout.millis("execution"))
                    .flatMap(Optional::stream).max(Long::compare));
        } else {
            spec.enabled = entry.bool("enabled");
            spec.timeoutMillis = entry.millis("timeout");
        }
        entry.refuseUnsupportedReferences();
    }

    private static void readLocal(ServerEntry entry, SpecBuilder spec) {
        spec.type = Optional.of("stdio");
        Optional<List<String>> argv = entry.stringList("command", true);
        if (argv.isPresent() && argv.get().isEmpty()) {
            entry.error(Pointers.child(entry.pointer(), "command"),
                    "\"command\" must name the executable first, got an empty array");
            return;
        }
        argv.ifPresent(command -> {
            spec.command = Optional.of(command.get(0));
            spec.args = command.subList(1, command.size());
        });
        entry.stringMap("environment").ifPresent(spec.env::putAll);
        spec.cwd = entry.string("cwd");
    }

    private static void readRemote(ServerEntry entry, SpecBuilder spec, boolean v2) {
        spec.type = Optional.of("http");
        spec.url = entry.string("url");
        entry.stringMap("headers").ifPresent(spec.headers::putAll);
        if (entry.node("oauth").filter(JsonNode::isBoolean).isPresent()) {
            return; // oauth: false
        }
        spec.auth = OAuthClient.read(entry, "oauth", v2
                ? Map.of("client_id", "clientId", "client_secret", "clientSecret", "scope", "scope",
                        "callback_port", "callbackPort")
                : Map.of("clientId", "clientId", "clientSecret", "clientSecret", "scope", "scope"));
    }
}
