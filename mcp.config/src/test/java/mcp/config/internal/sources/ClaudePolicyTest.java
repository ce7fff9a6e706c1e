package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import mcp.api.spi.CapabilitySource.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Claude Code's managed policy (https://code.claude.com/docs/en/managed-mcp). Each case is one run of
 * {@code claude mcp list} (Claude Code 2.1.328, offline, scratch HOME) with the same files, the managed ones in
 * {@code /etc/claude-code} of a private mount namespace: a server it listed is {@code active} here, one it
 * left out (blocked servers "disappear from claude mcp list") is inactive with the policy's reason.
 */
class ClaudePolicyTest {

    private final ClaudeSource source = new ClaudeSource();

    /** The servers of every run: five of the user's, one of the project's (approved, folder trusted). */
    private static Fixture servers(Path dir) {
        Fixture f = Fixture.empty(dir);
        f.write(f.home.resolve(".claude.json"), "{\"projects\": {\"" + f.project + "\": {\"hasTrustDialogAccepted\": true}},"
                + "\"mcpServers\": {"
                + "\"alpha\": {\"command\": \"node\", \"args\": [\"x.js\"]},"
                + "\"beta\": {\"type\": \"http\", \"url\": \"https://mcp.example.com/api\"},"
                + "\"gamma\": {\"command\": \"node\", \"args\": [\"y.js\"]},"
                + "\"delta\": {\"type\": \"sse\", \"url\": \"http://localhost:9/sse\"},"
                + "\"envy\": {\"command\": \"${HOME}/bin/s\"}}}");
        f.write(f.project.resolve(".mcp.json"), "{\"mcpServers\": {\"proj1\": {\"command\": \"node\", \"args\": [\"p.js\"]}}}");
        f.approveInClaude();
        return f;
    }

    private Map<String, String> states(Fixture f) {
        return Fixture.states(source.discover(f.context()), reason -> reason.split(" ")[0]);
    }

    @Test
    void aCommandAllowListLetsOnlyThatCommandThroughAndTheDenyListWins(@TempDir Path dir) {
        Fixture f = servers(dir);
        f.write(f.managed().resolve("managed-settings.json"), "{\"deniedMcpServers\": [{\"serverName\": \"gamma\"}],"
                + "\"allowedMcpServers\": [{\"serverCommand\": [\"node\", \"x.js\"]}]}");
        assertEquals(Map.of("alpha", "active", "beta", "not", "gamma", "blocked", "delta", "not", "envy", "not",
                "proj1", "not"), states(f));
    }

    @Test
    void aUrlPatternWithoutAPathMatchesEveryPathAndANameCountsWhereNoCommandIsListed(@TempDir Path dir) {
        Fixture f = servers(dir);
        f.write(f.managed().resolve("managed-settings.json"), "{\"allowedMcpServers\": ["
                + "{\"serverUrl\": \"https://MCP.example.com\"}, {\"serverName\": \"proj1\"}]}");
        assertEquals(Map.of("alpha", "not", "beta", "active", "gamma", "not", "delta", "not", "envy", "not",
                "proj1", "active"), states(f));
    }

    @Test
    void theUsersAllowListWidensTheManagedOneUnlessOnlyManagedListsCount(@TempDir Path dir) {
        Fixture f = servers(dir);
        f.write(f.home.resolve(".claude/settings.json"), "{\"enableAllProjectMcpServers\": true,"
                + "\"allowedMcpServers\": [{\"serverName\": \"gamma\"}]}");
        Path managed = f.write(f.managed().resolve("managed-settings.json"),
                "{\"allowedMcpServers\": [{\"serverName\": \"alpha\"}]}");
        assertEquals(Map.of("alpha", "active", "beta", "not", "gamma", "active", "delta", "not", "envy", "not",
                "proj1", "not"), states(f));

        f.write(managed, "{\"allowManagedMcpServersOnly\": true, \"allowedMcpServers\": [{\"serverName\": \"alpha\"}]}");
        assertEquals(Map.of("alpha", "active", "beta", "not", "gamma", "not", "delta", "not", "envy", "not",
                "proj1", "not"), states(f));
    }

    @Test
    void managedMcpJsonHasExclusiveControl(@TempDir Path dir) {
        Fixture f = servers(dir);
        f.write(f.managed().resolve("managed-mcp.json"), "{\"mcpServers\": {"
                + "\"m1\": {\"command\": \"node\", \"args\": [\"m.js\"]},"
                + "\"m2\": {\"type\": \"http\", \"url\": \"https://m2.example.com/mcp\"}}}");
        Result result = source.discover(f.context());
        assertEquals(java.util.List.of("m1", "m2"), Fixture.names(result));
        assertEquals(6, result.inactive().size());
        assertTrue(result.inactive().get(0).reason().startsWith("not in Claude Code's managed-mcp.json ("
                + f.managed().resolve("managed-mcp.json") + "), which has exclusive control"), result.inactive().get(0).reason());
        assertTrue(Fixture.server(result, "m1").expandVariables(), "managed-mcp.json has the format of .mcp.json");
    }

