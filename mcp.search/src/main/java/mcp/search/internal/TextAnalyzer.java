package mcp.search.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Turns text into index terms: words (with identifiers split at {@code _}, {@code -}, {@code .} and
 * camelCase boundaries), lowercased, without stop words, stemmed. Each step can be switched off, for
 * the plain BM25 baseline of the bench.
 *
 * @param splitIdentifiers split {@code create_issue}, {@code createIssue}, {@code create-issue} and
 *     {@code git.create} into words; when off, letters, digits and {@code _} make one word (as a plain
 *     Unicode word tokenizer does)
 * @param stopWords drop English function words and request filler ("please", "my")
 * @param stemming stem with {@link PorterStemmer}
 */
public record TextAnalyzer(boolean splitIdentifiers, boolean stopWords, boolean stemming) {

    /**
     * English function words and the filler of requests to an agent. Words that carry intent in tool
     * texts ("all", "new", "get", "show", "open", "up") are deliberately not here.
     */
    static final Set<String> STOP_WORDS = Set.of(
            "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "for", "from", "has", "have",
            "had", "he", "her", "his", "if", "in", "into", "is", "it", "its", "of", "on", "or", "our", "she",
            "so", "such", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those",
            "to", "was", "we", "were", "which", "while", "who", "will", "with", "would", "what", "when",
            "where", "how", "do", "does", "did", "can", "could", "should", "may", "might", "must", "shall",
            "i", "me", "my", "mine", "im", "you", "your", "yours", "us", "please", "want", "need", "like",
            "let", "lets", "just", "also", "some", "any", "thing", "things", "something", "via", "using",
            "whether", "etc", "e", "g", "eg", "ie", "s");

    /**
     * Plurals the Porter stemmer cannot join to their singular ("indices" stems to "indic", "index" to
     * "index"), among the words of software and data; mapped to the singular before stemming.
     */
    static final Map<String, String> IRREGULAR = Map.ofEntries(
            Map.entry("indices", "index"), Map.entry("vertices", "vertex"), Map.entry("matrices", "matrix"),
            Map.entry("appendices", "appendix"), Map.entry("people", "person"), Map.entry("children", "child"),
            Map.entry("analyses", "analysis"), Map.entry("criteria", "criterion"), Map.entry("men", "man"),
            Map.entry("women", "woman"), Map.entry("mice", "mouse"), Map.entry("halves", "half"));

    /**
     * Words the Porter stemmer merges with an unrelated word that tool texts use a lot: "news" with
     * "new" (so a news search would look like a create tool), "general" with "generate". Kept whole.
     */
    static final Set<String> UNSTEMMED = Set.of("news", "general");

    /** One word of a text: its lowercase form (for stop words and phrases) and its index term. */
    public record Token(String word, String term) {
    }

    /**
     * The words of a text, lowercase, in order.
     *
     * @param text any text
     * @return its words (stop words included)
     */
    public List<String> words(String text) {
        List<String> out = new ArrayList<>();
        int n = text.length();
        int start = -1;
        for (int i = 0; i <= n; i++) {
            char c = i < n ? text.charAt(i) : ' ';
            boolean wordChar = Character.isLetterOrDigit(c) || (!splitIdentifiers && c == '_');
            if (!wordChar) {
                if (start >= 0) {
                    addWord(out, text, start, i);
                    start = -1;
                }
                continue;
            }
            if (start < 0) {
                start = i;
            } else if (splitIdentifiers && camelBoundary(text, i)) {
                addWord(out, text, start, i);
                start = i;
            }
        }
        return out;
    }

    /**
     * Before an uppercase letter that follows a lowercase one ("createIssue"), or that starts a
     * capitalised word after an acronym or a number ("HTTPServer", "getS3Object"), but not an
     * acronym's plural ("PRs").
     */
    private static boolean camelBoundary(String text, int i) {
        if (!Character.isUpperCase(text.charAt(i))) {
            return false;
        }
        char prev = text.charAt(i - 1);
        if (Character.isLowerCase(prev)) {
            return true;
        }
        // A capitalised word, not an acronym's plural ("PRs", "URLs"): two lowercase letters at least.
        return (Character.isUpperCase(prev) || Character.isDigit(prev))
                && i + 2 < text.length() && Character.isLowerCase(text.charAt(i + 1))
                && Character.isLowerCase(text.charAt(i + 2));
    }

    private static void addWord(List<String> out, String text, int from, int to) {
        out.add(text.substring(from, to).toLowerCase(Locale.ROOT));
    }

    /**
     * The words of a text with their terms, stop words included (the query side matches phrases on
     * them before it drops them).
     *
     * @param text any text
     * @return one token per word
     */
    public List<Token> tokens(String text) {
        List<String> words = words(text);
        List<Token> out = new ArrayList<>(words.size());
        for (String word : words) {
            out.add(new Token(word, term(word)));
        }
        return out;
    }

    /**
     * The index terms of a text: its words without stop words, stemmed.
     *
     * @param text any text
     * @return the terms in order, repeats kept
     */
    public List<String> terms(String text) {
        List<String> out = new ArrayList<>();
        for (String word : words(text)) {
            if (!isStopWord(word)) {
                out.add(term(word));
            }
        }
        return out;
    }

    /**
     * Whether a lowercase word is dropped as a stop word (never when stop words are off).
     *
     * @param word a lowercase word
     * @return true when it is dropped
     */
    public boolean isStopWord(String word) {
        return stopWords && STOP_WORDS.contains(word);
    }

    /**
     * The index term of one lowercase word.
     *
     * @param word a lowercase word
     * @return its stem, or the word when stemming is off
     */
    public String term(String word) {
        if (!stemming || UNSTEMMED.contains(word)) {
            return word;
        }
        return PorterStemmer.stem(IRREGULAR.getOrDefault(word, word));
    }
}
