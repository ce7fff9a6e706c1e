package semantic;

import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Predicate;
import java.util.stream.Stream;
import mcp.search.Hit;
import mcp.search.IndexedTool;
import mcp.search.ToolIndex;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The semantic baseline of the tool-search bench: how a sentence-embedding model (all-MiniLM-L6-v2, quantized, the
 * one such model the machines can fetch) ranks the corpus's tools for its queries, alone and fused with mcp-host's
 * word index by reciprocal rank fusion (k = 60, the constant of Cormack, Clarke and Büttcher 2009; not tuned here).
 * Same corpus, same metrics (recall@5, MRR@10) and same seeded split as {@code mcp.bench.internal.SearchBench}.
 *
 * <p>A tool is embedded as one text: {@code "<server>: <name split into words>. <title>. <description>"}, the
 * description cut at 1,000 characters (the model reads 256 word pieces at most). Run by {@code bench/semantic.sh}.
 */
public final class SemanticBench {

    private static final int K = 5;
    private static final int DEPTH = 10;
    private static final int FUSED = 50;
    private static final double RRF_K = 60;
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    record Query(String text, List<String> expected, boolean noSharedWord) {
    }

    record Score(int queries, double recall, double mrr) {
    }

    interface Searcher {
        List<String> search(String query, int limit);
    }

    private SemanticBench() {
    }

