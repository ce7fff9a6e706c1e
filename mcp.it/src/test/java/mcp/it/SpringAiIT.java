package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import mcp.host.McpHost;
import mcp.host.ToolSession;
import mcp.springai.McpToolCallbackProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.client.ChatClient;
import tools.jackson.databind.node.ObjectNode;

/**
 * Spring AI's ChatClient, on a scripted model that asks for a tool by name and arguments and answers from its
 * result, calls tools of servers nobody on the team wrote, started by mcp-host through the Spring AI adapter: the npm
 * reference servers, and the MCP Python SDK's server in the 2026-07-28 era. The adapter runs on the class path, as
 * Spring does.
 */
class SpringAiIT {

    private static final Path INTEROP = Path.of(System.getProperty("mcp.interop.dir", "../interop")).toAbsolutePath();
    private static final Path MODULES = INTEROP.resolve("node_modules/@modelcontextprotocol");

    @TempDir
    Path home;
    private McpHost host;
    private ToolSession session;

    @AfterEach
    void close() throws InterruptedException {
        if (session != null) {
            session.close();
        }
        EraPeer.assertNoChildLeft();
    }

    private McpToolCallbackProvider open(ObjectNode servers) throws Exception {
        ObjectNode root = McpJson.object();
        root.set("mcpServers", servers);
        Path config = home.resolve("mcp.json");
        Files.writeString(config, McpJson.mapper().writeValueAsString(root));
        Map<String, String> env = new HashMap<>(System.getenv());
        env.keySet().removeIf(name -> name.startsWith("XDG_") || name.startsWith("MCP_HOST_"));
        env.put("HOME", home.toString());
        host = McpHost.builder().home(home).environment(env).workingDirectory(home).configFile(config).build();
        session = host.openSession();
        assertEquals(Map.of(), session.lastLoad().errors());
        return new McpToolCallbackProvider(session);
    }

    private static String ask(McpToolCallbackProvider tools, String tool, String arguments) {
        ScriptedSpringChatModel model = new ScriptedSpringChatModel(tool, arguments, result -> "The tool answered: " + result);
        String answer = ChatClient.builder(model).defaultToolCallbacks(tools).build()
                .prompt("Use " + tool).call().content();
        assertTrue(model.offered.get(0).contains(tool), tool + " was not offered to the model: " + model.offered);
        assertTrue(answer.startsWith("The tool answered: "), answer);
        return answer.substring("The tool answered: ".length());
    }

    private static ObjectNode node(Path script, String... args) {
        assertTrue(Files.isRegularFile(script), script + " is missing: run interop/install.sh (mvn verify runs it)");
        ObjectNode server = McpJson.object().put("command", "node");
        server.putArray("args").add(script.toString());
        for (String arg : args) {
            server.withArray("args").add(arg);
        }
        return server;
    }

    @Test
    void aChatClientCallsToolsOfTheNpmReferenceServers() throws Exception {
        Path notes = Files.writeString(home.resolve("notes.txt"), "the key is under the mat\n");
        ObjectNode servers = McpJson.object();
        servers.set("everything", node(MODULES.resolve("server-everything/dist/index.js")));
        // With roots declared it serves those (the working directory, here the scratch home) instead of this argument.
        servers.set("filesystem", node(MODULES.resolve("server-filesystem/dist/index.js"), home.toString()));
        ObjectNode memory = node(MODULES.resolve("server-memory/dist/index.js"));
        memory.putObject("env").put("MEMORY_FILE_PATH", home.resolve("memory.jsonl").toString());
        servers.set("memory", memory);
        McpToolCallbackProvider tools = open(servers);

        assertEquals("The sum of 2 and 40 is 42.", ask(tools, "mcp_everything_get_sum", "{\"a\": 2, \"b\": 40}"));

        String read = ask(tools, "mcp_filesystem_read_text_file",
                McpJson.object().put("path", notes.toString()).toString());
        assertEquals("the key is under the mat", read.strip());

        String created = ask(tools, "mcp_memory_create_entities", "{\"entities\": [{\"name\": \"Ada\","
                + " \"entityType\": \"person\", \"observations\": [\"wrote the first program\"]}]}");
        assertTrue(created.contains("Ada"), created);
        String graph = ask(tools, "mcp_memory_read_graph", "{}");
        assertTrue(graph.contains("wrote the first program"), graph);
    }

    @Test
    void aChatClientCallsAToolOfThePythonSdkServerInThe2026Era() throws Exception {
        EraPeer python = EraPeer.python();
        python.assertInstalled();
        ObjectNode server = McpJson.object().put("command", python.runtime().toString())
                .put("protocolVersion", "2026-07-28");   // that era or no connection
        server.putArray("args").add(python.script().toString());
        ObjectNode servers = McpJson.object();
        servers.set("py", server);
        McpToolCallbackProvider tools = open(servers);

        assertEquals("42", ask(tools, "mcp_py_add", "{\"a\": 2, \"b\": 40}"));
        assertTrue(List.of(tools.getToolCallbacks()).stream()
                .anyMatch(c -> c.getToolDefinition().name().equals("mcp_py_greet")));
        assertEquals("2026-07-28", host.manager().clientForTool("py", "add").get(30, TimeUnit.SECONDS)
                .initializeResult().protocolVersion());
    }
}
