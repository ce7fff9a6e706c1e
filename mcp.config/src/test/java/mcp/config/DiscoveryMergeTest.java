package mcp.config;

import static mcp.config.Fixtures.discovery;
import static mcp.config.Fixtures.http;
import static mcp.config.Fixtures.meta;
import static mcp.config.Fixtures.spec;
import static mcp.config.Fixtures.stdio;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import mcp.api.ConsultedFile;
import mcp.api.HttpServerConfig;
import mcp.api.ServerConfig;
import mcp.api.SourceMetadata;
import mcp.api.SourceMetadata.Level;
import mcp.api.StdioServerConfig;
import mcp.api.spi.CapabilitySource;
import mcp.api.spi.ConfigFilter.Decision;
import mcp.config.DiscoveryProblem.Severity;
import mcp.config.Fixtures.FixedSource;
import mcp.config.Fixtures.LambdaFilter;
import mcp.config.SkippedServer.Reason;
import mcp.config.internal.sources.ManagedPolicy;
import org.junit.jupiter.api.Test;

/** Ordering, de-duplication after filtering and validation, failures of sources and filters. */
class DiscoveryMergeTest {

    private static final SourceMetadata HIGH = meta("high", Level.USER);
    private static final SourceMetadata MID = meta("mid", Level.USER);
    private static final SourceMetadata LOW = meta("low", Level.PROJECT);

    @Test
    void sourcesAreReadByPriorityThenGivenOrderAndFirstWins() {
        FixedSource low = new FixedSource("low", 5, List.of(stdio("a", LOW, "low-a"), stdio("only-low", LOW, "x")));
        FixedSource high = new FixedSource("high", 100, List.of(stdio("a", HIGH, "high-a"), stdio("b", HIGH, "high-b")));
        FixedSource midFirst = new FixedSource("mid1", 50, List.of(stdio("b", meta("mid1", Level.USER), "mid1-b"),
                stdio("c", meta("mid1", Level.USER), "mid1-c")));
        FixedSource midSecond = new FixedSource("mid2", 50, List.of(stdio("c", meta("mid2", Level.USER), "mid2-c")));

        DiscoveryResult result = discovery(low, midFirst, high, midSecond).build().discover();

        assertEquals(List.of("a", "b", "c", "only-low"), List.copyOf(result.configs().keySet()), "merge order");
        assertEquals("high-a", command(result, "a"));
        assertEquals("high-b", command(result, "b"));
        assertEquals("mid1-c", command(result, "c"), "equal priority: the source given first wins");
        assertEquals(List.copyOf(result.configs().keySet()), List.copyOf(result.sources().keySet()));
        assertEquals("high", result.sources().get("a").providerId());
        assertEquals("mid1", result.sources().get("c").providerId());
        assertEquals("low", result.sources().get("only-low").providerId());

        List<SkippedServer> shadowed = result.skipped();
        assertEquals(3, shadowed.size());
        assertTrue(shadowed.stream().allMatch(s -> s.reason() == Reason.SHADOWED), shadowed.toString());
        SkippedServer lowA = shadowed.stream().filter(s -> s.name().equals("a")).findFirst().orElseThrow();
        assertEquals("low", lowA.source().providerId());
        assertEquals("/mcpServers/a", lowA.location());
        assertEquals("shadowed by the entry from Source high (" + Path.of("/cfg/high/mcp.json") + ")", lowA.detail());
        assertTrue(result.problems().isEmpty(), "shadowing is no problem: " + result.problems());
        assertFalse(result.hardFailed());
    }

    @Test
    void noFieldMergingTheWinnerIsTakenWhole() {
        FixedSource high = new FixedSource("high", 100, List.of(spec("s", HIGH).command("node").build()));
        FixedSource low = new FixedSource("low", 5, List.of(spec("s", LOW).command("python").args("-m", "srv")
                .env("TOKEN", "t").cwd("/tmp").timeout(5000).build()));

        DiscoveryResult result = discovery(low, high).build().discover();

        StdioServerConfig config = assertInstanceOf(StdioServerConfig.class, result.configs().get("s"));
        assertEquals(StdioServerConfig.of("node", List.of()), config, "nothing taken from the lower entry");
    }

