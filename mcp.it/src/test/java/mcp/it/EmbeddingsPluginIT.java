package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import mcp.api.McpJson;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The local embedding module as a plugin of the command users get: the jlink image's {@code mcp-host} with
 * {@code mcp.search.embeddings/target/plugin} (the module's jar and what the image lacks, as the build lays it out)
 * on {@code --plugin-path}, ranking the tools of a testkit server. The model is read from its jar inside the plugins'
 * module layer, and the answer says which ranker answered.
 */
class EmbeddingsPluginIT {

    private static final Path PLUGIN = Path.of(System.getProperty("mcp.embeddings.plugin",
            "../mcp.search.embeddings/target/plugin")).toAbsolutePath().normalize();

    @TempDir
    Path temp;

    @Test
    void theImageRanksWithTheEmbeddingModuleFromThePluginPath() throws IOException {
        assertTrue(Files.isExecutable(Cli.IMAGE.resolve("bin/mcp-host")), "build mcp.cli (mvn package) first");
        assertTrue(Files.isDirectory(PLUGIN), PLUGIN + " is missing: build mcp.search.embeddings (mvn package) first");
        Path home = Files.createDirectories(temp.resolve("home"));
        List<String> server = TestServers.command();
        ObjectNode kit = McpJson.object().put("command", server.get(0));
        server.subList(1, server.size()).forEach(kit.putArray("args")::add);
        ObjectNode servers = McpJson.object();
        servers.set("kit", kit);
        Files.writeString(Files.createDirectories(home.resolve(".config/mcp-host")).resolve("mcp.json"),
                McpJson.object().set("mcpServers", servers).toString());

        Cli.Run run = Cli.run(home, home, Map.of(), "--plugin-path", PLUGIN.toString(), "tools", "--search",
                "say it back to me", "--json");

        assertEquals(0, run.exitCode(), run.toString());
        JsonNode answer = run.json();
        assertEquals("all-MiniLM-L6-v2-q", answer.path("ranker").asString(), run.toString());
        assertTrue(answer.path("rankerSkipped").isNull(), run.toString());
        assertEquals("mcp_kit_echo", answer.path("tools").path(0).path("name").asString(), run.toString());
        assertTrue(Files.isRegularFile(home.resolve(".cache/mcp-host/rankers/all-MiniLM-L6-v2-q.vectors")),
                "the tools' vectors are kept for the next run");
    }
}
