package mcp.search.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Groups of words and phrases that a user and a tool text use for the same thing ("shelve" and
 * "stash", "ticket" and "issue", "PR" and "pull request"), analysed with the index's own analyzer so
 * that a query phrase and a tool's terms meet on stems. The groups are symmetric: any member stands
 * for any other.
 *
 * <p>The built-in groups are in {@code thesaurus.txt} next to this class, one group a line with its
 * justification in a comment above it.
 */
public final class Thesaurus {

    /**
     * One member of a group.
     *
     * @param match the stems of its words, stop words kept (how it is found in a query)
     * @param terms its index terms, stop words dropped (how it is looked up in the index)
     */
    public record Phrase(List<String> match, List<String> terms) {
        /** Copies the lists. */
        public Phrase {
            match = List.copyOf(match);
            terms = List.copyOf(terms);
        }

        /**
         * Whether a tool text is searched for this member. Not when stop words reduce a phrase to one
         * word or none: "check in" (a commit) would find every "check", "look for" every "look"; such a
         * member still recognises the phrase in a query ("to do" stands for "task" though both its words
         * are stop words).
         *
         * @return false for a phrase that lost all its words but one, or all of them
         */
        public boolean searchable() {
            return !terms.isEmpty() && (match.size() == 1 || terms.size() > 1);
        }
    }

    private static final Thesaurus EMPTY = new Thesaurus(List.of(), Map.of(), 0);

    private final List<List<Phrase>> groups;
    private final Map<String, List<Integer>> byMatch;
    private final int longest;

    private Thesaurus(List<List<Phrase>> groups, Map<String, List<Integer>> byMatch, int longest) {
        this.groups = groups;
        this.byMatch = byMatch;
        this.longest = longest;
    }

    /**
     * A thesaurus with no groups.
     *
     * @return the empty thesaurus
     */
    public static Thesaurus empty() {
        return EMPTY;
    }

    /**
     * A thesaurus of groups of phrases.
     *
     * @param groups groups of words or phrases in plain text
     * @param analyzer the index's analyzer
     * @return the thesaurus
     */
    public static Thesaurus of(List<List<String>> groups, TextAnalyzer analyzer) {
        List<List<Phrase>> analysed = new ArrayList<>();
        Map<String, List<Integer>> byMatch = new HashMap<>();
        int longest = 0;
        for (List<String> group : groups) {
            List<Phrase> phrases = new ArrayList<>();
            for (String text : group) {
                List<String> match = analyzer.tokens(text).stream().map(TextAnalyzer.Token::term).toList();
                List<String> terms = analyzer.terms(text);
                if (match.isEmpty()) {
                    continue;
                }
                Phrase phrase = new Phrase(match, terms);
                if (!phrases.contains(phrase)) {
                    phrases.add(phrase);
                }
            }
            if (phrases.size() < 2) {
                continue;
            }
            int id = analysed.size();
            analysed.add(List.copyOf(phrases));
            for (Phrase phrase : phrases) {
                List<Integer> ids = byMatch.computeIfAbsent(String.join(" ", phrase.match()), k -> new ArrayList<>());
                if (!ids.contains(id)) {
                    ids.add(id);
                }
                longest = Math.max(longest, phrase.match().size());
            }
        }
        return new Thesaurus(List.copyOf(analysed), Map.copyOf(byMatch), longest);
    }

    /**
     * The built-in groups, as written in {@code thesaurus.txt}: members separated by commas, lines
     * starting with {@code #} are comments.
     *
     * @return the groups in file order
     */
    public static List<List<String>> builtInGroups() {
        try (InputStream in = Thesaurus.class.getResourceAsStream("thesaurus.txt")) {
            if (in == null) {
                throw new IllegalStateException("mcp.search: thesaurus.txt is missing from the module");
            }
            return parse(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines().toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<List<String>> parse(List<String> lines) {
        List<List<String>> groups = new ArrayList<>();
        for (String line : lines) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            groups.add(Arrays.stream(trimmed.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList());
        }
        return groups;
    }

    /**
     * The longest member, in words.
     *
     * @return the number of words of the longest member; 0 when empty
     */
    public int longest() {
        return longest;
    }

    /**
     * The groups a run of query stems belongs to.
     *
     * @param stems the stems, joined by single spaces
     * @return the group ids; empty when none
     */
    public List<Integer> groupsOf(String stems) {
        return byMatch.getOrDefault(stems, List.of());
    }

    /**
     * The members of a group.
     *
     * @param group a group id from {@link #groupsOf}
     * @return its phrases
     */
    public List<Phrase> members(int group) {
        return groups.get(group);
    }

    /**
     * The number of groups (those with at least two distinct members after analysis).
     *
     * @return the group count
     */
    public int size() {
        return groups.size();
    }
}
