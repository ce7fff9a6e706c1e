package mcp.bench.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import mcp.search.Hit;
import mcp.search.IndexedTool;
import mcp.search.ToolIndex;
import tools.jackson.databind.JsonNode;

/**
 * The tool search bench of issue 19 (BENCHMARKS.md, "Tool search"): loads the tool corpus
 * ({@code bench/toolcorpus/servers/*.json}, raw {@code tools/list} results of real servers) and its
 * queries ({@code queries.json}, written from the user's side, each with its expected tools and a
 * {@code noSharedWord} flag), and prints recall@5 and MRR for mcp-host's search, for each of its extras
 * switched off, for plain BM25, for BM25 over every field, for a substring baseline and for Lucene's BM25 with
 * mcp-host's analysis; each overall, on the {@code noSharedWord} queries, and on the two halves of a seeded split
 * (a tuning half and a held-out half). Then mcp-host and the two BM25 baselines per kind of request
 * ({@link #byKind}), per half. Then the costs over 10,000 tools (the corpus replicated under renamed
 * servers): index build time, heap after GC, search latency p50/p99.
 *
 * <p>Command line: {@code --repo DIR [--corpus DIR] [--seed N] [--tools N] [--rounds N] [--smoke]
 * [--misses all|tune] [--queries FILE]}. {@code --smoke}: quality only, for CI.
 */
public final class SearchBench {

    /** The default seed of the tuning/held-out split (the issue's number). */
    static final long SEED = 19;
    static final int K = 5;
    /** MRR counts the first expected tool within this rank (MRR@10). */
    static final int MRR_DEPTH = 10;

    /** One query of the corpus. */
    record Query(String id, String text, List<String> expected, boolean noSharedWord) {
    }

    /** The corpus: tools grouped by server, in file order, and the queries. */
    record Corpus(Map<String, List<IndexedTool>> servers, List<Query> queries) {
        int tools() {
            return servers.values().stream().mapToInt(List::size).sum();
        }
    }

    /** A way of searching: builds itself over a corpus, then answers queries with tool ids. */
    interface Searcher {
        List<String> search(String query, int limit);
    }

    /** Recall@5 and MRR of one searcher on one set of queries. */
    record Score(int queries, double recall, double mrr) {
    }

    private SearchBench() {
    }

    static String id(String server, String tool) {
        return server + "__" + tool;
    }

    // ---- the corpus

    static Corpus load(Path dir) {
        return load(dir, dir.resolve("queries.json"));
    }

