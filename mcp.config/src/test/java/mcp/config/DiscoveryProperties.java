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
import mcp.api.ServerConfig;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;
import mcp.api.spi.CapabilitySource;
import mcp.api.spi.ConfigFilter;
import mcp.config.DiscoveryProblem.Severity;
import mcp.config.Fixtures.FixedSource;
import mcp.config.Fixtures.LambdaFilter;
import mcp.proptest.Cases;
import mcp.proptest.Gen;
import org.junit.jupiter.api.Test;

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

    @Test
    void discoveryNeverFailsAndLosesNothing() {
        Cases.run(300, gen -> discoveryNeverFailsAndLosesNothing(sourceSet(gen), gen.bool(), gen.bool()));
    }

    private static void discoveryNeverFailsAndLosesNothing(List<SourceDef> defs, boolean projectConfig,
            boolean exaFilter) {
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

    @Test
    void theOrderInWhichSourcesAreGivenDoesNotMatter() {
        Cases.run(200, gen -> {
            List<SourceDef> defs = sourceSet(gen);
            List<SourceDef> shuffled = new ArrayList<>(defs);
            Collections.shuffle(shuffled, gen.random());

            DiscoveryResult given = run(defs, true, true);
            DiscoveryResult permuted = run(shuffled, true, true);

            assertEquals(snapshot(given), snapshot(permuted));
        });
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

    /** Up to five sources with distinct ids and priorities: with equal priorities the given order decides, by design. */
    private static List<SourceDef> sourceSet(Gen gen) {
        List<Integer> priorities = new ArrayList<>(gen.set(5, 5, () -> gen.ints(-10, 200)));
        List<SourceDef> defs = new ArrayList<>();
        for (int i = gen.ints(0, 5) - 1; i >= 0; i--) {
            List<EntryDef> entries = gen.list(0, 6, () -> gen.bool() ? entryDef(gen) : validEntryDef(gen));
            defs.add(new SourceDef("src" + defs.size(), priorities.get(defs.size()), gen.pick(SourceMetadata.Level.values()),
                    gen.chance(0.1), entries));
        }
        return defs;
    }

    /** Valid entries with clashing names, so that merging has real work to do. */
    private static EntryDef validEntryDef(Gen gen) {
        String name = gen.pick("git", "github", "fs", "db.main", "exa");
        boolean stdio = gen.bool();
        String value = gen.pick("node", "https://example.com/mcp", "${HOME}/srv", "${NOPE:-x}");
        Optional<Boolean> enabled = gen.optional(0.2, gen::bool);
        return new EntryDef(name, Optional.empty(), stdio ? Optional.of(value) : Optional.empty(), List.of(), Map.of(),
                stdio ? Optional.empty() : Optional.of(value), Map.of(), Optional.empty(), enabled, Optional.empty());
    }

    private static EntryDef entryDef(Gen gen) {
        String name = switch (gen.weighted(1, 1, 1)) {
            case 0 -> gen.pick("git", "github", "exa", "EXA", "fs", "drop-me", "boom", "db.main", "a_b-c");
            case 1 -> gen.pick("", "bad name", "x".repeat(101), "${HOME}", "ünïcode");
            default -> gen.string("abcXYZ09_.-/ $", 0, 12);
        };
        java.util.function.Supplier<String> values = () -> gen.bool()
                ? gen.pick("node", "npx", "", " ", "https://example.com/mcp", "https://mcp.exa.ai/mcp?exaApiKey=k1",
                        "exaApiKey=k2", "${HOME}/bin", "${NOPE}", "${NOPE:-d}", "${EMPTY:-x}", "$TOKEN",
                        "${input:key}", "${", "${TOKEN}", "}")
                : gen.string("ab${}:-_/.%?=&", 0, 16);
        java.util.function.Supplier<Map<String, String>> maps = () -> gen.map(0, 3,
                () -> gen.pick("EXA_API_KEY", "TOKEN", "Authorization", "K"), values);
        return new EntryDef(name,
                gen.optional(0.5, () -> gen.pick("stdio", "http", "sse", "HTTP", "ftp", "")),
                gen.optional(0.6, values), gen.list(0, 3, values), maps.get(), gen.optional(0.4, values), maps.get(),
                gen.optional(0.3, () -> gen.pick(-1L, 0L, 1L, 30_000L, Long.MAX_VALUE)),
                gen.optional(0.3, gen::bool), gen.optional(0.2, values));
    }
}
