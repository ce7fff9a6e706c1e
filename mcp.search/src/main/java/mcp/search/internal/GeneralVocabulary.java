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
 * A general English vocabulary: the noun and verb synsets of WordNet 3.0 (Princeton) that have two or
 * more words, each a set of words with one meaning ("postpone, defer, shelve, put off"), with every
 * word's sense rank (1 for its most frequent meaning). Derived from the WordNet database by
 * {@code bench/wordnet/derive.py} into {@code wordnet.txt.gz} next to this class (0.36 MB), with
 * WordNet's licence ({@code WORDNET-LICENSE.txt}).
 *
 * <p>Words are analysed with the index's own analyzer, so a query's stems find their synsets. The
 * resource is read once per analyzer, the first time an index that uses it searches (about 30,000
 * synsets and 80,000 words).
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

    private static final Map<TextAnalyzer, GeneralVocabulary> LOADED = new ConcurrentHashMap<>();

    private final List<List<Thesaurus.Phrase>> lemmas;
    private final Map<String, List<Sense>> byMatch;
    private final int longest;

    private GeneralVocabulary(List<List<Thesaurus.Phrase>> lemmas, Map<String, List<Sense>> byMatch, int longest) {
        this.lemmas = lemmas;
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
     * A vocabulary from lines in the resource's format: one synset a line, {@code lemma/rank ...} with
     * {@code _} between the words of a phrase; lines starting with {@code #} are comments.
     *
     * @param lines the lines
     * @param analyzer the index's analyzer
     * @return the vocabulary
     * @throws IllegalArgumentException if a line is malformed
     */
    static GeneralVocabulary parse(List<String> lines, TextAnalyzer analyzer) {
        List<List<Thesaurus.Phrase>> lemmas = new ArrayList<>();
        Map<String, List<Sense>> byMatch = new HashMap<>();
        int longest = 0;
        for (String line : lines) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int synset = lemmas.size();
            List<Thesaurus.Phrase> phrases = new ArrayList<>();
            for (String entry : line.split(" ")) {
                int slash = entry.lastIndexOf('/');
                int rank = slash > 0 ? rank(entry.substring(slash + 1)) : 0;
                if (rank < 1) {
                    throw new IllegalArgumentException("malformed lemma '" + entry + "' (lemma/rank) in line: " + line);
                }
                String text = entry.substring(0, slash).replace('_', ' ');
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
        }
        // Most frequent meaning first: when a stem joins several words, their ranks interleave.
        byMatch.values().forEach(s -> s.sort((x, y) -> Integer.compare(x.rank(), y.rank())));
        return new GeneralVocabulary(List.copyOf(lemmas), Map.copyOf(byMatch), longest);
    }

    /** A sense rank, or 0 when the text is none. */
    private static int rank(String text) {
        if (text.isEmpty() || text.length() > 4 || !text.chars().allMatch(Character::isDigit)) {
            return 0;
        }
        return Integer.parseInt(text);
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
