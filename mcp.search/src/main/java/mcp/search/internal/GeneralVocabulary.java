package mcp.search.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.GZIPInputStream;

/**
 * A general English vocabulary: the noun and verb synsets of WordNet 3.0 (Princeton), each a set of
 * words with one meaning ("postpone, defer, shelve, put off"), with every word's sense rank (1 for its
 * most frequent meaning) and the synset's more general synsets (hypernyms). Derived from the WordNet
 * database by {@code bench/wordnet/derive.py} into {@code wordnet.txt.gz} next to this class, with
 * WordNet's licence notice ({@code WORDNET-LICENSE.txt}).
 *
 * <p>Words are analysed with the index's own analyzer, so a query's stems find their synsets. The
 * resource is read once per analyzer, the first time an index that uses it searches (about 80,000
 * synsets; a few hundred milliseconds and a few megabytes of heap).
 */
public final class GeneralVocabulary {

    /** The resource next to this class. */
    static final String RESOURCE = "wordnet.txt.gz";

    /**
     * One meaning of a word or phrase.
     *
     * @param synset the synset's number
     * @param rank the meaning's rank among the word's meanings of its part of speech (1 the most frequent)
     */
    public record Sense(int synset, int rank) {
    }

    /**
     * How a query uses the vocabulary.
     *
     * @param weight the weight of a synonym (another lemma of one of the word's synsets) relative to the
     *     user's own word
     * @param senses how many of a word's meanings are expanded, most frequent first
     * @param hypernymWeight the weight of a lemma of a more general synset (0: none)
     * @param phrases whether phrase lemmas ("put off", "look up") are recognised in a query
     * @param withThesaurus whether a word the curated thesaurus knows is expanded too
     * @param capIdf whether an expansion's idf is capped at the user's word's (a rare synonym of a common
     *     word does not outweigh it)
     */
    public record Options(double weight, int senses, double hypernymWeight, boolean phrases, boolean withThesaurus,
            boolean capIdf) {
    }

    private static final Map<TextAnalyzer, GeneralVocabulary> LOADED = new ConcurrentHashMap<>();

    private final List<List<Thesaurus.Phrase>> lemmas;
    private final List<int[]> hypernyms;
    private final Map<String, List<Sense>> byMatch;
    private final int longest;

    private GeneralVocabulary(List<List<Thesaurus.Phrase>> lemmas, List<int[]> hypernyms,
            Map<String, List<Sense>> byMatch, int longest) {
        this.lemmas = lemmas;
        this.hypernyms = hypernyms;
        this.byMatch = byMatch;
        this.longest = longest;
    }

    /**
     * The built-in vocabulary analysed with an analyzer, read on the first call for that analyzer.
     *
     * @param analyzer the index's analyzer
     * @return the vocabulary
     * @throws IllegalStateException if the resource is missing from the module
     */
    public static GeneralVocabulary builtIn(TextAnalyzer analyzer) {
        return LOADED.computeIfAbsent(analyzer, a -> {
            try (InputStream in = GeneralVocabulary.class.getResourceAsStream(RESOURCE)) {
                if (in == null) {
                    throw new IllegalStateException("mcp.search: " + RESOURCE + " is missing from the module");
                }
                BufferedReader reader = new BufferedReader(new InputStreamReader(new GZIPInputStream(in),
                        StandardCharsets.US_ASCII));
                return parse(reader.lines().toList(), a);
            } catch (IOException e) {
                throw new UncheckedIOException("mcp.search: cannot read " + RESOURCE, e);
            }
        });
    }

    /**
     * A vocabulary from lines in the resource's format: {@code POS TAB lemma/rank ... TAB hypernym ...},
     * lemmas with {@code _} between the words of a phrase, hypernyms as synset line numbers (0-based,
     * lines starting with {@code #} not counted).
     *
     * @param lines the lines
     * @param analyzer the index's analyzer
     * @return the vocabulary
     * @throws IllegalArgumentException if a line is malformed
     */
    static GeneralVocabulary parse(List<String> lines, TextAnalyzer analyzer) {
        List<List<Thesaurus.Phrase>> lemmas = new ArrayList<>();
        List<int[]> hypernyms = new ArrayList<>();
        Map<String, List<Sense>> byMatch = new HashMap<>();
        int longest = 0;
        for (String line : lines) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split("\t", -1);
            if (parts.length != 3) {
                throw new IllegalArgumentException("malformed vocabulary line: " + line);
            }
            int synset = lemmas.size();
            List<Thesaurus.Phrase> phrases = new ArrayList<>();
            for (String entry : parts[1].split(" ")) {
                int slash = entry.lastIndexOf('/');
                if (slash <= 0) {
                    throw new IllegalArgumentException("malformed lemma '" + entry + "' in line: " + line);
                }
                String text = entry.substring(0, slash).replace('_', ' ');
                int rank = Integer.parseInt(entry.substring(slash + 1));
                List<String> match = analyzer.tokens(text).stream().map(TextAnalyzer.Token::term).toList();
                if (match.isEmpty()) {
                    continue;
                }
                Thesaurus.Phrase phrase = new Thesaurus.Phrase(match, analyzer.terms(text));
                if (!phrases.contains(phrase)) {
                    phrases.add(phrase);
                }
                List<Sense> senses = byMatch.computeIfAbsent(String.join(" ", match), k -> new ArrayList<>(2));
                if (senses.stream().noneMatch(s -> s.synset() == synset)) {
                    senses.add(new Sense(synset, rank));
                }
                longest = Math.max(longest, match.size());
            }
            lemmas.add(List.copyOf(phrases));
            String[] up = parts[2].isEmpty() ? new String[0] : parts[2].split(" ");
            int[] ids = new int[up.length];
            for (int k = 0; k < up.length; k++) {
                ids[k] = Integer.parseInt(up[k]);
            }
            hypernyms.add(ids);
        }
        for (int[] ids : hypernyms) {
            for (int id : ids) {
                if (id < 0 || id >= lemmas.size()) {
                    throw new IllegalArgumentException("hypernym " + id + " is no synset (" + lemmas.size() + " synsets)");
                }
            }
        }
        // Most frequent meaning first: when a stem joins several words, their ranks interleave.
        byMatch.values().forEach(s -> s.sort((x, y) -> Integer.compare(x.rank(), y.rank())));
        return new GeneralVocabulary(List.copyOf(lemmas), List.copyOf(hypernyms), Map.copyOf(byMatch), longest);
    }

    /**
     * The meanings of a word or phrase, most frequent first.
     *
     * @param stems its stems, joined by single spaces
     * @return its senses; empty when WordNet has no such noun or verb
     */
    public List<Sense> sensesOf(String stems) {
        return byMatch.getOrDefault(stems, List.of());
    }

    /**
     * The words of a synset.
     *
     * @param synset a synset number
     * @return its lemmas, analysed
     */
    public List<Thesaurus.Phrase> lemmas(int synset) {
        return lemmas.get(synset);
    }

    /**
     * The more general synsets of a synset.
     *
     * @param synset a synset number
     * @return their numbers (a copy)
     */
    public int[] hypernyms(int synset) {
        return hypernyms.get(synset).clone();
    }

    /**
     * The longest lemma, in words.
     *
     * @return its word count
     */
    public int longest() {
        return longest;
    }

    /**
     * The number of synsets.
     *
     * @return the synset count
     */
    public int size() {
        return lemmas.size();
    }
}
