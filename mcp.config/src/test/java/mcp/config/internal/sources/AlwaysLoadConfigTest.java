package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import mcp.api.AlwaysLoad;
import mcp.config.Discovery;
import mcp.config.DiscoveryProblem;
import mcp.config.DiscoveryResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The native format's {@code alwaysLoad}: the tools that stay in the agent's tool set under deferred loading. */
class AlwaysLoadConfigTest {

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
    void aServerKeepsAllItsToolsSomeOrNone() {
        DiscoveryResult result = discover("""
                {"mcpServers": {
                  "plain": {"command": "a"},
                  "all": {"command": "b", "alwaysLoad": true},
                  "off": {"url": "http://127.0.0.1:9/mcp", "alwaysLoad": false},
                  "some": {"url": "http://127.0.0.1:9/mcp", "alwaysLoad": ["create_issue", "search_issues", "create_issue"]},
                  "empty": {"command": "c", "alwaysLoad": []},
                  "unset": {"command": "c", "alwaysLoad": null}
                }}
                """);
        assertEquals(List.of(), result.problems());
        assertEquals(AlwaysLoad.NONE, result.configs().get("plain").alwaysLoad());
        assertEquals(AlwaysLoad.ALL, result.configs().get("all").alwaysLoad());
        assertEquals(AlwaysLoad.NONE, result.configs().get("off").alwaysLoad());
        AlwaysLoad some = result.configs().get("some").alwaysLoad();
        assertEquals(AlwaysLoad.tools(Set.of("create_issue", "search_issues")), some);
        assertEquals(true, some.includes("search_issues"));
        assertEquals(false, some.includes("delete_issue"));
        assertEquals(true, result.configs().get("empty").alwaysLoad().isEmpty());
        assertEquals(AlwaysLoad.NONE, result.configs().get("unset").alwaysLoad());
    }

    @Test
    void aWrongValueLeavesTheServerOutAndSaysWhere() {
        DiscoveryResult result = discover("""
                {"mcpServers": {
                  "good": {"command": "a", "alwaysLoad": ["echo"]},
                  "number": {"command": "b", "alwaysLoad": 1},
                  "word": {"command": "b", "alwaysLoad": "all"},
                  "object": {"command": "b", "alwaysLoad": {"echo": true}},
                  "element": {"command": "b", "alwaysLoad": ["echo", 7]},
                  "nested": {"command": "b", "alwaysLoad": [["echo"]]},
                  "blank": {"command": "b", "alwaysLoad": ["echo", "ok", " "]},
                  "emptyName": {"command": "b", "alwaysLoad": [""]}
                }}
                """);
        assertEquals(AlwaysLoad.tools(List.of("echo")), result.configs().get("good").alwaysLoad(),
                "the other entries' problems leave this one alone");
        String notAValue = "\"alwaysLoad\" must be true, false or an array of tool names, got ";
        String notAName = "\"alwaysLoad\" must be an array of tool names, got ";
        // server: where in the file below its entry, and the message
        Map<String, List<String>> expected = Map.of(
                "number", List.of("", notAValue + "a number"),
                "word", List.of("", notAValue + "a string"),
                "object", List.of("", notAValue + "an object"),
                "element", List.of("/1", notAName + "a number at index 1"),
                "nested", List.of("/0", notAName + "an array at index 0"),
                "blank", List.of("/2", notAName + "an empty name at index 2"),
                "emptyName", List.of("/0", notAName + "an empty name at index 0"));
        expected.forEach((name, problem) -> assertProblem(result, name,
                "/mcpServers/" + name + "/alwaysLoad" + problem.get(0), problem.get(1)));
        assertEquals(expected.keySet(), result.problems().stream().map(DiscoveryProblem::server)
                .collect(java.util.stream.Collectors.toSet()), "no other problem: " + result.problems());
    }

    /**
     * Asserts that the server is left out with one problem at this place of the file (a source's problems are
     * warnings: discovery goes on around them, as for every other field of an entry).
     */
    private void assertProblem(DiscoveryResult result, String name, String location, String message) {
        assertEquals(null, result.configs().get(name), name + " is left out");
        List<DiscoveryProblem> problems = result.problems().stream().filter(p -> p.server().equals(name)).toList();
        assertEquals(1, problems.size(), name + ": " + problems);
        DiscoveryProblem problem = problems.get(0);
        assertEquals(DiscoveryProblem.Severity.WARNING, problem.severity(), name);
        assertEquals(Optional.of(file), problem.file(), name);
        assertEquals(location, problem.location(), name);
        assertEquals(message, problem.message(), name);
    }
}
