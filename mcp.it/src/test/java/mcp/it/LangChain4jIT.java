package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.request.json.JsonArraySchema;
import dev.langchain4j.model.chat.request.json.JsonIntegerSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import dev.langchain4j.service.AiServices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import mcp.api.McpJson;
import mcp.host.McpHost;
import mcp.host.ToolSession;
import mcp.langchain4j.McpToolProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * A LangChain4j AI service (the real framework, on the class path as its jars require) on a scripted chat model
 * calls tools of servers nobody on the team wrote, started by mcp-host through {@code mcp.langchain4j}: the npm
 * reference servers over stdio, and the Python SDK's server in the 2026-07-28 era over stdio and over stateless
 * Streamable HTTP. The model asks for a tool by name and arguments and answers from the result; each answer is
 * checked, and so is the schema the model was offered.
 */
class LangChain4jIT {

    private static final Path NODE_MODULES = EraPeer.INTEROP.resolve("node_modules/@modelcontextprotocol");
    private static final EraPeer PYTHON = EraPeer.python();

    @TempDir
    Path temp;
    /** The host of the last session opened; the session closes it. */
    private McpHost host;

    interface Assistant {
        String chat(String message);
    }

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        EraPeer.assertNoChildLeft();
    }

    /** A session on the servers of one native config file, in a scratch home. */
    private ToolSession session(ObjectNode servers) throws Exception {
        Path config = Files.writeString(temp.resolve("mcp.json"), McpJson.object().set("mcpServers", servers).toString());
        host = McpHost.builder().configFile(config).home(temp).workingDirectory(temp)
                .cacheDirectory(temp.resolve("cache")).build();
        return host.openSession();
    }

    private static ObjectNode node(String server) {
        Path script = NODE_MODULES.resolve(server + "/dist/index.js");
        assertTrue(Files.isRegularFile(script), script + " is missing: run interop/install.sh (mvn verify runs it)");
        ObjectNode entry = McpJson.object().put("command", "node");
        entry.putArray("args").add(script.toString());
        return entry;
    }

    private static String ask(ScriptedChatModel model, ToolSession session, String question) {
        return AiServices.builder(Assistant.class).chatModel(model).toolProvider(McpToolProvider.of(session)).build()
                .chat(question);
    }

    private static ToolSpecification offered(ScriptedChatModel model, String tool) {
        return model.requests.get(0).toolSpecifications().stream().filter(spec -> spec.name().equals(tool))
                .findFirst().orElseThrow(() -> new AssertionError(tool + " was not offered"));
    }

    @Test
    void anAgentCallsServerEverythingsTools() throws Exception {
        ObjectNode servers = McpJson.object();
        servers.set("everything", node("server-everything"));
        try (ToolSession session = session(servers)) {
            ScriptedChatModel model = new ScriptedChatModel()
                    .call("mcp_everything_get_sum", "{\"a\": 2, \"b\": 40}")
                    .call("mcp_everything_echo", "{\"message\": \"from LangChain4j\"}")
                    .answer(echo -> "echoed: " + echo.text());
            String answer = ask(model, session, "Add 2 and 40, then echo.");

            assertEquals("echoed: Echo: from LangChain4j", answer);
            List<ToolExecutionResultMessage> results = model.requests.get(2).messages().stream()
                    .filter(ToolExecutionResultMessage.class::isInstance).map(ToolExecutionResultMessage.class::cast)
                    .toList();
            assertEquals("The sum of 2 and 40 is 42.", results.get(0).text());
            assertFalse(results.get(0).isError());
            JsonObjectSchema sum = offered(model, "mcp_everything_get_sum").parameters();
            assertEquals(List.of("a", "b"), sum.required());
            assertEquals("First number", sum.properties().get("a").description());
        }
    }

    @Test
    void anAgentWritesAndReadsServerMemorysGraphWithNestedArguments() throws Exception {
        ObjectNode memory = node("server-memory");
        memory.putObject("env").put("MEMORY_FILE_PATH", temp.resolve("memory.jsonl").toString());
        ObjectNode servers = McpJson.object();
        servers.set("memory", memory);
        try (ToolSession session = session(servers)) {
            ScriptedChatModel model = new ScriptedChatModel()
                    .call("mcp_memory_create_entities", "{\"entities\": [{\"name\": \"Ada\", \"entityType\": \"person\","
                            + " \"observations\": [\"wrote the first program\"]}]}")
                    .call("mcp_memory_search_nodes", "{\"query\": \"Ada\"}")
                    .answer(ToolExecutionResultMessage::text);
            String answer = ask(model, session, "Remember Ada, then look her up.");

            assertTrue(answer.contains("\"name\": \"Ada\"") || answer.contains("\"name\":\"Ada\""), answer);
            assertTrue(answer.contains("wrote the first program"), answer);
            assertTrue(Files.readString(temp.resolve("memory.jsonl")).contains("Ada"), "the server wrote its file");
            // The nested schema reached the model typed: an array of objects with their own required fields.
            JsonArraySchema entities = assertInstanceOf(JsonArraySchema.class,
                    offered(model, "mcp_memory_create_entities").parameters().properties().get("entities"));
            JsonObjectSchema entity = assertInstanceOf(JsonObjectSchema.class, entities.items());
            assertTrue(entity.required().containsAll(List.of("name", "entityType", "observations")), entity.toString());
            assertInstanceOf(JsonStringSchema.class, entity.properties().get("name"));
            assertInstanceOf(JsonStringSchema.class,
                    assertInstanceOf(JsonArraySchema.class, entity.properties().get("observations")).items());
        }
    }

    @Test
    void anAgentCallsThePythonSdkServerInThe2026EraOverStdio() throws Exception {
        PYTHON.assertInstalled();
        ObjectNode py = McpJson.object().put("command", PYTHON.runtime().toString()).put("protocolVersion", "2026-07-28");
        py.putArray("args").add(PYTHON.script().toString());
        ObjectNode servers = McpJson.object();
        servers.set("py", py);
        try (ToolSession session = session(servers)) {
            assertAddsInThe2026Era(session);
        }
    }

    @Test
    void anAgentCallsThePythonSdkServerInThe2026EraOverHttp() throws Exception {
        PYTHON.assertInstalled();
        try (LoopbackServer server = new LoopbackServer(PYTHON::httpCommand)) {
            ObjectNode servers = McpJson.object();
            servers.set("py", McpJson.object().put("url", "http://127.0.0.1:" + server.port() + "/mcp")
                    .put("protocolVersion", "2026-07-28"));
            try (ToolSession session = session(servers)) {
                assertAddsInThe2026Era(session);
            }
        }
    }

    private void assertAddsInThe2026Era(ToolSession session) throws Exception {
        assertEquals(java.util.Map.of(), session.lastLoad().errors());
        ScriptedChatModel model = new ScriptedChatModel()
                .call("mcp_py_add", "{\"a\": 2, \"b\": 40}")
                .answer(result -> "2 + 40 = " + result.text());
        assertEquals("2 + 40 = 42", ask(model, session, "What is 2 + 40?"));
        assertFalse(ScriptedChatModel.lastResult(model.requests.get(1)).isError());
        // Pydantic's schema (titles on every property) still reaches the model typed.
        JsonObjectSchema add = offered(model, "mcp_py_add").parameters();
        assertEquals(List.of("a", "b"), add.required());
        assertInstanceOf(JsonIntegerSchema.class, add.properties().get("a"));
        assertEquals("2026-07-28", host.manager().clientForTool("py", "add").get(30, java.util.concurrent.TimeUnit.SECONDS)
                .initializeResult().protocolVersion());
    }
}
