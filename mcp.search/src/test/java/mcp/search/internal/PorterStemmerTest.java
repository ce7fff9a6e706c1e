package mcp.search.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The stemmer against the examples of Porter's paper, and the conflations the index relies on. */
class PorterStemmerTest {

    @ParameterizedTest
    @CsvSource({
        // Step 1a
        "caresses, caress", "ponies, poni", "ties, ti", "caress, caress", "cats, cat",
        // Step 1b
        "feed, feed", "agreed, agre", "plastered, plaster", "bled, bled", "motoring, motor", "sing, sing",
        "conflated, conflat", "troubled, troubl", "sized, size", "hopping, hop", "tanned, tan", "falling, fall",
        "hissing, hiss", "fizzed, fizz", "failing, fail", "filing, file",
        // Step 1c
        "happy, happi", "sky, sky",
        // Step 2
        "relational, relat", "conditional, condit", "rational, ration", "valenci, valenc", "digitizer, digit",
        "conformabli, conform", "radicalli, radic", "differentli, differ", "vileli, vile", "analogousli, analog",
        "vietnamization, vietnam", "predication, predic", "operator, oper", "feudalism, feudal",
        "decisiveness, decis", "hopefulness, hope", "callousness, callous", "formaliti, formal",
        "sensitiviti, sensit", "sensibiliti, sensibl",
        // Step 3
        "triplicate, triplic", "formative, form", "formalize, formal", "electriciti, electr", "electrical, electr",
        "hopeful, hope", "goodness, good",
        // Step 4
        "revival, reviv", "allowance, allow", "inference, infer", "airliner, airlin", "gyroscopic, gyroscop",
        "adjustable, adjust", "defensible, defens", "irritant, irrit", "replacement, replac", "adjustment, adjust",
        "dependent, depend", "adoption, adopt", "homologou, homolog", "communism, commun", "activate, activ",
        "angulariti, angular", "homologous, homolog", "effective, effect", "bowdlerize, bowdler",
        // Step 5
        "probate, probat", "rate, rate", "cease, ceas", "controll, control", "roll, roll",
    })
    void paperExamples(String word, String stem) {
        assertEquals(stem, PorterStemmer.stem(word));
    }

    @ParameterizedTest
    @CsvSource({
        "delete, deleted", "delete, deleting", "delete, deletes", "list, listing", "list, lists",
        "issue, issues", "create, creating", "create, created", "search, searching", "repository, repositories",
        "commit, commits", "stash, stashing", "connect, connection", "fetch, fetches",
    })
    void formsOfOneWordMeet(String a, String b) {
        assertEquals(PorterStemmer.stem(a), PorterStemmer.stem(b), a + " / " + b);
    }

    @Test
    void shortAndNonLetterWordsAreLeftAlone() {
        assertEquals("is", PorterStemmer.stem("is"));
        assertEquals("s3", PorterStemmer.stem("s3"));
        assertEquals("base64", PorterStemmer.stem("base64"));
        assertEquals("café", PorterStemmer.stem("café"));
    }

    @Test
    void measureCountsVowelConsonantSequences() {
        assertEquals(0, PorterStemmer.measure("tr", 2));
        assertEquals(0, PorterStemmer.measure("ee", 2));
        assertEquals(1, PorterStemmer.measure("trouble", 7));
        assertEquals(1, PorterStemmer.measure("oats", 4));
        assertEquals(2, PorterStemmer.measure("troubles", 8));
        assertEquals(2, PorterStemmer.measure("private", 7));
    }
}
