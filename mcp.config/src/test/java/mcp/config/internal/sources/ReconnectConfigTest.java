package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import mcp.api.ReconnectPolicy;
import mcp.config.Discovery;
import mcp.config.DiscoveryResult;
import mcp.config.DiscoveryProblem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The native format's {@code reconnect}: absent (the manager's default), on, off, or an object of bounds. */
class ReconnectConfigTest {

    @TempDir
    Path dir;

    @Test
    void aServerSetsItsReconnectPolicyOrLeavesItToTheManager() {
        Fixture f = Fixture.empty(dir);
        f.write(f.home.resolve(".config/mcp-host/mcp.json"), """
                {"mcpServers": {
                  "plain": {"command": "a"},
                  "off": {"command": "b", "reconnect": "off"},
                  "no": {"command": "b", "reconnect": false},
                  "on": {"url": "http://127.0.0.1:9/mcp", "reconnect": "on"},
                  "tuned": {"command": "c", "reconnect": {"attempts": 8, "initialDelay": 250, "maxDelay": 60000,
                            "jitter": 0.5, "crashWindow": 5000}},
                  "some": {"command": "c", "reconnect": {"attempts": 2}},
                  "retries": {"command": "c", "reconnect": {"startupRetries": 6}},
                  "noRetries": {"command": "c", "reconnect": {"startupRetries": 0}},
                  "restartsOnly": {"command": "c", "reconnect": {"attempts": 0}},
                  "manyRetries": {"command": "d", "reconnect": {"startupRetries": 101}},
                  "halfRetry": {"command": "d", "reconnect": {"startupRetries": "3"}},
                  "word": {"command": "d", "reconnect": "sometimes"},
                  "typo": {"command": "d", "reconnect": {"attempt": 3}},
                  "backwards": {"command": "d", "reconnect": {"initialDelay": 5000, "maxDelay": 1000}},
                  "wild": {"command": "d", "reconnect": {"jitter": 2}},
                  "half": {"command": "d", "reconnect": {"attempts": 2.5}}
                }}
                """);
        DiscoveryResult result = Discovery.builder().home(f.home).workingDirectory(f.app)
                .environment(Map.of(ClaudePolicy.DIRECTORY_VARIABLE, f.managed().toString()))
                .managedPolicy(f.managed().resolve("mcp-host.json")).build().discover();
        assertEquals(Optional.empty(), result.configs().get("plain").reconnect());
        assertEquals(Optional.of(ReconnectPolicy.OFF), result.configs().get("off").reconnect());
        assertEquals(Optional.of(ReconnectPolicy.OFF), result.configs().get("no").reconnect());
        assertEquals(Optional.of(ReconnectPolicy.DEFAULT), result.configs().get("on").reconnect());
        assertEquals(Optional.of(new ReconnectPolicy(8, Duration.ofMillis(250), Duration.ofSeconds(60), 0.5,
                Duration.ofSeconds(5))), result.configs().get("tuned").reconnect());
        assertEquals(Optional.of(new ReconnectPolicy(2, Duration.ofMillis(500), Duration.ofSeconds(30), 0.2,
                Duration.ofSeconds(10))), result.configs().get("some").reconnect());
        assertEquals(Optional.of(ReconnectPolicy.DEFAULT.withStartupRetries(6)),
                result.configs().get("retries").reconnect());
        assertEquals(Optional.of(ReconnectPolicy.DEFAULT.withStartupRetries(0)),
                result.configs().get("noRetries").reconnect());
        assertEquals(3, result.configs().get("restartsOnly").reconnect().orElseThrow().startupRetries(),
                "attempts 0 turns reconnects off, not the retries of a first connect (\"off\" turns both off)");
        assertEquals(0, ReconnectPolicy.OFF.startupRetries());
        assertEquals("\"reconnect\": startup retries must be at most 100, got 101", skipped(result, "manyRetries"));
        assertEquals("\"reconnect\".\"startupRetries\" must be a whole number, got a string",
                skipped(result, "halfRetry"));
        assertEquals("\"reconnect\" must be \"on\", \"off\", true, false or an object of attempts, initialDelay, maxDelay,"
                + " crashWindow (ms), jitter (0 to 1) and startupRetries, got a string", skipped(result, "word"));
        assertEquals("\"reconnect\" has no field \"attempt\" (attempts, initialDelay, maxDelay, crashWindow, jitter,"
                + " startupRetries)", skipped(result, "typo"));
        assertEquals("\"reconnect\": reconnect maxDelay (1000 ms) must not be less than initialDelay (5000 ms)",
                skipped(result, "backwards"));
        assertEquals("\"reconnect\": reconnect jitter must be between 0 and 1, got 2.0", skipped(result, "wild"));
        assertEquals("\"reconnect\".\"attempts\" must be a whole number, got a number", skipped(result, "half"));
    }

    /** @return the problem that left the server out */
    private static String skipped(DiscoveryResult result, String name) {
        assertEquals(null, result.configs().get(name), name + " is left out");
        return result.problems().stream().filter(p -> p.server().equals(name)).map(DiscoveryProblem::message)
                .findFirst().orElseThrow(() -> new AssertionError("no problem for " + name + ": " + result.problems()));
    }
}
