package mcp.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link AlwaysLoad} and how the server configs carry it. */
class AlwaysLoadTest {

    @Test
    void matchesToolsByTheirNameOnTheServer() {
        assertTrue(AlwaysLoad.ALL.includes("anything"));
        assertFalse(AlwaysLoad.NONE.includes("anything"));
        AlwaysLoad some = AlwaysLoad.tools(List.of("create_issue", "search_issues"));
        assertTrue(some.includes("create_issue"));
        assertFalse(some.includes("mcp_github_create_issue"), "a session name is not a tool's name on the server");
        assertTrue(AlwaysLoad.tools(List.of()).isEmpty());
        assertEquals("AlwaysLoad[create_issue, search_issues]", some.toString());
    }

    @Test
    void refusesNamesThatCannotBeTools() {
        assertThrows(IllegalArgumentException.class, () -> AlwaysLoad.tools(List.of(" ")));
        assertThrows(IllegalArgumentException.class, () -> new AlwaysLoad(true, Set.of("echo")));
    }

    @Test
    void configsKeepItThroughTheirCopies() {
        StdioServerConfig stdio = StdioServerConfig.of("srv", List.of()).withAlwaysLoad(AlwaysLoad.ALL);
        assertEquals(AlwaysLoad.ALL, stdio.withTimeout(java.time.Duration.ofSeconds(5)).withEnv(java.util.Map.of())
                .withCallLimits(CallLimits.NONE).alwaysLoad());
        assertEquals(AlwaysLoad.NONE, StdioServerConfig.of("srv", List.of()).alwaysLoad());
        AlwaysLoad some = AlwaysLoad.tools(List.of("echo"));
        assertEquals(some, HttpServerConfig.of("http://127.0.0.1:9/mcp").withAlwaysLoad(some)
                .withHeaders(java.util.Map.of("a", "b")).withReconnect(java.util.Optional.empty()).alwaysLoad());
        assertEquals(some, SseServerConfig.of("http://127.0.0.1:9/sse").withAlwaysLoad(some)
                .withHeaders(java.util.Map.of()).alwaysLoad());
        assertTrue(stdio.toString().contains("AlwaysLoad[all]"), stdio.toString());
    }
}
