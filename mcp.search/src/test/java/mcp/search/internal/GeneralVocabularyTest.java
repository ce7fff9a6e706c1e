package mcp.search.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The WordNet resource loads, words meet their synsets on stems, and bad lines are refused. */
class GeneralVocabularyTest {

    private static final TextAnalyzer ANALYZER = new TextAnalyzer(true, true, true);

    @Test
    void theBuiltInVocabularyHoldsWordNetsSynsets() {
        GeneralVocabulary vocabulary = GeneralVocabulary.builtIn(ANALYZER);
        assertTrue(vocabulary.size() > 25_000, "synsets: " + vocabulary.size());
        assertTrue(vocabulary.longest() >= 3, "phrases of up to three words");
        // "postponing" stems as "postpone" (and "postponement") do; the verb's most frequent meaning is the
        // synset of defer and put off, the noun's that of procrastination.
        List<GeneralVocabulary.Sense> senses = vocabulary.sensesOf(ANALYZER.term("postponing"));
        assertTrue(senses.size() >= 2 && senses.get(0).rank() == 1 && senses.get(1).rank() == 1, senses.toString());
        List<Thesaurus.Phrase> lemmas = senses.stream().filter(s -> s.rank() == 1)
                .flatMap(s -> vocabulary.lemmas(s.synset()).stream()).toList();
        assertTrue(lemmas.stream().anyMatch(p -> p.terms().equals(List.of(ANALYZER.term("defer")))), lemmas.toString());
        assertTrue(lemmas.stream().anyMatch(p -> p.match().equals(List.of("put", "off"))), lemmas.toString());
        assertTrue(lemmas.stream().anyMatch(p -> p.terms().equals(List.of(ANALYZER.term("procrastination")))));
        assertSame(vocabulary, GeneralVocabulary.builtIn(new TextAnalyzer(true, true, true)), "read once per analyzer");
    }

    @Test
    void properNamesAndSingleWordSynsetsAreLeftOut() {
        GeneralVocabulary vocabulary = GeneralVocabulary.builtIn(ANALYZER);
        assertEquals(List.of(), vocabulary.sensesOf("einstein"), "'Einstein' is capitalised in WordNet");
        assertEquals(List.of(), vocabulary.sensesOf(ANALYZER.term("hiccough")).stream()
                .filter(s -> vocabulary.lemmas(s.synset()).size() < 2).toList());
    }

    @Test
    void parseReadsPhrasesAndOrdersMeaningsByRank() {
        GeneralVocabulary vocabulary = GeneralVocabulary.parse(List.of(
                "# a comment", "", "table/2 put_off/1", "table/1 board/3"), ANALYZER);
        assertEquals(2, vocabulary.size());
        List<GeneralVocabulary.Sense> table = vocabulary.sensesOf("tabl");
        assertEquals(List.of(new GeneralVocabulary.Sense(1, 1), new GeneralVocabulary.Sense(0, 2)), table);
        assertEquals(List.of(new GeneralVocabulary.Sense(0, 1)), vocabulary.sensesOf("put off"));
        assertEquals(2, vocabulary.longest());
    }

    @Test
    void malformedLinesAreRefusedWithTheLine() {
        for (String bad : List.of("table put_off/1", "table/x", "table/0", "/1", "table/")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> GeneralVocabulary.parse(List.of(bad), ANALYZER));
            assertTrue(e.getMessage().contains(bad), e.getMessage());
        }
    }
}
