package mcp.search.internal;

/**
 * The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980), written from the
 * published description: five steps of suffix rules, each guarded by the measure {@code m} of the
 * stem (the number of vowel-consonant sequences). It is chosen over a lighter plural-only stemmer
 * because tool texts and users' words differ mostly in derivation ("deletion"/"delete",
 * "listing"/"list", "created"/"creates"), and over a library because it is short, well known,
 * deterministic and needs no dictionary.
 *
 * <p>Only words of lowercase ASCII letters longer than two are stemmed; anything else (digits,
 * other scripts) is returned as it is.
 */
public final class PorterStemmer {

    private PorterStemmer() {
    }

    /**
     * Stems one lowercase word.
     *
     * @param word the word (lowercase)
     * @return its stem; the word itself when it is short or not plain ASCII letters
     */
    public static String stem(String word) {
        if (word.length() <= 2) {
            return word;
        }
        for (int i = 0; i < word.length(); i++) {
            char c = word.charAt(i);
            if (c < 'a' || c > 'z') {
                return word;
            }
        }
        StringBuilder b = new StringBuilder(word);
        step1a(b);
        step1b(b);
        step1c(b);
        step2(b);
        step3(b);
        step4(b);
        step5(b);
        return b.toString();
    }

    private static boolean consonant(CharSequence s, int i) {
        switch (s.charAt(i)) {
            case 'a', 'e', 'i', 'o', 'u':
                return false;
            case 'y':
                return i == 0 || !consonant(s, i - 1);
            default:
                return true;
        }
    }

    /** The measure m of s[0, len): the number of VC sequences in [C](VC)^m[V]. */
    static int measure(CharSequence s, int len) {
        int m = 0;
        int i = 0;
        while (i < len && consonant(s, i)) {
            i++;
        }
        while (i < len) {
            while (i < len && !consonant(s, i)) {
                i++;
            }
            if (i >= len) {
                break;
            }
            while (i < len && consonant(s, i)) {
                i++;
            }
            m++;
        }
        return m;
    }

    private static boolean hasVowel(CharSequence s, int len) {
        for (int i = 0; i < len; i++) {
            if (!consonant(s, i)) {
                return true;
            }
        }
        return false;
    }

    private static boolean doubleConsonant(CharSequence s, int len) {
        return len >= 2 && s.charAt(len - 1) == s.charAt(len - 2) && consonant(s, len - 1);
    }

    /** Consonant-vowel-consonant at the end of s[0, len), the last not w, x or y. */
    private static boolean cvc(CharSequence s, int len) {
        if (len < 3 || !consonant(s, len - 3) || consonant(s, len - 2) || !consonant(s, len - 1)) {
            return false;
        }
        char c = s.charAt(len - 1);
        return c != 'w' && c != 'x' && c != 'y';
    }

    private static boolean endsWith(StringBuilder b, String suffix) {
        int n = b.length();
        int k = suffix.length();
        return n >= k && b.indexOf(suffix, n - k) == n - k;
    }

    private static void replaceEnd(StringBuilder b, int suffixLength, String with) {
        b.setLength(b.length() - suffixLength);
        b.append(with);
    }

    private static void step1a(StringBuilder b) {
        if (endsWith(b, "sses")) {
            replaceEnd(b, 4, "ss");
        } else if (endsWith(b, "ies")) {
            replaceEnd(b, 3, "i");
        } else if (!endsWith(b, "ss") && endsWith(b, "s")) {
            replaceEnd(b, 1, "");
        }
    }

    private static void step1b(StringBuilder b) {
        if (endsWith(b, "eed")) {
            if (measure(b, b.length() - 3) > 0) {
                replaceEnd(b, 3, "ee");
            }
            return;
        }
        int cut;
        if (endsWith(b, "ed")) {
            cut = 2;
        } else if (endsWith(b, "ing")) {
            cut = 3;
        } else {
            return;
        }
        if (!hasVowel(b, b.length() - cut)) {
            return;
        }
        replaceEnd(b, cut, "");
        if (endsWith(b, "at") || endsWith(b, "bl") || endsWith(b, "iz")) {
            b.append('e');
        } else if (doubleConsonant(b, b.length())) {
            char last = b.charAt(b.length() - 1);
            if (last != 'l' && last != 's' && last != 'z') {
                b.setLength(b.length() - 1);
            }
        } else if (measure(b, b.length()) == 1 && cvc(b, b.length())) {
            b.append('e');
        }
    }

    private static void step1c(StringBuilder b) {
        if (endsWith(b, "y") && hasVowel(b, b.length() - 1)) {
            b.setCharAt(b.length() - 1, 'i');
        }
    }

    /** Suffix rules of one step: the first (longest) suffix that matches decides, applied if m > min. */
    private static void rules(StringBuilder b, String[][] rules, int minMeasure) {
        for (String[] rule : rules) {
            if (endsWith(b, rule[0])) {
                if (measure(b, b.length() - rule[0].length()) > minMeasure) {
                    replaceEnd(b, rule[0].length(), rule[1]);
                }
                return;
            }
        }
    }

    private static final String[][] STEP2 = {
        {"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"}, {"izer", "ize"},
        {"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"},
        {"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}, {"alism", "al"}, {"iveness", "ive"},
        {"fulness", "ful"}, {"ousness", "ous"}, {"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"},
        {"logi", "log"},
    };

    private static final String[][] STEP3 = {
        {"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"}, {"ical", "ic"}, {"ful", ""},
        {"ness", ""},
    };

    private static void step2(StringBuilder b) {
        rules(b, STEP2, 0);
    }

    private static void step3(StringBuilder b) {
        rules(b, STEP3, 0);
    }

    private static final String[] STEP4 = {
        "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism",
        "ate", "iti", "ous", "ive", "ize",
    };

    private static void step4(StringBuilder b) {
        // The longest matching suffix decides ("ement" before "ment" before "ent").
        String found = null;
        for (String suffix : STEP4) {
            if (endsWith(b, suffix) && (found == null || suffix.length() > found.length())) {
                found = suffix;
            }
        }
        if (found == null) {
            return;
        }
        int stem = b.length() - found.length();
        if (measure(b, stem) <= 1) {
            return;
        }
        if (found.equals("ion") && (stem == 0 || (b.charAt(stem - 1) != 's' && b.charAt(stem - 1) != 't'))) {
            return;
        }
        b.setLength(stem);
    }

    private static void step5(StringBuilder b) {
        int n = b.length();
        if (b.charAt(n - 1) == 'e') {
            int m = measure(b, n - 1);
            if (m > 1 || (m == 1 && !cvc(b, n - 1))) {
                b.setLength(n - 1);
            }
        }
        n = b.length();
        if (n > 1 && b.charAt(n - 1) == 'l' && doubleConsonant(b, n) && measure(b, n) > 1) {
            b.setLength(n - 1);
        }
    }
}
