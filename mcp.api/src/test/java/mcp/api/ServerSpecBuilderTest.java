package mcp.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@link ServerSpec.Builder}: its defaults, its checks, and that it builds what the canonical constructor does. */
class ServerSpecBuilderTest {

    private static final SourceMetadata SOURCE = new SourceMetadata("env", "Environment variable",
            Optional.of(Path.of("/cfg/servers.json")), SourceMetadata.Level.USER);

    @Test
    void defaultsAreAnEntryThatSetsNothingAndPassesValuesAsWritten() {
        ServerSpec spec = ServerSpec.builder("git", SOURCE).build();

        assertEquals(new ServerSpec("git", SOURCE, "", Optional.empty(), Optional.empty(), List.of(), Map.of(),
                Optional.empty(), Optional.empty(), Map.of(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), List.of(), Optional.empty(), Optional.empty(), true, Optional.empty(), false,
                Optional.empty(), Optional.empty(), CallLimits.NONE, AlwaysLoad.NONE), spec);
        assertFalse(spec.valueReferences(), "mcp-host's own value syntax is for its own files only");
        assertTrue(spec.expandVariables());
        assertEquals("", spec.location());
    }

    @Test
    void theShortConstructorAlsoPassesValuesAsWritten() {
        ServerSpec spec = new ServerSpec("git", SOURCE, "", Optional.empty(), Optional.of("uvx"), List.of(),
                Map.of("TOKEN", "!cat /secret"), Optional.empty(), Optional.empty(), Map.of(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), List.of());

        assertFalse(spec.valueReferences(), "a \"!command\" value is run only for mcp-host's own files");
        assertEquals(ServerSpec.builder("git", SOURCE).command("uvx").putEnv("TOKEN", "!cat /secret").build(), spec);
    }

    @Test
    void everySetterSetsItsComponent() {
        ServerConfig.AuthRef auth = new ServerConfig.AuthRef("oauth", "git-cred", Map.of("scope", "repo"));
        OwnerState owner = new OwnerState(OwnerState.Kind.APPROVED, "approved in the tool");
        ReconnectPolicy reconnect = ReconnectPolicy.OFF;
        CallLimits limits = new CallLimits(Optional.of(Duration.ofSeconds(5)), Optional.empty(), Optional.of(false));
        AlwaysLoad always = AlwaysLoad.tools(List.of("status"));
        ToolPolicy policy = new ToolPolicy(List.of(new ToolRule(CallPolicy.Decision.ASK,
                new ToolRule.Match.Named(java.util.Set.of("push")), "Codex", "mcp_servers.git.tools.push.approval_mode",
                Optional.empty())));
        Sandbox sandbox = new Sandbox(new Sandbox.Filesystem(List.of("."), List.of("~/.ssh"), List.of()),
                Sandbox.Network.NONE);
        HeaderCommands.Helper helper = new HeaderCommands.Helper("get-headers", Optional.empty());

        ServerSpec built = ServerSpec.builder("git", SOURCE)
                .location("/mcpServers/git")
                .type("stdio")
                .command("uvx")
                .args("mcp-server-git", "--repository", ".")
                .env(Map.of("A", "1"))
                .putEnv("B", "2")
                .cwd("/work")
                .url("https://example.com/mcp")
                .headers(Map.of("X-One", "1"))
                .putHeader("X-Two", "2")
                .timeoutMillis(5_000)
                .enabled(false)
                .auth(auth)
                .enabledTools(List.of("status", "log"))
                .disabledTools(List.of("push"))
                .toolTimeoutMillis(60_000)
                .inheritedEnv(List.of("PATH"))
                .expandVariables(false)
                .owner(owner)
                .valueReferences(true)
                .protocolVersion("2025-06-18")
                .reconnect(reconnect)
                .callLimits(limits)
                .alwaysLoad(always)
                .sandbox(sandbox)
                .headersHelper(Optional.of(helper))
                .toolPolicy(policy)
                .build();

        assertEquals(new ServerSpec("git", SOURCE, "/mcpServers/git", Optional.of("stdio"), Optional.of("uvx"),
                List.of("mcp-server-git", "--repository", "."), Map.of("A", "1", "B", "2"), Optional.of("/work"),
                Optional.of("https://example.com/mcp"), Map.of("X-One", "1", "X-Two", "2"), Optional.of(5_000L),
                Optional.of(false), Optional.of(auth), Optional.of(List.of("status", "log")), List.of("push"),
                Optional.of(60_000L), Optional.of(List.of("PATH")), false, Optional.of(owner), true,
                Optional.of("2025-06-18"), Optional.of(reconnect), limits, always, Optional.of(sandbox),
                Optional.of(helper), policy), built);
    }

    @Test
    void toBuilderCopiesEveryComponent() {
        ServerSpec original = new ServerSpec("remote", SOURCE, "/servers/0", Optional.of("http"), Optional.empty(),
                List.of(), Map.of(), Optional.empty(), Optional.of("https://example.com/mcp"),
                Map.of("Authorization", "Bearer ${TOKEN}"), Optional.of(1L), Optional.of(true), Optional.empty(),
                Optional.of(List.of()), List.of("drop"), Optional.of(2L), Optional.of(List.of("HOME")), false,
                Optional.of(new OwnerState(OwnerState.Kind.TRUSTED, "trusted")), true, Optional.of("auto"),
                Optional.empty(), CallLimits.NONE, AlwaysLoad.ALL, Optional.of(Sandbox.DEFAULT),
                Optional.of(new HeaderCommands.Helper("get-headers", Optional.empty())), new ToolPolicy(List.of(new ToolRule(
                        CallPolicy.Decision.DENY, new ToolRule.Match.AnyTool(), "Claude Code", "permissions.deny \"mcp__remote\"",
                        Optional.empty()))));

        assertEquals(original, original.toBuilder().build());
        ServerSpec owned = original.withOwner(new OwnerState(OwnerState.Kind.TRUSTED, "again"));
        assertEquals(original.sandbox(), owned.sandbox());
        assertEquals(original.headersHelper(), owned.headersHelper());
        assertEquals(original.toolPolicy(), owned.toolPolicy());
        ServerSpec renamed = original.toBuilder().name("other").putHeader("X-Extra", "1").build();
        assertEquals("other", renamed.name());
        assertEquals(Map.of("Authorization", "Bearer ${TOKEN}", "X-Extra", "1"), renamed.headers());
        assertEquals(original.url(), renamed.url());
    }

