package mcp.api;

import java.util.Locale;
import java.util.Optional;

/**
 * The severity of a server's log message ({@code notifications/message}), the syslog levels of RFC 5424 that
 * MCP uses, least severe first: a level asked for means that level and every more severe one.
 */
public enum LogLevel {
    /** Detailed debugging information. */
    DEBUG,
    /** General information. */
    INFO,
    /** Normal but significant events. */
    NOTICE,
    /** Warning conditions. */
    WARNING,
    /** Error conditions. */
    ERROR,
    /** Critical conditions. */
    CRITICAL,
    /** Action must be taken at once. */
    ALERT,
    /** The system is unusable. */
    EMERGENCY;

    /** @return the level as MCP spells it: {@code debug}, {@code info}, ... */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param text a level as MCP spells it (any case)
     * @return the level, or empty when the text names none
     */
    public static Optional<LogLevel> parse(String text) {
        if (text != null) {
            for (LogLevel level : values()) {
                if (level.wire().equalsIgnoreCase(text.strip())) {
                    return Optional.of(level);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * @param threshold the least severe level asked for
     * @return whether a message of this level is at that threshold or above it
     */
    public boolean atLeast(LogLevel threshold) {
        return compareTo(threshold) >= 0;
    }
}
