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
import mcp.api.McpJson;
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
import tools.jackson.databind.JsonNode;

/**
 * Prompts, resources, resource templates and completions of mcp-host's client, and of the {@code mcp-host} command
 * (the runtime image), against {@code @modelcontextprotocol/server-everything} over stdio, a server nobody on this
 * team wrote.
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

    /** Runs the runtime image's {@code mcp-host} with a config of server-everything; asserts the exit code. */
    private Cli.Run cli(int exitCode, String... args) throws java.io.IOException {
        Path script = INTEROP.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        Path config = temp.resolve("everything.json");
        if (!Files.exists(config)) {
            Files.writeString(config, "{\"mcpServers\": {\"everything\": {\"command\": \"node\", \"args\": ["
                    + McpJson.mapper().writeValueAsString(script.toString()) + ", \"stdio\"]}}}");
        }
        Path home = Files.createDirectories(temp.resolve("home"));
        Path project = Files.createDirectories(temp.resolve("project"));
        List<String> all = new java.util.ArrayList<>(List.of(args));
        all.addAll(List.of("--config", config.toString(), "--no-cache"));
        Cli.Run run = Cli.run(home, project, Map.of(), all.toArray(String[]::new));
        assertEquals(exitCode, run.exitCode(), run::toString);
        return run;
    }

    @Test
    void theCommandLineListsReadsGetsAndCompletes() throws Exception {
        JsonNode listing = cli(0, "resources", "--json").json();
        assertTrue(listing.get("resources").size() > 0, listing.toString());
        JsonNode first = listing.at("/resources/0");
        assertEquals("everything", first.get("server").asString());
        assertTrue(first.get("uri").asString().startsWith("demo://resource/static/document/"), first.toString());
        List<String> templates = new java.util.ArrayList<>();
        listing.get("templates").forEach(t -> templates.add(t.get("uriTemplate").asString()));
        assertTrue(templates.contains("demo://resource/dynamic/blob/{resourceId}"), templates.toString());
        assertTrue(listing.get("errors").isEmpty(), listing.toString());
        assertTrue(cli(0, "resources").out().lines().findFirst().orElse("").startsWith("everything ("));

        // Found by its template, without --server.
        assertTrue(cli(0, "read", "demo://resource/dynamic/text/7").out()
                .startsWith("Resource 7: This is a plaintext resource"));
        Cli.Run described = cli(0, "read", "demo://resource/dynamic/blob/7");
        assertTrue(described.out().startsWith("[binary: demo://resource/dynamic/blob/7"), described::toString);
        Path file = temp.resolve("blob7.bin");
        cli(0, "read", "demo://resource/dynamic/blob/7", "-o", file.toString());
        // The blob is text with the time it was made: the file holds it decoded, the JSON as the server sent it.
        String blob = "Resource 7: This is a base64 blob created at [0-9]{1,2}:[0-9]{2}:[0-9]{2}( [AP]M)?";
        String saved = Files.readString(file, StandardCharsets.UTF_8);
        assertTrue(saved.matches(blob), saved);
        JsonNode raw = cli(0, "read", "--json", "demo://resource/dynamic/blob/7").json();
        String sent = new String(java.util.Base64.getDecoder().decode(raw.at("/contents/0/blob").asString()),
                StandardCharsets.UTF_8);
        assertTrue(sent.matches(blob), sent);

        Cli.Run over = cli(1, "read", "--max-bytes", "10", "demo://resource/dynamic/blob/3", "-o",
                temp.resolve("never.bin").toString());
        assertTrue(over.err().contains("resource demo://resource/dynamic/blob/3 is "), over::toString);
        assertTrue(over.err().contains("over the limit of 10 bytes"), over::toString);
        assertFalse(Files.exists(temp.resolve("never.bin")));

        JsonNode prompts = cli(0, "prompts", "--json").json();
        JsonNode args = null;
        for (JsonNode prompt : prompts.get("prompts")) {
            if (prompt.get("name").asString().equals("args-prompt")) {
                args = prompt;
            }
        }
        assertTrue(args != null, prompts.toString());
        assertEquals("city", args.at("/arguments/0/name").asString());
        assertTrue(args.at("/arguments/0/required").asBoolean());
        assertTrue(cli(0, "prompts").out().lines().anyMatch(l -> l.startsWith("everything:args-prompt (city*, state")));
        assertEquals("[user]\nWhat's weather in Paris, Texas?\n",
                cli(0, "prompt", "args-prompt", "{\"city\": \"Paris\", \"state\": \"Texas\"}").out());
        Cli.Run missing = cli(1, "prompt", "everything:args-prompt");
        assertFalse(missing.err().isBlank(), missing::toString);

        assertTrue(cli(0, "complete", "--prompt", "completable-prompt", "department", "Eng").out()
                .startsWith("Engineering\n"));
        assertTrue(cli(0, "complete", "--prompt", "everything:completable-prompt", "name", "A", "--context",
                "department=Engineering").out().startsWith("Alice\n"));
        JsonNode completion = cli(0, "complete", "--json", "--resource", "demo://resource/dynamic/text/{resourceId}",
                "resourceId", "12").json();
        assertEquals("12", completion.at("/completion/values/0").asString());
        assertNoProcessLeft();
    }

    /**
     * The agent's side: a session of the embedding API over server-everything gets the resource tools and the
     * prompts as commands from the manager's slices, and both work against the real server.
     */
    @Test
    void theAgentsResourceToolsAndPromptCommandsWorkAgainstTheReferenceServer() throws Exception {
        Path script = INTEROP.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        Path config = temp.resolve("mcp.json");
        Files.writeString(config, McpJson.object().set("mcpServers", McpJson.object().set("everything",
                McpJson.object().put("command", "node").set("args", McpJson.mapper().createArrayNode()
                        .add(script.toString()).add("stdio")))).toString());
        try (mcp.host.ToolSession session = mcp.host.McpHost.builder().configFile(config).home(temp)
                .workingDirectory(temp).cache(false).build().openSession()) {
            mcp.host.AgentTool list = session.tool("list_mcp_resources").orElseThrow();
            mcp.manager.ToolOutput listing = McpClient.await(list.call(null));
            assertFalse(listing.isError(), listing.text());
            assertTrue(listing.text().startsWith("Server everything:\n- demo://resource/static/document/"),
                    listing.text());
            assertTrue(listing.text().contains("- template demo://resource/dynamic/text/{resourceId}"), listing.text());

            mcp.manager.ToolOutput read = McpClient.await(session.tool("read_mcp_resource").orElseThrow().call(
                    McpJson.mapper().readTree("{\"server\":\"everything\",\"uri\":\"demo://resource/dynamic/text/7\"}")));
            assertFalse(read.isError(), read.text());
            assertTrue(read.text().startsWith("[Resource: demo://resource/dynamic/text/7]\n"), read.text());

            mcp.host.PromptCommand args = session.prompts().stream().filter(p -> p.name().equals("everything:args-prompt"))
                    .findFirst().orElseThrow(() -> new AssertionError(session.prompts().toString()));
            mcp.manager.ToolOutput weather = McpClient.await(args.run(Map.of("city", "Paris", "state", "Texas")));
            assertTrue(weather.text().endsWith("user: What's weather in Paris, Texas?"), weather.text());
        }
        assertNoProcessLeft();
    }
}