    /** The corpus's servers with the queries of another file of the same format (e.g. {@code queries-sampled.json}). */
    static Corpus load(Path dir, Path queryFile) {
        Map<String, List<IndexedTool>> servers = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(dir.resolve("servers"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                JsonNode root = Proc.JSON.readTree(file.toFile());
                String server = root.path("name").asString(file.getFileName().toString().replace(".json", ""));
                List<IndexedTool> tools = new ArrayList<>();
                for (JsonNode tool : root.path("tools")) {
                    tools.add(tool(server, tool));
                }
                servers.put(server, List.copyOf(tools));
            }
            JsonNode doc = Proc.JSON.readTree(queryFile.toFile());
            List<Query> queries = new ArrayList<>();
            for (JsonNode q : doc.path("queries")) {
                List<String> expected = new ArrayList<>();
                for (JsonNode e : q.path("expected")) {
                    expected.add(id(e.path("server").asString(), e.path("tool").asString()));
                }
                queries.add(new Query(q.path("id").asString(), q.path("query").asString(), List.copyOf(expected),
                        q.path("noSharedWord").asBoolean(false)));
            }
            return new Corpus(servers, List.copyOf(queries));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static IndexedTool tool(String server, JsonNode tool) {
        String name = tool.path("name").asString();
        String title = tool.path("title").asString(tool.path("annotations").path("title").asString(""));
        List<IndexedTool.Param> params = new ArrayList<>();
        JsonNode properties = tool.path("inputSchema").path("properties");
        for (Map.Entry<String, JsonNode> p : properties.properties()) {
            params.add(new IndexedTool.Param(p.getKey(), p.getValue().path("description").asString("")));
        }
        return new IndexedTool(id(server, name), server, name, title, tool.path("description").asString(""), params);
    }

    /** The corpus copied under renamed servers ({@code name~2}, ...) until it has at least {@code tools} tools. */
    static Corpus replicate(Corpus corpus, int tools) {
        Map<String, List<IndexedTool>> servers = new LinkedHashMap<>(corpus.servers());
        int copy = 2;
        int count = corpus.tools();
        while (count < tools) {
            for (Map.Entry<String, List<IndexedTool>> e : corpus.servers().entrySet()) {
                String server = e.getKey() + "~" + copy;
                servers.put(server, e.getValue().stream().map(t -> new IndexedTool(id(server, t.name()), server,
                        t.name(), t.title(), t.description(), t.params())).toList());
                count += e.getValue().size();
            }
            copy++;
        }
        return new Corpus(servers, corpus.queries());
    }

    /** The queries of one half of the seeded split: half 0 is the tuning half, half 1 the held-out one. */
    static List<Query> half(List<Query> queries, long seed, int half) {
        List<Query> shuffled = new ArrayList<>(queries);
        Collections.shuffle(shuffled, new Random(seed));
        int cut = shuffled.size() / 2;
        List<Query> part = half == 0 ? shuffled.subList(0, cut) : shuffled.subList(cut, shuffled.size());
        return List.copyOf(part);
    }

    // ---- the searchers

    /** mcp-host's index with the given settings. */
    static Searcher index(ToolIndex.Builder builder, Corpus corpus) {
        ToolIndex index = builder.build();
        corpus.servers().forEach(index::put);
        return (query, limit) -> index.search(query, limit).stream().map(Hit::id).toList();
    }

    /** The searchers compared, by name, in report order. */
    static Map<String, Function<Corpus, Searcher>> searchers(boolean withLucene) {
        Map<String, Function<Corpus, Searcher>> all = new LinkedHashMap<>();
        all.put("mcp-host", c -> index(ToolIndex.builder(), c));
        all.put("  without thesaurus", c -> index(ToolIndex.builder().thesaurus(false), c));
        all.put("  without stemming", c -> index(ToolIndex.builder().stemming(false), c));
        all.put("  without identifier splitting", c -> index(ToolIndex.builder().splitIdentifiers(false), c));
        all.put("  without field weights", c -> index(ToolIndex.builder().singleField(true), c));
        all.put("  without name and prefix matches", c -> index(ToolIndex.builder().nameMatches(false).prefixWeight(0), c));
        all.put("plain BM25", c -> index(plain(), c));
        all.put("BM25 over every field", c -> index(fields(), c));
        all.put("substring", SearchBench::substring);
        if (withLucene) {
            all.put("Lucene BM25, mcp-host's analysis, no thesaurus", LuceneSearcher::new);
        }
        return all;
    }

    /** BM25 (k1 1.2, b 0.75) over one text per tool, words of letters, digits and {@code _}, nothing else. */
    static ToolIndex.Builder plain() {
        return ToolIndex.builder().splitIdentifiers(false).stemming(false).stopWords(false).thesaurus(false)
                .prefixWeight(0).nameMatches(false).singleField(true).bm25(1.2, 0.75);
    }

    /**
     * BM25F over the index's six fields with their weights and length normalisation, every extra off
     * (identifier splitting, stemming, stop words and values, thesaurus, prefix and name matches): what
     * the fields alone give, the second baseline beside {@link #plain()}.
     */
    static ToolIndex.Builder fields() {
        return ToolIndex.builder().splitIdentifiers(false).stemming(false).stopWords(false).thesaurus(false)
                .prefixWeight(0).nameMatches(false);
    }

    /**
     * The substring baseline: a tool scores the number of the query's words (three letters or more,
     * lowercase) found anywhere in its name, title or description; ties keep corpus order.
     */
    static Searcher substring(Corpus corpus) {
        List<IndexedTool> tools = corpus.servers().values().stream().flatMap(List::stream).toList();
        List<String> texts = tools.stream()
                .map(t -> (t.name() + " " + t.title() + " " + t.description()).toLowerCase(Locale.ROOT)).toList();
        return (query, limit) -> {
            String[] words = Arrays.stream(query.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}_]+"))
                    .filter(w -> w.length() >= 3).toArray(String[]::new);
            int[] scores = new int[tools.size()];
            List<Integer> found = new ArrayList<>();
            for (int i = 0; i < tools.size(); i++) {
                for (String w : words) {
                    if (texts.get(i).contains(w)) {
                        scores[i]++;
                    }
                }
                if (scores[i] > 0) {
                    found.add(i);
                }
            }
            found.sort((a, b) -> scores[b] - scores[a]);
            return found.stream().limit(limit).map(i -> tools.get(i).id()).toList();
        };
    }

    // ---- quality

    static Score score(Searcher searcher, List<Query> queries) {
        int hits = 0;
        double reciprocal = 0;
        for (Query q : queries) {
            List<String> found = searcher.search(q.text(), MRR_DEPTH);
            for (int rank = 0; rank < found.size(); rank++) {
                if (q.expected().contains(found.get(rank))) {
                    if (rank < K) {
                        hits++;
                    }
                    reciprocal += 1.0 / (rank + 1);
                    break;
                }
            }
        }
        int n = Math.max(1, queries.size());
        return new Score(queries.size(), (double) hits / n, reciprocal / n);
    }

    /** Per searcher: the scores on every query, on noSharedWord ones, and on each half. */
    static Map<String, Map<String, Score>> quality(Corpus corpus, long seed, boolean withLucene) {
        Map<String, List<Query>> sets = new LinkedHashMap<>();
        sets.put("all", corpus.queries());
        sets.put("noSharedWord", corpus.queries().stream().filter(Query::noSharedWord).toList());
        sets.put("tuning half", half(corpus.queries(), seed, 0));
        sets.put("held-out half", half(corpus.queries(), seed, 1));
        sets.put("held-out noSharedWord", half(corpus.queries(), seed, 1).stream().filter(Query::noSharedWord).toList());
        Map<String, Map<String, Score>> out = new LinkedHashMap<>();
        for (Map.Entry<String, Function<Corpus, Searcher>> s : searchers(withLucene).entrySet()) {
            Searcher searcher = s.getValue().apply(corpus);
            Map<String, Score> scores = new LinkedHashMap<>();
            sets.forEach((name, queries) -> scores.put(name, score(searcher, queries)));
            out.put(s.getKey(), scores);
        }
        return out;
    }

    /** The misses of mcp-host's search, for reading (never for fitting the thesaurus to them). */
    static List<String> misses(Corpus corpus, List<Query> queries) {
        Searcher searcher = index(ToolIndex.builder(), corpus);
        List<String> out = new ArrayList<>();
        for (Query q : queries) {
            List<String> found = searcher.search(q.text(), K);
            if (found.stream().noneMatch(q.expected()::contains)) {
                out.add(q.id() + " \"" + q.text() + "\" expected " + q.expected() + " got " + found);
            }
        }
        return out;
    }

    // ---- kinds of request

    /** The kinds of request reported apart, in report order; a query may be of several (see {@link #kinds}). */
    static final List<String> KINDS = List.of("easy", "synonym", "noSharedWord", "names the service", "ambiguous");

    /** Function words of {@code bench/toolcorpus/queries.mjs} (no domain word), which computes {@code noSharedWord}. */
    private static final Set<String> KIND_STOP_WORDS = Set.of(("a about above after again against all am an and any are"
            + " aren as at be because been before being below between both but by can cannot could did do does doing don"
            + " down during each few for from further had has have having he her here hers herself him himself his how i"
            + " if in into is isn it its itself just let me more most my myself no nor not now of off on once only or"
            + " other ought our ours ourselves out over own same she should so some such than that the their theirs them"
            + " themselves then there these they this those through to too under until up very was we were what when"
            + " where which while who whom why will with would you your yours yourself yourselves s t ll re ve d m also"
            + " please whats there's i'm im lets let's ok okay eg ie etc via per").split(" "));

    /**
     * The words of a text as {@code queries.mjs} takes them: camelCase split, lowercased, split on anything but
     * letters and digits, its function words dropped. Independent of mcp-host's analysis on purpose: the kinds
     * must not depend on the engine they judge.
     */
    static List<String> kindWords(String text) {
        String split = text.replaceAll("([a-z0-9])([A-Z])", "$1 $2").replaceAll("([A-Z]+)([A-Z][a-z])", "$1 $2")
                .toLowerCase(Locale.ROOT);
        return Arrays.stream(split.split("[^a-z0-9]+")).filter(w -> !w.isEmpty() && !KIND_STOP_WORDS.contains(w)).toList();
    }

    /** The light suffix stemmer of {@code queries.mjs} (plurals, -ing, -ed): a plural is the same word. */
    static String kindStem(String w) {
        if (w.length() > 5 && w.endsWith("ies")) {
            return w.substring(0, w.length() - 3) + "y";
        }
        if (w.length() > 5 && w.endsWith("ing")) {
            return undouble(w.substring(0, w.length() - 3));
        }
        if (w.length() > 4 && w.endsWith("ed")) {
            return undouble(w.substring(0, w.length() - 2));
        }
        if (w.length() > 4 && w.matches(".*(ches|shes|sses|xes|zes)")) {
            return w.substring(0, w.length() - 2);
        }
        if (w.length() > 3 && w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us")) {
            return w.substring(0, w.length() - 1);
        }
        return w;
    }

    private static String undouble(String w) {
        if (w.matches(".*([bdfgmnprt])\\1")) {
            return w.substring(0, w.length() - 1);
        }
        return w.endsWith("at") || w.endsWith("iz") ? w + "e" : w;
    }

    /**
     * The kinds of each query, by rules computed from the corpus and the query, never labelled by hand:
     * <ul>
     *   <li><b>easy</b>: the query shares a word with the name of one of its expected tools
     *       ({@link #kindWords}, {@link #kindStem}: "read notes.txt" and {@code read_file});
     *   <li><b>synonym</b>: it shares none (the request paraphrases the tool's name);
     *   <li><b>noSharedWord</b>: the query file's flag, a part of synonym: no word in common with any field;
     *   <li><b>names the service</b>: the query holds an expected tool's server name, whole (its words in a
     *       row) or its first word ("gitlab" for {@code gitlab-reference}, "google" for {@code google-maps});
     *   <li><b>ambiguous</b>: more than one server could answer: the expected tools are on several servers,
     *       or an expected tool's name is a tool name on another server too ({@code read_file},
     *       {@code create_repository}).
     * </ul>
     */
    static Map<String, List<Query>> byKind(Corpus corpus, List<Query> queries) {
        Map<String, IndexedTool> tools = new LinkedHashMap<>();
        Map<String, Set<String>> serversOfName = new LinkedHashMap<>();
        corpus.servers().values().forEach(list -> list.forEach(t -> {
            tools.put(t.id(), t);
            serversOfName.computeIfAbsent(t.name(), n -> new java.util.HashSet<>()).add(t.server());
        }));
        Map<String, List<Query>> out = new LinkedHashMap<>();
        KINDS.forEach(k -> out.put(k, new ArrayList<>()));
        for (Query q : queries) {
            List<String> words = kindWords(q.text());
            Set<String> stems = new java.util.HashSet<>(words.stream().map(SearchBench::kindStem).toList());
            String joined = " " + String.join(" ", words) + " ";
            List<IndexedTool> expected = q.expected().stream().map(tools::get).filter(java.util.Objects::nonNull).toList();
            boolean easy = expected.stream().anyMatch(t -> kindWords(t.name()).stream().map(SearchBench::kindStem)
                    .anyMatch(stems::contains));
            boolean service = expected.stream().anyMatch(t -> {
                List<String> server = kindWords(t.server());
                return !server.isEmpty() && (joined.contains(" " + String.join(" ", server) + " ")
                        || words.contains(server.get(0)));
            });
            boolean ambiguous = expected.stream().map(IndexedTool::server).distinct().count() > 1
                    || expected.stream().anyMatch(t -> serversOfName.get(t.name()).size() > 1);
            out.get(easy ? "easy" : "synonym").add(q);
            if (q.noSharedWord()) {
                out.get("noSharedWord").add(q);
            }
            if (service) {
                out.get("names the service").add(q);
            }
            if (ambiguous) {
                out.get("ambiguous").add(q);
            }
        }
        return out;
    }

    /** The searchers of the per-kind report: mcp-host and the two BM25 baselines it must not fall below. */
    static Map<String, Function<Corpus, Searcher>> kindSearchers() {
        Map<String, Function<Corpus, Searcher>> all = new LinkedHashMap<>();
        all.put("mcp-host", c -> index(ToolIndex.builder(), c));
        all.put("plain BM25", c -> index(plain(), c));
        all.put("BM25 over every field", c -> index(fields(), c));
        return all;
    }

    /**
     * Recall@5 and MRR per kind of request, one table per half of the split (then all queries): each row a
     * searcher, each column a kind with its query count.
     */
    static String kindTables(Corpus corpus, long seed) {
        Map<String, List<Query>> parts = new LinkedHashMap<>();
        parts.put("tuning half", half(corpus.queries(), seed, 0));
        parts.put("held-out half", half(corpus.queries(), seed, 1));
        parts.put("all", corpus.queries());
        Map<String, Searcher> searchers = new LinkedHashMap<>();
        kindSearchers().forEach((name, factory) -> searchers.put(name, factory.apply(corpus)));
        StringBuilder b = new StringBuilder();
        parts.forEach((part, queries) -> {
            Map<String, List<Query>> sets = new LinkedHashMap<>();
            sets.put("all", queries);
            sets.putAll(byKind(corpus, queries));
            b.append("| ").append(part).append(", R@5 / MRR |");
            sets.forEach((kind, qs) -> b.append(' ').append(kind).append(" (").append(qs.size()).append(") |"));
            b.append("\n|---|").append("---:|".repeat(sets.size())).append('\n');
            searchers.forEach((name, searcher) -> {
                b.append("| ").append(name).append(" |");
                sets.values().forEach(qs -> {
                    Score s = score(searcher, qs);
                    b.append(String.format(Locale.ROOT, " %.3f / %.3f |", s.recall(), s.mrr()));
                });
                b.append('\n');
            });
            b.append('\n');
        });
        return b.toString();
    }

    // ---- costs

    /** Build time, heap and latency of one searcher over a corpus. */
    record Cost(int tools, double buildMillis, long heapBytes, double p50Micros, double p99Micros, int searches) {
    }

    static Cost cost(Function<Corpus, Searcher> factory, Corpus corpus, int rounds) {
        // Build: the median of rounds builds (the first warms up and is dropped).
        double[] builds = new double[rounds];
        Searcher searcher = null;
        for (int r = 0; r <= rounds; r++) {
            searcher = null;
            long t0 = System.nanoTime();
            searcher = factory.apply(corpus);
            long t1 = System.nanoTime();
            if (r > 0) {
                builds[r - 1] = (t1 - t0) / 1e6;
            }
        }
        long heap = retained(() -> factory.apply(corpus));
        // Latency: every query, rounds times over, after a warm-up pass of as many.
        List<String> texts = corpus.queries().stream().map(Query::text).toList();
        int n = texts.size() * rounds;
        long[] nanos = new long[n];
        long sink = 0;
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                sink += searcher.search(texts.get(i % texts.size()), K).size();
                nanos[i] = System.nanoTime() - t0;
            }
        }
        if (sink < 0) {
            throw new AssertionError();
        }
        Arrays.sort(nanos);
        Arrays.sort(builds);
        return new Cost(corpus.tools(), builds[builds.length / 2], heap, nanos[n / 2] / 1e3,
                nanos[(int) Math.min(n - 1, Math.ceil(n * 0.99) - 1)] / 1e3, n);
    }

    /** The heap a new object keeps: used heap after full GCs, with it and before it (SerialGC: exact enough). */
    private static long retained(java.util.function.Supplier<Object> make) {
        long before = usedAfterGc();
        Object kept = make.get();
        long after = usedAfterGc();
        java.lang.ref.Reference.reachabilityFence(kept);
        return after - before;
    }

    private static long usedAfterGc() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return rt.totalMemory() - rt.freeMemory();
    }

    // ---- report

    static String qualityTable(Map<String, Map<String, Score>> quality) {
        List<String> sets = List.copyOf(quality.values().iterator().next().keySet());
        StringBuilder b = new StringBuilder("| search |");
        for (String set : sets) {
            Score any = quality.values().iterator().next().get(set);
            b.append(' ').append(set).append(" (").append(any.queries()).append(") R@5 / MRR |");
        }
        b.append("\n|---|").append("---:|".repeat(sets.size())).append('\n');
        quality.forEach((name, scores) -> {
            b.append("| ").append(name.strip().startsWith("without") ? "&nbsp;&nbsp;" + name.strip() : name).append(" |");
            for (String set : sets) {
                Score s = scores.get(set);
                b.append(String.format(Locale.ROOT, " %.3f / %.3f |", s.recall(), s.mrr()));
            }
            b.append('\n');
        });
        return b.toString();
    }

    public static void main(String[] args) {
        Map<String, String> options = Runner.options(args);
        Path repo = Path.of(options.getOrDefault("--repo", ".")).toAbsolutePath().normalize();
        Path dir = Path.of(options.getOrDefault("--corpus", repo.resolve("bench/toolcorpus").toString()));
        long seed = Long.parseLong(options.getOrDefault("--seed", String.valueOf(SEED)));
        int tools = Integer.parseInt(options.getOrDefault("--tools", "10000"));
        int rounds = Integer.parseInt(options.getOrDefault("--rounds", "20"));
        boolean smoke = options.containsKey("--smoke");
        Path queryFile = dir.resolve(options.getOrDefault("--queries", "queries.json"));
        Corpus corpus = load(dir, queryFile);
        System.out.printf(Locale.ROOT, "corpus: %d servers, %d tools, %d queries of %s (%d noSharedWord); split seed %d%n%n",
                corpus.servers().size(), corpus.tools(), corpus.queries().size(), queryFile.getFileName(),
                corpus.queries().stream().filter(Query::noSharedWord).count(), seed);
        System.out.println(qualityTable(quality(corpus, seed, !smoke)));
        System.out.println("per kind of request (SearchBench.byKind: rules on the corpus, not labels):");
        System.out.println();
        System.out.print(kindTables(corpus, seed));
        if (options.containsKey("--misses")) {
            List<Query> which = options.get("--misses").equals("tune") ? half(corpus.queries(), seed, 0) : corpus.queries();
            misses(corpus, which).forEach(System.out::println);
            System.out.println();
        }
        if (smoke) {
            return;
        }
        Corpus big = replicate(corpus, tools);
        System.out.printf(Locale.ROOT, "costs over %d tools (%d servers), %d rounds:%n%n", big.tools(), big.servers().size(), rounds);
        System.out.println("| search | build ms (median) | heap after GC MB | p50 µs | p99 µs | searches |");
        System.out.println("|---|---:|---:|---:|---:|---:|");
        Map<String, Function<Corpus, Searcher>> costed = new LinkedHashMap<>();
        costed.put("mcp-host", c -> index(ToolIndex.builder(), c));
        costed.put("plain BM25", c -> index(plain(), c));
        costed.put("substring", SearchBench::substring);
        costed.put("Lucene BM25, mcp-host's analysis, no thesaurus", LuceneSearcher::new);
        costed.forEach((name, factory) -> {
            Cost c = cost(factory, big, rounds);
            System.out.printf(Locale.ROOT, "| %s | %.0f | %.1f | %.0f | %.0f | %d |%n", name, c.buildMillis(),
                    c.heapBytes() / 1e6, c.p50Micros(), c.p99Micros(), c.searches());
        });
        System.out.println();
        System.out.println(update(big, rounds));
    }

    /** The cost of one slice change: replacing one server's tools in the full index, and removing them. */
    static String update(Corpus corpus, int rounds) {
        ToolIndex index = ToolIndex.builder().build();
        corpus.servers().forEach(index::put);
        Map.Entry<String, List<IndexedTool>> largest = corpus.servers().entrySet().stream()
                .max((a, b) -> Integer.compare(a.getValue().size(), b.getValue().size())).orElseThrow();
        double[] puts = new double[rounds];
        double[] removes = new double[rounds];
        for (int r = -1; r < rounds; r++) {
            long t0 = System.nanoTime();
            index.remove(largest.getKey());
            long t1 = System.nanoTime();
            index.put(largest.getKey(), largest.getValue());
            long t2 = System.nanoTime();
            if (r >= 0) {
                removes[r] = (t1 - t0) / 1e6;
                puts[r] = (t2 - t1) / 1e6;
            }
        }
        Arrays.sort(puts);
        Arrays.sort(removes);
        return String.format(Locale.ROOT, "incremental update in the %d-tool index (server %s, %d tools), median of %d:"
                + " put %.2f ms, remove %.2f ms", index.size(), largest.getKey(), largest.getValue().size(), rounds,
                puts[rounds / 2], removes[rounds / 2]);
    }
}
