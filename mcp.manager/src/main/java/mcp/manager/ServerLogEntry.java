package mcp.manager;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import mcp.api.LogLevel;
import mcp.manager.internal.LogMessages;
import tools.jackson.databind.node.ObjectNode;

/**
 * One log message a server sent ({@code notifications/message}), as mcp-host keeps and shows it: the text is
 * cleaned like tool descriptions (no terminal control sequences, no invisible characters), bounded
 * ({@link ServerLog#MAX_TEXT} characters), and secret-looking values in it are masked.
 *
 * @param time when mcp-host received it
 * @param level its level; a level the server spelt in no known way is {@link LogLevel#INFO}
 * @param logger the name of the server's logger, if it gave one (cleaned, at most 256 characters)
 * @param text its {@code data}: a string as is, any other JSON value as compact JSON
 */
public record ServerLogEntry(Instant time, LogLevel level, Optional<String> logger, String text) {

    /** Validates. */
    public ServerLogEntry {
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(level, "level");
        Objects.requireNonNull(logger, "logger");
        Objects.requireNonNull(text, "text");
    }

    /**
     * @return the entry as mcp-host stores it, one line of its log file: {@code time} (ISO-8601), {@code level},
     *     {@code logger} ({@code null} when none) and {@code data} (the text)
     */
    public ObjectNode toJson() {
        return LogMessages.json(this);
    }
}
