package mcp.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The value types of prompts, resources and completions read from their MCP JSON forms. */
class ResourceValuesTest {

    private static ResourceContents blob(byte[] bytes) {
        return new ResourceContents("x:/b", Optional.empty(), Optional.empty(),
                Optional.of(Base64.getEncoder().encodeToString(bytes)));
    }

    @Test
    void theDecodedSizeOfABlobIsKnownWithoutDecodingItForEveryPadding() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int length = 0; length < 40; length++) {
            byte[] bytes = new byte[length];
            random.nextBytes(bytes);
            ResourceContents contents = blob(bytes);
            assertEquals(length, contents.size(), "length " + length + ", seed " + seed);
            assertArrayEquals(bytes, contents.bytes());
            ResourceContents unpadded = new ResourceContents("x:/u", Optional.empty(), Optional.empty(),
                    Optional.of(Base64.getEncoder().withoutPadding().encodeToString(bytes)));
            assertEquals(length, unpadded.size(), "unpadded, length " + length + ", seed " + seed);
            ResourceContents wrapped = new ResourceContents("x:/w", Optional.empty(), Optional.empty(),
                    Optional.of(Base64.getMimeEncoder(8, "\r\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(bytes)));
            assertEquals(length, wrapped.size(), "wrapped, length " + length + ", seed " + seed);
            assertArrayEquals(bytes, wrapped.bytes());
        }
    }

    @Test
    void theSizeOfTextIsItsUtf8Length() {
        String text = "a\u00e9\u20ac\uD83D\uDE00"; // 1 + 2 + 3 + 4 bytes
        ResourceContents contents = new ResourceContents("x:/t", Optional.empty(), Optional.of(text), Optional.empty());
        assertEquals(text.getBytes(StandardCharsets.UTF_8).length, contents.size());
        assertEquals(10, contents.size());
        assertEquals(0, new ResourceContents("x:/n", Optional.empty(), Optional.empty(), Optional.empty()).size());
    }

    @Test
    void aBlobThatIsNotBase64FailsWithTheUri() {
        ResourceContents bad = new ResourceContents("x:/bad", Optional.empty(), Optional.empty(), Optional.of("!!!"));
        McpException error = assertThrows(McpException.class, bad::bytes);
        assertTrue(error.getMessage().contains("x:/bad"), error.getMessage());
    }

    @Test
    void readsPromptsResourcesTemplatesAndCompletions() {
        PromptDefinition prompt = PromptDefinition.fromJson(McpJson.mapper().readTree(
                "{\"name\":\"p\",\"arguments\":[{\"name\":\"a\",\"required\":true},{\"description\":\"no name\"},"
                        + "{\"name\":\"b\"}]}"));
        assertEquals(List.of("a", "b"), prompt.arguments().stream().map(PromptDefinition.Argument::name).toList());
        assertTrue(prompt.arguments().get(0).required());
        assertFalse(prompt.arguments().get(1).required());
        assertThrows(McpException.class, () -> PromptDefinition.fromJson(McpJson.mapper().readTree("{\"name\":1}")));

        ResourceDefinition resource = ResourceDefinition.fromJson(McpJson.mapper().readTree(
                "{\"uri\":\"x:/r\",\"size\":-1}"));
        assertEquals("x:/r", resource.name(), "a missing name is the URI");
        assertTrue(resource.size().isEmpty(), "a negative size is no size");

        ResourceTemplate template = ResourceTemplate.fromJson(McpJson.mapper().readTree(
                "{\"uriTemplate\":\"x:/{id}\",\"name\":\"t\"}"));
        assertEquals("t", template.name());

        CompletionResult completion = CompletionResult.fromJson(McpJson.mapper().readTree(
                "{\"completion\":{\"values\":[\"a\",2,\"b\"],\"hasMore\":true}}"));
        assertEquals(List.of("a", "b"), completion.values());
        assertTrue(completion.hasMore());
        assertTrue(completion.total().isEmpty());

        PromptResult result = PromptResult.fromJson(McpJson.mapper().readTree(
                "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"hi\"}},"
                        + "{\"role\":\"assistant\",\"content\":{\"type\":\"future\"}}],\"extra\":1}"));
        assertEquals(new Content.Text("hi"), result.messages().get(0).content());
        assertTrue(result.messages().get(1).content() instanceof Content.Unknown, "an unknown kind is kept");
        assertEquals(1, result.raw().path("extra").asInt(), "unknown members stay in raw");

        assertEquals("{\"type\":\"ref/prompt\",\"name\":\"p\"}", CompletionReference.prompt("p").toJson().toString());
        assertEquals("{\"type\":\"ref/resource\",\"uri\":\"x:/{id}\"}",
                CompletionReference.resourceTemplate("x:/{id}").toJson().toString());
    }
}
