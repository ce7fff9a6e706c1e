package semantic;

import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Predicate;
import java.util.stream.Stream;
import mcp.search.Hit;
import mcp.search.IndexedTool;
import mcp.search.SearchResult;
import mcp.search.TextEmbeddings;
import mcp.search.ToolIndex;
import mcp.search.spi.ToolRanker;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The ranker bench: each sentence-embedding model given, run through mcp-host's own ranker path
 * ({@link TextEmbeddings} as a {@link ToolRanker}, fused by {@link ToolIndex#find}: reciprocal rank fusion, k = 60),
 * on both query sets of {@code bench/toolcorpus}, with the metrics and the seeded split of
 * {@code mcp.bench.internal.SearchBench}: recall@5 and MRR@10, overall, per kind (the {@code noSharedWord} queries,
 * which only a synonym or a paraphrase finds, and the others) and per half. Then the costs: embedding time per tool
 * at index build, search p50/p99 over 10,000 tools with and without the ranker, heap, and the jars' size.
 *
 * <p>Models are named {@code minilm}, {@code bge}, {@code e5} ({@code --models minilm,bge}); one whose artifact is
 * not on the class path is skipped with a note. Run by {@code bench/ranker.sh}.
 */
public final class RankerBench {

    private static final int K = 5;
    private static final int DEPTH = 10;
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    record Query(String text, List<String> expected, boolean noSharedWord) {
    }

    record Model(String name, String id, String className, String queryPrefix, String documentPrefix) {
    }

    private static final Map<String, Model> MODELS = Map.of(
            "minilm", new Model("minilm", "all-MiniLM-L6-v2-q",
                    "dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel", "", ""),
            "bge", new Model("bge", "bge-small-en-v1.5-q",
                    "dev.langchain4j.model.embedding.onnx.bgesmallenv15q.BgeSmallEnV15QuantizedEmbeddingModel",
                    "Represent this sentence for searching relevant passages: ", ""),
            "e5", new Model("e5", "e5-small-v2-q",
                    "dev.langchain4j.model.embedding.onnx.e5smallv2q.E5SmallV2QuantizedEmbeddingModel",
                    "query: ", "passage: "),
            // The same two models not quantized (float32 ONNX): whether quantization costs recall.
            "minilm-f", new Model("minilm-f", "all-MiniLM-L6-v2",
                    "dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel", "", ""),
            "bge-f", new Model("bge-f", "bge-small-en-v1.5",
                    "dev.langchain4j.model.embedding.onnx.bgesmallenv15.BgeSmallEnV15EmbeddingModel",
                    "Represent this sentence for searching relevant passages: ", ""));

    interface Searcher {
        List<String> search(String query, int limit);
    }

    /** Whether to measure the costs over 10,000 tools after the quality tables ({@code --costs false} skips them). */
    private static boolean costs = true;
    /**
     * Where to write each model's own ranking of every query, {@code rankings-<model>.json} ({@code --dump dir}), for
     * {@code --combine} to fuse models that cannot share a class path.
     */
    private static Path dump;

    /**
     * What is embedded per tool ({@code --text}): {@code default} is {@link TextEmbeddings#defaultText} (server, the
     * name split into words, title, description); {@code params} adds the parameters' names split the same way;
     * {@code params-desc} adds each parameter's name and the first 100 characters of its description; {@code
     * no-server} is the default without the server's name in front; {@code raw-name} is the default with the tool's
     * name as written ({@code search_repositories}), not split into words.
     */
    private static final List<String> TEXTS = List.of("default", "params", "params-desc", "no-server", "raw-name");
    private static String text = "default";

    private RankerBench() {
    }

    private static String words(String name) {
        return name.replaceAll("([a-z0-9])([A-Z])", "$1 $2").replaceAll("[_\\-.]+", " ").toLowerCase(Locale.ROOT)
                .strip();
    }

    private static String toolText(IndexedTool t) {
        String base = TextEmbeddings.defaultText(t);
        return switch (text) {
            case "params" -> t.params().isEmpty() ? base : base + (base.endsWith(".") ? " " : ". ") + "Parameters: "
                    + String.join(", ", t.params().stream().map(p -> words(p.name())).toList()) + ".";
            case "params-desc" -> t.params().isEmpty() ? base : base + (base.endsWith(".") ? " " : ". ")
                    + "Parameters: " + String.join("; ", t.params().stream().map(p -> words(p.name())
                    + (p.description().isBlank() ? "" : ": " + (p.description().length() > 100
                            ? p.description().substring(0, 100) : p.description()).strip())).toList()) + ".";
            case "no-server" -> base.substring(t.server().length() + 2);
            // TextEmbeddings.defaultText with the name left as it is.
            case "raw-name" -> t.server() + ": " + t.name() + ". " + (t.title().isEmpty() ? "" : t.title() + ". ")
                    + (t.description().length() > 1000 ? t.description().substring(0, 1000) : t.description());
            default -> base;
        };
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i], args[i + 1]);
        }
        Path dir = Path.of(options.getOrDefault("--corpus", "bench/toolcorpus"));
        long seed = Long.parseLong(options.getOrDefault("--seed", "19"));
        int costTools = Integer.parseInt(options.getOrDefault("--tools", "10000"));
        int rounds = Integer.parseInt(options.getOrDefault("--rounds", "3"));
        List<String> models = List.of(options.getOrDefault("--models", "minilm,bge,e5").split(","));
        costs = Boolean.parseBoolean(options.getOrDefault("--costs", "true"));
        text = options.getOrDefault("--text", "default");
        if (!TEXTS.contains(text)) {
            throw new IllegalArgumentException("--text is one of " + TEXTS + ", was " + text);
        }
        dump = Optional.ofNullable(options.get("--dump")).map(Path::of).orElse(null);

        Map<String, List<IndexedTool>> servers = load(dir);
        int toolCount = servers.values().stream().mapToInt(List::size).sum();
        Map<String, List<Query>> querySets = new LinkedHashMap<>();
        querySets.put("paraphrase set (queries.json)", queries(dir.resolve("queries.json")));
        querySets.put("sampled set (queries-sampled.json)", queries(dir.resolve("queries-sampled.json")));
        System.out.printf(Locale.ROOT, "corpus: %d servers, %d tools; split seed %d; %d cores, load average %.2f%n%n",
                servers.size(), toolCount, seed, Runtime.getRuntime().availableProcessors(),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());

        ToolIndex words = ToolIndex.builder().build();
        servers.forEach(words::put);
        if (options.containsKey("--oracle")) {
            oracle(List.of(options.get("--oracle").split(",")), dump == null ? Path.of("bench/semantic/target") : dump,
                    servers, querySets, seed);
            return;
        }
        if (options.containsKey("--combine")) {
            combine(List.of(options.get("--combine").split(",")), dump == null ? Path.of("bench/semantic/target")
                    : dump, servers, querySets, seed);
            return;
        }
        for (String name : models) {
            Model model = MODELS.get(name.strip());
            if (model == null) {
                System.out.println("unknown model " + name + "; known: " + MODELS.keySet());
                continue;
            }
            EmbeddingModel onnx;
            try {
                // As mcp.search.embeddings runs it: on the calling thread, one core.
                onnx = (EmbeddingModel) Class.forName(model.className()).getConstructor(java.util.concurrent.Executor.class)
                        .newInstance((java.util.concurrent.Executor) Runnable::run);
            } catch (ClassNotFoundException e) {
                System.out.println("## " + model.id() + ": not on the class path, skipped\n");
                continue;
            }
            System.out.println("## " + model.id() + (text.equals("default") ? "" : ", tool text " + text)
                    + (model.queryPrefix().isEmpty() ? ""
                    : " (query prefix \"" + model.queryPrefix() + "\"" + (model.documentPrefix().isEmpty() ? ""
                    : ", tool prefix \"" + model.documentPrefix() + "\"") + ")") + "\n");
            run(model, onnx, servers, toolCount, words, querySets, seed, costTools, rounds);
        }
        jarSizes();
    }

    private static void run(Model model, EmbeddingModel onnx, Map<String, List<IndexedTool>> servers, int toolCount,
            ToolIndex words, Map<String, List<Query>> querySets, long seed, int costTools, int rounds)
            throws InterruptedException {
        // Copies of a server ("github~2") embed the same text as the original, so the 10,000-tool index reuses the
        // originals' vectors: realistic vectors at the cost of embedding the corpus once.
        TextEmbeddings embeddings = TextEmbeddings.builder(model.id(), texts -> onnx.embedAll(
                texts.stream().map(TextSegment::from).toList()).content().stream().map(e -> e.vector()).toList())
                .queryPrefix(model.queryPrefix()).documentPrefix(model.documentPrefix())
                .toolText(t -> toolText(new IndexedTool(t.id(), t.server().replaceAll("~\\d+$", ""),
                        t.name(), t.title(), t.description(), t.params())))
                .build();
        embeddings.embedQuery("warm up");
        servers.values().stream().flatMap(List::stream).filter(t -> t.params().size() > 1).findFirst()
                .ifPresent(t -> System.out.println("tool text (--text " + text + "), e.g. " + t.id() + ": \""
                        + toolText(t) + "\"\n"));
        ToolRanker ranker = embeddings.ranker();
        ToolIndex fused = ToolIndex.builder().ranker(ranker).rankerTimeout(Duration.ofSeconds(30)).build();
        long t0 = System.nanoTime();
        servers.forEach(fused::put);
        if (!ranker.awaitReady(Duration.ofMinutes(20))) {
            System.out.println("not every tool was embedded: " + embeddings.lastFailure().orElse("timed out"));
        }
        double embedMs = (System.nanoTime() - t0) / 1e6;
        System.out.printf(Locale.ROOT, "embedding at index build: %d tools in %.1f s, %.1f ms a tool (batches of 32, "
                + "one thread)%n%n", toolCount, embedMs / 1000, embedMs / toolCount);

        Searcher byWords = (q, limit) -> ids(words.search(q, limit));
        Searcher alone = (q, limit) -> ids(ranker.rank(q.strip(), limit));
        Map<String, Integer> skipped = new java.util.TreeMap<>();
        Searcher both = (q, limit) -> {
            SearchResult r = fused.find(q, limit);
            r.rankerSkipped().ifPresent(why -> skipped.merge(why, 1, Integer::sum));
            return ids(r.hits());
        };
        Map<String, Searcher> searchers = new LinkedHashMap<>();
        searchers.put("mcp-host (words)", byWords);
        searchers.put(model.id() + " alone", alone);
        searchers.put("fused: words + " + model.id() + ", RRF k=60", both);
        tables(querySets, seed, searchers);
        System.out.println("fused answers where the ranker was skipped (30 s bound): " + (skipped.isEmpty() ? "none"
                : skipped) + "\n");
        if (dump != null) {
            // The ranker's own ranking at the depth the index's fusion reads (RankerFusion.DEPTH, 50).
            Map<String, List<String>> rankings = new LinkedHashMap<>();
            querySets.values().forEach(s -> s.forEach(q -> rankings.put(q.text().strip(),
                    ids(ranker.rank(q.text().strip(), 50)))));
            Path file = dump.resolve("rankings-" + model.name() + (text.equals("default") ? "" : "-" + text)
                    + ".json");
            try {
                Files.createDirectories(dump);
                JSON.writeValue(file.toFile(), Map.of("model", model.id(), "rankings", rankings));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            System.out.println("rankings written to " + file + "\n");
        }
        if (!costs) {
            embeddings.close();
            return;
        }

        // Costs over 10,000 tools: the corpus copied under renamed servers, as SearchBench does.
        long heapBefore = usedHeap();
        Map<String, List<IndexedTool>> big = replicate(servers, costTools);
        int bigCount = big.values().stream().mapToInt(List::size).sum();
        ToolIndex bigWords = ToolIndex.builder().build();
        big.forEach(bigWords::put);
        long heapWords = usedHeap();
        ToolRanker bigRanker = embeddings.ranker();
        big.forEach(bigRanker::put);
        bigRanker.awaitReady(Duration.ofMinutes(20));
        bigRanker.rank("warm the matrix", 5);
        long heapFused = usedHeap();
        ToolIndex bigFused = ToolIndex.builder().ranker(bigRanker).rankerTimeout(Duration.ofSeconds(30)).build();
        big.forEach(bigFused::put);
        List<String> all = new ArrayList<>();
        querySets.values().forEach(s -> s.forEach(q -> all.add(q.text())));
        long[] w = latency(q -> bigWords.search(q, 5), all, rounds);
        int[] wordsOnly = new int[1];
        long[] f = latency(q -> wordsOnly[0] += bigFused.find(q, 5).ranker().isEmpty() ? 1 : 0, all, rounds);
        long[] e = latency(q -> embeddings.embedQuery(q), all, 1);
        System.out.printf(Locale.ROOT, "costs over %d tools, %d queries x %d rounds after a warm-up round, one thread:%n%n"
                + "| search | p50 ms | p99 ms |%n|---|---:|---:|%n| words | %.2f | %.2f |%n| fused with %s | %.2f | %.2f |%n"
                + "| (of which: embedding the query) | %.2f | %.2f |%n%n", bigCount, all.size(), rounds,
                p(w, 0.5), p(w, 0.99), model.id(), p(f, 0.5), p(f, 0.99), p(e, 0.5), p(e, 0.99));
        int dimension = embeddings.embedQuery("dimension").length;
        System.out.println("timed fused searches answered by words alone: " + wordsOnly[0] + "\n");
        System.out.printf(Locale.ROOT, "heap after GC: word index %.1f MB; the ranker over it %.1f MB more (its matrix"
                + " of %d x %d floats); the model's vectors by definition %.1f MB for these %d distinct texts, %.1f MB"
                + " for %d distinct tools; process resident %s (ONNX Runtime's native memory included)%n%n",
                (heapWords - heapBefore) / 1e6, (heapFused - heapWords) / 1e6, bigCount, dimension,
                embeddings.vectors() * dimension * 4 / 1e6, embeddings.vectors(), bigCount * dimension * 4 / 1e6,
                bigCount, rss());
        embeddings.close();
    }

    /**
     * Two models' rankings (written by earlier runs with {@code --dump}) fused with the words, without loading either
     * model: each model's ranking at the fusion's depth (50) is a function of the query alone, so it is read back.
     * Rows: each model fused alone with the words (computed here, to check against the model's own run through
     * {@link ToolIndex#find}); the two models fused with each other (RRF k = 60); the three rankings fused flat (one
     * RRF over words, A and B); and the index's own path with a {@link ToolRanker} that answers with RRF of A and B,
     * so the words weigh as much as both models together (nested RRF).
     */
    private static void combine(List<String> names, Path dir, Map<String, List<IndexedTool>> servers,
            Map<String, List<Query>> querySets, long seed) throws IOException {
        if (names.size() != 2) {
            throw new IllegalArgumentException("--combine takes two models, was " + names);
        }
        Map<String, Hit> byId = new HashMap<>();
        servers.values().forEach(tools -> tools.forEach(t -> byId.put(t.id(), new Hit(t.id(), t.server(), t.name(),
                0))));
        List<String> ids = new ArrayList<>();
        List<Map<String, List<Hit>>> rankings = new ArrayList<>();
        for (String name : names) {
            JsonNode root = JSON.readTree(dir.resolve("rankings-" + name.strip() + ".json").toFile());
            ids.add(root.path("model").asString());
            Map<String, List<Hit>> ranking = new HashMap<>();
            for (Map.Entry<String, JsonNode> e : root.path("rankings").properties()) {
                List<Hit> hits = new ArrayList<>();
                e.getValue().forEach(id -> hits.add(byId.get(id.asString())));
                ranking.put(e.getKey(), hits);
            }
            rankings.add(ranking);
        }
        System.out.println("## combined: " + ids.get(0) + " + " + ids.get(1) + " (rankings read from " + dir + ")\n");
        ToolIndex words = ToolIndex.builder().build();
        servers.forEach(words::put);
        java.util.function.BiFunction<Integer, String, List<Hit>> model = (i, q) -> {
            List<Hit> hits = rankings.get(i).get(q.strip());
            if (hits == null) {
                throw new IllegalStateException("no ranking of " + q + " by " + ids.get(i));
            }
            return hits;
        };
        int depth = 50;
        java.util.function.Function<String, List<Hit>> both = q -> mcp.search.internal.RankerFusion.fuse(
                List.of(model.apply(0, q), model.apply(1, q)), depth);
        ToolRanker pair = new ToolRanker() {
            @Override
            public String id() {
                return ids.get(0) + "+" + ids.get(1);
            }

            @Override
            public void put(String server, java.util.Collection<IndexedTool> tools) {
            }

            @Override
            public void remove(String server) {
            }

            @Override
            public List<Hit> rank(String query, int limit) {
                List<Hit> hits = both.apply(query);
                return hits.subList(0, Math.min(limit, hits.size()));
            }
        };
        ToolIndex nested = ToolIndex.builder().ranker(pair).rankerTimeout(Duration.ofSeconds(30)).build();
        servers.forEach(nested::put);
        Map<String, Integer> skipped = new java.util.TreeMap<>();
        Map<String, Searcher> searchers = new LinkedHashMap<>();
        searchers.put("mcp-host (words)", (q, limit) -> ids(words.search(q, limit)));
        for (int i = 0; i < 2; i++) {
            int m = i;
            searchers.put(ids.get(m) + " alone", (q, limit) -> ids(cut(model.apply(m, q), limit)));
        }
        for (int i = 0; i < 2; i++) {
            int m = i;
            searchers.put("fused: words + " + ids.get(m) + ", RRF k=60 (recomputed)", (q, limit) -> ids(
                    mcp.search.internal.RankerFusion.fuse(List.of(words.search(q, depth), model.apply(m, q)), limit)));
        }
        searchers.put(ids.get(0) + " + " + ids.get(1) + " (RRF of the two, no words)", (q, limit) -> ids(cut(
                both.apply(q), limit)));
        searchers.put("fused flat: words + " + ids.get(0) + " + " + ids.get(1) + ", one RRF k=60", (q, limit) -> ids(
                mcp.search.internal.RankerFusion.fuse(List.of(words.search(q, depth), model.apply(0, q),
                        model.apply(1, q)), limit)));
        searchers.put("fused nested: words + (RRF of the two) as one ranker, ToolIndex.find", (q, limit) -> {
            SearchResult r = nested.find(q, limit);
            r.rankerSkipped().ifPresent(why -> skipped.merge(why, 1, Integer::sum));
            return ids(r.hits());
        });
        tables(querySets, seed, searchers);
        System.out.println("nested answers where the ranker was skipped (30 s bound): " + (skipped.isEmpty() ? "none"
                : skipped) + "\n");
    }

    /**
     * How far any choice among the rankings measured could go: the models' written rankings (as {@code --combine}
     * reads them) each fused with the words, then upper bounds no search can reach, since they look at the answer:
     * per query, the best of the words' ranking and one model's (or all models') rankings, the one that ranks an
     * expected tool first. If even that stays under a target, no way of choosing or weighting between these rankings
     * per query reaches it.
     */
    private static void oracle(List<String> names, Path dir, Map<String, List<IndexedTool>> servers,
            Map<String, List<Query>> querySets, long seed) throws IOException {
        Map<String, Map<String, List<String>>> rankings = new LinkedHashMap<>();
        for (String name : names) {
            JsonNode root = JSON.readTree(dir.resolve("rankings-" + name.strip() + ".json").toFile());
            Map<String, List<String>> ranking = new HashMap<>();
            root.path("rankings").properties().forEach(e -> {
                List<String> ids = new ArrayList<>();
                e.getValue().forEach(id -> ids.add(id.asString()));
                ranking.put(e.getKey(), ids);
            });
            rankings.put(root.path("model").asString(), ranking);
        }
        Map<String, List<String>> expected = new HashMap<>();
        querySets.values().forEach(s -> s.forEach(q -> expected.put(q.text(), q.expected())));
        System.out.println("## oracle: upper bounds over " + rankings.keySet() + " (rankings read from " + dir + ")\n");
        ToolIndex words = ToolIndex.builder().build();
        servers.forEach(words::put);
        int depth = 50;
        Searcher byWords = (q, limit) -> ids(words.search(q, Math.max(limit, depth)));
        Map<String, Searcher> searchers = new LinkedHashMap<>();
        searchers.put("mcp-host (words)", (q, limit) -> cutIds(byWords.search(q, depth), limit));
        rankings.forEach((id, ranking) -> searchers.put("fused: words + " + id + ", RRF k=60", (q, limit) -> ids(
                mcp.search.internal.RankerFusion.fuse(List.of(words.search(q, depth), hits(ranking.get(q.strip()))),
                        limit))));
        rankings.forEach((id, ranking) -> searchers.put("oracle: the better of words and " + id + " per query",
                best(expected, List.of(byWords, (q, limit) -> ranking.get(q.strip())))));
        List<Searcher> every = new ArrayList<>(List.of(byWords));
        rankings.values().forEach(ranking -> every.add((q, limit) -> ranking.get(q.strip())));
        searchers.put("oracle: the best of words and all " + rankings.size() + " models per query",
                best(expected, every));
        tables(querySets, seed, searchers);
    }

    /** The ranking, of those given, that ranks an expected tool of the query first (the first ranking on a tie). */
    private static Searcher best(Map<String, List<String>> expected, List<Searcher> candidates) {
        return (q, limit) -> {
            List<String> right = expected.get(q);
            List<String> chosen = null;
            int bestRank = Integer.MAX_VALUE;
            for (Searcher candidate : candidates) {
                List<String> ranking = candidate.search(q, limit);
                for (int rank = 0; rank < ranking.size() && rank < bestRank; rank++) {
                    if (right.contains(ranking.get(rank))) {
                        bestRank = rank;
                        chosen = ranking;
                    }
                }
                if (chosen == null) {
                    chosen = ranking;
                }
            }
            return cutIds(chosen, limit);
        };
    }

    private static List<Hit> hits(List<String> ids) {
        return ids.stream().map(id -> new Hit(id, "", "", 0)).toList();
    }

    private static List<String> cutIds(List<String> ids, int limit) {
        return ids.subList(0, Math.min(limit, ids.size()));
    }

    private static List<Hit> cut(List<Hit> hits, int limit) {
        return hits.subList(0, Math.min(limit, hits.size()));
    }

    private static void tables(Map<String, List<Query>> querySets, long seed, Map<String, Searcher> searchers) {
        querySets.forEach((setName, queries) -> {
            List<Query> shuffled = new ArrayList<>(queries);
            Collections.shuffle(shuffled, new Random(seed));
            int cut = shuffled.size() / 2;
            List<Query> tuning = shuffled.subList(0, cut);
            List<Query> heldOut = shuffled.subList(cut, shuffled.size());
            Map<String, List<Query>> sets = new LinkedHashMap<>();
            sets.put("all", queries);
            sets.put("synonyms (noSharedWord)", filter(queries, Query::noSharedWord));
            sets.put("shared word", filter(queries, q -> !q.noSharedWord()));
            sets.put("tuning half", tuning);
            sets.put("held-out half", heldOut);
            sets.put("held-out synonyms", filter(heldOut, Query::noSharedWord));
            StringBuilder table = new StringBuilder(setName + "\n\n| search |");
            sets.forEach((n, s) -> table.append(' ').append(n).append(" (").append(s.size()).append(") R@5 / MRR |"));
            table.append("\n|---|").append("---:|".repeat(sets.size())).append('\n');
            searchers.forEach((n, searcher) -> {
                table.append("| ").append(n).append(" |");
                sets.values().forEach(s -> table.append(score(searcher, s)));
                table.append('\n');
            });
            System.out.println(table);
        });
    }

    interface Timed {
        void run(String query);
    }

    private static long[] latency(Timed search, List<String> queries, int rounds) {
        queries.forEach(search::run);
        long[] nanos = new long[queries.size() * rounds];
        int i = 0;
        for (int r = 0; r < rounds; r++) {
            for (String q : queries) {
                long s = System.nanoTime();
                search.run(q);
                nanos[i++] = System.nanoTime() - s;
            }
        }
        Arrays.sort(nanos);
        return nanos;
    }

    private static double p(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * q) - 1)] / 1e6;
    }

    private static long usedHeap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    private static String rss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return line.substring(6).strip();
                }
            }
        } catch (IOException e) {
            return "unknown";
        }
        return "unknown";
    }

    private static void jarSizes() {
        long total = 0;
        StringBuilder lines = new StringBuilder();
        for (String entry : System.getProperty("java.class.path").split(":")) {
            Path jar = Path.of(entry);
            if (entry.endsWith(".jar") && Files.isRegularFile(jar)) {
                try {
                    long size = Files.size(jar);
                    total += size;
                    lines.append(String.format(Locale.ROOT, "  %6.1f MB  %s%n", size / 1e6, jar.getFileName()));
                } catch (IOException e) {
                    lines.append("  ?  ").append(jar.getFileName()).append('\n');
                }
            }
        }
        System.out.printf(Locale.ROOT, "jars on the class path (the models given and what they need): %.1f MB%n%s",
                total / 1e6, lines);
    }

    private static Map<String, List<IndexedTool>> replicate(Map<String, List<IndexedTool>> servers, int tools) {
        Map<String, List<IndexedTool>> out = new LinkedHashMap<>(servers);
        int count = servers.values().stream().mapToInt(List::size).sum();
        for (int copy = 2; count < tools; copy++) {
            for (Map.Entry<String, List<IndexedTool>> e : servers.entrySet()) {
                String server = e.getKey() + "~" + copy;
                out.put(server, e.getValue().stream().map(t -> new IndexedTool(server + "__" + t.name(), server,
                        t.name(), t.title(), t.description(), t.params())).toList());
                count += e.getValue().size();
            }
        }
        return out;
    }

    private static List<String> ids(List<Hit> hits) {
        return hits.stream().map(Hit::id).toList();
    }

    private static List<Query> filter(List<Query> queries, Predicate<Query> keep) {
        return queries.stream().filter(keep).toList();
    }

    private static Map<String, List<IndexedTool>> load(Path dir) throws IOException {
        Map<String, List<IndexedTool>> servers = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(dir.resolve("servers"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                JsonNode root = JSON.readTree(file.toFile());
                String server = root.path("name").asString();
                List<IndexedTool> tools = new ArrayList<>();
                for (JsonNode tool : root.path("tools")) {
                    String name = tool.path("name").asString();
                    String title = tool.path("title").asString(tool.path("annotations").path("title").asString(""));
                    List<IndexedTool.Param> params = new ArrayList<>();
                    for (Map.Entry<String, JsonNode> p : tool.path("inputSchema").path("properties").properties()) {
                        params.add(new IndexedTool.Param(p.getKey(), p.getValue().path("description").asString("")));
                    }
                    tools.add(new IndexedTool(server + "__" + name, server, name, title,
                            tool.path("description").asString(""), params));
                }
                servers.put(server, tools);
            }
        }
        return servers;
    }

    private static List<Query> queries(Path file) throws IOException {
        List<Query> queries = new ArrayList<>();
        for (JsonNode q : JSON.readTree(file.toFile()).path("queries")) {
            List<String> expected = new ArrayList<>();
            for (JsonNode e : q.path("expected")) {
                expected.add(e.path("server").asString() + "__" + e.path("tool").asString());
            }
            queries.add(new Query(q.path("query").asString(), expected, q.path("noSharedWord").asBoolean(false)));
        }
        return queries;
    }

    private static String score(Searcher searcher, List<Query> queries) {
        int hits = 0;
        double reciprocal = 0;
        for (Query q : queries) {
            List<String> found = searcher.search(q.text(), DEPTH);
            for (int rank = 0; rank < found.size(); rank++) {
                if (q.expected().contains(found.get(rank))) {
                    hits += rank < K ? 1 : 0;
                    reciprocal += 1.0 / (rank + 1);
                    break;
                }
            }
        }
        int n = Math.max(1, queries.size());
        return String.format(Locale.ROOT, " %.3f / %.3f |", (double) hits / n, reciprocal / n);
    }
}
