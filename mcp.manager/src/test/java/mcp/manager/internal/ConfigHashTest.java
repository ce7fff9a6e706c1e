package mcp.manager.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import mcp.api.HttpServerConfig;
import mcp.api.StdioServerConfig;
import org.junit.jupiter.api.Test;

class ConfigHashTest {

    @Test
    void isCanonical() {
        Map<String, String> ab = new LinkedHashMap<>();
        ab.put("A", "1");
        ab.put("B", "2");
        Map<String, String> ba = new LinkedHashMap<>();
        ba.put("B", "2");
        ba.put("A", "1");
        StdioServerConfig one = StdioServerConfig.of("node", List.of("server.js")).withEnv(ab);
        StdioServerConfig two = StdioServerConfig.of("node", List.of("server.js")).withEnv(ba);
        assertEquals(ConfigHash.of(one), ConfigHash.of(two));
        assertTrue(ConfigHash.of(one).matches("[0-9a-f]{64}"));
        assertEquals("{\"args\":[\"server.js\"],\"command\":\"node\",\"enabled\":true,\"env\":{\"A\":\"1\",\"B\":\"2\"},"
                + "\"timeout\":30000,\"type\":\"stdio\"}", ConfigHash.canonicalJson(one));
    }

    @Test
    void changesWithTheConfig() {
        StdioServerConfig base = StdioServerConfig.of("node", List.of("server.js"));
        assertNotEquals(ConfigHash.of(base), ConfigHash.of(StdioServerConfig.of("node", List.of("other.js"))));
        assertNotEquals(ConfigHash.of(base), ConfigHash.of(base.withTimeout(Duration.ofSeconds(5))));
        assertNotEquals(ConfigHash.of(base), ConfigHash.of(base.withCwd("/tmp")));
        HttpServerConfig http = HttpServerConfig.of("http://127.0.0.1:1/mcp");
        assertNotEquals(ConfigHash.of(http), ConfigHash.of(http.withHeaders(Map.of("X-Team", "a"))));
        assertFalse(ConfigHash.canonicalJson(http).contains("headers"), "empty values are dropped");
        // A changed headers helper is a changed server; !command values (recorded at connect) are not part of it.
        HttpServerConfig helped = http.withHeaderCommands(new mcp.api.HeaderCommands(java.util.Optional.of(
                new mcp.api.HeaderCommands.Helper("get-token", java.util.Optional.empty())), Map.of()));
        assertNotEquals(ConfigHash.of(http), ConfigHash.of(helped));
        assertEquals(ConfigHash.of(http), ConfigHash.of(http.withHeaderCommands(
                mcp.api.HeaderCommands.NONE.withValues(Map.of("Authorization", "get-token")))));
    }
}
