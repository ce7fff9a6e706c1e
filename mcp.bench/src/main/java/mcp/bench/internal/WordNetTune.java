package mcp.bench.internal;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import mcp.search.ToolIndex;

/** Temporary: tuning-half scores only, for variants given as w,senses,hyp,phrases,withThesaurus. */
public final class WordNetTune {
    private WordNetTune() {
    }

    static void diff(SearchBench.Searcher base, SearchBench.Searcher with, List<SearchBench.Query> queries) {
        for (SearchBench.Query q : queries) {
            boolean a = base.search(q.text(), 5).stream().anyMatch(q.expected()::contains);
            boolean b = with.search(q.text(), 5).stream().anyMatch(q.expected()::contains);
            if (a != b) {
                System.out.println((b ? "GAINED " : "LOST   ") + q.id() + " \"" + q.text() + "\" expected " + q.expected()
                        + "\n   off: " + base.search(q.text(), 5) + "\n   on:  " + with.search(q.text(), 5));
            }
        }
    }

    public static void main(String[] args) {
        Path dir = Path.of("bench/toolcorpus");
        SearchBench.Corpus first = SearchBench.load(dir, dir.resolve("queries.json"));
        SearchBench.Corpus second = SearchBench.load(dir, dir.resolve("queries-sampled.json"));
        List<SearchBench.Query> t1 = SearchBench.half(first.queries(), SearchBench.SEED, 0);
        List<SearchBench.Query> t2 = SearchBench.half(second.queries(), SearchBench.SEED, 0);
        for (String spec : args) {
            ToolIndex.Builder builder = ToolIndex.builder();
            if (!spec.equals("off")) {
                String[] p = spec.split(",");
                builder.generalVocabulary(Double.parseDouble(p[0]), Integer.parseInt(p[1]), Double.parseDouble(p[2]),
                        Boolean.parseBoolean(p[3]), Boolean.parseBoolean(p[4]), p.length > 5 && Boolean.parseBoolean(p[5]));
            }
            SearchBench.Score a = SearchBench.score(SearchBench.index(builder, first), t1);
            SearchBench.Score b = SearchBench.score(SearchBench.index(builder, second), t2);
            if (System.getProperty("diff") != null) {
                SearchBench.Searcher base = SearchBench.index(ToolIndex.builder(), first);
                SearchBench.Searcher base2 = SearchBench.index(ToolIndex.builder(), second);
                diff(base, SearchBench.index(builder, first), t1);
                diff(base2, SearchBench.index(builder, second), t2);
            }
            if (System.getProperty("full") != null) {
                StringBuilder row = new StringBuilder("| " + spec + " |");
                for (SearchBench.Corpus c : List.of(first, second)) {
                    SearchBench.Searcher searcher = SearchBench.index(builder, c);
                    for (List<SearchBench.Query> set : List.of(c.queries(), SearchBench.half(c.queries(), SearchBench.SEED, 0),
                            SearchBench.half(c.queries(), SearchBench.SEED, 1))) {
                        SearchBench.Score sc = SearchBench.score(searcher, set);
                        row.append(String.format(Locale.ROOT, " %.3f / %.3f |", sc.recall(), sc.mrr()));
                    }
                }
                System.out.println(row);
                continue;
            }
            System.out.printf(Locale.ROOT, "%-28s tune1 %.3f / %.3f   tune2 %.3f / %.3f%n", spec, a.recall(), a.mrr(),
                    b.recall(), b.mrr());
        }
    }
}
