package mcp.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * CI's check of the recovery bench ({@code bench/recovery.sh}): its soak and flood processes at tiny sizes (3
 * connect/close cycles, 2 kills, one of them mid-call; 2,000 progress updates, 1,000 junk frames of each kind),
 * every count checked. No timing is asserted: the figures belong to the full run.
 */
class RecoverySmokeTest {

    private static final Path TARGET = Path.of(System.getProperty("bench.target", "target"));

    @Test
    void theSoakAndTheFloodsRunAndEveryCountIsRight() throws Exception {
        String modulePath = TARGET.resolve("classes") + ":" + read("bench-module-path.txt");
        JsonNode results = Recovery.run(new String[] {"--smoke", "--repo", TARGET.resolve("../..").toString(),
            "--out", TARGET.resolve("recovery-smoke").toString(), "--module-path", modulePath,
            "--log-path", read("bench-log-path.txt")});

        assertTrue(results.path("problems").isEmpty(), () -> "problems: " + results.path("problems"));
        JsonNode soak = results.path("soak");
        assertEquals(3, soak.path("connect").path("cycles").asInt(), "connect/close cycles");
        JsonNode kill = soak.path("kill");
        assertEquals(2, kill.path("cycles").asInt(), "kills");
        assertEquals(2, kill.path("drops").asInt(), "each kill one drop");
        assertEquals(2, kill.path("toolsBackMs").path("count").asInt(), "each kill came back");
        assertEquals(1, kill.path("inFlightFailed").asInt(), "the call in flight at the mid-call kill failed");
        assertEquals(0, kill.path("inFlightRetried").asInt(), "and was not sent again");
        assertEquals(0, soak.path("bystanderCalls").path("failed").asLong(), "the bystander's calls");
        assertTrue(soak.path("bystanderCalls").path("ok").asLong() > 0, "the bystander was called");
        assertEquals(2, soak.path("end").path("children").asLong(), "one process per server at the end");
        assertEquals(0, soak.path("afterClose").path("children").asLong(), "none after close");
        JsonNode flood = results.path("flood");
        JsonNode progress = flood.path("sizes").get(0).path("progress");
        assertEquals(2000, progress.path("lastProgress").asLong(), "the consumer got the last update");
        assertEquals(0, flood.path("stackTraceLines").asLong(), "no stack trace in the log");
        assertTrue(Files.isRegularFile(TARGET.resolve("recovery-smoke/recovery.md")));
    }

    private static String read(String name) throws IOException {
        return Files.readString(TARGET.resolve(name)).trim();
    }
}
