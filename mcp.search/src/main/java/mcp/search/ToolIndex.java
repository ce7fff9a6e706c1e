package mcp.search;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import mcp.search.internal.Engine;
import mcp.search.internal.RankerFusion;
import mcp.search.internal.TextAnalyzer;
import mcp.search.internal.Thesaurus;
import mcp.search.spi.ToolRanker;

/**
 * A searchable index of tools, grouped by server, safe for concurrent use: searches run in parallel,
 * and an update ({@link #put}, {@link #remove}) analyses its tools first and then swaps one server's
 * entries in, so it costs in proportion to that server's tools, never a rebuild.
 *
 * <p>A query in words is ranked with BM25F over six fields (name, title, description, parameter names,
 * parameter descriptions, server name; weights in {@link Builder#fieldWeight}). Names and parameters
 * are split into words ({@code create_issue}, {@code createIssue}, {@code create-issue},
 * {@code git.create}), words are lowercased and stemmed (Porter), English stop words and request
 * filler are dropped, and each word or phrase of the query also matches its synonyms from a curated
 * thesaurus of the words users say for what tools do ("shelve" finds {@code git_stash}, "PR" finds
 * "pull request") and the longer words of tool names it starts ("repo" finds "repository"). A query
 * that is a tool's whole name or id, however separated or cased, ranks that tool first; a query a
 * tool's name starts with lifts it.
 *
 * <p>A query written {@code /pattern/} is a case-insensitive regular expression over names, titles and
 * descriptions (a name match ranks first). Its work is bounded in character reads
 * ({@link Builder#regexStepLimit}), so a pattern with catastrophic backtracking fails with a clear
 * {@link IllegalArgumentException} instead of hanging.
 *
 * <p>A second ranking ({@link ToolRanker}, such as an embedding model's; {@link Builder#ranker}) can be fused with
 * the words' by reciprocal rank fusion; the words stay the fallback, used alone for a query where the ranker fails
 * or takes longer than its bound ({@link Builder#rankerTimeout}). {@link #find} says which ranking answered.
 *
 * <pre>{@code
 * ToolIndex index = ToolIndex.builder().build();
 * index.put("github", githubTools);
 * List<Hit> hits = index.search("shelve my half-done work", 5);
 * index.remove("github");
 * }</pre>
 */
public final class ToolIndex {

    /** The fields of a tool that a query in words is matched against. */
    public enum Field {
        /** The tool's name, split into words. */
        NAME,
        /** The human title. */
        TITLE,
        /** The description. */
        DESCRIPTION,
        /** The names of the input parameters, split into words. */
        PARAM_NAMES,
        /** The descriptions of the input parameters. */
        PARAM_DESCRIPTIONS,
        /** The server's name, split into words. */
        SERVER
    }

    /**
     * The default bound of a ranker per query: a sentence-embedding model embeds a short query in 5 to 20 ms on a
     * laptop core, so 50 ms lets it answer on a loaded machine and still keeps a search well under what an agent's
     * turn costs.
     */
    public static final Duration DEFAULT_RANKER_TIMEOUT = Duration.ofMillis(50);

    private final Engine engine;
    /** The second ranking and its fusion; null without a ranker. */
    private final RankerFusion fusion;

    private ToolIndex(Engine engine, RankerFusion fusion) {
        this.engine = engine;
        this.fusion = fusion;
    }

    /**
     * A builder with the defaults of mcp-host's search.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Replaces a server's tools with these (an empty collection removes the server).
     *
     * @param server the server (or the application) the tools belong to
     * @param tools its tools; each must name this server and have an id distinct among them
     * @throws IllegalArgumentException if a tool names another server or two share an id
     */
    public void put(String server, Collection<IndexedTool> tools) {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(tools, "tools");
        engine.put(server, tools);
        if (fusion != null) {
            fusion.put(server, tools);
        }
    }

    /**
     * Removes a server's tools.
     *
     * @param server the server
     * @return whether the index had tools of that server
     */
    public boolean remove(String server) {
        Objects.requireNonNull(server, "server");
        boolean had = engine.remove(server);
        if (fusion != null) {
            fusion.remove(server);
        }
        return had;
    }

    /**
     * The tools that best match a query: words, or a regular expression written {@code /pattern/}. With a ranker,
     * its ranking and the words' fused; {@link #find} says whether the ranker answered.
     *
     * @param query the query; a blank one finds nothing
     * @param limit the most hits to return, at least 1
     * @return the hits, best first (ties by id); empty when nothing matches
     * @throws IllegalArgumentException if the limit is below 1, or a regular expression is invalid or
     *     spends its step bound (the message says which)
     */
    public List<Hit> search(String query, int limit) {
        return find(query, limit).hits();
    }

