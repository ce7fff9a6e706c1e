package mcp.gateway.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.server.Caller;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Policy rules against callers, the file's errors, and its reload. */
class PolicyTest {

    @TempDir
    Path temp;

    private static final String TEAM = """
            {
              "rules": [
                {"match": {"groups": ["platform"]}, "allow": {"servers": ["*"]}},
                {"match": {"groups": ["dev"]}, "allow": {"tools": ["github/*", "jira/search_*"],
                  "prompts": ["github/review"], "resources": ["docs://public/**"]}},
                {"match": {"subject": "mallory*"}, "deny": {"tools": ["github/delete_*"]}},
                {"match": {"claims": {"/org/team": ["infra", "sre"]}}, "allow": {"servers": ["infra"]}},
                {"match": {"client": "ci-*"}, "rateLimits": {"client": {"perSecond": 1, "burst": 2}}}
              ],
              "rateLimits": {"client": {"perSecond": 20, "burst": 40}, "tool": {"perSecond": 5}}
            }
            """;

    private static Caller caller(String subject, String client, Set<String> groups, String claims) {
        return new Caller(subject, Optional.ofNullable(client), groups, Set.of(), McpJson.mapper().readTree(claims));
    }

    @Test
    void aRemoteCallerSeesWhatMatchingRulesAllowAndNothingTheyDeny() {
        Policy policy = Policy.parse(TEAM, "team.json");
        Policy.Access dev = policy.accessFor(caller("dana", "cli", Set.of("dev"), "{}"));
        assertTrue(dev.tool("github", "create_pr"));
        assertTrue(dev.tool("jira", "search_issues"));
        assertFalse(dev.tool("jira", "delete_issue"));
        assertFalse(dev.tool("infra", "restart"));
        assertFalse(dev.tool(Policy.GATEWAY_SERVER, "list_servers"), "the gateway's own tools need a rule too");
        assertTrue(dev.prompt("github", "review"));
        assertFalse(dev.prompt("github", "triage"));
        assertTrue(dev.resource("docs", "docs://public/a/b.md"));
        assertFalse(dev.resource("docs", "docs://private/a.md"));

        Policy.Access mallory = policy.accessFor(caller("mallory2", "cli", Set.of("dev"), "{}"));
        assertTrue(mallory.tool("github", "create_pr"));
        assertFalse(mallory.tool("github", "delete_repo"), "deny wins over allow");

        Policy.Access sre = policy.accessFor(caller("sam", null, Set.of(), "{\"org\":{\"team\":[\"web\",\"sre\"]}}"));
        assertTrue(sre.tool("infra", "restart"), "a claim by JSON pointer, an array claim matching by one item");
        assertTrue(sre.resource("infra", "infra://anything"));
        assertFalse(sre.tool("github", "create_pr"));

        Policy.Access nobody = policy.accessFor(caller("eve", "cli", Set.of("guests"), "{}"));
        assertFalse(nobody.tool("github", "create_pr"), "default deny for a remote caller");
        assertFalse(nobody.resource("docs", "docs://public/a.md"));
        assertEquals(20, nobody.limits().client().perSecond());
        assertEquals(5, nobody.limits().tool().burst(), "burst defaults to the rate, rounded up");

        Policy.Access ci = policy.accessFor(caller("bot", "ci-main", Set.of("platform"), "{}"));
        assertTrue(ci.tool("anything", "at_all"));
        assertEquals(new Policy.Rate(1, 2), ci.limits().client(), "a rule's limits replace the file's");
        assertNull(ci.limits().tool());
    }

    @Test
    void theLocalUserSeesEverythingUnlessARuleSpeaksOfIt() {
        Policy team = Policy.parse(TEAM, "team.json");
        assertTrue(team.accessFor(Caller.LOCAL).everything());
        assertTrue(team.accessFor(Caller.LOCAL).tool("infra", "restart"));
        Policy local = Policy.parse("""
                {"rules": [{"match": {"local": true}, "allow": {"servers": ["github"]}},
                           {"match": {}, "allow": {"servers": ["*"]}, "deny": {"servers": ["github"]}}]}
                """, "local.json");
        assertTrue(local.accessFor(Caller.LOCAL).tool("github", "x"));
        assertFalse(local.accessFor(Caller.LOCAL).tool("infra", "x"), "an empty match is for remote callers only");
        Policy.Access remote = local.accessFor(caller("a", null, Set.of(), "{}"));
        assertTrue(remote.tool("infra", "x"));
        assertFalse(remote.tool("github", "x"));
    }

    @Test
    void theYamlFormReadsAsTheJsonOneAndNamesWhereItIsWrong() {
        Policy yaml = Policy.parse("""
                rules:
                  - match: {groups: [dev]}
                    allow:
                      tools: &alpha ["alpha/*"]
                    deny: {tools: ["alpha/crash"]}
                  - match: {subject: "ops-*"}
                    allow: {tools: *alpha}
                rateLimits:
                  client: {perSecond: 2.5, burst: 5}
                """, "/etc/mcp/policy.yaml");
        Policy.Access dev = yaml.accessFor(caller("d", null, Set.of("dev"), "{}"));
        assertTrue(dev.tool("alpha", "echo"));
        assertFalse(dev.tool("alpha", "crash"));
        assertTrue(yaml.accessFor(caller("ops-1", null, Set.of(), "{}")).tool("alpha", "echo"), "an alias resolves");
        assertEquals(new Policy.Rate(2.5, 5), dev.limits().client());
        McpException syntax = assertThrows(McpException.class, () -> Policy.parse("rules:\n  - match: {\n  allow: x",
                "p.yml"));
        assertTrue(syntax.getMessage().startsWith("Policy p.yml is not valid YAML at line "), syntax.getMessage());
        McpException duplicate = assertThrows(McpException.class, () -> Policy.parse("rules: []\nrules: []\n",
                "p.yaml"));
        assertTrue(duplicate.getMessage().contains("p.yaml") && duplicate.getMessage().contains("line 2"),
                duplicate.getMessage());
        McpException field = assertThrows(McpException.class, () -> Policy.parse("rules:\n  - allow: {tool: [x]}\n",
                "p.yaml"));
        assertTrue(field.getMessage().contains("/rules/0/allow/tool is not a known field"), field.getMessage());
    }

