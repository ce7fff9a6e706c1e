package mcp.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import mcp.api.McpJson;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class TokenCounterTest {

    private final TokenCounter counter = TokenCounter.get();

    @Test
    void countsWordsAsTheEncodingSplitsThem() {
        assertEquals(0, counter.count(""));
        // Common English words are one token each with their leading space, punctuation its own.
        assertEquals(2, counter.count("hello world"));
        assertEquals(10, counter.count("The quick brown fox jumps over the lazy dog."));
        assertEquals(4, counter.count("Hello, world!"));
    }

    @Test
    void specialTokenMarkersAreOrdinaryText() {
        // A server's text may contain a model's control markers: counted as text, never an error.
        assertTrue(counter.count("<|endoftext|>") > 1);
    }

    @Test
    void aDefinitionCountsItsJsonAsSent() {
        JsonNode schema = McpJson.mapper().readTree("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"}}}");
        int tokens = counter.countDefinition("mcp_kit_add", "Adds two numbers", schema);
        assertEquals(counter.count(McpJson.mapper().writeValueAsString(
                TokenCounter.definitionJson("mcp_kit_add", "Adds two numbers", schema))), tokens);
        // A longer description costs more, by about its own tokens.
        int longer = counter.countDefinition("mcp_kit_add", "Adds two numbers and returns their sum", schema);
        assertEquals(tokens + counter.count(" and returns their sum"), longer);
    }
}
