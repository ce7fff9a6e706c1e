package com.example.mcp.envsource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.module.ModuleDescriptor;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.HttpServerConfig;
import mcp.api.ServerConfig;
import mcp.api.SourceMetadata;
import mcp.api.StdioServerConfig;
import mcp.api.spi.CapabilitySource;
import mcp.config.Discovery;
import mcp.config.DiscoveryResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The source on its own, and found by mcp-host's discovery with nothing but ServiceLoader. */
class EnvVarSourceTest {

    @BeforeAll
    static void readMcpConfig() {
        // The tests are patched into the plugin's module, which (rightly) does not require mcp.config:
        // only these tests use it. Surefire puts it on the module path but adds no read edge to it.
        EnvVarSourceTest.class.getModule().addReads(ModuleLayer.boot().findModule("mcp.config").orElseThrow());
    }

    private static final String SERVERS = """
            {"files": {"command": "npx", "args": ["-y", "server-fs", "${HOME}"], "env": {"DEBUG": "1"}},
             "search": {"url": "https://search.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}}
            """;

    @Test
    void discoveryFindsTheSourceThroughServiceLoaderAlone(@TempDir Path tempHome, @TempDir Path tempDir) {
        DiscoveryResult result = Discovery.builder()
                .environment(Map.of(EnvVarSource.VARIABLE, SERVERS, "HOME", "/home/me", "TOKEN", "t"))
                .home(tempHome)
                .workingDirectory(tempDir)
                .build()
                .discover();

        assertFalse(result.hardFailed(), result.problems().toString());
        // Every setting the entry leaves out has mcp-host's default; the values are passed as written, since
        // mcp-host's own value syntax (which runs a "!command") is for its own files only.
        assertEquals(new StdioServerConfig("npx", List.of("-y", "server-fs", "/home/me"), Map.of("DEBUG", "1"),
                Optional.empty(), Optional.empty(), ServerConfig.DEFAULT_TIMEOUT, Optional.empty(), true,
                Optional.empty(), Optional.empty(), List.of(), false), result.configs().get("files"));
        assertEquals(new HttpServerConfig("https://search.example.com/mcp", Map.of("Authorization", "Bearer t"),
                ServerConfig.DEFAULT_TIMEOUT, Optional.empty(), true, Optional.empty(), Optional.empty(), List.of(),
                false), result.configs().get("search"));
        SourceMetadata source = result.sources().get("files");
        assertEquals("env", source.providerId());
        assertEquals("Environment variable", source.providerName());
        assertEquals(Optional.empty(), source.path());
        assertEquals(SourceMetadata.Level.USER, source.level());
    }

    @Test
    void theSourceIsDeclaredByTheModuleOnTheModulePath() {
        Module module = EnvVarSource.class.getModule();
        assertTrue(module.isNamed(), "the tests run on the module path");
        assertEquals("com.example.mcp.envsource", module.getName());
        assertEquals(List.of(EnvVarSource.class.getName()), module.getDescriptor().provides().stream()
                .filter(p -> p.service().equals(CapabilitySource.class.getName()))
                .flatMap(p -> p.providers().stream()).toList());
        assertTrue(module.getDescriptor().exports().stream().map(ModuleDescriptor.Exports::source).toList().isEmpty(),
                "a plugin need not export anything");
    }

    @Test
    void entriesAreReadAsWritten() {
        CapabilitySource.Result result = discover(SERVERS);

        assertEquals(List.of(), result.problems());
        assertEquals(List.of("files", "search"), result.servers().stream().map(s -> s.name()).toList());
        assertEquals(List.of("-y", "server-fs", "${HOME}"), result.servers().get(0).args(), "expansion is the host's job");
        assertEquals("/files", result.servers().get(0).location());
        assertEquals(Optional.of("https://search.example.com/mcp"), result.servers().get(1).url());
    }

    @Test
    void unsetOrBlankIsSilent() {
        EnvVarSource source = new EnvVarSource();
        Path here = Path.of(".");
        assertEquals(new CapabilitySource.Result(List.of(), List.of()),
                source.discover(new CapabilitySource.Context(here, here, Map.of())));
        assertEquals(new CapabilitySource.Result(List.of(), List.of()), discover("  "));
    }

    @Test
    void invalidJsonIsOneProblemWithItsPosition() {
        CapabilitySource.Result result = discover("{\"a\": {\"command\": \"x\",}");

        assertEquals(List.of(), result.servers());
        assertEquals(1, result.problems().size());
        CapabilitySource.Problem problem = result.problems().get(0);
        assertEquals(Path.of("$MCP_HOST_SERVERS"), problem.file());
        assertTrue(problem.location().matches("1:\\d+"), problem.location());
        assertTrue(problem.message().startsWith("Invalid JSON: "), problem.message());
    }

    @Test
    void aBadEntryCostsOnlyItself() {
        CapabilitySource.Result result = discover("""
                {"ok": {"url": "https://ok"}, "a/b": [1], "c": {"args": "not-a-list"}, "d": {"env": {"K": 1}}}""");

        assertEquals(List.of("ok"), result.servers().stream().map(s -> s.name()).toList());
        assertEquals(List.of(
                new CapabilitySource.Problem(Path.of("$MCP_HOST_SERVERS"), "/a~1b", "a/b", "Server \"a/b\": expected an object"),
                new CapabilitySource.Problem(Path.of("$MCP_HOST_SERVERS"), "/c", "c",
                        "Server \"c\": \"args\" must be an array of strings"),
                new CapabilitySource.Problem(Path.of("$MCP_HOST_SERVERS"), "/d", "d",
                        "Server \"d\": \"env\" must be an object of strings")), result.problems());
        assertEquals(1, discover("[1, 2]").problems().size(), "not an object");
    }

    private static CapabilitySource.Result discover(String json) {
        Path here = Path.of(".");
        return new EnvVarSource().discover(new CapabilitySource.Context(here, here, Map.of(EnvVarSource.VARIABLE, json)));
    }
}
