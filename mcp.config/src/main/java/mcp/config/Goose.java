package mcp.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mcp.api.McpJson;
import mcp.config.internal.connect.YamlText;
import mcp.config.internal.sources.GooseSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * goose's {@code config.yaml}: its {@code extensions} that start a server move, those that run inside goose
 * ({@code builtin}, {@code platform}, {@code frontend}) stay, and the gateway's stdio extension takes the place of the
 * first moved one. The file is edited by lines ({@link YamlText}), and the edit is checked by parsing both texts:
 * everything but the extensions must read the same, else nothing is written.
 */
final class Goose {

    private static final String KEY = "extensions";
    /** Extensions that run inside goose or its UI: nothing to move, so they stay in goose's file. */
    private static final Set<String> INSIDE = Set.of("builtin", "platform", "frontend");
    /** goose's substitution in a remote extension's uri and headers: {@code ${NAME}} or {@code $NAME}. */
    private static final Pattern VARIABLE = Pattern.compile(
            "\\$\\{\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*}|\\$([A-Za-z_][A-Za-z0-9_]*)");
    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    private Goose() {
    }

    static String connect(String text, List<String> command, Map<String, ObjectNode> moved, List<String> disabled) {
        JsonNode root = parse(text);
        JsonNode extensions = root.path(KEY);
        if (!extensions.isMissingNode() && !extensions.isNull() && !extensions.isObject()) {
            throw new IllegalArgumentException("\"" + KEY + "\" is not a mapping");
        }
        if (extensions.has(AgentConnection.GATEWAY)) {
            throw new IllegalArgumentException("it already has the extension \"" + AgentConnection.GATEWAY
                    + "\" (connected already?)");
        }
        Map<String, JsonNode> kept = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> entry : extensions.properties()) {
            JsonNode value = entry.getValue();
            if (!value.isObject()) {
                throw new IllegalArgumentException("the extension " + entry.getKey() + " is not a mapping");
            }
            if (INSIDE.contains(value.path("type").asString(""))) {
                kept.put(entry.getKey(), value);
                continue;
            }
            ObjectNode copy = carry(entry.getKey(), (ObjectNode) value);
            if (copy.has("enabled") && !copy.get("enabled").asBoolean(true)) {
                disabled.add(entry.getKey());
            }
            moved.put(entry.getKey(), copy);
        }
        YamlText.Block block = text.isBlank() ? null : YamlText.block(text, KEY);
        String connected;
        if (block == null) {
            String head = text.isEmpty() || text.endsWith("\n") ? text : text + "\n";
            connected = head + KEY + ":\n" + gateway("  ", command);
        } else if (block.inline()) {
            connected = text.substring(0, block.start()) + KEY + ":\n" + gateway("  ", command)
                    + text.substring(block.end());
        } else {
            StringBuilder out = new StringBuilder(text.substring(0, block.start()));
            int at = block.start();
            boolean placed = false;
            for (YamlText.Entry entry : block.entries()) {
                out.append(text, at, entry.start());
                at = entry.end();
                if (kept.containsKey(entry.name())) {
                    out.append(withNewline(text.substring(entry.start(), entry.end())));
                } else if (!placed) {
                    out.append(gateway(block.indent(), command));
                    placed = true;
                }
            }
            out.append(text, at, block.end());
            if (!placed) {
                if (out.length() > 0 && out.charAt(out.length() - 1) != '\n') {
                    out.append('\n');
                }
                out.append(gateway(block.indent(), command));
            }
            out.append(text.substring(block.end()));
            connected = out.toString();
        }
        check(root, kept, connected);
        return connected;
    }

    private static String withNewline(String text) {
        return text.endsWith("\n") ? text : text + "\n";
    }

    /** Everything but the extensions reads the same, and the extensions are the kept ones and the gateway. */
    private static void check(JsonNode before, Map<String, JsonNode> kept, String connected) {
        JsonNode after;
        try {
            after = parse(connected);
        } catch (RuntimeException e) {
            throw unsafe();
        }
        ObjectNode restBefore = (ObjectNode) before.deepCopy();
        restBefore.remove(KEY);
        ObjectNode restAfter = (ObjectNode) after.deepCopy();
        restAfter.remove(KEY);
        Map<String, JsonNode> extensions = new LinkedHashMap<>();
        after.path(KEY).properties().forEach(e -> extensions.put(e.getKey(), e.getValue()));
        JsonNode gateway = extensions.remove(AgentConnection.GATEWAY);
        if (!restBefore.equals(restAfter) || !extensions.equals(kept) || gateway == null) {
            throw unsafe();
        }
    }

    private static IllegalArgumentException unsafe() {
        return new IllegalArgumentException("its \"" + KEY + "\" are laid out in a way mcp-host cannot edit safely"
                + " by lines (connect goose by hand)");
    }

    private static JsonNode parse(String text) {
        if (text.isBlank()) {
            return McpJson.object();
        }
        JsonNode root = YAML.readTree(text);
        if (root == null || root.isMissingNode() || root.isNull()) {
            return McpJson.object();
        }
        if (!root.isObject()) {
            throw new IllegalArgumentException("not a YAML mapping");
        }
        return root;
    }

    /** The gateway's stdio extension, as goose itself writes one. */
    private static String gateway(String indent, List<String> command) {
        String in = indent + indent;
        StringBuilder args = new StringBuilder();
        for (String arg : command.subList(1, command.size())) {
            args.append(args.length() == 0 ? "" : ", ").append(AgentConnection.quote(arg));
        }
        return indent + AgentConnection.GATEWAY + ":\n"
                + in + "enabled: true\n"
                + in + "type: stdio\n"
                + in + "name: " + AgentConnection.GATEWAY + "\n"
                + in + "description: every MCP server through mcp-host's gateway\n"
                + in + "cmd: " + AgentConnection.quote(command.get(0)) + "\n"
                + in + "args: [" + args + "]\n"
                + in + "envs: {}\n"
                + in + "env_keys: []\n";
    }

    /** One extension in mcp-host's format, read as GooseSource reads it. */
    private static ObjectNode carry(String name, ObjectNode entry) {
        String type = entry.path("type").asString("");
        ObjectNode copy = McpJson.object();
        switch (type) {
            case "stdio" -> copy.put("type", "stdio");
            case "streamable_http" -> copy.put("type", "http");
            case "sse" -> copy.put("type", "sse");
            default -> throw AgentConnection.cannot(name, "type \"" + type + "\"");
        }
        Map<String, String> envs = new LinkedHashMap<>();
        entry.path("envs").properties().forEach(e -> {
            if (!GooseSource.disallowed(e.getKey())) {
                envs.put(e.getKey(), AgentConnection.literal(name, e.getValue().asString("")));
            }
        });
        List<String> keys = new ArrayList<>();
        entry.path("env_keys").forEach(k -> {
            if (!GooseSource.disallowed(k.asString(""))) {
                keys.add(k.asString(""));
            }
        });
        for (Map.Entry<String, JsonNode> field : entry.properties()) {
            String key = field.getKey();
            JsonNode value = field.getValue();
            switch (key) {
                case "cmd" -> copy.put("command", AgentConnection.literal(name, value.asString("")));
                case "args" -> {
                    ArrayNode args = copy.putArray("args");
                    value.forEach(arg -> args.add(AgentConnection.literal(name, arg.asString(""))));
                }
                case "uri" -> copy.put("url", substitute(name, value.asString(""), envs, keys));
                case "headers" -> {
                    ObjectNode headers = copy.putObject("headers");
                    value.properties().forEach(e -> headers.put(e.getKey(), substitute(name, e.getValue()
                            .asString(""), envs, keys)));
                }
                case "enabled" -> {
                    if (!value.asBoolean(true)) {
                        copy.put("enabled", false);
                    }
                }
                case "timeout" -> copy.put("timeout", value.asLong() * 1000);
                case "available_tools" -> {
                    if (!value.isEmpty()) {
                        ArrayNode tools = copy.putArray("enabledTools");
                        value.forEach(tools::add);
                    }
                }
                // Read above; names and descriptions are for people.
                case "type", "envs", "env_keys", "name", "display_name", "description", "bundled" -> {
                }
                default -> throw AgentConnection.cannot(name, key);
            }
        }
        if (type.equals("stdio") && (!envs.isEmpty() || !keys.isEmpty())) {
            // goose takes env_keys from its environment (or its secret store), and a value in envs wins.
            ObjectNode env = copy.putObject("env");
            keys.forEach(k -> env.put(k, "${" + k + "}"));
            envs.forEach(env::put);
        }
        if (type.equals("sse")) {
            // goose no longer starts SSE extensions: off, as it is in goose.
            copy.put("enabled", false);
        }
        return copy;
    }

    /** goose's substitution from the extension's envs and env_keys; a ${NAME} in neither it leaves as written. */
    private static String substitute(String server, String value, Map<String, String> envs, List<String> keys) {
        Matcher m = VARIABLE.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String variable = m.group(1) != null ? m.group(1) : m.group(2);
            String replacement;
            if (envs.containsKey(variable)) {
                replacement = envs.get(variable);
            } else if (keys.contains(variable)) {
                replacement = "${" + variable + "}";
            } else if (m.group(1) != null) {
                throw AgentConnection.cannot(server, "the literal value \"" + value + "\" (mcp-host would expand its"
                        + " ${...})");
            } else {
                replacement = m.group();
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }

    /**
     * The connected text with its extensions as they were before, where the only ones added since would be none.
     */
    static String restore(String now, String before) {
        JsonNode current = parse(now).path(KEY);
        JsonNode original = parse(before).path(KEY);
        List<String> added = new ArrayList<>();
        current.properties().forEach(e -> {
            if (!e.getKey().equals(AgentConnection.GATEWAY) && !e.getValue().equals(original.path(e.getKey()))) {
                added.add(e.getKey());
            }
        });
        if (!added.isEmpty()) {
            throw new IllegalArgumentException("extensions were added or changed beside the gateway since it was"
                    + " connected: " + added + "; move them into mcp-host (mcp-host add) or remove them, then"
                    + " disconnect again");
        }
        YamlText.Block at = YamlText.block(now, KEY);
        if (at == null) {
            return now;
        }
        YamlText.Block was = before.isBlank() ? null : YamlText.block(before, KEY);
        String value = was == null ? "" : withNewline(before.substring(was.start(), was.end()));
        return now.substring(0, at.start()) + value + now.substring(at.end());
    }
}
