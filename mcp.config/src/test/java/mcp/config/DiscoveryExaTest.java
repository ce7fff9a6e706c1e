package mcp.config;

import static mcp.config.Fixtures.discovery;
import static mcp.config.Fixtures.meta;
import static mcp.config.Fixtures.spec;
import static mcp.config.Fixtures.stdio;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;
import mcp.api.SourceMetadata.Level;
import mcp.config.Fixtures.FixedSource;
import mcp.config.SkippedServer.Reason;
import org.junit.jupiter.api.Test;

/** The Exa filter through discovery: detection, key extraction order, the option. */
class DiscoveryExaTest {

    private static final SourceMetadata USER = meta("user", Level.USER);

    @Test
    void detectedByNameUrlOrArg() {
        List<ServerSpec> entries = List.of(
                stdio("EXA", USER, "npx"),
                spec("search", USER).url("https://MCP.Exa.AI/mcp").build(),
                spec("remote", USER).command("npx").args("-y", "mcp-remote", "https://mcp.exa.ai/mcp").build(),
                stdio("exa-tools", USER, "npx"),
                spec("other", USER).url("https://example.com/exa").build(),
                spec("near", USER).command("npx").env("URL", "https://mcp.exa.ai").build());

        DiscoveryResult result = discovery(new FixedSource("user", 10, entries)).build().discover();

        assertEquals(List.of("exa-tools", "other", "near"), List.copyOf(result.configs().keySet()));
        assertEquals(List.of("EXA", "search", "remote"), result.skipped().stream().map(SkippedServer::name).toList());
        assertTrue(result.skipped().stream().allMatch(s -> s.reason() == Reason.EXA));
        assertEquals(List.of(), result.exaApiKeys());
        assertTrue(result.problems().isEmpty());
    }

    @Test
    void keyComesFromTheUrlThenTheArgsThenTheEnv() {
        ServerSpec urlAndMore = spec("a", USER).url("https://mcp.exa.ai/mcp?foo=1&exaApiKey=from-url&x=2")
                .args("exaApiKey=from-arg").env("EXA_API_KEY", "from-env-a").build();
        ServerSpec argsAndEnv = spec("b", USER).command("npx")
                .args("mcp-remote", "https://mcp.exa.ai/mcp?exaApiKey=from-arg").env("EXA_API_KEY", "from-env-b").build();
        ServerSpec envOnly = spec("exa", USER).command("npx").args("exa-mcp-server").env("EXA_API_KEY", "from-env")
                .build();
        ServerSpec unresolved = spec("c", USER).url("https://mcp.exa.ai/mcp?exaApiKey=${EXA_KEY}")
                .env("EXA_API_KEY", "fallback").build();
        ServerSpec encoded = spec("d", USER).url("https://mcp.exa.ai/mcp?exaApiKey=a%2Fb+c").build();

        DiscoveryResult result = discovery(new FixedSource("user", 10,
                List.of(urlAndMore, argsAndEnv, envOnly, unresolved, encoded))).build().discover();

        assertEquals(List.of("from-url", "from-arg", "from-env", "fallback", "a/b+c"), result.exaApiKeys());
        assertTrue(result.configs().isEmpty());
        result.skipped().forEach(s -> assertFalse(s.detail().contains("from-"), "no key in a reason: " + s.detail()));
    }

    @Test
    void keysAreExpandedAndDeduplicatedInOrder() {
        ServerSpec first = spec("exa", USER).url("https://mcp.exa.ai/mcp?exaApiKey=${EXA_KEY}").build();
        ServerSpec second = spec("exa2", USER).command("npx").args("https://mcp.exa.ai/mcp").env("EXA_API_KEY", "k2")
                .build();
        ServerSpec third = spec("exa3", USER).url("https://mcp.exa.ai/mcp?exaApiKey=k1").build();

        DiscoveryResult result = discovery(new FixedSource("user", 10, List.of(first, second, third)))
                .environment(Map.of("EXA_KEY", "k1")).build().discover();

        assertEquals(List.of("k1", "k2"), result.exaApiKeys());
    }

    @Test
    void filterOffKeepsExaServersAndExtractsNothing() {
        ServerSpec exa = spec("exa", USER).url("https://mcp.exa.ai/mcp?exaApiKey=k").build();

        DiscoveryResult result = discovery(new FixedSource("user", 10, List.of(exa))).exaFilter(false).build()
                .discover();

        assertEquals(List.of("exa"), List.copyOf(result.configs().keySet()));
        assertEquals(List.of(), result.exaApiKeys());
        assertEquals(List.of(), result.skipped());
    }

    @Test
    void disabledOrUntrustedExaServersGiveNoKey() {
        ServerSpec disabled = spec("exa", USER).url("https://mcp.exa.ai/mcp?exaApiKey=k-disabled").enabled(false)
                .build();
        SourceMetadata project = meta("proj", Level.PROJECT);
        ServerSpec fromProject = spec("exa", project).url("https://mcp.exa.ai/mcp?exaApiKey=k-project").build();

        DiscoveryResult off = discovery(new FixedSource("user", 10, List.of(disabled)),
                new FixedSource("proj", 5, List.of(fromProject))).projectConfig(false).build().discover();
        assertEquals(List.of(), off.exaApiKeys());
        assertEquals(List.of(Reason.DISABLED, Reason.EXA), off.skipped().stream().map(SkippedServer::reason).toList());

        DiscoveryResult on = discovery(new FixedSource("proj", 5, List.of(fromProject))).build().discover();
        assertEquals(List.of("k-project"), on.exaApiKeys(), "with project config on, a project's key counts");
    }

    @Test
    void anExaServerThatIsAlsoInvalidIsStillFilteredFirst() {
        ServerSpec broken = spec("exa", USER).command("npx").url("https://mcp.exa.ai/mcp?exaApiKey=k").build();

        DiscoveryResult result = discovery(new FixedSource("user", 10, List.of(broken))).build().discover();

        assertEquals(List.of(Reason.EXA), result.skipped().stream().map(SkippedServer::reason).toList());
        assertEquals(List.of("k"), result.exaApiKeys());
        assertTrue(result.problems().isEmpty(), "filtered before validation");
    }
}
