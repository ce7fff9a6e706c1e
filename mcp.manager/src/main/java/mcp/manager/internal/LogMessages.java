package mcp.manager.internal;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.LogLevel;
import mcp.api.McpJson;
import mcp.api.internal.Secrets;
import mcp.manager.ServerLog;
import mcp.manager.ServerLogEntry;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Server log messages ({@code notifications/message}) made into {@link ServerLogEntry} values, and the one
 * JSON line each is stored as: {@code {"time", "level", "logger", "data"}}.
 */
public final class LogMessages {

    /** The most characters of a logger name. */
    static final int MAX_LOGGER = 256;
    /** The most characters of a server's text looked at: what is past it is cut anyway. */
    private static final int MAX_RAW = 4 * ServerLog.MAX_TEXT;

    private LogMessages() {
    }

    /**
     * @param params a {@code notifications/message}'s params ({@code level}, {@code logger}, {@code data}),
     *     possibly malformed or {@code null}
     * @param time when it arrived
     * @return the entry: level, logger and text cleaned, bounded and with secret-looking values masked
     */
    public static ServerLogEntry entry(JsonNode params, Instant time) {
        JsonNode given = params == null ? McpJson.object() : params;
        LogLevel level = given.path("level").isString() ? LogLevel.parse(given.path("level").asString()).orElse(LogLevel.INFO)
                : LogLevel.INFO;
        JsonNode logger = given.get("logger");
        Optional<String> name = logger != null && logger.isString()
                ? Optional.of(clean(logger.asString(), MAX_LOGGER)).filter(s -> !s.isBlank()) : Optional.empty();
        JsonNode data = given.get("data");
        String text;
        if (data == null || data.isNull() || data.isMissingNode()) {
            text = "";
        } else if (data.isString()) {
            text = data.asString();
        } else {
            text = masked(data.deepCopy()).toString();
        }
        return new ServerLogEntry(time, level, name, clean(text, ServerLog.MAX_TEXT));
    }

    /** Clean of control sequences and invisible characters, secrets masked, at most {@code max} characters. */
    private static String clean(String text, int max) {
        String bounded = text.length() > MAX_RAW ? text.substring(0, MAX_RAW) : text;
        String visible = AgentText.clean(bounded, MAX_RAW).text();
        return AgentText.clean(Secrets.maskText(visible), max).text();
    }

    /** The values of fields with a credential's name hidden, at any depth (masked in place). */
    private static JsonNode masked(JsonNode node) {
        if (node instanceof ObjectNode object) {
            for (Map.Entry<String, JsonNode> field : List.copyOf(object.properties())) {
                JsonNode value = field.getValue();
                if (Secrets.isSecretName(field.getKey()) && value.isValueNode() && !value.isNull()
                        && !(value.isString() && Secrets.isReference(value.asString()))) {
                    object.put(field.getKey(), Secrets.HIDDEN);
                } else {
                    masked(value);
                }
            }
        } else if (node instanceof ArrayNode array) {
            array.forEach(LogMessages::masked);
        }
        return node;
    }

    /**
     * @param entry an entry
     * @return its stored form: one line of JSON with {@code time} (ISO-8601), {@code level}, {@code logger}
     *     ({@code null} when none) and {@code data} (its text)
     */
    public static ObjectNode json(ServerLogEntry entry) {
        ObjectNode line = McpJson.object();
        line.put("time", entry.time().toString());
        line.put("level", entry.level().wire());
        line.put("logger", entry.logger().orElse(null));
        line.put("data", entry.text());
        return line;
    }

    /**
     * @param line a stored line
     * @return its entry, cleaned again (the file may have been edited), or empty when it is not one
     */
    public static Optional<ServerLogEntry> parse(String line) {
        try {
            JsonNode node = McpJson.mapper().readTree(line);
            if (node == null || !node.isObject() || !node.path("time").isString()) {
                return Optional.empty();
            }
            Instant time = Instant.parse(node.path("time").asString());
            return Optional.of(entry(node, time));
        } catch (JacksonException | DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
