package mcp.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import mcp.api.ServerConfig;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;
import mcp.api.spi.CapabilitySource;
import mcp.api.spi.ConfigFilter;
import mcp.config.DiscoveryProblem.Severity;
import mcp.config.Fixtures.FixedSource;
import mcp.config.Fixtures.LambdaFilter;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Generated sources with valid and broken entries (random fields, clashing names, unset variables,
 * Exa look-alikes, sources and filters that throw): discovery never throws or fails as a whole, the
 * order in which sources are given does not matter, and every entry is accounted for.
 */
class DiscoveryProperties {

    private static final Map<String, String> ENV = Map.of("HOME", "/home/p", "EMPTY", "", "TOKEN", "t");

    /** One generated entry, before it is tagged with its source. */
    record EntryDef(String name, Optional<String> type, Optional<String> command, List<String> args,
            Map<String, String> env, Optional<String> url, Map<String, String> headers, Optional<Long> timeout,
            Optional<Boolean> enabled, Optional<String> cwd) {

        ServerSpec tag(SourceMetadata source, int index) {
            return new ServerSpec(name, source, "/mcpServers/" + index, type, command, args, env, cwd, url, headers,
                    timeout, enabled, Optional.empty(), Optional.empty(), List.of());
        }
    }

    /** One generated source. */
    record SourceDef(String id, int priority, SourceMetadata.Level level, boolean throwing, List<EntryDef> entries) {

        SourceMetadata metadata() {
            return new SourceMetadata(id, "Source " + id, Optional.of(Path.of("/cfg/" + id + ".json")), level);
        }

        List<ServerSpec> specs() {
            List<ServerSpec> specs = new ArrayList<>();
            for (int i = 0; i < entries.size(); i++) {
                specs.add(entries.get(i).tag(metadata(), i));
            }
            return specs;
        }

        CapabilitySource source() {
            return new FixedSource(id, priority, context -> {
                if (throwing) {
                    throw new IllegalStateException("generated failure of " + id);
                }
                return new CapabilitySource.Result(specs(), List.of());
            });
        }
    }

    /** Drops {@code drop-me}, throws on {@code boom}, keeps the rest: a third-party filter in the mix. */
    private static final ConfigFilter POLICY = new LambdaFilter("policy", (spec, context) -> {
        if (spec.name().equals("boom")) {
            throw new IllegalStateException("policy failure");
        }
        return spec.name().equals("drop-me") ? ConfigFilter.Decision.drop("policy") : ConfigFilter.Decision.keep(spec);
    });

    @Property(tries = 300)
    void discoveryNeverFailsAndLosesNothing(@ForAll("sourceSets") List<SourceDef> defs,
            @ForAll boolean projectConfig, @ForAll boolean exaFilter) {
        DiscoveryResult result = run(defs, projectConfig, exaFilter);

        assertFalse(result.hardFailed(), () -> result.problems().toString());

        // Every entry of a source that did not throw is a winner or skipped: same name and provider, same count.
        Map<String, Integer> in = new HashMap<>();
        defs.stream().filter(d -> !d.throwing()).flatMap(d -> d.specs().stream())
                .forEach(s -> in.merge(s.name() + "|" + s.source().providerId(), 1, Integer::sum));
        Map<String, Integer> out = new HashMap<>();
        result.sources().forEach((name, meta) -> out.merge(name + "|" + meta.providerId(), 1, Integer::sum));
        result.skipped().forEach(s -> out.merge(s.name() + "|" + s.source().providerId(), 1, Integer::sum));
        assertEquals(in, out);
        int entries = in.values().stream().mapToInt(Integer::intValue).sum();
        assertEquals(entries, result.configs().size() + result.skipped().size());

        // Winners are valid, have their metadata, and respect the options.
        assertEquals(result.configs().keySet(), result.sources().keySet());
        result.configs().forEach((name, config) -> {
            assertEquals(Optional.empty(), ServerConfig.nameProblem(name));
            assertTrue(config.enabled(), name);
            assertTrue(projectConfig || result.sources().get(name).level() != SourceMetadata.Level.PROJECT, name);
            assertFalse(exaFilter && name.equalsIgnoreCase("exa"), name);
        });
        // Each invalid entry is exactly one ERROR problem; one warning per throwing source.
        long invalid = result.skipped().stream().filter(s -> s.reason() == SkippedServer.Reason.INVALID).count();
        assertEquals(invalid, result.problems().stream().filter(p -> p.severity() == Severity.ERROR).count());
        long throwing = defs.stream().filter(SourceDef::throwing).count();
        assertEquals(throwing, result.problems().stream()
                .filter(p -> p.message().startsWith("Capability source \"")).count());
        // A skipped SHADOWED entry always has a winner of its name.
        result.skipped().stream().filter(s -> s.reason() == SkippedServer.Reason.SHADOWED)
                .forEach(s -> assertTrue(result.configs().containsKey(s.name()), s.name()));
        // No key without an Exa skip, no duplicate keys.
        assertEquals(result.exaApiKeys().stream().distinct().toList(), result.exaApiKeys());
        if (!exaFilter) {
            assertEquals(List.of(), result.exaApiKeys());
        }
    }

