package mcp.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import mcp.api.CallPolicy.Decision;
import mcp.api.ToolRule.Match;
import org.junit.jupiter.api.Test;

class ToolPolicyTest {

    private static ToolDefinition tool(String name) {
        return ToolDefinition.of(name, null, McpJson.object());
    }

    private static ToolDefinition readOnly(String name, boolean hint) {
        return new ToolDefinition(name, Optional.empty(), Optional.empty(), McpJson.object(), Optional.empty(),
                Optional.of(McpJson.object().put("readOnlyHint", hint)));
    }

    private static ToolRule rule(Decision decision, Match match, String text) {
        return new ToolRule(decision, match, "Owner", text, Optional.of(Path.of("/settings.json")));
    }

    @Test
    void theFirstRuleThatMatchesDecides() {
        ToolRule deny = rule(Decision.DENY, new Match.Named(Set.of("delete")), "deny delete");
        ToolRule ask = rule(Decision.ASK, new Match.AnyTool(), "ask all");
        ToolRule allow = rule(Decision.ALLOW, new Match.Named(Set.of("read", "delete")), "allow read");
        ToolPolicy policy = new ToolPolicy(List.of(deny, ask, allow));

        assertEquals(CallPolicy.of(deny), policy.decide(tool("delete")));
        assertEquals(CallPolicy.of(ask), policy.decide(tool("read")), "an ask before an allow asks");
        assertEquals(CallPolicy.DEFAULT, ToolPolicy.NONE.decide(tool("read")));
        assertEquals(Optional.of(deny), policy.denial("delete"));
        assertEquals(Optional.empty(), policy.denial("read"));
        assertEquals("Owner: deny delete in /settings.json", policy.decide(tool("delete")).describe());
        assertFalse(CallPolicy.DEFAULT.decidedByOwner());
        assertTrue(policy.decide(tool("read")).decidedByOwner());
    }

    @Test
    void anAllowListDeniesEveryToolItDoesNotName() {
        ToolPolicy policy = new ToolPolicy(List.of(rule(Decision.DENY, new Match.AllBut(Set.of("a")), "only a")));
        assertEquals(Optional.empty(), policy.denial("a"));
        assertTrue(policy.denial("b").isPresent());
        assertTrue(new ToolPolicy(List.of(rule(Decision.DENY, new Match.AllBut(Set.of()), "none"))).denial("a")
                .isPresent(), "an empty allow-list allows nothing");
    }

    @Test
    void aGlobMatchesTheNameAsClaudeCodeWritesIt() {
        Match exact = new Match.Glob("mcp__my_srv__", "mcp__my_srv__get_thing");
        assertTrue(exact.matches(tool("get.thing")), "a dot becomes an underscore");
        assertFalse(exact.matches(tool("get_things")));
        Match prefix = new Match.Glob("mcp__srv__", "mcp__srv__a*");
        assertTrue(prefix.matches(tool("a")));
        assertTrue(prefix.matches(tool("ab")));
        assertFalse(prefix.matches(tool("ba")));
        Match suffix = new Match.Glob("mcp__srv__", "mcp__srv__*a");
        assertTrue(suffix.matches(tool("ba")));
        assertTrue(suffix.matches(tool("a")));
        assertFalse(suffix.matches(tool("ab")));
        assertTrue(new Match.Glob("mcp__srv__", "mcp__*").matches(tool("x")));
        assertTrue(new Match.Glob("mcp__srv2__", "mcp__s*__a").matches(tool("a")), "a * spans the separator");
        assertFalse(new Match.Glob("mcp__srv__", "mcp__srv__a").matches(tool("A")), "case counts");
        assertEquals("my_srv-1", Match.Glob.normalize("my.srv-1"));
        assertFalse(new Match.Glob("p", "*a*a*a*a*a*a*a*a*a*b").matches(tool("a".repeat(5_000))),
                "no pattern takes exponential time");
    }

    @Test
    void readOnlyGoesByTheHintOnly() {
        Match both = new Match.Both(new Match.Named(Set.of("r", "w")), new Match.ReadOnly(true));
        assertTrue(both.matches(readOnly("r", true)));
        assertFalse(both.matches(readOnly("w", false)));
        assertFalse(both.matches(tool("r")), "no annotation: not read-only");
        assertTrue(new Match.ReadOnly(false).matches(tool("r")));
    }

    @Test
    void aPolicyComesFromItsRulesDecision() {
        ToolRule ask = rule(Decision.ASK, new Match.AnyTool(), "ask");
        assertThrows(IllegalArgumentException.class, () -> new CallPolicy(Decision.ALLOW, Optional.of(ask)));
        assertEquals("ask", Decision.ASK.id());
    }

    @Test
    void aServerConfigDoesNotExposeWhatItsOwnerDenies() {
        ToolPolicy policy = new ToolPolicy(List.of(rule(Decision.DENY, new Match.Named(Set.of("drop")), "deny drop")));
        StdioServerConfig config = StdioServerConfig.of("x", List.of()).withToolPolicy(policy);
        assertFalse(config.exposesTool("drop"));
        assertTrue(config.exposesTool("keep"));
        assertEquals(policy, config.toolPolicy());
        assertEquals(ToolPolicy.NONE, StdioServerConfig.of("x", List.of()).toolPolicy());
        assertEquals(config, StdioServerConfig.of("x", List.of()).withToolPolicy(new ToolPolicy(List.of(
                rule(Decision.DENY, new Match.Named(Set.of("drop")), "deny drop")))),
                "equal rules, equal configs: a reload that changes nothing restarts nothing");
    }
}
