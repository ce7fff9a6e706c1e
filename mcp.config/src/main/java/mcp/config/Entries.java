package mcp.config;

import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mcp.api.McpJson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * opencode's and Zed's server entries in mcp-host's format, read as their discovery sources read them
 * ({@code OpenCodeSource}, {@code ZedSource}); a field that cannot be carried as the agent means it is refused.
 */
final class Entries {

    /** opencode substitutes {@code {env:NAME}} (empty when unset) and {@code {file:path}} in the config's text. */
    private static final Pattern OPENCODE_VAR = Pattern.compile("\\{env:([^}]*)}|\\{file:([^}]*)}");

    private Entries() {
    }

    /** OpenCode 1's entry: {@code type} local (command array, environment, cwd) or remote (url, headers). */
    static ObjectNode openCode(String name, ObjectNode entry) {
        ObjectNode copy = McpJson.object();
        for (Map.Entry<String, JsonNode> field : entry.properties()) {
            String key = field.getKey();
            JsonNode value = field.getValue();
            switch (key) {
                case "type" -> {
                    switch (value.asString("")) {
                        case "local" -> copy.put("type", "stdio");
                        case "remote" -> copy.put("type", "http");
                        default -> throw AgentConnection.cannot(name, "type \"" + value.asString("") + "\"");
                    }
                }
                case "command" -> {
                    if (!value.isArray() || value.isEmpty()) {
                        throw AgentConnection.cannot(name, "a command that is not an array naming the executable"
                                + " first");
                    }
                    copy.put("command", openCodeValue(name, value.get(0).asString("")));
                    ArrayNode args = copy.putArray("args");
                    for (int i = 1; i < value.size(); i++) {
                        args.add(openCodeValue(name, value.get(i).asString("")));
                    }
                }
                case "cwd", "url" -> copy.put(key, openCodeValue(name, value.asString("")));
                case "environment", "headers" -> {
                    ObjectNode map = copy.putObject(key.equals("environment") ? "env" : "headers");
                    value.properties().forEach(e -> map.put(e.getKey(), openCodeValue(name, e.getValue()
                            .asString(""))));
                }
                case "enabled" -> {
                    if (!value.asBoolean(true)) {
                        copy.put("enabled", false);
                    }
                }
                case "timeout" -> copy.put("timeout", value.asLong());
                // oauth: false only turns opencode's automatic OAuth off, which mcp-host does only when asked.
                case "oauth" -> {
                    if (!value.isBoolean() || value.booleanValue()) {
                        throw AgentConnection.cannot(name, key);
                    }
                }
                default -> throw AgentConnection.cannot(name, key);
            }
        }
        return copy;
    }

    /** opencode's {@code {env:NAME}} as mcp-host's {@code ${NAME:-}} (empty when unset, as in opencode). */
    private static String openCodeValue(String server, String value) {
        String literal = AgentConnection.literal(server, value);
        Matcher m = OPENCODE_VAR.matcher(literal);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            if (m.group(1) == null) {
                throw AgentConnection.cannot(server, "the file reference {file:" + m.group(2) + "}");
            }
            m.appendReplacement(out, Matcher.quoteReplacement("${" + m.group(1).strip() + ":-}"));
        }
        m.appendTail(out);
        return out.toString();
    }

    /**
     * Zed's entry: {@code command} (a string, or the older {@code {path, args, env}}), {@code args}, {@code env};
     * or {@code url}, {@code headers}; {@code timeout} in seconds; {@code enabled}. Zed expands no variables.
     */
    static ObjectNode zed(String name, ObjectNode entry) {
        ObjectNode copy = McpJson.object();
        JsonNode command = entry.path("command");
        if (!command.isMissingNode()) {
            copy.put("type", "stdio");
        } else if (entry.has("url")) {
            copy.put("type", "http");
        } else {
            throw AgentConnection.cannot(name, "no command and no url (a server a Zed extension provides, which"
                    + " only Zed can start)");
        }
        for (Map.Entry<String, JsonNode> field : entry.properties()) {
            String key = field.getKey();
            JsonNode value = field.getValue();
            switch (key) {
                case "command" -> {
                    if (value.isObject()) {
                        for (Map.Entry<String, JsonNode> legacy : value.properties()) {
                            switch (legacy.getKey()) {
                                case "path" -> copy.put("command", AgentConnection.literal(name, legacy.getValue()
                                        .asString("")));
                                case "args", "env" -> zedField(name, legacy.getKey(), legacy.getValue(), copy);
                                default -> throw AgentConnection.cannot(name, "command." + legacy.getKey());
                            }
                        }
                    } else {
                        copy.put("command", AgentConnection.literal(name, value.asString("")));
                    }
                }
                case "args", "env", "headers" -> zedField(name, key, value, copy);
                // A url beside a command is ignored, as in Zed.
                case "url" -> {
                    if (command.isMissingNode()) {
                        copy.put("url", AgentConnection.literal(name, value.asString("")));
                    }
                }
                case "enabled" -> {
                    if (!value.asBoolean(true)) {
                        copy.put("enabled", false);
                    }
                }
                case "timeout" -> copy.put("timeout", value.asLong() * 1000);
                case "source" -> {
                    if (!value.asString("").toLowerCase(Locale.ROOT).equals("custom")) {
                        throw AgentConnection.cannot(name, "source \"" + value.asString("") + "\"");
                    }
                }
                case "remote" -> {
                    if (value.asBoolean(false)) {
                        throw AgentConnection.cannot(name, "remote: true (run on a remote development host)");
                    }
                }
                default -> throw AgentConnection.cannot(name, key);
            }
        }
        return copy;
    }

    private static void zedField(String name, String key, JsonNode value, ObjectNode copy) {
        if (key.equals("args")) {
            ArrayNode args = copy.putArray("args");
            value.forEach(arg -> args.add(AgentConnection.literal(name, arg.asString(""))));
        } else {
            ObjectNode map = copy.putObject(key);
            value.properties().forEach(e -> map.put(e.getKey(), AgentConnection.literal(name, e.getValue()
                    .asString(""))));
        }
    }
}
