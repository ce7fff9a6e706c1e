package mcp.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * CI's check of the shared gateway's bench ({@code bench/shared.sh}): 2 agents, 2 testkit servers, 2 projects, one
 * round. Each agent with its own servers runs 4 upstreams; through one shared gateway ({@code mcp-host serve --stdio}
 * of the runtime image), 2 upstreams, the gateway and 2 attach processes; every agent gets every server's tools and
 * its calls answered, the gateway is stopped, and no process is left. The shared row needs the runtime image, which
 * the build makes in {@code mcp.cli} before this module; without it ({@code -pl mcp.bench -am}) that row is skipped.
 * No timing or memory figure is asserted.
 */
class SharedGatewaysSmokeTest {

    private static final Path TARGET = Path.of(System.getProperty("bench.target", "target"));
    private static final Path IMAGE = TARGET.resolve("../../mcp.cli/target/image");

    @Test
    void eachAgentRunningItsOwnServers() throws Exception {
        JsonNode row = run("own").path("rows").path("testkit-own").get(0);
        assertEquals(4, row.path("setupProcesses").asInt(), "agents x servers upstreams, nothing else: " + row);
        assertEquals(4, row.path("processes").path("upstream").path("count").asInt(), row.toString());
        assertEquals(0, row.path("processesLeft").asInt(), "no process left");
    }

    @Test
    void everyAgentAttachedToOneSharedGateway() throws Exception {
        assumeTrue(Files.isExecutable(IMAGE.resolve("bin/mcp-host")), "no runtime image at " + IMAGE);
        JsonNode row = run("shared").path("rows").path("testkit-shared").get(0);
        JsonNode processes = row.path("processes");
        assertEquals(2, processes.path("upstream").path("count").asInt(), "one upstream per server: " + row);
        assertEquals(1, processes.path("gateway").path("count").asInt(), "one gateway: " + row);
        assertEquals(2, processes.path("attach").path("count").asInt(), "one attach process per agent: " + row);
        assertEquals(2, row.path("gatewayClients").asInt(), "the gateway served both agents");
        assertEquals(0, row.path("processesLeft").asInt(), "no process left after serve --stop");
    }

    private static JsonNode run(String mode) throws Exception {
        String modulePath = TARGET.resolve("classes") + ":" + read("bench-module-path.txt");
        JsonNode results = SharedGateways.run(new String[] {"--smoke", "--repo", TARGET.resolve("../..").toString(),
            "--out", TARGET.resolve("shared-smoke-" + mode).toString(), "--module-path", modulePath, "--modes", mode,
            "--image", IMAGE.toString()});
        assertTrue(results.path("problems").isEmpty(), () -> "problems: " + results.path("problems"));
        JsonNode row = results.path("rows").path("testkit-" + mode).get(0);
        for (JsonNode agent : row.path("agents")) {
            JsonNode ready = agent.path("ready");
            assertEquals(2, ready.path("calls").asInt(), "one call per server: " + ready);
            assertEquals(0, ready.path("mismatches").asLong(), "every answer right: " + ready);
        }
        assertEquals(2, row.path("agents").size(), "both agents had their tools");
        assertTrue(Files.isRegularFile(TARGET.resolve("shared-smoke-" + mode + "/shared.md")));
        return results;
    }

    private static String read(String name) throws IOException {
        return Files.readString(TARGET.resolve(name)).trim();
    }
}