    @Test
    void aFileWithoutRulesDeniesRemoteCallersEverything() {
        Policy empty = Policy.parse("{\"rateLimits\": {\"client\": {\"perSecond\": 5}}}", "limits-only.json");
        assertFalse(empty.open());
        assertFalse(empty.accessFor(caller("a", null, Set.of(), "{}")).tool("any", "tool"));
        assertTrue(empty.accessFor(Caller.LOCAL).tool("any", "tool"));
        assertEquals(5, empty.accessFor(Caller.LOCAL).limits().client().perSecond(), "the local user's limits");
        assertFalse(Policy.parse("{}", "empty.json").open());
        assertTrue(Policy.OPEN.open());
    }

    @Test
    void globsOfUrisStopAtSlashesAndNamesDoNot() {
        assertTrue(Policy.glob("docs://*.md", true).matcher("docs://a.md").matches());
        assertFalse(Policy.glob("docs://*.md", true).matcher("docs://a/b.md").matches());
        assertTrue(Policy.glob("docs://**.md", true).matcher("docs://a/b.md").matches());
        assertTrue(Policy.glob("git*/c?eate", false).matcher("github/create").matches());
        assertFalse(Policy.glob("git.hub/x", false).matcher("gitXhub/x").matches(), "a dot is a dot");
        assertTrue(Policy.glob("a+b(c)/[x]", false).matcher("a+b(c)/[x]").matches());
    }

    @Test
    void aBadFileNamesItselfAndThePlace() {
        McpException syntax = assertThrows(McpException.class, () -> Policy.parse("{\n  \"rules\": [\n    {,]}",
                "/etc/mcp/policy.json"));
        assertTrue(syntax.getMessage().contains("/etc/mcp/policy.json"), syntax.getMessage());
        assertTrue(syntax.getMessage().contains("line 3"), syntax.getMessage());
        McpException field = assertThrows(McpException.class, () -> Policy.parse(
                "{\"rules\":[{\"match\":{},\"allow\":{\"tool\":[\"x\"]}}]}", "p.json"));
        assertTrue(field.getMessage().contains("p.json: /rules/0/allow/tool is not a known field"), field.getMessage());
        McpException rate = assertThrows(McpException.class, () -> Policy.parse(
                "{\"rateLimits\":{\"client\":{\"perSecond\":0}}}", "p.json"));
        assertTrue(rate.getMessage().contains("/rateLimits/client/perSecond"), rate.getMessage());
        McpException empty = assertThrows(McpException.class, () -> Policy.parse("{\"rules\":[{\"match\":{}}]}",
                "p.json"));
        assertTrue(empty.getMessage().contains("/rules/0 a rule needs"), empty.getMessage());
    }

    @Test
    void aChangedFileTakesForceAndABadOneKeepsThePreviousPolicy() throws Exception {
        Path file = temp.resolve("policy.json");
        Files.writeString(file, "{\"rules\":[{\"match\":{},\"allow\":{\"servers\":[\"a\"]}}]}");
        List<String> problems = new CopyOnWriteArrayList<>();
        AtomicInteger changes = new AtomicInteger();
        Caller someone = caller("x", null, Set.of(), "{}");
        try (PolicyFile policy = new PolicyFile(file, Duration.ofHours(1), problems::add, changes::incrementAndGet)) {
            assertTrue(policy.policy().accessFor(someone).tool("a", "t"));
            Files.writeString(file, "{\"rules\":[{\"match\":{},\"allow\":{\"servers\":[\"b\"]}}]}");
            policy.poll();
            assertEquals(1, changes.get());
            assertFalse(policy.policy().accessFor(someone).tool("a", "t"));
            assertTrue(policy.policy().accessFor(someone).tool("b", "t"));

            Files.writeString(file, "{\"rules\":[{\"match\":{},\"allow\":{\"servers\":\"c\"}},]}");
            policy.poll();
            assertEquals(1, changes.get());
            assertEquals(1, problems.size(), problems.toString());
            assertTrue(problems.get(0).contains(file.toString()) && problems.get(0).contains("line 1"),
                    problems.get(0));
            assertTrue(policy.policy().accessFor(someone).tool("b", "t"), "the previous policy stays in force");
            policy.poll();
            assertEquals(1, problems.size(), "the same bad file is reported once");

            Files.delete(file);
            policy.poll();
            assertTrue(problems.get(problems.size() - 1).contains("does not exist"), problems.toString());
            assertTrue(policy.policy().accessFor(someone).tool("b", "t"));
        }
        assertThrows(McpException.class, () -> new PolicyFile(temp.resolve("none.json"), Duration.ofSeconds(1),
                p -> { }, () -> { }));
    }
}
