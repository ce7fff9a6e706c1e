package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.CallPolicy;
import mcp.api.McpJson;
import mcp.api.ServerSpec;
import mcp.api.ToolDefinition;
import mcp.api.ToolRule;
import mcp.api.spi.CapabilitySource.Result;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Claude Code's permission rules for MCP tools, each case one that Claude Code 2.1.328 was run on in {@code claude -p}
 * against a recording model endpoint (scratch HOME, offline: interop/agents/regenerate.sh): a tool it did not send
 * its model is {@code deny} here, a tool whose call it let run is {@code allow}, one it refused to call is
 * {@code ask} (an ask rule) or {@code default} (no rule: Claude Code asks, mcp-host leaves it to the embedder).
 */
class ClaudePermissionsTest {

    @TempDir
    Path dir;
    private Fixture f;
    private final ClaudeSource source = new ClaudeSource();

    @BeforeEach
    void aUserServerAndAProjectServer() {
        f = Fixture.empty(dir);
        f.write(f.home.resolve(".claude.json"), "{\"mcpServers\": {\"srv\": {\"command\": \"x\"},"
                + " \"srv2\": {\"command\": \"x\"}, \"my.srv\": {\"command\": \"x\"}}}");
    }

    private Path userSettings(String permissions) {
        return f.write(f.home.resolve(".claude/settings.json"), "{\"permissions\": " + permissions + "}");
    }

    /** @return each tool of the server to {@code deny}, {@code ask}, {@code allow} or {@code default} */
    private Map<String, String> decisions(String server, String... tools) {
        Result result = source.discover(f.context());
        assertEquals(List.of(), result.problems());
        ServerSpec spec = Fixture.server(result, server);
        Map<String, String> decisions = new LinkedHashMap<>();
        for (String tool : tools) {
            CallPolicy policy = spec.toolPolicy().decide(ToolDefinition.of(tool, null, McpJson.object()));
            decisions.put(tool, policy.decidedByOwner() ? policy.decision().id() : "default");
        }
        return decisions;
    }

    @Test
    void denyThenAskThenAllowWhateverTheFile() {
        userSettings("{\"deny\": [\"mcp__srv__a\"], \"ask\": [\"mcp__srv__b\", \"mcp__srv\"],"
                + " \"allow\": [\"mcp__srv__a\", \"mcp__srv__b\", \"mcp__srv2\"]}");
        assertEquals(Map.of("a", "deny", "b", "ask", "c", "ask"), decisions("srv", "a", "b", "c"),
                "an ask of the whole server asks even for a tool an allow rule names");
        assertEquals(Map.of("a", "allow"), decisions("srv2", "a"));
    }

    @Test
    void namesAreMatchedAsClaudeCodeWritesThem() {
        userSettings("{\"deny\": [\"mcp__my_srv__a\", \"mcp__srv__get_thing\", \"mcp__my.srv__b\"],"
                + " \"allow\": [\"mcp__srv__send-it\", \"mcp__srv__get.other\"]}");
        assertEquals(Map.of("a", "deny", "b", "default"), decisions("my.srv", "a", "b"),
                "the server my.srv is my_srv in a rule");
        assertEquals(Map.of("get.thing", "deny", "send-it", "allow", "get.other", "default"),
                decisions("srv", "get.thing", "send-it", "get.other"), "a tool's dot is an underscore too");
    }

    @Test
    void wildcardsMatchAnyCharactersButAnAllowNeedsALiteralServer() {
        userSettings("{\"deny\": [\"mcp__srv__*a\", \"mcp__s*__x\"], \"ask\": [\"mcp__srv2__q*\"],"
                + " \"allow\": [\"mcp__srv2__*\", \"mcp__s*\", \"mcp__*\", \"mcp__s*__b\"]}");
        assertEquals(Map.of("a", "deny", "ba", "deny", "ab", "default", "x", "deny", "b", "default"),
                decisions("srv", "a", "ba", "ab", "x", "b"));
        assertEquals(Map.of("x", "deny", "q1", "ask", "b", "allow"), decisions("srv2", "x", "q1", "b"));
    }

    @Test
    void contentRulesAndAnEmptyToolNameMatchNothing() {
        userSettings("{\"deny\": [\"mcp__srv__a(x)\", \"mcp__srv__\", \"Bash\"], \"allow\": [\"mcp__srv__b(y)\"]}");
        assertEquals(Map.of("a", "default", "b", "default"), decisions("srv", "a", "b"));
    }

