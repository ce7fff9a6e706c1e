package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import mcp.api.CallLimits;
import mcp.api.ResultBudget;
import mcp.config.Discovery;
import mcp.config.DiscoveryProblem;
import mcp.config.DiscoveryResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The native format's bounds of long calls: {@code idleTimeout}, {@code maxTotalTimeout}, {@code resetTimeoutOnProgress}. */
class CallLimitsConfigTest {

    @TempDir
    Path dir;

    @Test
    void aServerSetsTheBoundsOfItsCallsOrLeavesThemToTheManager() {
        Fixture f = Fixture.empty(dir);
        f.write(f.home.resolve(".config/mcp-host/mcp.json"), """
                {"mcpServers": {
                  "plain": {"command": "a"},
                  "long": {"command": "b", "toolTimeout": 600000, "idleTimeout": 30000, "maxTotalTimeout": 3600000,
                           "resetTimeoutOnProgress": true},
                  "idle": {"url": "http://127.0.0.1:9/mcp", "idleTimeout": 5000},
                  "zero": {"command": "c", "idleTimeout": 0},
                  "negative": {"command": "c", "maxTotalTimeout": -1},
                  "word": {"command": "c", "resetTimeoutOnProgress": "yes"}
                }}
                """);
        DiscoveryResult result = Discovery.builder().home(f.home).workingDirectory(f.app)
                .environment(Map.of(ClaudePolicy.DIRECTORY_VARIABLE, f.managed().toString()))
                .managedPolicy(f.managed().resolve("mcp-host.json")).build().discover();
        assertEquals(CallLimits.NONE, result.configs().get("plain").callLimits());
        assertEquals(new CallLimits(Optional.of(Duration.ofSeconds(30)), Optional.of(Duration.ofHours(1)),
                Optional.of(true)), result.configs().get("long").callLimits());
        assertEquals(Duration.ofMinutes(10), result.configs().get("long").toolCallTimeout());
        assertEquals(new CallLimits(Optional.of(Duration.ofSeconds(5)), Optional.empty(), Optional.empty()),
                result.configs().get("idle").callLimits());
        assertEquals("\"idleTimeout\" must be a positive number of milliseconds, got 0", skipped(result, "zero"));
        assertEquals("\"maxTotalTimeout\" must be a positive number of milliseconds, got -1",
                skipped(result, "negative"));
        assertEquals(true, skipped(result, "word").contains("resetTimeoutOnProgress"), skipped(result, "word"));
    }

    @Test
    void aServerSetsTheResultBudgetOfItsCallsAndOfSingleTools() {
        Fixture f = Fixture.empty(dir);
        f.write(f.home.resolve(".config/mcp-host/mcp.json"), """
                {"mcpServers": {
                  "plain": {"command": "a"},
                  "budget": {"command": "b", "resultBudget": {"maxChars": 20000, "warnTokens": 4000,
                             "tools": {"dump": {"maxChars": 200000, "maxTokens": 60000}, "tiny": {"maxChars": 100}}}},
                  "zero": {"command": "c", "resultBudget": {"maxTokens": 0}},
                  "unknown": {"command": "c", "resultBudget": {"maxBytes": 10}},
                  "nested": {"command": "c", "resultBudget": {"tools": {"t": {"tools": {}}}}},
                  "text": {"command": "c", "resultBudget": "large"}
                }}
                """);
        DiscoveryResult result = Discovery.builder().home(f.home).workingDirectory(f.app)
                .environment(Map.of(ClaudePolicy.DIRECTORY_VARIABLE, f.managed().toString()))
                .managedPolicy(f.managed().resolve("mcp-host.json")).build().discover();
        assertEquals(ResultBudget.NONE, result.configs().get("plain").callLimits().resultBudget());
        ResultBudget budget = result.configs().get("budget").callLimits().resultBudget();
        assertEquals(new ResultBudget(Optional.of(20000), Optional.empty(), Optional.of(4000), Map.of(
                "dump", ResultBudget.of(200000, 60000, null), "tiny", ResultBudget.of(100, null, null))), budget);
        // A tool's own bounds first, the server's for the rest.
        assertEquals(ResultBudget.of(200000, 60000, 4000), budget.forTool("dump"));
        assertEquals(ResultBudget.of(20000, null, 4000), budget.forTool("other"));
        assertEquals("\"resultBudget\".\"maxTokens\" must be a positive whole number, got 0", skipped(result, "zero"));
        assertEquals("\"resultBudget\" has no field \"maxBytes\" (maxChars, maxTokens, warnTokens, tools)",
                skipped(result, "unknown"));
        assertEquals("\"resultBudget\".\"tools\".\"t\" has no field \"tools\" (maxChars, maxTokens, warnTokens)",
                skipped(result, "nested"));
        assertEquals(true, skipped(result, "text").startsWith("\"resultBudget\" must be an object"),
                skipped(result, "text"));
    }

    /** @return the problem that left the server out */
    private static String skipped(DiscoveryResult result, String name) {
        assertEquals(null, result.configs().get(name), name + " is left out");
        return result.problems().stream().filter(p -> p.server().equals(name)).map(DiscoveryProblem::message)
                .findFirst().orElseThrow(() -> new AssertionError("no problem for " + name + ": " + result.problems()));
    }
}
