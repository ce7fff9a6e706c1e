package mcp.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.config.internal.connect.JsonText;
import mcp.config.internal.connect.TomlText;
import tools.jackson.core.json.JsonReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.toml.TomlMapper;

/**
 * Puts an agent behind mcp-host's gateway, and back: the agent's own MCP entries of one file (the user's, or the
 * project's) are replaced by the one entry that starts {@code mcp-host serve}, and each replaced entry is given in
 * mcp-host's own format, to be kept in mcp-host's config. Only the agent's servers member (or, for Codex, its
 * {@code [mcp_servers.*]} tables) changes: every other byte of the file (other settings, comments, key order) stays.
 *
 * <p>An entry is carried only when mcp-host means by its copy what the agent meant: the same command, arguments,
 * variables (each agent's variable syntax is translated into mcp-host's {@code ${VAR}}), transport, timeouts, tool
 * lists, and off when the agent had it off. An entry with something that cannot be carried (an OAuth block, a headers
 * helper, per-tool approval modes, a value the agent takes literally that mcp-host would expand) is refused, with the
 * server and the field, and nothing changes. A connect keeps the file's original bytes; {@link #restore} gives them
 * back.
 *
 * <p>Agents: {@code claude} (Claude Code: {@code ~/.claude.json} or the project's {@code .mcp.json}), {@code codex}
 * ({@code ~/.codex/config.toml} or {@code .codex/config.toml}), {@code gemini} ({@code ~/.gemini/settings.json} or
 * {@code .gemini/settings.json}), {@code cursor} ({@code ~/.cursor/mcp.json} or {@code .cursor/mcp.json}) and
 * {@code vscode} (the user profile's {@code mcp.json} or {@code .vscode/mcp.json}), {@code opencode}
 * ({@code opencode.json} or {@code opencode.jsonc} in opencode's config folder or the project), {@code goose} (its
 * {@code config.yaml}; goose has no project file) and {@code zed} (Zed's {@code settings.json} or
 * {@code .zed/settings.json}).
 */
public final class AgentConnection {

    /** The agents this class connects. */
    public static final List<String> AGENTS = List.of("claude", "codex", "gemini", "cursor", "vscode", "opencode",
            "goose", "zed");

    /** The name of the gateway's entry in every agent's file. */
    public static final String GATEWAY = "mcp-host";

    /**
     * The variables Codex must pass on to the gateway's {@code mcp-host serve} (its {@code env_vars}): Codex gives a
     * stdio server only a few variables of its own (HOME, PATH, USER, LANG, ...), and without these the gateway's
     * command would look for the user's shared gateway, configs and state somewhere else than the user's other agents
     * and {@code mcp-host} itself, and start a second gateway with every user server again. Codex passes only those
     * that are set.
     */
    public static final List<String> CODEX_PASSED_VARIABLES = List.of("XDG_CONFIG_HOME", "XDG_STATE_HOME",
            "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR");