    @Test
    void theProjectsSettingsAreTheWorkingDirectorysAndItsAllowsCountOnlyInATrustedFolder() {
        f.write(f.app.resolve(".claude/settings.json"), "{\"permissions\": {\"deny\": [\"mcp__srv__a\"],"
                + " \"ask\": [\"mcp__srv__b\"], \"allow\": [\"mcp__srv__c\"]}}");
        f.write(f.app.resolve(".claude/settings.local.json"), "{\"permissions\": {\"allow\": [\"mcp__srv__d\"]}}");
        f.write(f.project.resolve(".claude/settings.json"), "{\"permissions\": {\"deny\": [\"mcp__srv__e\"]}}");
        f.write(f.project.resolve(".claude/settings.local.json"), "{\"permissions\": {\"deny\": [\"mcp__srv__f\"]}}");
        f.write(f.app.getParent().resolve(".claude/settings.local.json"),
                "{\"permissions\": {\"deny\": [\"mcp__srv__g\"]}}");
        assertEquals(Map.of("a", "deny", "b", "ask", "c", "default", "d", "allow", "e", "default", "f", "deny",
                "g", "default"), decisions("srv", "a", "b", "c", "d", "e", "f", "g"), "untrusted: the shared file's"
                        + " allow rules do not count; from a subfolder the repository root's local file is read, its"
                        + " shared one and a folder's between them are not");

        f.write(f.home.resolve(".claude.json"), "{\"mcpServers\": {\"srv\": {\"command\": \"x\"}}, \"projects\": {\""
                + f.project + "\": {\"hasTrustDialogAccepted\": true}}}");
        assertEquals(Map.of("c", "allow"), decisions("srv", "c"), "trusted at the repository root");
    }

    @Test
    void managedRulesAddUpAndCanBeTheOnlyOnes() {
        userSettings("{\"deny\": [\"mcp__srv__a\"], \"ask\": [\"mcp__srv__d\"], \"allow\": [\"mcp__srv__b\"]}");
        Path managed = f.write(f.managed().resolve("managed-settings.json"),
                "{\"permissions\": {\"allow\": [\"mcp__srv__a\", \"mcp__srv__d\"], \"deny\": [\"mcp__srv__c\"]}}");
        f.write(f.managed().resolve("managed-settings.d/10-extra.json"), "{\"permissions\": {\"deny\": [\"mcp__srv__e\"]}}");
        assertEquals(Map.of("a", "deny", "b", "allow", "c", "deny", "d", "ask", "e", "deny"),
                decisions("srv", "a", "b", "c", "d", "e"));

        f.write(managed, "{\"allowManagedPermissionRulesOnly\": true,"
                + " \"permissions\": {\"allow\": [\"mcp__srv__a\", \"mcp__srv__d\"], \"deny\": [\"mcp__srv__c\"]}}");
        assertEquals(Map.of("a", "allow", "b", "default", "c", "deny", "d", "allow", "e", "deny"),
                decisions("srv", "a", "b", "c", "d", "e"));
    }

    @Test
    void aRuleSaysWhereItIsWritten() {
        Path settings = userSettings("{\"deny\": [\"mcp__srv__a\"]}");
        ServerSpec spec = Fixture.server(source.discover(f.context()), "srv");
        ToolRule rule = spec.toolPolicy().denial("a").orElseThrow();
        assertEquals("Claude Code: permissions.deny \"mcp__srv__a\" in " + settings, rule.describe());
        assertEquals(Optional.of(settings), rule.file());
        assertTrue(Fixture.server(source.discover(f.context()), "srv2").toolPolicy().isEmpty(),
                "a server no rule concerns gets none");
    }

    @Test
    void aBrokenSettingsFileIsOneProblemAndDecidesNothing() {
        Path settings = f.write(f.home.resolve(".claude/settings.json"), "{\"permissions\": ");
        Result result = source.discover(f.context());
        assertEquals(1, result.problems().stream().filter(p -> p.file().equals(settings)).count(), result.problems()
                .toString());
        assertTrue(Fixture.server(result, "srv").toolPolicy().isEmpty());
    }
}
