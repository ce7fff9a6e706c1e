package mcp.config;

import static mcp.config.Fixtures.meta;
import static mcp.config.Fixtures.spec;
import static mcp.config.Fixtures.stdio;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import mcp.api.SourceMetadata;
import mcp.api.SourceMetadata.Level;
import mcp.config.Fixtures.FixedSource;
import mcp.config.SkippedServer.Reason;
import org.junit.jupiter.api.Test;

/** The built-in filters found by the real ServiceLoader (no explicit filters). */
class DiscoveryServiceLoaderTest {

    @Test
    void theBuiltInFiltersAreFoundAndApplied() {
        SourceMetadata user = meta("user", Level.USER);
        SourceMetadata project = meta("proj", Level.PROJECT);
        FixedSource userSource = new FixedSource("user", 10, List.of(
                stdio("kept", user, "srv"),
                spec("off", user).command("srv").enabled(false).build(),
                spec("exa", user).url("https://mcp.exa.ai/mcp?exaApiKey=k").build()));
        FixedSource projectSource = new FixedSource("proj", 5, List.of(stdio("p", project, "srv")));

        DiscoveryResult result = Discovery.builder()
                .workingDirectory(Path.of("/work/project"))
                .home(Path.of("/home/tester"))
                .environment(Map.of())
                .loadSources(false)
                .sources(List.of(userSource, projectSource))
                .projectConfig(false)
                .build()
                .discover();

        assertFalse(result.hardFailed(), result.problems().toString());
        assertEquals(List.of("kept"), List.copyOf(result.configs().keySet()));
        assertEquals(List.of(Reason.DISABLED, Reason.EXA, Reason.PROJECT_CONFIG_OFF),
                result.skipped().stream().map(SkippedServer::reason).toList());
        assertEquals(List.of("k"), result.exaApiKeys());
    }
}
