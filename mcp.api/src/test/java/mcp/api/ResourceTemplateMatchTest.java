package mcp.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which URIs a resource template stands for: the RFC 6570 matching that routes a read to the server whose template it is. */
class ResourceTemplateMatchTest {

    @Test
    void aSimpleExpressionMatchesOneSegment() {
        assertTrue(ResourceTemplate.matches("test://items/{id}", "test://items/42"));
        assertTrue(ResourceTemplate.matches("demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/text/7"));
        assertFalse(ResourceTemplate.matches("test://items/{id}", "test://items/"), "an empty value");
        assertFalse(ResourceTemplate.matches("test://items/{id}", "test://items/4/2"), "a / is encoded in a value");
        assertFalse(ResourceTemplate.matches("test://items/{id}", "test://other/42"));
        assertTrue(ResourceTemplate.matches("repo://{owner}/{name}/readme", "repo://ada/engine/readme"));
        assertFalse(ResourceTemplate.matches("repo://{owner}/{name}/readme", "repo://ada/engine/license"));
    }

    @Test
    void theLiteralPartsAreNotPatterns() {
        assertTrue(ResourceTemplate.matches("a.b://x?y={q}", "a.b://x?y=1"));
        assertFalse(ResourceTemplate.matches("a.b://x?y={q}", "aXb://x?y=1"));
        assertTrue(ResourceTemplate.matches("plain://no/template", "plain://no/template"));
        assertTrue(ResourceTemplate.matches("broken://{open", "broken://{open"), "an unclosed brace is literal");
    }

    @Test
    void reservedAndOtherExpansionsMatchAnything() {
        assertTrue(ResourceTemplate.matches("file:///{+path}", "file:///home/ada/notes.txt"));
        assertTrue(ResourceTemplate.matches("search://q{?query,page}", "search://q?query=x&page=2"));
        assertTrue(ResourceTemplate.matches("search://q{?query,page}", "search://q"));
    }

    @Test
    void theValuesOfTheVariablesAreWhatTheUriSays() {
        assertEquals(Optional.of(Map.of("id", "123")), ResourceTemplate.variables("test://template/{id}/data",
                "test://template/123/data"));
        assertEquals(Optional.of(Map.of("owner", "ada lovelace", "name", "a+b")), ResourceTemplate.variables(
                "repo://{owner}/{name}", "repo://ada%20lovelace/a+b"), "simple values are percent-decoded, + stays");
        assertEquals(Optional.of(Map.of("path", "home/ada%2Fx")), ResourceTemplate.variables("file:///{+path}",
                "file:///home/ada%2Fx"), "a reserved expansion's value stays as it is");
        assertEquals(Optional.empty(), ResourceTemplate.variables("test://items/{id}", "test://items/4/2"));
    }
}