    @Property(tries = 200)
    void theOrderInWhichSourcesAreGivenDoesNotMatter(@ForAll("sourceSets") List<SourceDef> defs,
            @ForAll Random random) {
        List<SourceDef> shuffled = new ArrayList<>(defs);
        Collections.shuffle(shuffled, random);

        DiscoveryResult given = run(defs, true, true);
        DiscoveryResult permuted = run(shuffled, true, true);

        assertEquals(snapshot(given), snapshot(permuted));
    }

    private static DiscoveryResult run(List<SourceDef> defs, boolean projectConfig, boolean exaFilter) {
        List<ConfigFilter> filters = new ArrayList<>(Fixtures.builtInFilters());
        filters.add(POLICY);
        return Fixtures.discovery(defs.stream().map(SourceDef::source).toArray(CapabilitySource[]::new))
                .environment(ENV)
                .filters(filters)
                .projectConfig(projectConfig)
                .exaFilter(exaFilter)
                .build()
                .discover();
    }

    /** Everything of a result, with the maps' order made visible. */
    private static List<Object> snapshot(DiscoveryResult result) {
        return List.of(List.copyOf(result.configs().entrySet()), List.copyOf(result.sources().entrySet()),
                result.exaApiKeys(), result.problems(), result.skipped());
    }

    @Provide
    Arbitrary<List<SourceDef>> sourceSets() {
        Arbitrary<List<Integer>> priorities = Arbitraries.integers().between(-10, 200).list().uniqueElements()
                .ofSize(5);
        Arbitrary<List<SourceDef>> drafts = sourceDef().list().ofMaxSize(5);
        return Combinators.combine(drafts, priorities).as((list, prios) -> {
            List<SourceDef> defs = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                SourceDef d = list.get(i);
                // Distinct ids and priorities: with equal priorities the given order decides, by design.
                defs.add(new SourceDef("src" + i, prios.get(i), d.level(), d.throwing(), d.entries()));
            }
            return defs;
        });
    }

    private static Arbitrary<SourceDef> sourceDef() {
        return Combinators.combine(
                Arbitraries.of(SourceMetadata.Level.class),
                Arbitraries.of(true, false, false, false, false, false, false, false, false, false),
                Arbitraries.oneOf(entryDef(), validEntryDef()).list().ofMaxSize(6))
                .as((level, throwing, entries) -> new SourceDef("draft", 0, level, throwing, entries));
    }

    /** Valid entries with clashing names, so that merging has real work to do. */
    private static Arbitrary<EntryDef> validEntryDef() {
        Arbitrary<String> names = Arbitraries.of("git", "github", "fs", "db.main", "exa");
        Arbitrary<Boolean> stdio = Arbitraries.of(true, false);
        Arbitrary<String> target = Arbitraries.of("node", "https://example.com/mcp", "${HOME}/srv", "${NOPE:-x}");
        Arbitrary<Optional<Boolean>> enabled = Arbitraries.of(true, false).optional(0.2);
        return Combinators.combine(names, stdio, target, enabled).as((name, isStdio, value, on) -> new EntryDef(name,
                Optional.empty(), isStdio ? Optional.of(value) : Optional.empty(), List.of(), Map.of(),
                isStdio ? Optional.empty() : Optional.of(value), Map.of(), Optional.empty(), on, Optional.empty()));
    }

    private static Arbitrary<EntryDef> entryDef() {
        Arbitrary<String> names = Arbitraries.oneOf(
                Arbitraries.of("git", "github", "exa", "EXA", "fs", "drop-me", "boom", "db.main", "a_b-c"),
                Arbitraries.of("", "bad name", "x".repeat(101), "${HOME}", "ünïcode"),
                Arbitraries.strings().withChars("abcXYZ09_.-/ $").ofMaxLength(12));
        Arbitrary<String> values = Arbitraries.oneOf(
                Arbitraries.of("node", "npx", "", " ", "https://example.com/mcp", "https://mcp.exa.ai/mcp?exaApiKey=k1",
                        "exaApiKey=k2", "${HOME}/bin", "${NOPE}", "${NOPE:-d}", "${EMPTY:-x}", "$TOKEN",
                        "${input:key}", "${", "${TOKEN}", "}"),
                Arbitraries.strings().withChars("ab${}:-_/.%?=&").ofMaxLength(16));
        Arbitrary<Map<String, String>> maps = Arbitraries.maps(
                Arbitraries.of("EXA_API_KEY", "TOKEN", "Authorization", "K"), values).ofMaxSize(3);
        Arbitrary<Optional<String>> type = Arbitraries.of("stdio", "http", "sse", "HTTP", "ftp", "").optional(0.5);
        Arbitrary<Optional<Long>> timeout = Arbitraries.of(-1L, 0L, 1L, 30_000L, Long.MAX_VALUE).optional(0.3);
        Arbitrary<Optional<Boolean>> enabled = Arbitraries.of(true, false).optional(0.3);
        return Combinators.combine(names, type, values.optional(0.6), values.list().ofMaxSize(3), maps,
                values.optional(0.4), maps, timeout)
                .flatAs((name, t, command, args, env, url, headers, time) ->
                        Combinators.combine(enabled, values.optional(0.2)).as((on, cwd) ->
                                new EntryDef(name, t, command, args, env, url, headers, time, on, cwd)));
    }
}
