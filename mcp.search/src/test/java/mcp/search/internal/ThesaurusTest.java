package mcp.search.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The built-in thesaurus loads, every line is a real group, and phrases meet on stems. */
class ThesaurusTest {

    private static final TextAnalyzer ANALYZER = new TextAnalyzer(true, true, true);

    @Test
    void everyBuiltInLineIsAGroupOfTwoOrMore() {
        List<List<String>> groups = Thesaurus.builtInGroups();
        assertTrue(groups.size() > 50, "groups: " + groups.size());
        for (List<String> group : groups) {
            assertTrue(group.size() >= 2, "a group of one: " + group);
        }
        // No group loses members to analysis down to fewer than two.
        assertEquals(groups.size(), Thesaurus.of(groups, ANALYZER).size());
    }

    @Test
    void wordsAndPhrasesFindTheirGroups() {
        Thesaurus thesaurus = Thesaurus.of(Thesaurus.builtInGroups(), ANALYZER);
        assertFalse(thesaurus.groupsOf(PorterStemmer.stem("shelve")).isEmpty());
        assertTrue(memberTerms(thesaurus, PorterStemmer.stem("shelving")).contains(List.of("stash")));
        assertTrue(memberTerms(thesaurus, "pr").contains(List.of("pull", "request")));
        assertTrue(memberTerms(thesaurus, "ticket").contains(List.of("issu")));
        assertTrue(memberTerms(thesaurus, "get rid of").contains(List.of("delet")),
                "a phrase with a stop word is matched with it and looked up without it");
        assertTrue(thesaurus.longest() >= 3);
    }

    @Test
    void aPhraseOfStopWordsRecognisesItsGroupButIsNotSearched() {
        Thesaurus thesaurus = Thesaurus.of(List.of(List.of("task", "to do", "look for")), ANALYZER);
        List<Thesaurus.Phrase> members = thesaurus.members(thesaurus.groupsOf("to do").get(0));
        assertEquals(3, members.size());
        assertTrue(members.get(0).searchable());
        assertFalse(members.get(1).searchable(), "'to do' has no term left");
        assertFalse(members.get(2).searchable(), "'look for' is reduced to 'look'");
    }

    @Test
    void parseSkipsCommentsAndBlanks() {
        assertEquals(List.of(List.of("a", "b c")), Thesaurus.parse(List.of("# why", "", " a , b c ,")));
    }

    @Test
    void groupsOfOneAreDropped() {
        assertEquals(0, Thesaurus.of(List.of(List.of("file", "files")), ANALYZER).size(),
                "file and files are one stem: nothing to expand");
    }

    private static List<List<String>> memberTerms(Thesaurus thesaurus, String stems) {
        return thesaurus.groupsOf(stems).stream().flatMap(g -> thesaurus.members(g).stream())
                .map(Thesaurus.Phrase::terms).toList();
    }
}