    @Test
    void optionalSettersTakeWhatASourceParsedPresentOrNot() {
        ServerSpec cleared = ServerSpec.builder("git", SOURCE).command("uvx").timeoutMillis(5)
                .command(Optional.empty()).timeoutMillis(Optional.empty()).enabledTools(Optional.empty())
                .build();
        assertEquals(ServerSpec.builder("git", SOURCE).build(), cleared);

        assertEquals(Optional.of("npx"), ServerSpec.builder("git", SOURCE).command(Optional.of("npx")).build().command());
        assertEquals(Optional.of(List.of("a")),
                ServerSpec.builder("git", SOURCE).enabledTools(Optional.of(List.of("a"))).build().enabledTools());
    }

    @Test
    void mapSettersReplaceAndPutAdds() {
        ServerSpec spec = ServerSpec.builder("git", SOURCE).putEnv("OLD", "x").env(Map.of("A", "1")).putEnv("A", "2")
                .putEnv("B", "3").build();
        assertEquals(Map.of("A", "2", "B", "3"), spec.env());
    }

    @Test
    void theBuilderKeepsNoLinkToWhatItWasGivenOrWhatItBuilt() {
        List<String> args = new ArrayList<>(List.of("a"));
        Map<String, String> env = new HashMap<>(Map.of("A", "1"));
        ServerSpec.Builder builder = ServerSpec.builder("git", SOURCE).command("x").args(args).env(env);
        args.add("b");
        env.put("B", "2");
        ServerSpec first = builder.build();
        ServerSpec second = builder.putEnv("C", "3").build();

        assertEquals(List.of("a"), first.args());
        assertEquals(Map.of("A", "1"), first.env());
        assertEquals(Map.of("A", "1", "C", "3"), second.env());
        assertNotEquals(first, second);
    }

    @Test
    void valuesThatDiscoveryReportsAreLeftToDiscovery() {
        // A file may say this; discovery turns it into a problem that names the file and the entry.
        ServerSpec spec = ServerSpec.builder("", SOURCE).type("websocket").command(" ").timeoutMillis(-1)
                .toolTimeoutMillis(0).protocolVersion("1999-01-01").build();
        assertEquals(Optional.of("websocket"), spec.type());
        assertEquals(Optional.of(-1L), spec.timeoutMillis());
    }

    @Test
    void aNullIsRejectedWithTheComponentAndTheServerNamed() {
        ServerSpec.Builder builder = ServerSpec.builder("git", SOURCE);

        assertEquals("ServerSpec \"git\": args[1] is null",
                assertThrows(NullPointerException.class, () -> builder.args(Arrays.asList("a", null))).getMessage());
        assertEquals("ServerSpec \"git\": args[0] is null",
                assertThrows(NullPointerException.class, () -> builder.args((String) null)).getMessage());
        Map<String, String> env = new HashMap<>();
        env.put("TOKEN", null);
        assertEquals("ServerSpec \"git\": env value of \"TOKEN\" is null",
                assertThrows(NullPointerException.class, () -> builder.env(env)).getMessage());
        assertEquals("ServerSpec \"git\": headers value of \"Authorization\" is null",
                assertThrows(NullPointerException.class, () -> builder.putHeader("Authorization", null)).getMessage());
        assertEquals("ServerSpec \"git\": command is null",
                assertThrows(NullPointerException.class, () -> builder.command((String) null)).getMessage());
        assertEquals("ServerSpec \"git\": url is null",
                assertThrows(NullPointerException.class, () -> builder.url((Optional<String>) null)).getMessage());
        assertEquals("ServerSpec \"git\": enabledTools[0] is null",
                assertThrows(NullPointerException.class, () -> builder.enabledTools(Arrays.asList((String) null)))
                        .getMessage());
        assertEquals("name", assertThrows(NullPointerException.class, () -> ServerSpec.builder(null, SOURCE))
                .getMessage());
        assertEquals("source", assertThrows(NullPointerException.class, () -> ServerSpec.builder("git", null))
                .getMessage());
        // A failed setter leaves the builder as it was.
        assertEquals(ServerSpec.builder("git", SOURCE).build(), builder.build());
    }

    @Test
    void theLocationMustBeAJsonPointer() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ServerSpec.builder("git", SOURCE).location("mcpServers.git"));
        assertEquals("ServerSpec \"git\": location must be a JSON pointer such as \"/mcpServers/git\", or \"\" when"
                + " unknown; got \"mcpServers.git\"", e.getMessage());
        assertEquals("/a~1b", ServerSpec.builder("a/b", SOURCE).location("/a~1b").build().location());
        assertEquals("", ServerSpec.builder("git", SOURCE).location("/x").location("").build().location());
    }
}