    @Test
    void managedServersSkipTheAllowListUnlessTheyUseVariablesButNotTheDenyList(@TempDir Path dir) {
        Fixture f = servers(dir);
        f.write(f.managed().resolve("managed-settings.json"), "{\"allowedMcpServers\": [{\"serverName\": \"zzz\"}],"
                + "\"deniedMcpServers\": [{\"serverCommand\": [\"node\", \"m.js\"]}]}");
        f.write(f.managed().resolve("managed-mcp.json"), "{\"mcpServers\": {"
                + "\"m1\": {\"command\": \"node\", \"args\": [\"m.js\"]},"
                + "\"m3\": {\"command\": \"${HOME}/m\"},"
                + "\"m4\": {\"command\": \"node\", \"args\": [\"four.js\"]}}}");
        Result result = source.discover(f.context());
        assertEquals(java.util.List.of("m4"), Fixture.names(result));
        assertEquals(Map.of("m1", "blocked", "m3", "not"), Map.of(
                "m1", kind(result, "m1"), "m3", kind(result, "m3")));
    }

    @Test
    void aBrokenManagedMcpJsonStillTakesControlWithNoServers(@TempDir Path dir) {
        Fixture f = servers(dir);
        Path file = f.write(f.managed().resolve("managed-mcp.json"), "{\"mcpServers\": ");
        Result result = source.discover(f.context());
        assertEquals(java.util.List.of(), Fixture.names(result));
        assertEquals(file, result.problems().get(0).file());
        assertEquals(6, result.inactive().size());
    }

    /** Not checked against Claude Code: mcp-host's choice, since a deny list can only keep servers from running. */
    @Test
    void aProjectsDenyListCountsEvenUntrustedButItsAllowListDoesNot(@TempDir Path dir) {
        Fixture f = servers(dir);
        f.write(f.home.resolve(".claude.json"), "{\"mcpServers\": {\"alpha\": {\"command\": \"node\"},"
                + "\"gamma\": {\"command\": \"node\", \"args\": [\"y.js\"]}}}");
        f.write(f.project.resolve(".claude/settings.json"), "{\"deniedMcpServers\": [{\"serverName\": \"gamma\"}],"
                + "\"allowedMcpServers\": [{\"serverName\": \"alpha\"}]}");
        Result result = source.discover(f.context());
        assertEquals(java.util.List.of("proj1", "alpha"), Fixture.names(result), "no allow list counts: all pass");
        assertEquals("blocked", kind(result, "gamma"));
    }

    /** As Claude Code 2.1.154 and later (its changelog): an invalid entry is dropped, not the whole list. */
    @Test
    void anInvalidEntryIsReportedAndDroppedAndTheRestOfTheListHolds(@TempDir Path dir) {
        Fixture f = servers(dir);
        Path settings = f.write(f.managed().resolve("managed-settings.json"), "{\"deniedMcpServers\": ["
                + "{\"serverName\": \"gamma\", \"serverUrl\": \"x\"}, {\"serverName\": \"alpha\"}]}");
        Result result = source.discover(f.context());
        assertEquals(java.util.List.of(new mcp.api.spi.CapabilitySource.Problem(settings, "/deniedMcpServers/0", "",
                "entry 0 of \"deniedMcpServers\" must have exactly one of serverName (a string), serverCommand (an array"
                        + " of strings) or serverUrl (a string); ignored")), result.problems());
        assertEquals("blocked", kind(result, "alpha"));
        assertEquals("active", kind(result, "gamma"));
    }

    @Test
    void urlPatterns() {
        assertTrue(ServerRules.urlMatches("https://mcp.example.com/*", "https://mcp.example.com/api"));
        assertTrue(ServerRules.urlMatches("https://mcp.example.com", "https://mcp.example.com/a/b"));
        assertTrue(ServerRules.urlMatches("https://*.example.com/*", "https://api.example.com/mcp"));
        assertTrue(ServerRules.urlMatches("http://localhost:*/*", "http://localhost:8080/mcp"));
        assertTrue(ServerRules.urlMatches("*://mcp.example.com/*", "http://mcp.example.com/x"));
        assertTrue(ServerRules.urlMatches("https://Mcp.Example.com/*", "https://mcp.example.com./api"));
        assertFalse(ServerRules.urlMatches("https://mcp.example.com/API", "https://mcp.example.com/api"), "paths keep case");
        assertFalse(ServerRules.urlMatches("https://*.example.com/*", "https://example.org/x"));
        assertFalse(ServerRules.urlMatches("https://mcp.example.com/*", "https://mcp.example.com.evil.org/x"));
    }

    private static String kind(Result result, String name) {
        return result.inactive().stream().filter(i -> i.server().name().equals(name)).findFirst()
                .map(i -> i.reason().split(" ")[0]).orElse("active");
    }
}