    private static final JsonMapper JSONC = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS, JsonReadFeature.ALLOW_TRAILING_COMMA).build();
    private static final Pattern GEMINI_VAR = Pattern.compile("\\$(?:([A-Za-z_][A-Za-z0-9_]*)|\\{([A-Za-z_][A-Za-z0-9_]*)})");
    private static final Pattern EDITOR_VAR = Pattern.compile("\\$\\{(env:)?([^}]*)}");

    private AgentConnection() {
    }

    /**
     * What a connect would do.
     *
     * @param agent the agent
     * @param file the agent's file
     * @param original its bytes before, absent when it does not exist
     * @param connected its bytes after
     * @param moved the replaced entries in mcp-host's format, by name, in the file's order
     * @param disabled the names of those the agent had off (their copies say {@code "enabled": false})
     * @param command the gateway's command line, as the new entry has it
     */
    public record Plan(String agent, Path file, Optional<byte[]> original, byte[] connected,
            Map<String, ObjectNode> moved, List<String> disabled, List<String> command) {
        /** Copies. */
        public Plan {
            Objects.requireNonNull(agent, "agent");
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(original, "original");
            Objects.requireNonNull(connected, "connected");
            moved = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(moved));
            disabled = List.copyOf(disabled);
            command = List.copyOf(command);
        }
    }

    /**
     * @param agent one of {@link #AGENTS}
     * @param project the project's file (in the working directory) instead of the user's
     * @param home the user's home
     * @param workingDirectory the project
     * @param env the environment ({@code CODEX_HOME}, {@code XDG_CONFIG_HOME}, {@code VSCODE_APPDATA})
     * @return the file the agent keeps those servers in
     */
    public static Path file(String agent, boolean project, Path home, Path workingDirectory, Map<String, String> env) {
        return switch (agent) {
            case "claude" -> project ? workingDirectory.resolve(".mcp.json") : home.resolve(".claude.json");
            case "codex" -> project ? workingDirectory.resolve(".codex/config.toml")
                    : Optional.ofNullable(env.get("CODEX_HOME")).filter(s -> !s.isBlank()).map(Path::of)
                            .orElse(home.resolve(".codex")).resolve("config.toml");
            case "gemini" -> (project ? workingDirectory : home).resolve(".gemini/settings.json");
            case "cursor" -> (project ? workingDirectory : home).resolve(".cursor/mcp.json");
            case "vscode" -> project ? workingDirectory.resolve(".vscode/mcp.json") : vsCodeUser(home, env);
            case "opencode" -> openCode(project ? workingDirectory : configHome(home, env).resolve("opencode"));
            case "goose" -> {
                if (project) {
                    throw new McpException("goose has no project file: connect goose without --project");
                }
                yield absolute(env.get("GOOSE_PATH_ROOT"))
                        .map(root -> root.resolve("config"))
                        .orElse(configHome(home, env).resolve("goose")).resolve("config.yaml");
            }
            case "zed" -> project ? workingDirectory.resolve(".zed/settings.json")
                    : absolute(env.get("FLATPAK_XDG_CONFIG_HOME"))
                            .orElse(configHome(home, env)).resolve("zed/settings.json");
            default -> throw new McpException("mcp-host connects " + String.join(", ", AGENTS) + "; not " + agent);
        };
    }

    private static Optional<Path> absolute(String path) {
        return Optional.ofNullable(path).filter(p -> !p.isBlank()).map(Path::of).filter(Path::isAbsolute);
    }

    private static Path configHome(Path home, Map<String, String> env) {
        return mcp.api.UserDirectories.of(env, home).configHome();
    }

    /**
     * opencode reads both names and merges them: the one that exists, or of both the one that has servers
     * ({@code opencode.json} when neither has). Servers in both are refused: the file left out would still start its
     * own beside the gateway.
     */
    private static Path openCode(Path dir) {
        Path json = dir.resolve("opencode.json");
        Path jsonc = dir.resolve("opencode.jsonc");
        if (!Files.exists(jsonc)) {
            return json;
        }
        if (!Files.exists(json)) {
            return jsonc;
        }
        boolean inJson = hasMember(json, "mcp");
        boolean inJsonc = hasMember(jsonc, "mcp");
        if (inJson && inJsonc) {
            throw new McpException("both " + json + " and " + jsonc + " have servers (\"mcp\"); move them into one"
                    + " of the two first; nothing was changed");
        }
        return inJsonc ? jsonc : json;
    }

    private static boolean hasMember(Path file, String key) {
        try {
            return JSONC.readTree(Files.readString(file)).has(key);
        } catch (IOException | RuntimeException e) {
            return false; // plan reads it again and says what is wrong with it
        }
    }

    private static Path vsCodeUser(Path home, Map<String, String> env) {
        String appData = env.get("VSCODE_APPDATA");
        if (appData == null || appData.isBlank()) {
            String xdg = env.get("XDG_CONFIG_HOME");
            appData = xdg == null || xdg.isBlank() ? home.resolve(".config").toString() : xdg;
        }
        return Path.of(appData, "Code", "User", "mcp.json");
    }

    /**
     * Plans a connect, reading the agent's file; writes nothing.
     *
     * @param agent one of {@link #AGENTS}
     * @param file the agent's file ({@link #file})
     * @param command the gateway's command line ({@code [launcher, "serve", "--stdio"]})
     * @return the plan
     * @throws McpException when the file cannot be read or parsed, is already connected, or holds an entry that
     *     cannot be carried; nothing has been written then
     */
    public static Plan plan(String agent, Path file, List<String> command) {
        Optional<byte[]> original;
        try {
            original = Files.exists(file) ? Optional.of(Files.readAllBytes(file)) : Optional.empty();
        } catch (IOException e) {
            throw new McpException(file + ": cannot read: " + e.getMessage(), e);
        }
        String text = original.map(b -> new String(b, StandardCharsets.UTF_8)).orElse("");
        Map<String, ObjectNode> moved = new LinkedHashMap<>();
        List<String> disabled = new ArrayList<>();
        String connected;
        try {
            if (agent.equals("codex")) {
                connected = codex(file, text, command, moved, disabled);
            } else if (agent.equals("goose")) {
                connected = Goose.connect(text, command, moved, disabled);
            } else {
                connected = json(agent, file, text, command, moved, disabled);
            }
        } catch (IllegalArgumentException e) {
            throw new McpException(file + ": " + e.getMessage() + "; nothing was changed", e);
        }
        return new Plan(agent, file, original, connected.getBytes(StandardCharsets.UTF_8), moved, disabled,
                command);
    }

    private static String serversKey(String agent) {
        return switch (agent) {
            case "vscode" -> "servers";
            case "opencode" -> "mcp";
            case "zed" -> "context_servers";
            default -> "mcpServers";
        };
    }

    private static String json(String agent, Path file, String text, List<String> command, Map<String, ObjectNode> moved,
            List<String> disabled) {
        String key = serversKey(agent);
        JsonNode root = text.isBlank() ? McpJson.object() : JSONC.readTree(text);
        if (!root.isObject()) {
            throw new IllegalArgumentException("not a JSON object");
        }
        JsonNode servers = root.path(key);
        if (!servers.isMissingNode() && !servers.isObject()) {
            throw new IllegalArgumentException("\"" + key + "\" is not an object");
        }
        if (servers.has(GATEWAY)) {
            throw new IllegalArgumentException("it already has the entry \"" + GATEWAY + "\" (connected already?)");
        }
        if (agent.equals("opencode") && servers.path("servers").isObject() && !servers.path("servers").path("type")
                .isString()) {
            throw new IllegalArgumentException("its servers are in OpenCode 2's \"mcp\": {\"servers\": ...}, which"
                    + " connect does not edit yet (connect opencode by hand)");
        }
        for (Map.Entry<String, JsonNode> entry : servers.properties()) {
            if (!entry.getValue().isObject()) {
                throw new IllegalArgumentException("the entry " + entry.getKey() + " is not an object");
            }
            ObjectNode copy = switch (agent) {
                case "opencode" -> Entries.openCode(entry.getKey(), (ObjectNode) entry.getValue());
                case "zed" -> Entries.zed(entry.getKey(), (ObjectNode) entry.getValue());
                default -> carry(agent, entry.getKey(), (ObjectNode) entry.getValue());
            };
            if (agent.equals("gemini") && geminiOff(root, entry.getKey())) {
                copy.put("enabled", false);
            }
            if (copy.has("enabled") && !copy.get("enabled").asBoolean(true)) {
                disabled.add(entry.getKey());
            }
            moved.put(entry.getKey(), copy);
        }
        ObjectNode gateway = McpJson.object();
        if (agent.equals("opencode")) {
            // opencode's local server: the whole command line in one array.
            gateway.put("type", "local");
            ArrayNode argv = gateway.putArray("command");
            command.forEach(argv::add);
        } else {
            if (agent.equals("claude") || agent.equals("vscode")) {
                gateway.put("type", "stdio");
            }
            if (agent.equals("zed")) {
                gateway.put("source", "custom");
            }
            gateway.put("command", command.get(0));
            ArrayNode args = gateway.putArray("args");
            command.subList(1, command.size()).forEach(args::add);
        }
        if (text.isBlank()) {
            return "{\n  \"" + key + "\": " + render(GATEWAY, gateway, "  ") + "\n}\n";
        }
        Optional<JsonText.Member> member = JsonText.member(text, key);
        if (member.isPresent()) {
            JsonText.Member m = member.get();
            String indent = JsonText.indentAt(text, m.keyStart());
            return text.substring(0, m.valueStart()) + render(GATEWAY, gateway, indent) + text.substring(m.valueEnd());
        }
        // No servers member yet: one more member at the end of the root object.
        int end = JsonText.rootEnd(text);
        int last = end;
        while (last > 0 && Character.isWhitespace(text.charAt(last - 1))) {
            last--;
        }
        boolean empty = JsonText.rootEmpty(text);
        boolean trailingComma = text.charAt(last - 1) == ',';
        String insert = (empty || trailingComma ? "" : ",") + "\n  \"" + key + "\": " + render(GATEWAY, gateway, "  ")
                + "\n";
        return text.substring(0, last) + insert + text.substring(end);
    }

    /** Gemini CLI's own switch: named in mcp.excluded, or left out of an mcp.allowed list. */
    private static boolean geminiOff(JsonNode root, String name) {
        JsonNode mcp = root.path("mcp");
        for (JsonNode excluded : mcp.path("excluded")) {
            if (excluded.asString("").equals(name)) {
                return true;
            }
        }
        if (mcp.path("allowed").isArray()) {
            for (JsonNode allowed : mcp.path("allowed")) {
                if (allowed.asString("").equals(name)) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }

    /** One object member in the style of JSON config files: two spaces, {@code "key": value}. */
    private static String render(String name, ObjectNode entry, String indent) {
        String in1 = indent + "  ";
        String in2 = in1 + "  ";
        StringBuilder out = new StringBuilder("{\n").append(in1).append(quote(name)).append(": {\n");
        List<String> fields = new ArrayList<>();
        for (Map.Entry<String, JsonNode> field : entry.properties()) {
            fields.add(in2 + quote(field.getKey()) + ": " + McpJson.mapper().writeValueAsString(field.getValue())
                    .replace(",", ", "));
        }
        out.append(String.join(",\n", fields)).append('\n').append(in1).append("}\n").append(indent).append('}');
        return out.toString();
    }

    static String quote(String text) {
        return McpJson.mapper().writeValueAsString(text);
    }

    /** The entry in mcp-host's format, or a refusal naming what cannot be carried. */
    private static ObjectNode carry(String agent, String name, ObjectNode entry) {
        ObjectNode copy = McpJson.object();
        for (Map.Entry<String, JsonNode> field : entry.properties()) {
            String key = field.getKey();
            JsonNode value = field.getValue();
            switch (key) {
                case "type" -> {
                    String type = value.asString("").toLowerCase(Locale.ROOT);
                    switch (type) {
                        case "stdio", "http", "sse" -> copy.put("type", type);
                        case "streamable-http", "streamablehttp" -> copy.put("type", "http");
                        default -> {
                            if (!agent.equals("gemini")) {
                                throw cannot(name, "type \"" + type + "\"");
                            }
                        }
                    }
                }
                case "command", "cwd", "url" -> copy.put(key, variables(agent, name, value.asString("")));
                case "httpUrl" -> {
                    copy.put("url", variables(agent, name, value.asString("")));
                    copy.put("type", "http");
                }
                case "args" -> {
                    ArrayNode args = copy.putArray("args");
                    value.forEach(arg -> args.add(variables(agent, name, arg.asString(""))));
                }
                case "env", "headers" -> {
                    ObjectNode map = copy.putObject(key);
                    value.properties().forEach(e -> map.put(e.getKey(), variables(agent, name, e.getValue()
                            .asString(""))));
                }
                case "timeout" -> {
                    if (!agent.equals("gemini")) {
                        throw cannot(name, key);
                    }
                    copy.put("timeout", value.asLong());
                }
                case "includeTools", "excludeTools" -> {
                    if (!agent.equals("gemini")) {
                        throw cannot(name, key);
                    }
                    ArrayNode tools = copy.putArray(key.equals("includeTools") ? "enabledTools" : "disabledTools");
                    // Gemini CLI's "name(...)" names the tool "name".
                    value.forEach(tool -> tools.add(tool.asString("").replaceAll("\\(.*\\)$", "")));
                }
                case "disabled" -> {
                    if (value.asBoolean(false)) {
                        copy.put("enabled", false);
                    }
                }
                // Gemini CLI's trust lets calls run without a question, as mcp-host does for a tool nobody decided
                // about; a description is for people.
                case "trust", "description" -> {
                    if (!agent.equals("gemini")) {
                        throw cannot(name, key);
                    }
                }
                default -> throw cannot(name, key);
            }
        }
        if (copy.has("url") && !copy.has("type") && agent.equals("gemini")) {
            copy.put("type", "http");
        }
        return copy;
    }

    static IllegalArgumentException cannot(String server, String what) {
        return new IllegalArgumentException("the server " + server + " has " + what
                + ", which mcp-host's config cannot carry as the agent means it (connect that agent by hand, or"
                + " move the server into mcp-host with mcp-host add first)");
    }

    /** An agent's variable syntax in a value, in mcp-host's. */
    private static String variables(String agent, String server, String value) {
        switch (agent) {
            case "claude" -> {
                return value;
            }
            case "gemini" -> {
                // $VAR and ${VAR}; %VAR% is literal on Linux in Gemini CLI and in mcp-host alike.
                return geminiVariables(value);
            }
            default -> {
                // Cursor and VS Code: ${env:VAR}; VS Code's ${input:...} and ${workspaceFolder} ask or mean what
                // only the editor knows.
                Matcher m = EDITOR_VAR.matcher(value);
                StringBuilder out = new StringBuilder();
                while (m.find()) {
                    if (m.group(1) == null) {
                        throw cannot(server, "the editor's variable ${" + m.group(2) + "}");
                    }
                    m.appendReplacement(out, Matcher.quoteReplacement("${" + m.group(2) + "}"));
                }
                m.appendTail(out);
                return out.toString();
            }
        }
    }

    private static String geminiVariables(String value) {
        Matcher m = GEMINI_VAR.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String variable = m.group(1) != null ? m.group(1) : m.group(2);
            m.appendReplacement(out, Matcher.quoteReplacement("${" + variable + "}"));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String codex(Path file, String text, List<String> command, Map<String, ObjectNode> moved,
            List<String> disabled) {
        JsonNode root = text.isBlank() ? McpJson.object() : new TomlMapper().readTree(text);
        JsonNode servers = root.path("mcp_servers");
        if (servers.has(GATEWAY)) {
            throw new IllegalArgumentException("it already has the table [mcp_servers." + GATEWAY
                    + "] (connected already?)");
        }
        for (Map.Entry<String, JsonNode> entry : servers.properties()) {
            ObjectNode copy = carryCodex(entry.getKey(), entry.getValue());
            if (copy.has("enabled") && !copy.get("enabled").asBoolean(true)) {
                disabled.add(entry.getKey());
            }
            moved.put(entry.getKey(), copy);
        }
        return TomlText.replaceTables(text, "mcp_servers", codexTable(command));
    }

    /**
     * The gateway's table in Codex's {@code config.toml}.
     *
     * @param command the gateway's command line ({@code [launcher, "serve", "--stdio"]})
     * @return {@code [mcp_servers.mcp-host]} with its command, arguments, {@link #CODEX_PASSED_VARIABLES},
     *     {@link #CODEX_STARTUP_TIMEOUT_SECONDS} and {@code required = true}
     */
    public static String codexTable(List<String> command) {
        // required: Codex gives a server it may do without one second from its first turn (its optional-server
        // grace) and then sends that turn without its tools. A first start of the gateway (its JVM, and the user's
        // shared gateway's) takes about as long, so without it a `codex exec` may run with none of the user's tools.
        // A required server is waited for up to the startup timeout, and if it cannot start Codex says so and stops.
        return "[mcp_servers." + GATEWAY + "]\ncommand = " + quote(command.get(0)) + "\nargs = ["
                + String.join(", ", command.subList(1, command.size()).stream().map(AgentConnection::quote).toList())
                + "]\nenv_vars = [" + String.join(", ", CODEX_PASSED_VARIABLES.stream().map(AgentConnection::quote)
                        .toList()) + "]\nstartup_timeout_sec = " + CODEX_STARTUP_TIMEOUT_SECONDS
                + "\nrequired = true\n";
    }

    /**
     * How long Codex may wait for the gateway's entry to list its tools. Codex's own default (10 s) is meant for one
     * server; the gateway's first start on a machine also starts the user's shared gateway and has its first list
     * wait for servers that are starting, and a Codex that gives up goes on without any of the user's tools.
     */
    public static final int CODEX_STARTUP_TIMEOUT_SECONDS = 30;

    private static ObjectNode carryCodex(String name, JsonNode entry) {
        ObjectNode copy = McpJson.object();
        ObjectNode env = McpJson.object();
        ObjectNode headers = McpJson.object();
        boolean stdio = entry.has("command");
        for (Map.Entry<String, JsonNode> field : entry.properties()) {
            String key = field.getKey();
            JsonNode value = field.getValue();
            switch (key) {
                case "command", "cwd", "url" -> copy.put(key, literal(name, value.asString("")));
                case "args" -> {
                    ArrayNode args = copy.putArray("args");
                    value.forEach(arg -> args.add(literal(name, arg.asString(""))));
                }
                case "env" -> value.properties().forEach(e -> env.put(e.getKey(), literal(name, e.getValue()
                        .asString(""))));
                // Codex passes these variables on from its own environment.
                case "env_vars" -> value.forEach(v -> {
                    String variable = v.isObject() ? v.path("name").asString("") : v.asString("");
                    if (v.isObject() && v.has("source") && !v.path("source").asString("").equals("local")) {
                        throw cannot(name, "env_vars with source " + v.path("source").asString(""));
                    }
                    env.put(variable, "${" + variable + "}");
                });
                case "http_headers" -> value.properties().forEach(e -> headers.put(e.getKey(), literal(name,
                        e.getValue().asString(""))));
                case "env_http_headers" -> value.properties().forEach(e -> headers.put(e.getKey(), "${"
                        + e.getValue().asString("") + "}"));
                case "bearer_token_env_var" -> headers.put("Authorization", "Bearer ${" + value.asString("") + "}");
                case "enabled" -> {
                    if (!value.asBoolean(true)) {
                        copy.put("enabled", false);
                    }
                }
                case "enabled_tools", "disabled_tools" -> {
                    ArrayNode tools = copy.putArray(key.equals("enabled_tools") ? "enabledTools" : "disabledTools");
                    value.forEach(tools::add);
                }
                // Codex's default; a server Codex must not start without is not something mcp-host's config says.
                case "required" -> {
                    if (value.asBoolean(false)) {
                        throw cannot(name, "required = true");
                    }
                }
                case "startup_timeout_sec" -> copy.put("timeout", Math.round(value.asDouble() * 1000));
                case "startup_timeout_ms" -> copy.put("timeout", value.asLong());
                case "tool_timeout_sec" -> copy.put("toolTimeout", Math.round(value.asDouble() * 1000));
                default -> throw cannot(name, key);
            }
        }
        if (!env.isEmpty()) {
            copy.set("env", env);
        }
        if (!headers.isEmpty()) {
            copy.set("headers", headers);
        }
        if (stdio) {
            // Codex gives a server only a few variables of its own environment.
            copy.put("inheritEnv", "minimal");
        }
        return copy;
    }

    /** A value Codex takes as written: mcp-host would expand a ${...} in it, so it cannot be carried. */
    static String literal(String server, String value) {
        if (value.contains("${")) {
            throw cannot(server, "the literal value \"" + value + "\" (mcp-host would expand its ${...})");
        }
        return value;
    }

    /**
     * The bytes that undo a connect when the file has changed since: the connected file with the gateway's entry
     * replaced by the original servers, where the servers' part still holds the gateway's entry alone.
     *
     * @param agent the agent
     * @param current the file's bytes now
     * @param original the file's bytes before the connect (empty: there was no file)
     * @return the file's bytes, equal as a document to the original in its servers and as it is now elsewhere
     * @throws McpException when servers were added beside the gateway's entry since
     */
    public static byte[] restore(String agent, byte[] current, Optional<byte[]> original) {
        String now = new String(current, StandardCharsets.UTF_8);
        String before = original.map(b -> new String(b, StandardCharsets.UTF_8)).orElse("");
        try {
            if (agent.equals("codex")) {
                JsonNode servers = now.isBlank() ? McpJson.object() : new TomlMapper().readTree(now).path("mcp_servers");
                onlyGateway(servers);
                return TomlText.replaceTables(now, "mcp_servers", TomlText.tables(before, "mcp_servers"))
                        .getBytes(StandardCharsets.UTF_8);
            }
            if (agent.equals("goose")) {
                return Goose.restore(now, before).getBytes(StandardCharsets.UTF_8);
            }
            String key = serversKey(agent);
            JsonNode servers = JSONC.readTree(now).path(key);
            onlyGateway(servers);
            Optional<JsonText.Member> at = JsonText.member(now, key);
            if (at.isEmpty()) {
                return current;
            }
            Optional<JsonText.Member> was = before.isBlank() ? Optional.empty() : JsonText.member(before, key);
            String value = was.map(m -> before.substring(m.valueStart(), m.valueEnd())).orElse("{}");
            return (now.substring(0, at.get().valueStart()) + value + now.substring(at.get().valueEnd()))
                    .getBytes(StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new McpException(e.getMessage(), e);
        }
    }

    /**
     * The servers an agent's file holds, read as {@link #plan} reads them: for checking a file that something else
     * (the agent's own CLI) wrote.
     *
     * @param agent one of {@link #AGENTS} but {@code goose}
     * @param bytes the file's bytes (empty: no file)
     * @return the servers member (Codex: the {@code mcp_servers} tables), an empty object when there is none
     * @throws McpException when the bytes cannot be parsed, or for goose
     */
    public static JsonNode servers(String agent, byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (agent.equals("goose")) {
            throw new McpException("goose's extensions are not read here");
        }
        try {
            if (text.isBlank()) {
                return McpJson.object();
            }
            JsonNode root = agent.equals("codex") ? new TomlMapper().readTree(text) : JSONC.readTree(text);
            JsonNode servers = root.path(agent.equals("codex") ? "mcp_servers" : serversKey(agent));
            return servers.isObject() ? servers : McpJson.object();
        } catch (RuntimeException e) {
            throw new McpException("cannot read the servers of " + agent + "'s file: " + e.getMessage(), e);
        }
    }

    static void onlyGateway(JsonNode servers) {
        List<String> others = new ArrayList<>();
        servers.properties().forEach(e -> {
            if (!e.getKey().equals(GATEWAY)) {
                others.add(e.getKey());
            }
        });
        if (!others.isEmpty()) {
            throw new IllegalArgumentException("servers were added beside the gateway since it was connected: "
                    + others + "; move them into mcp-host (mcp-host add) or remove them, then disconnect again");
        }
    }
}