    /**
     * The tools that best match a query, and which rankings found them: the word index's alone, or fused with the
     * ranker's ({@link Builder#ranker}). A regular expression is matched by the word index alone.
     *
     * @param query the query; a blank one finds nothing
     * @param limit the most hits to return, at least 1
     * @return the hits, best first, with the ranker that answered or why it did not
     * @throws IllegalArgumentException if the limit is below 1, or a regular expression is invalid or
     *     spends its step bound (the message says which)
     */
    public SearchResult find(String query, int limit) {
        Objects.requireNonNull(query, "query");
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        String trimmed = query.strip();
        if (trimmed.length() >= 2 && trimmed.startsWith("/") && trimmed.endsWith("/")) {
            List<Hit> hits = engine.searchRegex(trimmed.substring(1, trimmed.length() - 1), limit);
            return new SearchResult(hits, Optional.empty(), Optional.ofNullable(fusion)
                    .map(f -> f.id() + " does not read regular expressions"));
        }
        if (fusion == null) {
            return new SearchResult(engine.search(trimmed, limit), Optional.empty(), Optional.empty());
        }
        return fusion.search(trimmed, limit, depth -> engine.search(trimmed, depth));
    }

    /**
     * The ranker fused with the words, if any.
     *
     * @return the ranker the builder was given
     */
    public Optional<ToolRanker> ranker() {
        return Optional.ofNullable(fusion).map(RankerFusion::ranker);
    }

    /**
     * The number of tools in the index.
     *
     * @return the tool count over all servers
     */
    public int size() {
        return engine.size();
    }

    /**
     * The servers that have tools in the index.
     *
     * @return their names, sorted
     */
    public Set<String> servers() {
        return engine.servers();
    }

    /**
     * The terms this index makes of a text (split, lowercased, stop words dropped, stemmed, as
     * configured): for tests, diagnostics and comparisons.
     *
     * @param text any text
     * @return its terms in order
     */
    public List<String> analyze(String text) {
        return engine.analyze(Objects.requireNonNull(text, "text"));
    }

    @Override
    public String toString() {
        return engine.toString();
    }

    /**
     * The settings of an index. Every extra of mcp-host's search can be switched off, which is how the
     * bench measures each one and builds its plain BM25 baseline.
     */
    public static final class Builder {
        private final Map<Field, Double> weights = new EnumMap<>(Map.of(
                Field.NAME, 3.0, Field.TITLE, 2.0, Field.DESCRIPTION, 0.4,
                Field.PARAM_NAMES, 0.6, Field.PARAM_DESCRIPTIONS, 0.3, Field.SERVER, 2.0));
        private boolean splitIdentifiers = true;
        private boolean stemming = true;
        private boolean stopWords = true;
        private boolean builtInThesaurus = true;
        private final List<List<String>> synonyms = new ArrayList<>();
        private double synonymWeight = 0.7;
        private double prefixWeight = 0.5;
        private boolean nameMatches = true;
        private boolean singleField;
        private double k1 = 1.2;
        // Descriptions run from five words to several hundred (usage notes, caveats, examples, other
        // tools' names): weighted below the name and title, and normalised almost fully by length, so a
        // word in a long manual counts for less than the same word in a one-line purpose. A server the
        // user names ("in Asana", "on Slack") says much about the tool, hence server 2. Chosen on the
        // tuning half of bench/toolcorpus (BENCHMARKS.md, "Tool search").
        private double b = 0.9;
        private long regexStepLimit = 20_000_000L;
        private ToolRanker ranker;
        private Duration rankerTimeout = DEFAULT_RANKER_TIMEOUT;

        private Builder() {
        }

        /**
         * A second ranking fused with the words' (reciprocal rank fusion, k = 60) for queries in words; the default
         * is none, the words alone.
         *
         * @param ranker the ranker; the index hands it its updates from now on
         * @return this builder
         */
        public Builder ranker(ToolRanker ranker) {
            this.ranker = Objects.requireNonNull(ranker, "ranker");
            return this;
        }

