package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.Sandbox;
import mcp.api.StdioServerConfig;
import mcp.config.Discovery;
import mcp.config.DiscoveryResult;
import mcp.config.SkippedServer;
import mcp.consent.Approvals;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discovery of servers that must run in a sandbox: where none can be had they are inactive with the reason and
 * never configured (so never started), whatever their source; where one can, their config carries it, with the
 * program that passed the probe. The host's rule for project servers sandboxes those alone.
 */
class SandboxDiscoveryTest {

    @TempDir
    Path dir;

    private Fixture f;

    @BeforeEach
    void files() {
        f = Fixture.empty(dir);
    }

    private Discovery.Builder discovery() {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", f.home.toString());
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put(ClaudePolicy.DIRECTORY_VARIABLE, f.managed().toString());
        return Discovery.builder().home(f.home).workingDirectory(f.app).environment(env)
                .managedPolicy(f.managed().resolve("mcp-host.json"))
                .approvals(Approvals.at(f.root.resolve("state/approvals.json"))).approveProjectServers(true);
    }

    private static SkippedServer skipped(DiscoveryResult result, String name) {
        return result.skipped().stream().filter(s -> s.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(name + " was not skipped: " + result.skipped()));
    }

    private static void assumeBubblewrap() {
        String path = System.getenv().getOrDefault("PATH", "");
        Assumptions.assumeTrue(java.util.Arrays.stream(path.split(":"))
                .anyMatch(entry -> !entry.isEmpty() && Files.isExecutable(Path.of(entry, "bwrap"))),
                "bubblewrap (bwrap) is not installed; .ci/run installs it");
    }

    @Test
    void withoutBubblewrapEveryServerThatMustBeSandboxedIsInactiveAndTheOthersAreNot() {
        f.write(f.home.resolve(".config/mcp-host/mcp.json"), """
                {"mcpServers": {"boxed": {"command": "node", "sandbox": true}, "plain": {"command": "node"}}}""");
        f.write(f.project.resolve(".vscode/mcp.json"), """
                {"servers": {"vscode-boxed": {"type": "stdio", "command": "node", "sandboxEnabled": true}}}""");
        Path missing = f.root.resolve("no-such-bwrap");

        DiscoveryResult result = discovery().bubblewrap(missing).build().discover();

        assertEquals(List.of("plain"), List.copyOf(result.configs().keySet()));
        for (String name : List.of("boxed", "vscode-boxed")) {
            SkippedServer server = skipped(result, name);
            assertEquals(SkippedServer.Reason.NO_SANDBOX, server.reason());
            assertEquals("must run in a sandbox, and none can be had: bubblewrap " + missing + " does not exist or"
                    + " cannot be run; it is not started without one (see docs/sandbox.md)", server.detail());
        }
    }

    @Test
    void rulesBubblewrapCannotEnforceMakeTheServerInactiveWithThem() {
        f.write(f.home.resolve(".config/mcp-host/mcp.json"), """
                {"mcpServers": {"api": {"command": "node",
                  "sandbox": {"network": {"allowedDomains": ["api.example.com"]}}}}}""");

        DiscoveryResult result = discovery().build().discover();

        assertEquals(Map.of(), result.configs());
        SkippedServer api = skipped(result, "api");
        assertEquals(SkippedServer.Reason.NO_SANDBOX, api.reason());
        assertTrue(api.detail().startsWith("must run in a sandbox, and none can be had: network.allowedDomains"
                + " [api.example.com] cannot be enforced: bubblewrap isolates the network all or nothing"),
                api.detail());
    }

    @Test
    void anInactiveSandboxedServerHidesNoOtherServerOfItsName() {
        f.write(f.project.resolve(".mcp-host/mcp.json"), """
                {"mcpServers": {"notes": {"command": "project-notes", "sandbox": true}}}""");
        f.write(f.home.resolve(".config/mcp-host/mcp.json"), """
                {"mcpServers": {"notes": {"command": "user-notes"}}}""");

        DiscoveryResult result = discovery().bubblewrap(f.root.resolve("no-such-bwrap")).build().discover();

        assertEquals("user-notes", ((StdioServerConfig) result.configs().get("notes")).command());
        assertEquals(SkippedServer.Reason.NO_SANDBOX, skipped(result, "notes").reason());
    }