    public static void main(String[] args) throws IOException {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i], args[i + 1]);
        }
        Path dir = Path.of(options.getOrDefault("--corpus", "bench/toolcorpus"));
        Path queryFile = dir.resolve(options.getOrDefault("--queries", "queries.json"));
        long seed = Long.parseLong(options.getOrDefault("--seed", "19"));

        ToolIndex index = ToolIndex.builder().build();
        List<String> ids = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir.resolve("servers"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                JsonNode root = JSON.readTree(file.toFile());
                String server = root.path("name").asString();
                List<IndexedTool> tools = new ArrayList<>();
                for (JsonNode tool : root.path("tools")) {
                    IndexedTool t = tool(server, tool);
                    tools.add(t);
                    ids.add(t.id());
                    texts.add(text(t));
                }
                index.put(server, tools);
            }
        }
        List<Query> queries = new ArrayList<>();
        for (JsonNode q : JSON.readTree(queryFile.toFile()).path("queries")) {
            List<String> expected = new ArrayList<>();
            for (JsonNode e : q.path("expected")) {
                expected.add(e.path("server").asString() + "__" + e.path("tool").asString());
            }
            queries.add(new Query(q.path("query").asString(), expected, q.path("noSharedWord").asBoolean(false)));
        }

        EmbeddingModel model = new AllMiniLmL6V2QuantizedEmbeddingModel();
        long t0 = System.nanoTime();
        List<float[]> vectors = new ArrayList<>();
        for (int i = 0; i < texts.size(); i += 64) {
            List<TextSegment> batch = texts.subList(i, Math.min(texts.size(), i + 64)).stream().map(TextSegment::from).toList();
            model.embedAll(batch).content().forEach(e -> vectors.add(e.vector()));
        }
        double embedMillis = (System.nanoTime() - t0) / 1e6;

        Searcher words = (query, limit) -> index.search(query, limit).stream().map(Hit::id).toList();
        Searcher semantic = (query, limit) -> nearest(model.embed(query).content().vector(), vectors, ids, limit);
        Searcher fused = (query, limit) -> fuse(List.of(words.search(query, FUSED), semantic.search(query, FUSED)), limit);
        Map<String, Searcher> searchers = new LinkedHashMap<>();
        searchers.put("mcp-host (words)", words);
        searchers.put("all-MiniLM-L6-v2 q (embeddings)", semantic);
        searchers.put("fused: mcp-host + MiniLM, RRF k=60", fused);

        List<Query> shuffled = new ArrayList<>(queries);
        Collections.shuffle(shuffled, new Random(seed));
        int cut = shuffled.size() / 2;
        Map<String, List<Query>> sets = new LinkedHashMap<>();
        sets.put("all", queries);
        sets.put("noSharedWord", filter(queries, Query::noSharedWord));
        sets.put("tuning half", shuffled.subList(0, cut));
        sets.put("held-out half", shuffled.subList(cut, shuffled.size()));
        sets.put("held-out noSharedWord", filter(shuffled.subList(cut, shuffled.size()), Query::noSharedWord));

        System.out.printf(Locale.ROOT, "corpus: %d tools, %d queries of %s (%d noSharedWord); split seed %d%n%n",
                ids.size(), queries.size(), queryFile.getFileName(), sets.get("noSharedWord").size(), seed);
        StringBuilder table = new StringBuilder("| search |");
        sets.forEach((name, set) -> table.append(' ').append(name).append(" (").append(set.size()).append(") R@5 / MRR |"));
        table.append("\n|---|").append("---:|".repeat(sets.size())).append('\n');
        searchers.forEach((name, searcher) -> {
            table.append("| ").append(name).append(" |");
            sets.values().forEach(set -> {
                Score s = score(searcher, set);
                table.append(String.format(Locale.ROOT, " %.3f / %.3f |", s.recall(), s.mrr()));
            });
            table.append('\n');
        });
        System.out.println(table);

        long[] nanos = new long[queries.size()];
        for (int i = 0; i < nanos.length; i++) {
            long s = System.nanoTime();
            semantic.search(queries.get(i).text(), K);
            nanos[i] = System.nanoTime() - s;
        }
        Arrays.sort(nanos);
        System.out.printf(Locale.ROOT, "embedding the %d tools: %.0f ms (%.1f ms a tool); a query (embed and compare): "
                + "p50 %.1f ms, p99 %.1f ms%n", ids.size(), embedMillis, embedMillis / ids.size(),
                nanos[nanos.length / 2] / 1e6, nanos[(int) Math.ceil(nanos.length * 0.99) - 1] / 1e6);
    }

    private static List<Query> filter(List<Query> queries, Predicate<Query> keep) {
        return queries.stream().filter(keep).toList();
    }

    private static IndexedTool tool(String server, JsonNode tool) {
        String name = tool.path("name").asString();
        String title = tool.path("title").asString(tool.path("annotations").path("title").asString(""));
        List<IndexedTool.Param> params = new ArrayList<>();
        for (Map.Entry<String, JsonNode> p : tool.path("inputSchema").path("properties").properties()) {
            params.add(new IndexedTool.Param(p.getKey(), p.getValue().path("description").asString("")));
        }
        return new IndexedTool(server + "__" + name, server, name, title, tool.path("description").asString(""), params);
    }

    private static String text(IndexedTool t) {
        String name = t.name().replaceAll("([a-z0-9])([A-Z])", "$1 $2").replaceAll("[_\\-.]+", " ").toLowerCase(Locale.ROOT);
        String description = t.description().length() > 1000 ? t.description().substring(0, 1000) : t.description();
        return t.server() + ": " + name + ". " + (t.title().isEmpty() ? "" : t.title() + ". ") + description;
    }

    /** The ids of the vectors most similar to the query's (the model's vectors are unit length: dot product). */
    private static List<String> nearest(float[] query, List<float[]> vectors, List<String> ids, int limit) {
        double[] scores = new double[vectors.size()];
        Integer[] order = new Integer[vectors.size()];
        for (int i = 0; i < scores.length; i++) {
            float[] v = vectors.get(i);
            double dot = 0;
            for (int d = 0; d < v.length; d++) {
                dot += v[d] * query[d];
            }
            scores[i] = dot;
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Double.compare(scores[b], scores[a]));
        return Arrays.stream(order).limit(limit).map(ids::get).toList();
    }

    /** Reciprocal rank fusion: each list gives a tool 1 / (k + rank); the sum ranks. */
    private static List<String> fuse(List<List<String>> rankings, int limit) {
        Map<String, Double> sum = new HashMap<>();
        for (List<String> ranking : rankings) {
            for (int r = 0; r < ranking.size(); r++) {
                sum.merge(ranking.get(r), 1.0 / (RRF_K + r + 1), Double::sum);
            }
        }
        return sum.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed()
                .thenComparing(Map.Entry.comparingByKey())).limit(limit).map(Map.Entry::getKey).toList();
    }

    private static Score score(Searcher searcher, List<Query> queries) {
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
        return new Score(queries.size(), (double) hits / n, reciprocal / n);
    }
}