    @Test
    void theSameNameTwiceInOneSourceKeepsTheFirst() {
        FixedSource one = new FixedSource("one", 10, List.of(stdio("s", MID, "first"), stdio("s", MID, "second")));

        DiscoveryResult result = discovery(one).build().discover();

        assertEquals("first", command(result, "s"));
        assertEquals(List.of(Reason.SHADOWED), reasons(result));
    }

    @Test
    void anInvalidWinnerDoesNotHideAValidLowerEntry() {
        FixedSource high = new FixedSource("high", 100, List.of(spec("s", HIGH).build())); // neither command nor url
        FixedSource low = new FixedSource("low", 5, List.of(http("s", LOW, "https://example.com/mcp")));

        DiscoveryResult result = discovery(high, low).build().discover();

        assertEquals(HttpServerConfig.of("https://example.com/mcp"), result.configs().get("s"));
        assertEquals("low", result.sources().get("s").providerId());
        assertEquals(List.of(Reason.INVALID), reasons(result));
        assertEquals(List.of(new DiscoveryProblem(Severity.ERROR, HIGH.path(), "/mcpServers/s", "s",
                "Server \"s\": stdio server requires \"command\" field")), result.problems());
        assertFalse(result.hardFailed(), "an invalid server is not a hard failure");
    }

    @Test
    void aDisabledWinnerDoesNotHideAValidLowerEntry() {
        FixedSource high = new FixedSource("high", 100, List.of(spec("s", HIGH).command("off").enabled(false).build()));
        FixedSource low = new FixedSource("low", 5, List.of(stdio("s", LOW, "on")));

        DiscoveryResult result = discovery(high, low).build().discover();

        assertEquals("on", command(result, "s"));
        assertEquals(List.of(Reason.DISABLED), reasons(result));
        assertEquals("high", result.skipped().get(0).source().providerId());
        assertTrue(result.problems().isEmpty());
    }

    @Test
    void aFilteredWinnerDoesNotHideAValidLowerEntry() {
        FixedSource high = new FixedSource("high", 100, List.of(stdio("s", HIGH, "blocked")));
        FixedSource low = new FixedSource("low", 5, List.of(stdio("s", LOW, "allowed")));
        LambdaFilter blocker = new LambdaFilter("policy", (spec, ctx) ->
                spec.command().orElse("").equals("blocked") ? Decision.drop("not on the allow-list") : Decision.keep(spec));

        DiscoveryResult result = discovery(high, low).filters(List.of(blocker)).build().discover();

        assertEquals("allowed", command(result, "s"));
        SkippedServer skipped = result.skipped().get(0);
        assertEquals(Reason.FILTERED, skipped.reason());
        assertEquals("filter \"policy\": not on the allow-list", skipped.detail());
    }

    @Test
    void aFilterCanRewriteAnEntry() {
        FixedSource one = new FixedSource("one", 10, List.of(stdio("s", MID, "node")));
        LambdaFilter rewriter = new LambdaFilter("rewrite", (spec, ctx) ->
                Decision.keep(spec("s", spec.source()).command("bun").build()));

        DiscoveryResult result = discovery(one).filters(List.of(rewriter)).build().discover();

        assertEquals("bun", command(result, "s"));
    }

    @Test
    void projectConfigOffRemovesExactlyTheProjectLevelServers() {
        SourceMetadata user = meta("user", Level.USER);
        SourceMetadata project = meta("proj", Level.PROJECT);
        SourceMetadata nativeLevel = meta("native", Level.NATIVE);
        FixedSource projectSource = new FixedSource("proj", 100, List.of(stdio("shared", project, "from-project"),
                stdio("p-only", project, "p")));
        FixedSource userSource = new FixedSource("user", 50, List.of(stdio("shared", user, "from-user"),
                stdio("u-only", user, "u")));
        FixedSource nativeSource = new FixedSource("native", 10, List.of(stdio("n-only", nativeLevel, "n")));

        DiscoveryResult on = discovery(projectSource, userSource, nativeSource).build().discover();
        DiscoveryResult off = discovery(projectSource, userSource, nativeSource).projectConfig(false).build().discover();

        assertEquals(List.of("shared", "p-only", "u-only", "n-only"), List.copyOf(on.configs().keySet()));
        assertEquals("from-project", command(on, "shared"));

        assertEquals(List.of("shared", "u-only", "n-only"), List.copyOf(off.configs().keySet()));
        assertEquals("from-user", command(off, "shared"), "the user-level server of the same name stays");
        assertEquals(List.of("shared", "p-only"), off.skipped().stream().map(SkippedServer::name).toList());
        assertTrue(off.skipped().stream().allMatch(s -> s.reason() == Reason.PROJECT_CONFIG_OFF
                && s.source().level() == Level.PROJECT), off.skipped().toString());
        assertTrue(off.problems().isEmpty());
    }

