package mcp.manager;

import static mcp.manager.TestServerProcesses.connect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import mcp.api.CompletionReference;
import mcp.api.CompletionResult;
import mcp.api.Content;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.PromptDefinition;
import mcp.api.PromptResult;
import mcp.api.ResourceDefinition;
import mcp.api.ResourceResult;
import mcp.api.ResourceTemplate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Prompts, resources, resource templates and completions against the testkit server (a real child over
 * stdio), in both eras: the 2025 handshake and the stateless 2026-07-28 revision, whose testkit refuses
 * any request without the per-request envelope, so that every answer here also shows the envelope was sent.
 */
class ClientSurfaceTest {

    private static final String ALL = "prompts,resources,completions";

    private final List<McpClient> clients = new ArrayList<>();

    private McpClient track(McpClient client) {
        clients.add(client);
        return client;
    }

    @AfterEach
    void closeEverything() throws InterruptedException {
        clients.forEach(McpClient::close);
        TestServerProcesses.assertNoChildProcessLeft();
    }

    private McpClient connectIn(String era, ClientOptions.Builder options, String... more) {
        List<String> args = new ArrayList<>(List.of("--era", era, "--features", ALL));
        args.addAll(List.of(more));
        McpClient client = track(connect(options.build().serverName(), options, args.toArray(String[]::new)));
        assertEquals(era.equals("modern") ? McpClient.MODERN_PROTOCOL_VERSION : McpClient.LATEST_PROTOCOL_VERSION,
                client.initializeResult().protocolVersion());
        return client;
    }

