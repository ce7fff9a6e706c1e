package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import mcp.api.CompletionReference;
import mcp.api.Content;
import mcp.api.McpException;
import mcp.api.PromptDefinition;
import mcp.api.PromptResult;
import mcp.api.ResourceContents;
import mcp.api.ResourceDefinition;
import mcp.api.ResourceTemplate;
import mcp.api.StdioServerConfig;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Prompts, resources, resource templates and completions of mcp-host's client against
 * {@code @modelcontextprotocol/server-everything} over stdio, a server nobody on this team wrote.
 */
class ReferenceSurfaceIT {

    private static final Path INTEROP = Path.of(System.getProperty("mcp.interop.dir", "../interop")).toAbsolutePath();

    @TempDir
    Path temp;

    private McpClient connect(ClientOptions.Builder options) {
        Path script = INTEROP.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        assertTrue(Files.isRegularFile(script), script + " is missing: run interop/install.sh (mvn verify runs it)");
        TransportProvider stdio = ServiceLoader.load(TransportProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.id().equals("stdio")).findFirst().orElseThrow();
        StdioServerConfig config = StdioServerConfig.of("node", List.of(script.toString(), "stdio"));
        return McpClient.connectBlocking(stdio.open(TransportRequest.of("everything", config, temp)), options.build());
    }

    private static void assertNoProcessLeft() throws InterruptedException {
        long deadline = System.nanoTime() + 3_000_000_000L;
        while (ProcessHandle.current().descendants().anyMatch(ProcessHandle::isAlive)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("a server process outlived its client");
            }
            Thread.sleep(50);
        }
    }

    @Test
    void promptsResourcesTemplatesAndCompletions() throws Exception {
        try (McpClient client = connect(ClientOptions.builder("everything"))) {
            List<PromptDefinition> prompts = McpClient.await(client.listPrompts());
            List<String> names = prompts.stream().map(PromptDefinition::name).toList();
            assertTrue(names.containsAll(List.of("simple-prompt", "args-prompt", "completable-prompt")), names.toString());
            PromptDefinition args = prompts.stream().filter(p -> p.name().equals("args-prompt")).findFirst().orElseThrow();
            assertEquals(List.of("city", "state"), args.arguments().stream().map(PromptDefinition.Argument::name).toList());
            assertTrue(args.arguments().get(0).required());

            PromptResult weather = McpClient.await(client.getPrompt("args-prompt", Map.of("city", "Paris",
                    "state", "Texas")));
            assertEquals("What's weather in Paris, Texas?",
                    ((Content.Text) weather.messages().get(0).content()).text());

            List<ResourceDefinition> resources = McpClient.await(client.listResources());
            assertFalse(resources.isEmpty());
            ResourceDefinition first = resources.get(0);
            assertTrue(first.uri().startsWith("demo://resource/static/document/"), first.uri());
            ResourceContents document = McpClient.await(client.readResource(first.uri())).contents().get(0);
            assertEquals(first.uri(), document.uri());
            assertTrue(document.size() > 0);

            List<ResourceTemplate> templates = McpClient.await(client.listResourceTemplates());
            List<String> uriTemplates = templates.stream().map(ResourceTemplate::uriTemplate).toList();
            assertTrue(uriTemplates.containsAll(List.of("demo://resource/dynamic/text/{resourceId}",
                    "demo://resource/dynamic/blob/{resourceId}")), uriTemplates.toString());

            ResourceContents text = McpClient.await(client.readResource("demo://resource/dynamic/text/7")).contents()
                    .get(0);
            assertTrue(text.text().orElseThrow().startsWith("Resource 7: This is a plaintext resource"), text.toString());
            ResourceContents blob = McpClient.await(client.readResource("demo://resource/dynamic/blob/7")).contents()
                    .get(0);
            assertTrue(blob.blob().isPresent());
            String decoded = new String(blob.bytes(), StandardCharsets.UTF_8);
            assertTrue(decoded.startsWith("Resource 7: This is a base64 blob"), decoded);
            assertEquals(decoded.getBytes(StandardCharsets.UTF_8).length, blob.size());

            assertEquals(List.of("Engineering"), McpClient.await(client.complete(
                    CompletionReference.prompt("completable-prompt"), "department", "Eng", Map.of())).values());
            assertEquals(List.of("Alice"), McpClient.await(client.complete(CompletionReference.prompt(
                    "completable-prompt"), "name", "A", Map.of("department", "Engineering"))).values());
            assertEquals(List.of("12"), McpClient.await(client.complete(CompletionReference.resourceTemplate(
                    "demo://resource/dynamic/text/{resourceId}"), "resourceId", "12", Map.of())).values());
        }
        assertNoProcessLeft();
    }

    @Test
    void aBlobOverTheLimitFailsThatReadAndTheSessionStaysUp() throws Exception {
        try (McpClient client = connect(ClientOptions.builder("everything").maxResourceBytes(10))) {
            McpException error = assertThrows(McpException.class,
                    () -> McpClient.await(client.readResource("demo://resource/dynamic/blob/3")));
            assertTrue(error.getMessage().startsWith("MCP server \"everything\": resource demo://resource/dynamic/blob/3"),
                    error.getMessage());
            assertTrue(error.getMessage().contains("limit of 10 bytes"), error.getMessage());
            assertTrue(client.isOpen());
            assertFalse(McpClient.await(client.listPrompts()).isEmpty());
        }
        assertNoProcessLeft();
    }
}
