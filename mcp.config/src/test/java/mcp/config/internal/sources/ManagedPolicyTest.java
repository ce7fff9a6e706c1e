package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import mcp.api.OwnerState;
import mcp.config.Discovery;
import mcp.config.DiscoveryProblem;
import mcp.config.DiscoveryResult;
import mcp.config.SkippedServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** mcp-host's own managed policy (issue 15), in Claude Code's terms (ClaudePolicyTest has those runs). */
class ManagedPolicyTest {

    @TempDir
    Path dir;
    private Fixture f;
    private Path policy;

    /** Four servers of the user's own mcp-host file: two stdio, two remote. */
    @BeforeEach
    void userServers() {
        f = Fixture.empty(dir);
        f.write(f.home.resolve(".config/mcp-host/mcp.json"), "{\"mcpServers\": {"
                + "\"fs\": {\"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-filesystem\"]},"
                + "\"tool\": {\"command\": \"python\", \"args\": [\"/usr/local/bin/tool.py\"]},"
                + "\"corp\": {\"type\": \"http\", \"url\": \"https://mcp.corp.example.com/v1\"},"
                + "\"other\": {\"type\": \"http\", \"url\": \"https://other.example.org/mcp\"}}}");
        policy = f.managed().resolve("mcp-host/managed-mcp.json");
    }

    private DiscoveryResult discover() {
        return Discovery.builder().home(f.home).workingDirectory(f.app).environment(Map.of("HOME", f.home.toString()))
                .managedPolicy(policy).build().discover();
    }

    /** @return each server to "active" or the first word of why the policy blocked it */
    private Map<String, String> states(DiscoveryResult result) {
        Map<String, String> states = new LinkedHashMap<>();
        result.configs().keySet().forEach(name -> states.put(name, "active"));
        for (SkippedServer s : result.skipped()) {
            if (s.reason() == SkippedServer.Reason.SHADOWED) {
                continue; // a name the policy's own server took
            }
            assertEquals(SkippedServer.Reason.NOT_CONSENTED, s.reason(), s::toString);
            assertEquals(OwnerState.Kind.BLOCKED, s.owner().orElseThrow().kind());
            states.put(s.name(), s.detail().split(" ")[0]);
        }
        return states;
    }

    @Test
    void withoutAPolicyFileEverythingRuns() {
        assertEquals(Map.of("fs", "active", "tool", "active", "corp", "active", "other", "active"), states(discover()));
    }

    @Test
    void nameCommandAndUrlRulesAndTheDenyListWins() {
        f.write(policy, "{\"allowedMcpServers\": ["
                + "{\"serverCommand\": [\"npx\", \"-y\", \"@modelcontextprotocol/server-filesystem\"]},"
                + "{\"serverCommand\": [\"python\", \"/usr/local/bin/tool.py\"]},"
                + "{\"serverUrl\": \"https://*.corp.example.com/*\"}],"
                + "\"deniedMcpServers\": [{\"serverName\": \"tool\"}]}");
        DiscoveryResult result = discover();
        assertEquals(Map.of("fs", "active", "tool", "blocked", "corp", "active", "other", "not"), states(result));
        SkippedServer tool = result.skipped().stream().filter(s -> s.name().equals("tool")).findFirst().orElseThrow();
        assertEquals("blocked by mcp-host's managed policy (deniedMcpServers in " + policy + ")", tool.detail(),
                "a user-level server, blocked, with the policy file named");
    }

    @Test
    void anEmptyAllowListAllowsNothingAndAnAbsentOneEverything() {
        f.write(policy, "{\"allowedMcpServers\": []}");
        assertEquals(Map.of("fs", "not", "tool", "not", "corp", "not", "other", "not"), states(discover()));
        f.write(policy, "{\"deniedMcpServers\": [{\"serverUrl\": \"https://other.example.org\"}]}");
        assertEquals(Map.of("fs", "active", "tool", "active", "corp", "active", "other", "blocked"), states(discover()));
    }

    @Test
    void managedServersRunBesideOrInsteadOfTheOthers() {
        f.write(policy, "{\"allowedMcpServers\": [{\"serverName\": \"fs\"}], \"mcpServers\": {"
                + "\"company\": {\"command\": \"/opt/company/mcp\"},"
                + "\"fs\": {\"command\": \"/opt/company/fs\"}}}");
        DiscoveryResult result = discover();
        assertEquals(Map.of("company", "active", "fs", "active", "tool", "not", "corp", "not", "other", "not"),
                states(result));
        assertEquals(ManagedPolicy.SOURCE_ID, result.sources().get("fs").providerId(), "the policy's own fs wins");

        f.write(policy, "{\"exclusive\": true, \"mcpServers\": {\"company\": {\"command\": \"/opt/company/mcp\"}}}");
        result = discover();
        assertEquals(Map.of("company", "active", "fs", "mcp-host's", "tool", "mcp-host's", "corp", "mcp-host's",
                "other", "mcp-host's"), states(result));
        assertTrue(result.skipped().get(0).detail().endsWith("lets only its own servers run (exclusive)"),
                result.skipped().get(0)::toString);
    }

    @Test
    void aBrokenPolicyFileBlocksEveryServerAndSaysWhy() {
        f.write(policy, "{\"deniedMcpServers\": [");
        DiscoveryResult result = discover();
        assertEquals(List.of(), List.copyOf(result.configs().keySet()));
        assertEquals(4, result.skipped().size());
        DiscoveryProblem problem = result.problems().get(0);
        assertEquals(DiscoveryProblem.Severity.ERROR, problem.severity());
        assertEquals(java.util.Optional.of(policy), problem.file());
        assertEquals("mcp-host's managed policy " + policy + " cannot be read, so no server runs until it is fixed",
                result.skipped().get(0).detail());
    }
}