    @Test
    void aThrowingSourceIsOneWarningAndTheOthersGoOn() {
        FixedSource broken = new FixedSource("broken", 100, context -> {
            throw new IllegalStateException("disk on fire");
        });
        FixedSource good = new FixedSource("good", 10, List.of(stdio("s", MID, "x")));

        DiscoveryResult result = discovery(broken, good).build().discover();

        assertEquals(List.of("s"), List.copyOf(result.configs().keySet()));
        assertEquals(List.of(new DiscoveryProblem(Severity.WARNING, Optional.empty(), "", "",
                "Capability source \"broken\" failed: disk on fire")), result.problems());
        assertFalse(result.hardFailed());
    }

    @Test
    void aSourcesProblemsBecomeWarnings() {
        Path file = Path.of("/cfg/bad.json");
        FixedSource source = new FixedSource("bad", 10, context -> new CapabilitySource.Result(
                List.of(stdio("s", MID, "x")),
                List.of(new CapabilitySource.Problem(file, "3:14", "", "Unexpected character '}'"))));

        DiscoveryResult result = discovery(source).build().discover();

        assertEquals(List.of(new DiscoveryProblem(Severity.WARNING, Optional.of(file), "3:14", "",
                "Unexpected character '}'")), result.problems());
        assertEquals(file + ":3:14: Unexpected character '}'", result.problems().get(0).describe());
        assertEquals(1, result.configs().size());
    }

    @Test
    void theSourceSeesTheBuildersContext() {
        CapabilitySource.Context[] seen = new CapabilitySource.Context[1];
        FixedSource spy = new FixedSource("spy", 1, context -> {
            seen[0] = context;
            return new CapabilitySource.Result(List.of(), List.of());
        });

        discovery(spy).environment(Map.of("A", "1")).build().discover();

        assertEquals(new CapabilitySource.Context(Path.of("/work/project"), Path.of("/home/tester"), Map.of("A", "1")),
                seen[0]);
    }

    @Test
    void aThrowingFilterIsAWarningAndTheEntryIsKept() {
        FixedSource one = new FixedSource("one", 10, List.of(stdio("s", MID, "x"), stdio("t", MID, "y")));
        LambdaFilter broken = new LambdaFilter("broken", (spec, ctx) -> {
            if (spec.name().equals("s")) {
                throw new IllegalArgumentException("bad regex");
            }
            return Decision.keep(spec);
        });

        DiscoveryResult result = discovery(one).filters(List.of(broken)).build().discover();

        assertEquals(List.of("s", "t"), List.copyOf(result.configs().keySet()));
        assertEquals(List.of(new DiscoveryProblem(Severity.WARNING, MID.path(), "/mcpServers/s", "s",
                "Config filter \"broken\" failed on server \"s\": bad regex; the server is kept")), result.problems());
    }

    @Test
    void filtersRunInIdOrderAndSeeTheOptions() {
        StringBuilder calls = new StringBuilder();
        LambdaFilter b = new LambdaFilter("b", (spec, ctx) -> {
            calls.append("b");
            return Decision.keep(spec);
        });
        LambdaFilter a = new LambdaFilter("a", (spec, ctx) -> {
            calls.append("a").append(ctx.option("projectConfig", true)).append(ctx.option("exaFilter", false))
                    .append(ctx.option("other", true));
            return Decision.keep(spec);
        });
        FixedSource one = new FixedSource("one", 10, List.of(stdio("s", MID, "x")));

        discovery(one).loadFilters(false).filters(List.of(b, a)).projectConfig(false).build().discover();

        assertEquals("afalsetruetrueb", calls.toString());
    }

