package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import mcp.api.McpJson;
import mcp.host.LoadResult;
import mcp.host.McpHost;
import mcp.manager.McpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The host resolves secret references (the {@code values} auth resolver, found by ServiceLoader)
 * before it starts a server: an env value naming an environment variable, and a {@code !command}.
 * The reference server's {@code get-env} tool shows what the process received.
 */
class SecretValuesIT {

    @TempDir
    Path temp;

    @Test
    void envValuesAreResolvedJustBeforeConnect() throws Exception {
        Path script = Path.of(System.getProperty("mcp.interop.dir", "../interop"))
                .resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js").toAbsolutePath();
        Path config = temp.resolve("mcp.json");
        Files.writeString(config, "{\"mcpServers\": {\"everything\": {\"command\": \"node\", \"args\": [\""
                + script + "\", \"stdio\"], \"env\": {\"FROM_VARIABLE\": \"MCP_IT_TOKEN\","
                + " \"FROM_COMMAND\": \"!echo from-a-command\", \"LITERAL\": \"just text\"}}}}");
        Map<String, String> environment = new HashMap<>(System.getenv());
        environment.put("MCP_IT_TOKEN", "s3cret-value");
        try (McpHost host = McpHost.builder().configFile(config).home(temp).workingDirectory(temp).cache(false)
                .environment(environment).build()) {
            LoadResult loaded = host.load();
            assertEquals(Map.of(), loaded.errors());
            String text = McpClient.await(loaded.tools().stream().filter(t -> t.toolName().equals("get-env"))
                    .findFirst().orElseThrow().call(null)).text();
            JsonNode env = McpJson.mapper().readTree(text);
            assertEquals("s3cret-value", env.path("FROM_VARIABLE").asString());
            assertEquals("from-a-command", env.path("FROM_COMMAND").asString());
            assertEquals("just text", env.path("LITERAL").asString());
            assertTrue(loaded.discovery().configs().get("everything").toString().contains("FROM_VARIABLE"));
            assertFalse(loaded.discovery().configs().get("everything").toString().contains("s3cret"),
                    "configs keep the unresolved value");
        }
    }
}
