package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class UriTemplatesTest {

    @Test
    void aSimpleExpressionMatchesOneSegment() {
        assertTrue(UriTemplates.matches("test://items/{id}", "test://items/42"));
        assertTrue(UriTemplates.matches("demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/text/7"));
        assertFalse(UriTemplates.matches("test://items/{id}", "test://items/"), "an empty value");
        assertFalse(UriTemplates.matches("test://items/{id}", "test://items/4/2"), "a / is encoded in a value");
        assertFalse(UriTemplates.matches("test://items/{id}", "test://other/42"));
        assertTrue(UriTemplates.matches("repo://{owner}/{name}/readme", "repo://ada/engine/readme"));
        assertFalse(UriTemplates.matches("repo://{owner}/{name}/readme", "repo://ada/engine/license"));
    }

    @Test
    void theLiteralPartsAreNotPatterns() {
        assertTrue(UriTemplates.matches("a.b://x?y={q}", "a.b://x?y=1"));
        assertFalse(UriTemplates.matches("a.b://x?y={q}", "aXb://x?y=1"));
        assertTrue(UriTemplates.matches("plain://no/template", "plain://no/template"));
        assertTrue(UriTemplates.matches("broken://{open", "broken://{open"), "an unclosed brace is literal");
    }

    @Test
    void reservedAndOtherExpansionsMatchAnything() {
        assertTrue(UriTemplates.matches("file:///{+path}", "file:///home/ada/notes.txt"));
        assertTrue(UriTemplates.matches("search://q{?query,page}", "search://q?query=x&page=2"));
        assertTrue(UriTemplates.matches("search://q{?query,page}", "search://q"));
    }
}