    @Test
    void duplicateSourceIdsAreAHardFailure() {
        FixedSource first = new FixedSource("same", 10, List.of(stdio("s", MID, "x")));
        FixedSource second = new FixedSource("same", 20, List.of(stdio("t", MID, "y")));

        DiscoveryResult result = discovery(first, second).build().discover();

        assertTrue(result.hardFailed());
        assertTrue(result.configs().isEmpty());
        assertTrue(result.sources().isEmpty());
        assertEquals(1, result.problems().size());
        DiscoveryProblem problem = result.problems().get(0);
        assertEquals(Severity.ERROR, problem.severity());
        assertEquals(Optional.of(Path.of(".mcp.json")), problem.file());
        assertTrue(problem.message().startsWith("Two CapabilitySource providers have the id \"same\""),
                problem.message());
        assertEquals(".mcp.json: " + problem.message(), problem.describe());
    }

    @Test
    void duplicateFilterIdsAreAHardFailure() {
        FixedSource one = new FixedSource("one", 10, List.of(stdio("s", MID, "x")));
        LambdaFilter impostor = new LambdaFilter("enabled", (spec, ctx) -> Decision.keep(spec));

        DiscoveryResult result = discovery(one).filters(List.of(impostor)).loadFilters(true).build().discover();

        assertTrue(result.hardFailed());
        assertTrue(result.problems().get(0).message().contains("\"enabled\""), result.problems().toString());
    }

    @Test
    void hardFailureShapeAndDetection() {
        DiscoveryResult failed = DiscoveryResult.hardFailure("boom");
        assertTrue(failed.hardFailed());
        assertEquals(List.of(new DiscoveryProblem(Severity.ERROR, Optional.of(Path.of(".mcp.json")), "", "", "boom")),
                failed.problems());
        assertTrue(failed.configs().isEmpty() && failed.skipped().isEmpty() && failed.exaApiKeys().isEmpty());

        DiscoveryResult empty = discovery().build().discover();
        assertFalse(empty.hardFailed());
        // Nothing but the managed policy, looked for: no source here reads a file.
        assertEquals(List.of(ManagedPolicy.defaultFile()), empty.consultedFiles().stream().map(ConsultedFile::path)
                .toList());
        assertEquals(new DiscoveryResult(Map.of(), Map.of(), List.of(), List.of(), List.of(), Map.of(), Map.of(),
                Map.of(), empty.consultedFiles()), empty);
    }

    @Test
    void resultCollectionsAreUnmodifiableAndKeepOrder() {
        FixedSource one = new FixedSource("one", 10, List.of(stdio("z", MID, "x"), stdio("a", MID, "y"),
                stdio("m", MID, "w")));

        DiscoveryResult result = discovery(one).build().discover();

        assertEquals(List.of("z", "a", "m"), List.copyOf(result.configs().keySet()));
        assertThrows(UnsupportedOperationException.class, () -> result.configs().clear());
        assertThrows(UnsupportedOperationException.class, () -> result.sources().clear());
        assertThrows(UnsupportedOperationException.class, () -> result.skipped().clear());
    }

    @Test
    void validatedConfigsGetDefaultsAndTypes() {
        FixedSource one = new FixedSource("one", 10, List.of(
                stdio("s", MID, "node"),
                spec("h", MID).url("https://h").timeout(1234).build(),
                spec("e", MID).type("sse").url("https://e/sse").header("X-Id", "1").build()));

        Map<String, ServerConfig> configs = discovery(one).build().discover().configs();

        assertEquals("stdio", configs.get("s").type());
        assertEquals(ServerConfig.DEFAULT_TIMEOUT, configs.get("s").timeout());
        assertTrue(configs.get("s").enabled());
        assertEquals("http", configs.get("h").type());
        assertEquals(Duration.ofMillis(1234), configs.get("h").timeout());
        assertEquals("sse", configs.get("e").type());
        assertEquals(Map.of("X-Id", "1"), ((mcp.api.SseServerConfig) configs.get("e")).headers());
    }

    @Test
    void theDefaultsOfTheBuilder() {
        // No explicit sources and no ServiceLoader sources: nothing to read, but a real result.
        DiscoveryResult result = Discovery.builder().loadSources(false).build().discover();
        assertFalse(result.hardFailed());
        assertTrue(result.configs().isEmpty());
        assertThrows(NullPointerException.class, () -> Discovery.builder().workingDirectory(null));
        assertThrows(NullPointerException.class, () -> Discovery.builder().sources(null));
    }

    static String command(DiscoveryResult result, String name) {
        return ((StdioServerConfig) result.configs().get(name)).command();
    }

    static List<Reason> reasons(DiscoveryResult result) {
        return result.skipped().stream().map(SkippedServer::reason).collect(Collectors.toList());
    }
}
