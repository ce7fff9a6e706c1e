package mcp.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * CI's check of the HTTP choice ({@code bench/httpchoice.sh}): both servers (JDK {@code com.sun.net.httpserver} and
 * Jetty 12.1 core) in processes of their own for one short round (0.3 s per phase, 20 pushes) and their checks at
 * tiny sizes (a 2 MB flood, windows of about a second), every answer checked; no jlink, no JDK write-watchdog
 * variant, no TCP_NODELAY-default check. No timing and none of the findings (which server stalls, closes, times out)
 * is asserted: those are the full run's figures.
 */
class HttpChoiceSmokeTest {

    private static final Path TARGET = Path.of(System.getProperty("bench.target", "target"));

    @Test
    void bothServersAnswerEveryRequestAndEnforceTheBodyLimit() throws Exception {
        JsonNode results = HttpChoice.run(new String[] {"--smoke", "--repo", TARGET.resolve("../..").toString(),
            "--out", TARGET.resolve("httpchoice-smoke").toString(),
            "--jdk-path", TARGET.resolve("http-jdk-classes").toString(),
            "--jetty-path", TARGET.resolve("http-jetty-classes") + ":" + read("bench-jetty-path.txt")});

        // Wrong or failed answers, lost pushes and a body over the limit not refused with 413 are problems.
        assertTrue(results.path("problems").isEmpty(), () -> "problems: " + results.path("problems"));
        for (String server : List.of("jdk", "jetty")) {
            JsonNode rounds = results.path("rounds").path(server);
            assertEquals(1, rounds.size(), server + " ran one round");
            JsonNode round = rounds.get(0);
            assertTrue(round.path("json").path("requests").asLong() > 0, server + " answered JSON requests");
            assertTrue(round.path("sse").path("requests").asLong() > 0, server + " answered SSE requests");
            assertEquals(0, round.path("push").path("lost").asInt(), server + " delivered every push");
            JsonNode checks = results.path("checks").path(server);
            assertEquals(413, checks.path("bodies").path("contentLength").path("status").asInt(), server + " body with length");
            assertEquals(413, checks.path("bodies").path("chunked").path("status").asInt(), server + " chunked body");
            assertTrue(checks.path("stalled").path("requestAfterClose").path("answered").asBoolean(),
                    server + " answers once the stalled uploads are gone");
            assertTrue(checks.path("slowReader").path("during").path("requests").asLong() > 0,
                    server + " answered others during the flood");
        }
        assertTrue(Files.isRegularFile(TARGET.resolve("httpchoice-smoke/httpchoice.md")));
    }

    private static String read(String name) throws IOException {
        return Files.readString(TARGET.resolve(name)).trim();
    }
}