    private static List<String> received(McpClient client) {
        return TestServerProcesses.received(client);
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void listsPromptsOverPagesAndGetsOneWithItsArguments(String era) {
        // One item a page: the listing follows the cursor to the end.
        McpClient client = connectIn(era, ClientOptions.builder("prompts-" + era), "--page-size", "1");
        List<PromptDefinition> prompts = McpClient.await(client.listPrompts());
        assertEquals(List.of("hello", "greet"), prompts.stream().map(PromptDefinition::name).toList());
        PromptDefinition greet = prompts.get(1);
        assertEquals("Greeting", greet.title().orElseThrow());
        assertEquals(List.of("name", "style"), greet.arguments().stream().map(PromptDefinition.Argument::name).toList());
        assertTrue(greet.arguments().get(0).required());
        assertFalse(greet.arguments().get(1).required());

        PromptResult result = McpClient.await(client.getPrompt("greet", Map.of("name", "Ada", "style", "formal")));
        assertEquals(1, result.messages().size());
        assertEquals("user", result.messages().get(0).role());
        assertEquals("Greet Ada in a formal style.", ((Content.Text) result.messages().get(0).content()).text());
        assertEquals("The greet prompt", result.description().orElseThrow());

        PromptResult hello = McpClient.await(client.getPrompt("hello", Map.of()));
        assertEquals("Hello from the testkit.", ((Content.Text) hello.messages().get(0).content()).text());

        McpProtocolException missing = assertThrows(McpProtocolException.class,
                () -> McpClient.await(client.getPrompt("greet", Map.of())));
        assertTrue(missing.getMessage().contains("Missing required argument: name"), missing.getMessage());
        List<String> methods = received(client);
        assertEquals(2, methods.stream().filter("prompts/list"::equals).count(), "two pages: " + methods);
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void listsAndReadsTextBinaryAndTemplatedResources(String era) {
        McpClient client = connectIn(era, ClientOptions.builder("resources-" + era), "--page-size", "1",
                "--blob-bytes", "300");
        List<ResourceDefinition> resources = McpClient.await(client.listResources());
        assertEquals(List.of("test://text/readme", "test://blob/data"),
                resources.stream().map(ResourceDefinition::uri).toList());
        assertEquals(300, resources.get(1).size().orElseThrow());
        assertEquals("text/plain", resources.get(0).mimeType().orElseThrow());

        ResourceResult text = McpClient.await(client.readResource("test://text/readme"));
        assertEquals("The testkit's readme.", text.contents().get(0).text().orElseThrow());
        assertEquals(21, text.size());

        ResourceResult blob = McpClient.await(client.readResource("test://blob/data"));
        byte[] expected = new byte[300];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = (byte) i;
        }
        assertArrayEquals(expected, blob.contents().get(0).bytes());
        assertEquals(300, blob.size(), "the decoded size, not the base64 length");

        List<ResourceTemplate> templates = McpClient.await(client.listResourceTemplates());
        assertEquals(List.of("test://items/{id}"), templates.stream().map(ResourceTemplate::uriTemplate).toList());
        ResourceResult item = McpClient.await(client.readResource("test://items/42"));
        assertEquals("item 42", item.contents().get(0).text().orElseThrow());

        McpProtocolException notFound = assertThrows(McpProtocolException.class,
                () -> McpClient.await(client.readResource("test://nowhere")));
        assertEquals(-32002, notFound.code());
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void aResourceOverTheLimitFailsThatReadNamingItAndTheSessionStaysUp(String era) {
        McpClient client = connectIn(era, ClientOptions.builder("limit-" + era).maxResourceBytes(1000),
                "--blob-bytes", "1001");
        McpException error = assertThrows(McpException.class,
                () -> McpClient.await(client.readResource("test://blob/data")));
        String message = error.getMessage();
        assertTrue(message.startsWith("MCP server \"limit-" + era + "\""), message);
        assertTrue(message.contains("test://blob/data"), message);
        assertTrue(message.contains("1001 bytes"), message);
        assertTrue(message.contains("limit of 1000 bytes"), message);
        assertTrue(client.isOpen());
        // The same session reads on: a resource under the limit, and a tool call.
        assertEquals("The testkit's readme.",
                McpClient.await(client.readResource("test://text/readme")).contents().get(0).text().orElseThrow());
        assertEquals("hi", ((Content.Text) client.callToolBlocking("echo",
                McpJson.mapper().readTree("{\"message\":\"hi\"}")).content().get(0)).text());
    }

    @Test
    void aBlobAtTheLimitIsRead() {
        McpClient client = connectIn("legacy", ClientOptions.builder("at-limit").maxResourceBytes(1000),
                "--blob-bytes", "1000");
        assertEquals(1000, McpClient.await(client.readResource("test://blob/data")).contents().get(0).bytes().length);
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void completesPromptAndTemplateArguments(String era) {
        McpClient client = connectIn(era, ClientOptions.builder("complete-" + era));
        CompletionResult styles = McpClient.await(client.complete(CompletionReference.prompt("greet"), "style", "f",
                Map.of()));
        assertEquals(List.of("formal", "friendly", "funny"), styles.values());
        assertEquals(3, styles.total().orElseThrow());
        assertFalse(styles.hasMore());

        CompletionResult names = McpClient.await(client.complete(CompletionReference.prompt("greet"), "name", "A",
                Map.of("style", "formal")));
        assertEquals(List.of("Dr. Ada", "Dr. Alan"), names.values(), "the context reached the server");

        CompletionResult ids = McpClient.await(client.complete(
                CompletionReference.resourceTemplate("test://items/{id}"), "id", "4", Map.of()));
        assertEquals(List.of("42"), ids.values());
    }

    @Test
    void aRepeatedCursorEndsAPromptListing() {
        McpClient client = connectIn("legacy", ClientOptions.builder("loop"), "--page-size", "1",
                "--fault", "repeat-cursor");
        assertEquals(List.of("hello"), McpClient.await(client.listPrompts()).stream().map(PromptDefinition::name)
                .toList());
        assertEquals(List.of("test://text/readme"), McpClient.await(client.listResources()).stream()
                .map(ResourceDefinition::uri).toList());
    }

    @Test
    void thePageCapEndsAResourceListing() {
        McpClient client = connectIn("legacy", ClientOptions.builder("capped").maxListPages(1), "--page-size", "1");
        assertEquals(1, McpClient.await(client.listResources()).size());
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void withoutTheCapabilityEachCallFailsAtOnceAndNothingIsSent(String era) {
        // A server that offers tools alone.
        McpClient client = track(connect("bare-" + era, "--era", era));
        List<CompletableFuture<?>> calls = List.of(client.listPrompts(), client.getPrompt("greet", Map.of()),
                client.listResources(), client.listResourceTemplates(), client.readResource("test://text/readme"),
                client.complete(CompletionReference.prompt("greet"), "style", "", Map.of()));
        for (CompletableFuture<?> call : calls) {
            assertTrue(call.isDone(), "failed at once");
            McpException error = assertThrows(McpException.class, () -> McpClient.await(call));
            assertTrue(error.getMessage().startsWith("MCP server \"bare-" + era + "\" does not offer "),
                    error.getMessage());
        }
        String why = McpClient.await(client.listResources().handle((v, e) -> e.getMessage()));
        assertTrue(why.contains("declared no \"resources\" capability") && why.contains("resources/list was not sent"),
                why);
        List<String> methods = received(client);
        assertTrue(methods.stream().noneMatch(m -> m.startsWith("prompts/") || m.startsWith("resources/")
                || m.startsWith("completion/")), "nothing sent: " + methods);
    }
}
