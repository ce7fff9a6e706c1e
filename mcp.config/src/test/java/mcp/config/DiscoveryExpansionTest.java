package mcp.config;

import static mcp.config.Fixtures.discovery;
import static mcp.config.Fixtures.meta;
import static mcp.config.Fixtures.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.HttpServerConfig;
import mcp.api.SourceMetadata;
import mcp.api.SourceMetadata.Level;
import mcp.api.StdioServerConfig;
import mcp.config.DiscoveryProblem.Severity;
import mcp.config.Fixtures.FixedSource;
import mcp.config.SkippedServer.Reason;
import org.junit.jupiter.api.Test;

/** Expansion as part of discovery: values, and which warnings are worth reporting. */
class DiscoveryExpansionTest {

    private static final SourceMetadata USER = meta("user", Level.USER);
    private static final SourceMetadata PROJECT = meta("proj", Level.PROJECT);
    private static final Map<String, String> ENV = Map.of("TOKEN", "t0k", "EMPTY", "", "BIN", "/opt/bin");

    @Test
    void configsHoldExpandedValues() {
        FixedSource source = new FixedSource("user", 10, List.of(
                spec("s", USER).command("${BIN}/srv").args("--a=${EMPTY:-x}", "$TOKEN", "${input:key}")
                        .env("TOKEN", "${TOKEN}").cwd("${MISSING:-/tmp}").build(),
                spec("h", USER).url("https://h/${TOKEN}").header("Authorization", "Bearer ${TOKEN}").build()));

        DiscoveryResult result = discovery(source).environment(ENV).build().discover();

        StdioServerConfig s = (StdioServerConfig) result.configs().get("s");
        assertEquals("/opt/bin/srv", s.command());
        assertEquals(List.of("--a=", "$TOKEN", "${input:key}"), s.args());
        assertEquals(Map.of("TOKEN", "t0k"), s.env());
        assertEquals(Optional.of("/tmp"), s.cwd());
        HttpServerConfig h = (HttpServerConfig) result.configs().get("h");
        assertEquals("https://h/t0k", h.url());
        assertEquals(Map.of("Authorization", "Bearer t0k"), h.headers());
        assertTrue(result.problems().isEmpty(), result.problems().toString());
    }

    @Test
    void unsetVariablesAreWarnedOncePerServerAndField() {
        FixedSource source = new FixedSource("user", 10, List.of(
                spec("a", USER).url("https://${HOST}/${HOST}/${PORT}").header("X-Key", "${KEY}").build(),
                spec("b", USER).command("srv").args("${HOST}").env("K", "${KEY}").build()));

        DiscoveryResult result = discovery(source).environment(ENV).build().discover();

        assertEquals(List.of(
                warning("a", "Server \"a\": environment variable \"HOST\" is not set (in \"url\")"),
                warning("a", "Server \"a\": environment variable \"PORT\" is not set (in \"url\")"),
                warning("a", "Server \"a\": environment variable \"KEY\" is not set (in \"headers.X-Key\")"),
                warning("b", "Server \"b\": environment variable \"HOST\" is not set (in \"args[0]\")"),
                warning("b", "Server \"b\": environment variable \"KEY\" is not set (in \"env.K\")")),
                result.problems());
        assertEquals("https://${HOST}/${HOST}/${PORT}", ((HttpServerConfig) result.configs().get("a")).url(),
                "left as written");
    }

    @Test
    void droppedEntriesAreNotWarnedAbout() {
        FixedSource user = new FixedSource("user", 10, List.of(
                spec("off", USER).command("${NOPE}").enabled(false).build(),
                spec("exa", USER).url("https://mcp.exa.ai/mcp?exaApiKey=${NOPE}").build()));
        FixedSource project = new FixedSource("proj", 5, List.of(spec("p", PROJECT).command("${NOPE}").build()));

        DiscoveryResult result = discovery(user, project).environment(ENV).projectConfig(false).build().discover();

        assertEquals(List.of(Reason.DISABLED, Reason.EXA, Reason.PROJECT_CONFIG_OFF),
                result.skipped().stream().map(SkippedServer::reason).toList());
        assertEquals(List.of(), result.problems());
        assertEquals(List.of(), result.exaApiKeys(), "an unexpanded reference is no key");
    }

    @Test
    void invalidAndShadowedEntriesSurvivedTheFiltersSoTheyAreWarnedAbout() {
        FixedSource user = new FixedSource("user", 10, List.of(
                spec("s", USER).command("srv").build(),
                spec("s", USER).command("${NOPE}").build(),
                spec("bad", USER).url("${NOPE}").type("ftp").build()));

        DiscoveryResult result = discovery(user).environment(ENV).build().discover();

        assertEquals(List.of(
                warning("s", "Server \"s\": environment variable \"NOPE\" is not set (in \"command\")"),
                warning("bad", "Server \"bad\": environment variable \"NOPE\" is not set (in \"url\")"),
                new DiscoveryProblem(Severity.ERROR, USER.path(), "/mcpServers/bad", "bad",
                        "Server \"bad\": unknown server type \"ftp\"")), result.problems());
    }

    private static DiscoveryProblem warning(String server, String message) {
        return new DiscoveryProblem(Severity.WARNING, USER.path(), "/mcpServers/" + server, server, message);
    }
}
