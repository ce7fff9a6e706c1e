package mcp.manager.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Optional;
import mcp.api.LogLevel;
import mcp.api.McpJson;
import mcp.manager.ServerLog;
import mcp.manager.ServerLogEntry;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** A server's log message made into an entry: cleaned, bounded, masked; and its stored line. */
class LogMessagesTest {

    private static final Instant NOW = Instant.parse("2026-09-01T12:00:00Z");

    private static ServerLogEntry entry(String params) {
        return LogMessages.entry(McpJson.mapper().readTree(params), NOW);
    }

    @Test
    void levelLoggerAndStringDataAreTakenAsSent() {
        ServerLogEntry entry = entry("{\"level\":\"warning\",\"logger\":\"db\",\"data\":\"slow query\"}");
        assertEquals(new ServerLogEntry(NOW, LogLevel.WARNING, Optional.of("db"), "slow query"), entry);
    }

    @Test
    void otherDataIsCompactJsonAndMalformedMessagesStillBecomeEntries() {
        assertEquals("{\"error\":\"refused\",\"port\":5432}",
                entry("{\"level\":\"error\",\"data\":{\"error\":\"refused\",\"port\":5432}}").text());
        ServerLogEntry odd = entry("{\"level\":\"loud\",\"logger\":7,\"data\":null}");
        assertEquals(LogLevel.INFO, odd.level());
        assertEquals(Optional.empty(), odd.logger());
        assertEquals("", odd.text());
        assertEquals(LogLevel.INFO, LogMessages.entry(null, NOW).level());
    }

    @Test
    void terminalControlAndInvisibleCharactersAreRemoved() {
        ServerLogEntry entry = LogMessages.entry(McpJson.object().put("level", "info")
                .put("logger", "\u001B]0;pwned\u0007log").put("data", "red \u001B[31malert\u001B[0m \u202Eetirw\u202C\u200B ok"
                        + new String(Character.toChars(0xE0041))), NOW);
        assertEquals("log", entry.logger().orElseThrow());
        assertEquals("red alert etirw ok", entry.text());
    }

    @Test
    void oneMessageIsCapped() {
        ServerLogEntry entry = LogMessages.entry(McpJson.object().put("level", "info").put("data", "x".repeat(1_000_000)),
                NOW);
        assertEquals(ServerLog.MAX_TEXT, entry.text().length());
        assertTrue(entry.text().endsWith("…"));
        assertEquals(LogMessages.MAX_LOGGER, LogMessages.entry(McpJson.object().put("logger", "l".repeat(1_000)), NOW)
                .logger().orElseThrow().length());
    }

    @Test
    void secretLookingValuesAreMasked() {
        String text = entry("{\"level\":\"debug\",\"data\":\"connecting with api_key=sk-live-123 and"
                + " Authorization: Bearer abc.def to https://user:pw@example.test/x?token=t0k\"}").text();
        assertFalse(text.contains("sk-live-123"), text);
        assertFalse(text.contains("abc.def"), text);
        assertFalse(text.contains("pw@"), text);
        assertFalse(text.contains("t0k"), text);
        assertTrue(text.startsWith("connecting with api_key=<hidden>"), text);
        String json = entry("{\"data\":{\"apiKey\":\"sk-1\",\"nested\":[{\"password\":\"hunter2\"}],"
                + "\"tokenRef\":\"${TOKEN}\",\"user\":\"ada\"}}").text();
        assertEquals("{\"apiKey\":\"<hidden>\",\"nested\":[{\"password\":\"<hidden>\"}],\"tokenRef\":\"${TOKEN}\","
                + "\"user\":\"ada\"}", json);
    }

    @Test
    void theStoredLineRoundTripsAndForeignLinesAreSkipped() {
        ServerLogEntry entry = new ServerLogEntry(NOW, LogLevel.CRITICAL, Optional.of("core"), "down");
        JsonNode line = LogMessages.json(entry);
        assertEquals(Optional.of(entry), LogMessages.parse(line.toString()));
        assertEquals(Optional.empty(), LogMessages.parse("not json"));
        assertEquals(Optional.empty(), LogMessages.parse("{\"time\":\"yesterday\"}"));
        assertEquals(Optional.empty(), LogMessages.parse("[1]"));
        // An edited file is cleaned again on the way out.
        assertEquals("boom", LogMessages.parse("{\"time\":\"2026-09-01T12:00:00Z\",\"level\":\"error\","
                + "\"data\":\"\\u001b[2Jboom\"}").orElseThrow().text());
    }
}
