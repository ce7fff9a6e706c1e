package mcp.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import mcp.api.CompletionReference;
import mcp.api.Content;
import mcp.api.McpJson;
import mcp.api.PromptDefinition;
import mcp.api.PromptResult;
import mcp.api.ResourceContents;
import mcp.api.ResourceDefinition;
import mcp.api.ResourceTemplate;
import mcp.api.ServerConfig;
import mcp.it.Cli.Run;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Resources, a resource template, a prompt and completions of the MCP Python SDK ({@code mcp} 2.3.0,
 * {@code interop/python/era_server.py}) through mcp-host's client and through the {@code mcp-host} command (the
 * runtime image), in both eras (the probe's 2026-07-28 and a pinned 2025-11-25), over stdio and stateless
 * Streamable HTTP on 127.0.0.1.
 */
class PythonSdkSurfaceIT {

    private static final EraPeer PEER = EraPeer.python();
    private static final String TEMPLATE = "era://cities/{city}";

    private final List<McpClient> clients = new ArrayList<>();
    private LoopbackServer http;

    @TempDir
    Path temp;

    @BeforeAll
    static void installed() {
        PEER.assertInstalled();
    }

    @AfterEach
    void closeAll() throws InterruptedException {
        clients.forEach(McpClient::close);
        clients.clear();
        if (http != null) {
            http.close();
        }
        EraPeer.assertNoChildLeft();
    }

    /** {@code bytes(range(256)) * 4}, the server's binary resource. */
    private static byte[] pixels() {
        byte[] bytes = new byte[1024];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) i;
        }
        return bytes;
    }

    /** The server on this transport: stdio, or a stateless HTTP server on a free port started for the test. */
    private ServerConfig server(String transport) throws Exception {
        if (transport.equals("stdio")) {
            return PEER.stdio();
        }
        http = new LoopbackServer(PEER::httpCommand);
        return EraPeer.http(http.port());
    }

    @ParameterizedTest(name = "{0}, {1}")
    @CsvSource({"stdio, auto", "stdio, 2025-11-25", "http, auto", "http, 2025-11-25"})
    void everyOperationByTheApi(String transport, String version) throws Exception {
        McpClient client = EraPeer.connect("py", server(transport),
                ClientOptions.builder("py").protocolVersion(version), temp, clients);
        assertEquals(version.equals("auto") ? "2026-07-28" : version, client.initializeResult().protocolVersion());

        // (memo://counter is the subscriptions test's resource, in the same server script.)
        List<ResourceDefinition> resources = McpClient.await(client.listResources()).stream()
                .filter(resource -> resource.uri().startsWith("era://")).toList();
        assertEquals(List.of("era://notes/readme", "era://data/pixels"),
                resources.stream().map(ResourceDefinition::uri).toList());
        assertEquals("Readme", resources.get(0).title().orElseThrow());
        assertEquals("application/octet-stream", resources.get(1).mimeType().orElseThrow());
        List<ResourceTemplate> templates = McpClient.await(client.listResourceTemplates());
        assertEquals(List.of(TEMPLATE), templates.stream().map(ResourceTemplate::uriTemplate).toList());

        ResourceContents readme = McpClient.await(client.readResource("era://notes/readme")).contents().get(0);
        assertEquals("Notes of the era server.", readme.text().orElseThrow());
        ResourceContents pixels = McpClient.await(client.readResource("era://data/pixels")).contents().get(0);
        assertTrue(pixels.blob().isPresent(), pixels.toString());
        assertArrayEquals(pixels(), pixels.bytes());
        assertEquals(1024, pixels.size());
        ResourceContents lima = McpClient.await(client.readResource("era://cities/Lima")).contents().get(0);
        assertEquals("Weather in Lima: sunny", lima.text().orElseThrow());

        List<PromptDefinition> prompts = McpClient.await(client.listPrompts());
        PromptDefinition trip = prompts.stream().filter(p -> p.name().equals("trip")).findFirst().orElseThrow();
        assertEquals(List.of("city", "days"), trip.arguments().stream().map(PromptDefinition.Argument::name).toList());
        assertTrue(trip.arguments().get(0).required());
        assertFalse(trip.arguments().get(1).required());
        PromptResult plan = McpClient.await(client.getPrompt("trip", Map.of("city", "Porto", "days", "5")));
        assertEquals("user", plan.messages().get(0).role());
        assertEquals("Plan 5 days in Porto.", ((Content.Text) plan.messages().get(0).content()).text());

        assertEquals(List.of("Paris", "Perth", "Porto", "Prague"), McpClient.await(client.complete(
                CompletionReference.prompt("trip"), "city", "P", Map.of())).values());
        assertEquals(List.of("Prague"), McpClient.await(client.complete(
                CompletionReference.resourceTemplate(TEMPLATE), "city", "Pr", Map.of())).values());
    }

    /** A config of two entries for the one server: {@code auto} as it comes, {@code pinned} to 2025-11-25. */
    private Path config(ServerConfig server) throws IOException {
        ObjectNode servers = McpJson.object();
        for (String name : List.of("auto", "pinned")) {
            ObjectNode entry = servers.putObject(name);
            if (server instanceof mcp.api.HttpServerConfig httpConfig) {
                entry.put("type", "http").put("url", httpConfig.url().toString());
            } else {
                entry.put("command", PEER.runtime().toString()).putArray("args").add(PEER.script().toString());
            }
            if (name.equals("pinned")) {
                entry.put("protocolVersion", "2025-11-25");
            }
        }
        ObjectNode root = McpJson.object();
        root.set("mcpServers", servers);
        Path config = temp.resolve("py.json");
        Files.writeString(config, root.toString());
        return config;
    }

    @ParameterizedTest
    @ValueSource(strings = {"stdio", "http"})
    void everyOperationByTheCommandLine(String transport) throws Exception {
        Path config = config(server(transport));
        Path home = Files.createDirectories(temp.resolve("home"));
        Path project = Files.createDirectories(temp.resolve("project"));
        List<String> common = List.of("--config", config.toString(), "--no-cache");
        java.util.function.Function<String[], Run> cli = args -> {
            List<String> all = new ArrayList<>(List.of(args));
            all.addAll(common);
            Run run = Cli.run(home, project, Map.of(), all.toArray(String[]::new));
            assertEquals(0, run.exitCode(), run::toString);
            return run;
        };

        JsonNode listing = cli.apply(new String[] {"resources", "--json"}).json();
        for (String server : List.of("auto", "pinned")) {
            assertTrue(contains(listing.get("resources"), server, "uri", "era://data/pixels"), listing.toString());
            assertTrue(contains(listing.get("templates"), server, "uriTemplate", TEMPLATE), listing.toString());
        }
        assertTrue(listing.get("errors").isEmpty(), listing.toString());
        JsonNode prompts = cli.apply(new String[] {"prompts", "--json"}).json();
        assertTrue(contains(prompts.get("prompts"), "auto", "name", "trip"), prompts.toString());
        assertTrue(contains(prompts.get("prompts"), "pinned", "name", "trip"), prompts.toString());

        for (String server : List.of("auto", "pinned")) {
            assertEquals("Notes of the era server.\n",
                    cli.apply(new String[] {"read", "--server", server, "era://notes/readme"}).out());
            assertEquals("Weather in Lima: sunny\n",
                    cli.apply(new String[] {"read", "--server", server, "era://cities/Lima"}).out());
            Path file = project.resolve(server + ".bin");
            cli.apply(new String[] {"read", "--server", server, "era://data/pixels", "-o", file.toString()});
            assertArrayEquals(pixels(), Files.readAllBytes(file));
            assertEquals("[user]\nPlan 2 days in Perth.\n",
                    cli.apply(new String[] {"prompt", server + ":trip", "{\"city\": \"Perth\", \"days\": \"2\"}"}).out());
            assertEquals("Paris\nPerth\nPorto\nPrague\n(total 4)\n",
                    cli.apply(new String[] {"complete", "--prompt", server + ":trip", "city", "P"}).out());
            assertEquals("Lima\n(total 1)\n", cli.apply(new String[] {"complete", "--server", server, "--resource",
                TEMPLATE, "city", "L"}).out());
        }
    }

    private static boolean contains(JsonNode array, String server, String field, String value) {
        for (JsonNode item : array) {
            if (item.path("server").asString("").equals(server) && item.path(field).asString("").equals(value)) {
                return true;
            }
        }
        return false;
    }
}
