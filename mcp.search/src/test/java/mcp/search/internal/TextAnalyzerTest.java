package mcp.search.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Identifier splitting, stop words and stemming, each switchable. */
class TextAnalyzerTest {

    private static final TextAnalyzer FULL = new TextAnalyzer(true, true, true);
    private static final TextAnalyzer PLAIN = new TextAnalyzer(false, false, false);
    private static final TextAnalyzer SPLIT_ONLY = new TextAnalyzer(true, false, false);

    @Test
    void splitsEveryIdentifierStyle() {
        assertEquals(List.of("create", "issue"), SPLIT_ONLY.words("create_issue"));
        assertEquals(List.of("create", "issue"), SPLIT_ONLY.words("createIssue"));
        assertEquals(List.of("create", "issue"), SPLIT_ONLY.words("CreateIssue"));
        assertEquals(List.of("create", "issue"), SPLIT_ONLY.words("create-issue"));
        assertEquals(List.of("git", "create"), SPLIT_ONLY.words("git.create"));
        assertEquals(List.of("http", "server", "url"), SPLIT_ONLY.words("HTTPServerURL"));
        assertEquals(List.of("get", "s3", "object"), SPLIT_ONLY.words("getS3Object"));
        assertEquals(List.of("base64", "encode"), SPLIT_ONLY.words("base64Encode"));
        assertEquals(List.of("list", "prs", "for", "user"), SPLIT_ONLY.words("list_PRs__for-user"));
    }

    @Test
    void plainModeKeepsSnakeCaseWholeAndCaseFolds() {
        assertEquals(List.of("create_issue", "in", "createissue"), PLAIN.words("create_issue in createIssue"));
        assertEquals(List.of("git", "create"), PLAIN.words("git.create"));
    }

    @Test
    void termsDropStopWordsAndStem() {
        assertEquals(List.of("delet", "old", "file"), FULL.terms("Please delete my old files"));
        assertEquals(List.of("list", "open", "issu", "assign"), FULL.terms("list_open_issues assigned to me"));
        assertEquals(List.of("please", "delete", "my", "old", "files"), SPLIT_ONLY.terms("Please delete my old files"));
    }

    @Test
    void intentWordsAreNotStopWords() {
        for (String word : List.of("all", "new", "get", "show", "open", "up", "list", "find")) {
            assertFalse(FULL.isStopWord(word), word);
        }
        assertTrue(FULL.isStopWord("please"));
        assertFalse(PLAIN.isStopWord("please"), "stop words off");
    }

    @Test
    void tokensKeepStopWordsForPhrases() {
        List<TextAnalyzer.Token> tokens = FULL.tokens("get rid of it");
        assertEquals(List.of("get", "rid", "of", "it"), tokens.stream().map(TextAnalyzer.Token::word).toList());
    }

    @Test
    void irregularPluralsMeetTheirSingularAndNewsStaysNews() {
        assertEquals(FULL.term("index"), FULL.term("indices"));
        assertEquals(FULL.term("person"), FULL.term("people"));
        assertEquals("news", FULL.term("news"));
        assertEquals("new", FULL.term("new"));
        assertEquals("indices", SPLIT_ONLY.term("indices"), "no stemming, no mapping");
    }
}
