package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import mcp.api.CallLimits;
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

    /** @return the problem that left the server out */
    private static String skipped(DiscoveryResult result, String name) {
        assertEquals(null, result.configs().get(name), name + " is left out");
        return result.problems().stream().filter(p -> p.server().equals(name)).map(DiscoveryProblem::message)
                .findFirst().orElseThrow(() -> new AssertionError("no problem for " + name + ": " + result.problems()));
    }
}