    @Test
    void aSandboxedServersConfigCarriesItsRulesWithTheHomeExpandedAndTheProbedProgram() {
        assumeBubblewrap();
        f.write(f.home.resolve(".config/mcp-host/mcp.json"), """
                {"mcpServers": {"boxed": {"command": "node",
                  "sandbox": {"filesystem": {"allowWrite": ["~/.cache/boxed", "out"], "denyRead": ["~"]}}}}}""");

        DiscoveryResult result = discovery().build().discover();

        Sandbox sandbox = ((StdioServerConfig) result.configs().get("boxed")).sandbox().orElseThrow();
        assertEquals(List.of(f.home + "/.cache/boxed", "out"), sandbox.filesystem().allowWrite(),
                "~ is the discovery's home; a relative path stays relative to the server's working directory");
        assertEquals(List.of(f.home.toString()), sandbox.filesystem().denyRead());
        assertTrue(sandbox.bubblewrap().orElseThrow().endsWith("/bwrap"), sandbox.toString());
    }

    @Test
    void theProjectRuleSandboxesProjectServersWithTheProjectAndTheirOwnStateWritable() {
        assumeBubblewrap();
        f.write(f.project.resolve(".mcp-host/mcp.json"), """
                {"mcpServers": {"proj": {"command": "node", "env": {"XDG_CACHE_HOME": "/own/cache"}},
                                "proj-web": {"url": "http://127.0.0.1:9/mcp"}}}""");
        f.write(f.home.resolve(".config/mcp-host/mcp.json"), """
                {"mcpServers": {"mine": {"command": "node"}}}""");

        DiscoveryResult off = discovery().build().discover();
        assertEquals(Optional.empty(), ((StdioServerConfig) off.configs().get("proj")).sandbox(),
                "the rule is off by default");

        DiscoveryResult result = discovery().sandboxProjectServers(true).build().discover();

        StdioServerConfig proj = (StdioServerConfig) result.configs().get("proj");
        Path state = f.home.resolve(".local/state/mcp-host/sandboxes/proj");
        Sandbox sandbox = proj.sandbox().orElseThrow();
        assertEquals(List.of(f.app.toString(), state.toString()), sandbox.filesystem().allowWrite());
        assertFalse(sandbox.network().any());
        assertEquals(state.resolve("state").toString(), proj.env().get("XDG_STATE_HOME"));
        assertEquals("/own/cache", proj.env().get("XDG_CACHE_HOME"), "the entry's own value wins");
        assertTrue(Files.isDirectory(state.resolve("data")));
        assertEquals(Optional.empty(), ((StdioServerConfig) result.configs().get("mine")).sandbox(),
                "a user's own server is not a project server");
        assertTrue(result.configs().containsKey("proj-web"), "a remote server has no process to sandbox");
    }

    @Test
    void theProjectRuleKeepsAServersOwnGrantsBesideItsOwn() {
        assumeBubblewrap();
        f.write(f.project.resolve(".mcp-host/mcp.json"), """
                {"mcpServers": {"proj": {"command": "node", "sandbox": {"filesystem": {"allowWrite": ["/data"]},
                  "network": {"allowedDomains": ["*"]}}}}}""");

        DiscoveryResult result = discovery().sandboxProjectServers(true).build().discover();

        Sandbox sandbox = ((StdioServerConfig) result.configs().get("proj")).sandbox().orElseThrow();
        assertEquals(List.of("/data", f.app.toString(), f.home.resolve(".local/state/mcp-host/sandboxes/proj")
                .toString()), sandbox.filesystem().allowWrite());
        assertTrue(sandbox.network().any(), "the entry's grant, approved with its definition");
    }

    @Test
    void underTheProjectRuleAProjectServerIsInactiveWithoutBubblewrap() {
        f.write(f.project.resolve(".mcp-host/mcp.json"), """
                {"mcpServers": {"proj": {"command": "node"}}}""");

        DiscoveryResult result = discovery().sandboxProjectServers(true).bubblewrap(f.root.resolve("none"))
                .build().discover();

        assertFalse(result.configs().containsKey("proj"));
        assertEquals(SkippedServer.Reason.NO_SANDBOX, skipped(result, "proj").reason());
    }
}