        /**
         * How long a query waits for the ranker (default {@link #DEFAULT_RANKER_TIMEOUT}); past it, the words answer
         * alone. The ranker runs while the words are searched, so the bound is the whole query's, give or take the
         * word search.
         *
         * @param timeout more than zero
         * @return this builder
         */
        public Builder rankerTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("ranker timeout must be more than zero, was " + timeout);
            }
            this.rankerTimeout = timeout;
            return this;
        }

        /**
         * The weight of a field in BM25F. Defaults: name 3, title 2, description 0.4, parameter names
         * 0.6, parameter descriptions 0.3, server 2.
         *
         * @param field the field
         * @param weight its weight, 0 or more (0 ignores the field)
         * @return this builder
         */
        public Builder fieldWeight(Field field, double weight) {
            if (!(weight >= 0)) {
                throw new IllegalArgumentException("field weight must be 0 or more, was " + weight);
            }
            weights.put(Objects.requireNonNull(field, "field"), weight);
            return this;
        }

        /**
         * Whether identifiers are split at {@code _ - .} and camelCase (default true); when off, letters,
         * digits and {@code _} make one word.
         *
         * @param on whether to split
         * @return this builder
         */
        public Builder splitIdentifiers(boolean on) {
            splitIdentifiers = on;
            return this;
        }

        /**
         * Whether words are stemmed (Porter; default true).
         *
         * @param on whether to stem
         * @return this builder
         */
        public Builder stemming(boolean on) {
            stemming = on;
            return this;
        }

        /**
         * Whether English stop words and request filler are dropped (default true), and with them a
         * query's values: quoted text, e-mail addresses, URLs and numbers ("comment 'fixed' on issue
         * 42"), which say what to do it with, not which tool does it.
         *
         * @param on whether to drop them
         * @return this builder
         */
        public Builder stopWords(boolean on) {
            stopWords = on;
            return this;
        }

        /**
         * Whether the built-in thesaurus is used (default true).
         *
         * @param on whether to use it
         * @return this builder
         */
        public Builder thesaurus(boolean on) {
            builtInThesaurus = on;
            return this;
        }

        /**
         * Adds a group of words or phrases that mean the same to the application's users (for example
         * its own product names); used with or without the built-in thesaurus.
         *
         * @param group two or more words or phrases
         * @return this builder
         */
        public Builder synonyms(Collection<String> group) {
            synonyms.add(List.copyOf(group));
            return this;
        }

        /**
         * The weight of a synonym relative to the user's own word (default 0.7).
         *
         * @param weight between 0 and 1
         * @return this builder
         */
        public Builder synonymWeight(double weight) {
            synonymWeight = unit(weight, "synonym weight");
            return this;
        }

        /**
         * The weight of a name word that a query word starts ("repo" for "repository"), relative to
         * the word itself (default 0.5; 0 turns prefix matching of words off).
         *
         * @param weight between 0 and 1
         * @return this builder
         */
        public Builder prefixWeight(double weight) {
            prefixWeight = unit(weight, "prefix weight");
            return this;
        }

        /**
         * Whether a query that is a tool's whole name (or id) ranks it first, and one its name starts
         * with lifts it (default true).
         *
         * @param on whether to match names
         * @return this builder
         */
        public Builder nameMatches(boolean on) {
            nameMatches = on;
            return this;
        }

        /**
         * Scores every field as one text with no field weights: plain BM25, for comparisons (default
         * false).
         *
         * @param on whether to merge the fields
         * @return this builder
         */
        public Builder singleField(boolean on) {
            singleField = on;
            return this;
        }

        /**
         * The BM25 parameters: term frequency saturation {@code k1} (default 1.2) and length
         * normalisation {@code b} (default 0.9, for every field but the name and server, which are
         * normalised at a third of it: their lengths say little).
         *
         * @param k1 0 or more
         * @param b between 0 and 1
         * @return this builder
         */
        public Builder bm25(double k1, double b) {
            if (!(k1 >= 0)) {
                throw new IllegalArgumentException("k1 must be 0 or more, was " + k1);
            }
            this.k1 = k1;
            this.b = unit(b, "b");
            return this;
        }

        /**
         * The character reads one regex search may spend over all tools (default 20,000,000, a fraction
         * of a second); a search that needs more fails.
         *
         * @param steps 1 or more
         * @return this builder
         */
        public Builder regexStepLimit(long steps) {
            if (steps < 1) {
                throw new IllegalArgumentException("regex step limit must be at least 1, was " + steps);
            }
            regexStepLimit = steps;
            return this;
        }

        private static double unit(double value, String what) {
            if (!(value >= 0 && value <= 1)) {
                throw new IllegalArgumentException(what + " must be between 0 and 1, was " + value);
            }
            return value;
        }

        /**
         * An empty index with these settings.
         *
         * @return the index
         */
        public ToolIndex build() {
            TextAnalyzer analyzer = new TextAnalyzer(splitIdentifiers, stopWords, stemming);
            List<List<String>> groups = new ArrayList<>();
            if (builtInThesaurus) {
                groups.addAll(Thesaurus.builtInGroups());
            }
            groups.addAll(synonyms);
            Thesaurus thesaurus = groups.isEmpty() ? Thesaurus.empty() : Thesaurus.of(groups, analyzer);
            double[] fieldWeights = new double[Engine.FIELDS];
            double[] norms = new double[Engine.FIELDS];
            for (Field field : Field.values()) {
                fieldWeights[field.ordinal()] = singleField ? 1.0 : weights.get(field);
                norms[field.ordinal()] = field == Field.NAME || field == Field.SERVER ? b / 3 : b;
            }
            if (singleField) {
                norms[Field.DESCRIPTION.ordinal()] = b;
            }
            return new ToolIndex(new Engine(new Engine.Config(analyzer, thesaurus, fieldWeights, norms, k1,
                    synonymWeight, prefixWeight, nameMatches, singleField, regexStepLimit)),
                    ranker == null ? null : new RankerFusion(ranker, rankerTimeout));
        }
    }
}
