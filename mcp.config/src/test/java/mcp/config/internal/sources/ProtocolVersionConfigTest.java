package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;
import mcp.config.Discovery;
import mcp.config.DiscoveryResult;
import mcp.config.SkippedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The native format's {@code protocolVersion}: {@code auto} by default, a version pins it, anything else is invalid. */
class ProtocolVersionConfigTest {

    @TempDir
    Path dir;

    @Test
    void aServerPinsItsProtocolVersionOrLetsTheClientFindIt() {
        Fixture f = Fixture.empty(dir);
        f.write(f.home.resolve(".config/mcp-host/mcp.json"), """
                {"mcpServers": {
                  "found": {"command": "a"},
                  "old": {"command": "b", "protocolVersion": "2025-11-25"},
                  "new": {"url": "http://127.0.0.1:9/mcp", "protocolVersion": "2026-07-28"},
                  "said": {"command": "c", "protocolVersion": "auto"},
                  "wrong": {"command": "d", "protocolVersion": "2026-01-01"}
                }}
                """);
        DiscoveryResult result = Discovery.builder().home(f.home).workingDirectory(f.app)
                .environment(Map.of(ClaudePolicy.DIRECTORY_VARIABLE, f.managed().toString()))
                .managedPolicy(f.managed().resolve("mcp-host.json")).build().discover();
        assertEquals("auto", result.configs().get("found").protocolVersion());
        assertEquals("2025-11-25", result.configs().get("old").protocolVersion());
        assertEquals("2026-07-28", result.configs().get("new").protocolVersion());
        assertEquals("auto", result.configs().get("said").protocolVersion());
        SkippedServer wrong = result.skipped().stream().filter(s -> s.name().equals("wrong")).findFirst().orElseThrow();
        assertEquals(SkippedServer.Reason.INVALID, wrong.reason());
        assertEquals("Server \"wrong\": \"protocolVersion\" must be \"auto\" or one of 2026-07-28, 2025-11-25, 2025-06-18,"
                + " 2025-03-26, 2024-11-05, not \"2026-01-01\"", wrong.detail());
    }
}
