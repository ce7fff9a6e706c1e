package mcp.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * CI's check of the gateway comparison ({@code bench/gateway.sh}): its Java part only, the {@code direct} row (the
 * gateway client process over stdio to the testkit server, one round of 100 sequential calls and 0.3 s with 16 in
 * flight, every answer checked), and {@code mcp-host serve} over HTTP and stdio when the runtime image is built (as
 * in CI, where {@code mcp.cli} comes first), each with both clients: mcp-host's and the floor. The npm gateways
 * (mcp-proxy, supergateway) are not installed by the build, so CI does not run them; with them installed
 * ({@code bench/gateway.sh} or {@code npm ci} in {@code bench/}),
 * {@code -Dbench.gateways=direct,mcp-proxy,supergateway} runs them here too, with the memory part at 2 upstreams and
 * 4 sessions. No timing is asserted.
 */
class GatewaysSmokeTest {

    private static final Path TARGET = Path.of(System.getProperty("bench.target", "target"));

    @Test
    void everyCallThroughEveryPathIsAnsweredCorrectly() throws Exception {
        boolean image = Files.isExecutable(TARGET.resolve("../../mcp.cli/target/image/bin/mcp-host"));
        String gateways = System.getProperty("bench.gateways", image ? "direct,mcp-host-http,mcp-host-stdio" : "direct");
        String modulePath = TARGET.resolve("classes") + ":" + read("bench-module-path.txt");
        JsonNode results = Gateways.run(new String[] {"--smoke", "--repo", TARGET.resolve("../..").toString(),
            "--out", TARGET.resolve("gateways-smoke").toString(), "--module-path", modulePath, "--gateways", gateways});

        assertTrue(results.path("problems").isEmpty(), () -> "problems: " + results.path("problems"));
        for (String path : gateways.split(",")) {
            for (String client : new String[] {"mcp-host", "floor"}) {
                String gateway = Gateways.runKey(path, client);
                JsonNode runs = results.path("calls").path(gateway);
                assertEquals(1, runs.size(), gateway + " ran once");
                JsonNode run = runs.get(0);
                assertEquals(GatewayClient.PROTOCOL, run.path("protocolVersion").asString(), gateway + " protocol");
                assertEquals(100, run.path("seqCalls").asInt(), gateway + " sequential calls");
                assertTrue(run.path("tpCalls").asLong() > 0, gateway + " completed calls with 16 in flight");
                assertEquals(0, run.path("mismatches").asLong(), gateway + " mismatches");
                assertEquals(0, run.path("failures").asLong(), gateway + " failures");
                assertTrue(run.path("serverCpuUsPerCall").isNumber(), gateway + " CPU of the process the client talks to");
                if (client.equals("mcp-host") && !path.equals("direct") && !path.equals("mcp-host-stdio")) {
                    assertEquals(4, results.path("memory").path(path).path("sessions").asInt(), gateway + " held every session");
                }
            }
        }
        assertTrue(Files.isRegularFile(TARGET.resolve("gateways-smoke/gateways.md")));
    }

    private static String read(String name) throws IOException {
        return Files.readString(TARGET.resolve(name)).trim();
    }
}
