package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.CallLimits;
import mcp.api.LazyStart;
import mcp.config.Discovery;
import mcp.config.DiscoveryProblem;
import mcp.config.DiscoveryResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The native format's {@code lazy}: a server started by the first call of one of its tools. */
class LazyConfigTest {

    @TempDir
    Path dir;

    private Path file;

    private DiscoveryResult discover(String json) {
        Fixture f = Fixture.empty(dir);
        file = f.home.resolve(".config/mcp-host/mcp.json");
        f.write(file, json);
        return Discovery.builder().home(f.home).workingDirectory(f.app)
                .environment(Map.of(ClaudePolicy.DIRECTORY_VARIABLE, f.managed().toString()))
                .managedPolicy(f.managed().resolve("mcp-host.json")).build().discover();
    }

    @Test
    void aServerIsLazyWithTheHostsIdleTimeOrItsOwn() {
        DiscoveryResult result = discover("""
                {"mcpServers": {
                  "plain": {"command": "a"},
                  "lazy": {"command": "b", "lazy": true},
                  "off": {"url": "http://127.0.0.1:9/mcp", "lazy": false},
                  "own": {"url": "http://127.0.0.1:9/mcp", "lazy": {"idleTimeout": 60000}, "idleTimeout": 5000},
                  "empty": {"command": "c", "lazy": {}},
                  "unset": {"command": "c", "lazy": null}
                }}
                """);
        assertEquals(List.of(), result.problems());
        assertEquals(Optional.empty(), result.configs().get("plain").lazy());
        assertEquals(Optional.of(LazyStart.DEFAULT), result.configs().get("lazy").lazy());
        assertEquals(Optional.empty(), result.configs().get("off").lazy());
        assertEquals(Optional.of(LazyStart.idle(Duration.ofMinutes(1))), result.configs().get("own").lazy());
        assertEquals(Optional.of(Duration.ofSeconds(5)), result.configs().get("own").callLimits().idleTimeout(),
                "the entry's own idleTimeout stays the tool call's idle bound");
        assertEquals(Optional.of(LazyStart.DEFAULT), result.configs().get("empty").lazy());
        assertEquals(Optional.empty(), result.configs().get("unset").lazy());
        assertEquals(CallLimits.NONE, result.configs().get("lazy").callLimits());
    }

    @Test
    void lazyIsNoPartOfTheDefinitionApproved() {
        DiscoveryResult plain = discover("""
                {"mcpServers": {"kit": {"command": "a", "args": ["x"]}}}
                """);
        DiscoveryResult lazy = discover("""
                {"mcpServers": {"kit": {"command": "a", "args": ["x"], "lazy": {"idleTimeout": 1000}}}}
                """);
        assertEquals(plain.definitions().get("kit"), lazy.definitions().get("kit"),
                "making a server lazy asks for no new approval and keeps its pins");
    }

    @Test
    void aWrongValueLeavesTheServerOutAndSaysWhere() {
        DiscoveryResult result = discover("""
                {"mcpServers": {
                  "good": {"command": "a", "lazy": {"idleTimeout": 250}},
                  "number": {"command": "b", "lazy": 1},
                  "word": {"command": "b", "lazy": "yes"},
                  "field": {"command": "b", "lazy": {"idle": 1000}},
                  "zero": {"command": "b", "lazy": {"idleTimeout": 0}},
                  "text": {"command": "b", "lazy": {"idleTimeout": "10m"}}
                }}
                """);
        assertEquals(Optional.of(LazyStart.idle(Duration.ofMillis(250))), result.configs().get("good").lazy());
        String notAValue = "\"lazy\" must be true, false or an object with idleTimeout (ms), got ";
        String notATime = "\"lazy\".\"idleTimeout\" must be a positive number of milliseconds, got ";
        Map<String, List<String>> expected = Map.of(
                "number", List.of("", notAValue + "a number"),
                "word", List.of("", notAValue + "a string"),
                "field", List.of("/idle", "\"lazy\" has no field \"idle\" (idleTimeout)"),
                "zero", List.of("/idleTimeout", notATime + "a number"),
                "text", List.of("/idleTimeout", notATime + "a string"));
        expected.forEach((name, problem) -> {
            assertEquals(null, result.configs().get(name), name + " is left out");
            List<DiscoveryProblem> problems = result.problems().stream().filter(p -> p.server().equals(name))
                    .toList();
            assertEquals(1, problems.size(), name + ": " + problems);
            assertEquals(Optional.of(file), problems.get(0).file(), name);
            assertEquals("/mcpServers/" + name + "/lazy" + problem.get(0), problems.get(0).location(), name);
            assertEquals(problem.get(1), problems.get(0).message(), name);
        });
        assertEquals(expected.keySet(), result.problems().stream().map(DiscoveryProblem::server)
                .collect(java.util.stream.Collectors.toSet()), "no other problem: " + result.problems());
    }
}
