package mcp.cli.internal;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** "Did you mean" for mistyped tool and server names. */
final class Suggestions {

    private Suggestions() {
    }

    /**
     * @param wanted what the user typed
     * @param known the names that exist
     * @return up to five known names close to it, closest first: containing it (or contained in it),
     *     or at most a third of its characters away
     */
    static List<String> closeTo(String wanted, Collection<String> known) {
        String target = wanted.toLowerCase(Locale.ROOT);
        int tolerance = Math.max(2, target.length() / 3);
        return known.stream()
                .distinct()
                .filter(name -> {
                    String candidate = name.toLowerCase(Locale.ROOT);
                    return candidate.contains(target) || (!candidate.isEmpty() && target.contains(candidate))
                            || distance(candidate, target) <= tolerance;
                })
                .sorted(Comparator.comparingInt((String name) -> distance(name.toLowerCase(Locale.ROOT), target))
                        .thenComparing(Comparator.naturalOrder()))
                .limit(5)
                .toList();
    }

    /** @return " Did you mean: a, b?" or "" when nothing is close */
    static String didYouMean(String wanted, Collection<String> known) {
        List<String> close = closeTo(wanted, known);
        return close.isEmpty() ? "" : " Did you mean: " + String.join(", ", close) + "?";
    }

    /** Levenshtein distance, two rows. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
