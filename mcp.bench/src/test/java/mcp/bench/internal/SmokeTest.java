package mcp.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * CI's check of the bench: a tiny run of every Java client (mcp-host, the official Java SDK, the
 * floor) against the testkit server, each in its own process, and one startup-at-scale run of each;
 * then the modern part's Java clients (mcp-host in {@code auto}, the Java SDK 2.2.0's modern client) against
 * the testkit server in its 2026-07-28 era, each of which must say it speaks that revision. Every answer
 * is checked. No timing is asserted: timing belongs to bench/run.sh.
 */
class SmokeTest {

    private static final Path TARGET = Path.of(System.getProperty("bench.target", "target"));

    @Test
    void everyJavaClientAnswersEveryCallCorrectly() throws Exception {
        String modulePath = TARGET.resolve("classes") + ":" + read("bench-module-path.txt");
        String classPath = TARGET.resolve("classpath-classes") + ":" + TARGET.resolve("classes") + ":"
                + read("bench-class-path.txt");
        JsonNode results = Runner.run(new String[] {"--smoke", "--repo", TARGET.resolve("../..").toString(),
            "--out", TARGET.resolve("bench-smoke").toString(), "--module-path", modulePath, "--class-path", classPath});

        assertTrue(results.path("problems").isEmpty(), () -> "problems: " + results.path("problems"));
        JsonNode runs = results.path("clients").path("testkit").path("runs");
        for (String client : List.of("mcp-host", "java-sdk", "floor")) {
            assertEquals(1, runs.path(client).size(), client + " ran once");
            JsonNode run = runs.path(client).get(0);
            assertEquals(0, run.path("mismatches").asLong(), client + " mismatches");
            if (!client.equals("java-sdk")) {
                // The peer may lose a call under load ("Failed to enqueue message"); that is its result, not ours.
                assertEquals(0, run.path("failures").asLong(), client + " failures");
            }
            // 100 generated tools plus the testkit's own.
            assertTrue(run.path("tools").asInt() > 100, client + " listed every page: " + run.path("tools"));
            assertTrue(run.path("tpCalls").asLong() > 0, client + " completed calls with 16 in flight");
        }
        JsonNode modern = results.path("clients").path("modern").path("runs");
        for (String client : List.of("mcp-host", "java-sdk-modern")) {
            assertEquals(1, modern.path(client).size(), client + " ran once in the modern part");
            JsonNode run = modern.path(client).get(0);
            assertEquals(Runner.MODERN_PROTOCOL_VERSION, run.path("protocolVersion").asString(""),
                    client + " speaks the stateless revision");
            assertEquals(0, run.path("mismatches").asLong(), client + " mismatches (modern)");
            assertEquals(0, run.path("failures").asLong(), client + " failures (modern)");
            // 100 generated tools and the testkit's own, four more of them with --era modern.
            assertEquals(100 + Runner.TESTKIT_MODERN_OWN_TOOLS, run.path("tools").asInt(), client
                    + " listed every page (modern)");
            assertTrue(run.path("tpCalls").asLong() > 0, client + " completed calls with 16 in flight (modern)");
        }
        for (String client : List.of("mcp-host", "java-sdk")) {
            JsonNode scale = results.path("scale").path("1-cold").path("runs").path(client);
            assertEquals(1, scale.size(), client + " scale run");
            assertEquals(0, scale.get(0).path("errors").asInt(), client + " scale errors");
            assertFalse(scale.get(0).path("tools").asInt() == 0, client + " scale tools");
        }
        assertTrue(Files.isRegularFile(TARGET.resolve("bench-smoke/report.md")));
    }

    private static String read(String name) throws IOException {
        return Files.readString(TARGET.resolve(name)).trim();
    }
}
