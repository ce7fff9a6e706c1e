package mcp.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.ToolArgumentsException;
import dev.langchain4j.model.chat.request.json.JsonNumberSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProviderRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import mcp.api.CallPolicy;
import mcp.api.McpJson;
import mcp.host.AgentTool;
import mcp.host.McpHost;
import mcp.host.ToolSession;
import mcp.manager.ToolOutput;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The provider inside a real LangChain4j AI service, over testkit server processes started by mcp-host. */
class McpToolProviderTest {

    @TempDir
    Path temp;

    interface Assistant {
        String chat(String message);
    }

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (ProcessHandle.current().descendants().anyMatch(ProcessHandle::isAlive)) {
            assertTrue(System.nanoTime() < deadline, "a server process outlived its host");
            Thread.sleep(20);
        }
    }

    private ToolSession session(Map<String, List<String>> servers) throws IOException {
        ObjectNode root = McpJson.object();
        ObjectNode entries = root.putObject("mcpServers");
        new TreeMap<>(servers).forEach((name, args) -> {
            List<String> command = TestServers.command(args.toArray(String[]::new));
            ObjectNode server = entries.putObject(name);
            server.put("command", command.get(0));
            command.subList(1, command.size()).forEach(server.putArray("args")::add);
        });
        Path config = Files.writeString(temp.resolve("mcp.json"), root.toString());
        return McpHost.builder().configFile(config).home(temp).workingDirectory(temp)
                .cacheDirectory(temp.resolve("cache")).build().openSession();
    }

    private static Assistant assistant(ScriptedChatModel model, McpToolProvider tools) {
        return AiServices.builder(Assistant.class).chatModel(model).toolProvider(tools).build();
    }

    private static List<ToolExecutionResultMessage> results(ScriptedChatModel model) {
        return model.requests.get(model.requests.size() - 1).messages().stream()
                .filter(ToolExecutionResultMessage.class::isInstance).map(ToolExecutionResultMessage.class::cast)
                .toList();
    }

    @Test
    void anAgentCallsAToolByNameAndAnswersFromItsResult() throws Exception {
        try (ToolSession session = session(Map.of("calc", List.of()))) {
            ScriptedChatModel model = new ScriptedChatModel()
                    .call("mcp_calc_add", "{\"a\": 2, \"b\": 40}")
                    .answer(result -> "The tool says " + result.text());
            String answer = assistant(model, McpToolProvider.of(session)).chat("What is 2 + 40?");

            assertEquals("The tool says 42", answer);
            assertEquals(false, results(model).get(0).isError());
            ToolSpecification add = model.requests.get(0).toolSpecifications().stream()
                    .filter(spec -> spec.name().equals("mcp_calc_add")).findFirst().orElseThrow();
            assertTrue(add.description().startsWith("Adds two numbers"), add.description());
            JsonObjectSchema parameters = add.parameters();
            assertEquals(List.of("a", "b"), parameters.required());
            assertInstanceOf(JsonNumberSchema.class, parameters.properties().get("a"));
            assertInstanceOf(JsonNumberSchema.class, parameters.properties().get("b"));
        }
    }

    @Test
    void aToolErrorAndAFailedCallReachTheModelAsErrors() throws Exception {
        try (ToolSession session = session(Map.of("calc", List.of()))) {
            ScriptedChatModel model = new ScriptedChatModel()
                    .call("mcp_calc_fail", "{}")
                    .call("mcp_calc_error", "")
                    .answer(result -> "done");
            assertEquals("done", assistant(model, McpToolProvider.of(session)).chat("Try both."));

            List<ToolExecutionResultMessage> results = results(model);
            assertEquals(2, results.size(), results.toString());
            // The tool's own error result (isError: true): a result the model reads, marked as an error.
            assertEquals(true, results.get(0).isError());
            assertTrue(results.get(0).text().contains("tool failed on purpose"), results.get(0).text());
            // The call failed (JSON-RPC -32603): a ToolExecutionException, which the AI service's default error
            // handler hands to the model as an error with the message.
            assertEquals(true, results.get(1).isError());
            assertTrue(results.get(1).text().startsWith("MCP error"), results.get(1).text());
            assertTrue(results.get(1).text().contains("-32603"), results.get(1).text());
        }
    }

    @Test
    void aToolThatAppearsDuringATurnIsOfferedInItsNextRequest() throws Exception {
        try (ToolSession session = session(Map.of("calc", List.of()))) {
            ScriptedChatModel model = new ScriptedChatModel()
                    .call("mcp_calc_change_tools", "{}")
                    .then(request -> {
                        // The server announced a new tool; the session follows its list change.
                        awaitTool(session, "mcp_calc_extra_0");
                        assertFalse(request.toolSpecifications().stream()
                                .anyMatch(spec -> spec.name().equals("mcp_calc_extra_0")), "not before it came");
                        return AiMessage.from(ToolExecutionRequest.builder().id("echo").name("mcp_calc_echo")
                                .arguments("{\"message\": \"waited\"}").build());
                    })
                    .call("mcp_calc_extra_0", "{\"value\": \"hi\"}")
                    .answer(ToolExecutionResultMessage::text);
            assertEquals("extra_0: hi", assistant(model, McpToolProvider.of(session)).chat("Grow, then use it."));
        }
    }

    @Test
    void argumentsThatAreNoJsonObjectAreAnArgumentsError() throws Exception {
        try (ToolSession session = session(Map.of("calc", List.of()))) {
            ToolExecutor echo = McpToolProvider.of(session)
                    .provideTools(new ToolProviderRequest("memory", UserMessage.from("hi"))).aiServiceTools().stream()
                    .filter(tool -> tool.name().equals("mcp_calc_echo")).findFirst().orElseThrow().toolExecutor();
            for (String arguments : List.of("{not json", "[1, 2]", "\"text\"")) {
                assertThrows(ToolArgumentsException.class, () -> echo.execute(
                        ToolExecutionRequest.builder().id("1").name("mcp_calc_echo").arguments(arguments).build(),
                        "memory"), arguments);
            }
            assertEquals("hello", echo.execute(ToolExecutionRequest.builder().id("2").name("mcp_calc_echo")
                    .arguments("{\"message\": \"hello\"}").build(), "memory"));
        }
    }

    @Test
    void aToolWhoseOwnerAsksRunsOnlyWhenTheUserConfirms() throws Exception {
        try (ToolSession session = session(Map.of())) {
            session.addTool(new AskingTool());
            List<String> asked = new CopyOnWriteArrayList<>();

            ScriptedChatModel refused = new ScriptedChatModel().call("app_delete", "{}")
                    .answer(ToolExecutionResultMessage::text);
            String withoutConfirmation = assistant(refused, McpToolProvider.of(session)).chat("Delete it.");
            assertTrue(withoutConfirmation.contains("confirms each call"), withoutConfirmation);

            ScriptedChatModel declined = new ScriptedChatModel().call("app_delete", "{\"what\": \"repo\"}")
                    .answer(ToolExecutionResultMessage::text);
            McpToolProvider no = McpToolProvider.builder(session).confirmation((tool, arguments) -> {
                asked.add(tool.name() + " " + arguments);
                return false;
            }).build();
            assertEquals("The user declined this call of app_delete.", assistant(declined, no).chat("Delete it."));
            assertEquals(List.of("app_delete {\"what\":\"repo\"}"), asked);

            ScriptedChatModel confirmed = new ScriptedChatModel().call("app_delete", "{}")
                    .answer(ToolExecutionResultMessage::text);
            McpToolProvider yes = McpToolProvider.builder(session).confirmation((tool, arguments) -> true).build();
            assertEquals("deleted", assistant(confirmed, yes).chat("Delete it."));
        }
    }

    @Test
    void theFilterChoosesTheToolsTheModelIsOffered() throws Exception {
        try (ToolSession session = session(Map.of("one", List.of(), "two", List.of()))) {
            McpToolProvider onlyOne = McpToolProvider.builder(session)
                    .filter(tool -> tool.name().startsWith("mcp_one_")).build();
            List<String> names = onlyOne.toolSpecifications().stream().map(ToolSpecification::name).toList();
            assertTrue(names.contains("mcp_one_echo"), names.toString());
            assertTrue(names.stream().allMatch(name -> name.startsWith("mcp_one_")), names.toString());
            assertTrue(McpToolProvider.of(session).toolSpecifications().stream()
                    .anyMatch(spec -> spec.name().equals("mcp_two_echo")));
        }
    }

    private static void awaitTool(ToolSession session, String name) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (session.tool(name).isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the session never got " + name);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** An application tool whose owner wants each call confirmed. */
    private static final class AskingTool implements AgentTool {
        @Override
        public String name() {
            return "app_delete";
        }

        @Override
        public String label() {
            return "Delete";
        }

        @Override
        public String description() {
            return "Deletes something.";
        }

        @Override
        public JsonNode inputSchema() {
            return McpJson.mapper().readTree("{\"type\": \"object\", \"properties\": {\"what\": {\"type\": \"string\"}}}");
        }

        @Override
        public String origin() {
            return "app";
        }

        @Override
        public CallPolicy callPolicy() {
            return new CallPolicy(CallPolicy.Decision.ASK, Optional.empty());
        }

        @Override
        public CompletableFuture<ToolOutput> call(JsonNode arguments) {
            return CompletableFuture.completedFuture(new ToolOutput("deleted", false, new ToolOutput.Details("app",
                    "delete", false, List.of(), Optional.empty(), Optional.empty(), Optional.empty())));
        }
    }
}
