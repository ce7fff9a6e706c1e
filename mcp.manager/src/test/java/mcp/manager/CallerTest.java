package mcp.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.api.Content;
import mcp.api.LogLevel;
import mcp.api.McpJson;
import mcp.api.ToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A call's own caller ({@link CallOptions#caller()}), as a gateway gives each of its clients' calls: the server's
 * question reaches the caller whose call it is, never another, and the session's own handler only when no call
 * claims it.
 */
class CallerTest {

    private final List<McpClient> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (McpClient client : open) {
            client.close();
        }
        TestServerProcesses.assertNoChildProcessLeft();
    }

    private McpClient connect(String era) {
        // The session's own answer is "Ada" (the schema's default): a call that gets it was not routed to its caller.
        McpClient client = TestServerProcesses.connect(era, ClientOptions.builder(era)
                .handler(ClientOptions.ELICITATION_METHOD, ElicitationHandlers.acceptDefaults()), "--era", era);
        open.add(client);
        return client;
    }

    /** A caller who answers every elicitation with its own name, and counts the questions. */
    private record Named(String name, AtomicInteger asked) implements Caller {
        static Named of(String name) {
            return new Named(name, new AtomicInteger());
        }

        @Override
        public Optional<ObjectNode> capabilities() {
            return Optional.empty();
        }

        @Override
        public ObjectNode answer(ObjectNode inputRequests) {
            ObjectNode answers = McpJson.object();
            inputRequests.propertyNames().forEach(key -> answers.set(key, ask(ClientOptions.ELICITATION_METHOD, null)));
            return answers;
        }

        @Override
        public JsonNode ask(String method, JsonNode params) {
            asked.incrementAndGet();
            ObjectNode answer = McpJson.object().put("action", "accept");
            answer.putObject("content").put("name", name);
            return answer;
        }

        CallOptions options() {
            return CallOptions.DEFAULT.withCaller(this);
        }
    }

    private static String text(ToolResult result) {
        return ((Content.Text) result.content().get(0)).text();
    }

    @Test
    void inTheStatelessEraEachCallsInputRoundsGoToItsOwnCaller() {
        McpClient client = connect("modern");
        Named ann = Named.of("Ann");
        Named bob = Named.of("Bob");
        List<CompletableFuture<ToolResult>> anns = new ArrayList<>();
        List<CompletableFuture<ToolResult>> bobs = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            anns.add(client.callTool("ask", McpJson.object(), ann.options()));
            bobs.add(client.callTool("ask", McpJson.object(), bob.options()));
        }
        anns.forEach(call -> assertEquals("hello Ann", text(call.orTimeout(30, TimeUnit.SECONDS).join())));
        bobs.forEach(call -> assertEquals("hello Bob", text(call.orTimeout(30, TimeUnit.SECONDS).join())));
        assertEquals(50, ann.asked().get());
        assertEquals(50, bob.asked().get());
        // Without handlers of its own, a call is answered by the session's.
        assertEquals("hello Ada", text(client.callToolBlocking("ask", McpJson.object())));
    }

    @Test
    void theInputATaskAsksForGoesToTheCallerOfItsCall() {
        // The server makes every call a task (the 2026-07-28 extension): its question comes in tasks/get.
        McpClient client = TestServerProcesses.connect("tasks", ClientOptions.builder("tasks")
                .handler(ClientOptions.ELICITATION_METHOD, ElicitationHandlers.acceptDefaults()), "--era", "modern",
                "--tasks", "20");
        open.add(client);
        Named ann = Named.of("Ann");
        assertEquals("hello Ann", text(client.callTool("ask", McpJson.object(), ann.options())
                .orTimeout(30, TimeUnit.SECONDS).join()));
        assertEquals(1, ann.asked().get());
        assertEquals("hello Ada", text(client.callToolBlocking("ask", McpJson.object())));
    }

    @Test
    void inTheHandshakeEraOverStdioTheOneCallerInFlightIsAsked() {
        McpClient client = connect("legacy");
        Named cat = Named.of("Cat");
        assertEquals("hello Cat", text(client.callTool("ask", McpJson.object(), cat.options())
                .orTimeout(30, TimeUnit.SECONDS).join()));
        assertEquals(1, cat.asked().get());
        assertEquals("hello Ada", text(client.callToolBlocking("ask", McpJson.object())));
    }

    @Test
    void whenTheTransportCannotTellTwoCallersApartNeitherIsAsked() throws Exception {
        McpClient client = connect("legacy");
        Named dan = Named.of("Dan");
        Named eve = Named.of("Eve");
        CompletableFuture<ToolResult> slow = client.callTool("slow", McpJson.object().put("ms", 3000), dan.options());
        Thread.sleep(300); // the slow call is in flight when the other one's question comes
        String asked = text(client.callTool("ask", McpJson.object(), eve.options()).orTimeout(30, TimeUnit.SECONDS)
                .join());
        assertTrue(asked.contains("Declined: calls of 2 callers are in flight"), asked);
        assertEquals(0, dan.asked().get(), "a question that may be Eve's never reaches Dan");
        assertEquals(0, eve.asked().get(), "nor Eve, since it may be Dan's");
        slow.orTimeout(30, TimeUnit.SECONDS).join();
        // Once Dan's call is done, Eve's question is Eve's alone again.
        assertEquals("hello Eve", text(client.callTool("ask", McpJson.object(), eve.options())
                .orTimeout(30, TimeUnit.SECONDS).join()));
    }

    /** A caller who keeps the data of the log messages it is given. */
    private record Listening(Set<String> heard) implements Caller {
        @Override
        public Optional<ObjectNode> capabilities() {
            return Optional.empty();
        }

        @Override
        public ObjectNode answer(ObjectNode inputRequests) {
            throw new UnsupportedOperationException();
        }

        @Override
        public JsonNode ask(String method, JsonNode params) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void log(JsonNode params) {
            heard.add(params.path("data").asString(""));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void aCallsLogMessageReachesItsCallerBeforeItsResult(String era) {
        // A gateway passes the message on and then the result: one that came after the result would be lost, as
        // the call is over by then. So each result must find its message already given.
        McpClient client = TestServerProcesses.connect(era, "--era", era, "--features", "logging");
        open.add(client);
        client.setLogLevel(LogLevel.INFO).join();
        Listening caller = new Listening(ConcurrentHashMap.newKeySet());
        for (int i = 0; i < 200; i++) {
            String message = "message " + i;
            boolean heardFirst = client.callTool("log", McpJson.object().put("level", "info").put("message", message),
                    CallOptions.DEFAULT.withCaller(caller)).thenApply(result -> caller.heard().contains(message))
                    .orTimeout(30, TimeUnit.SECONDS).join();
            assertTrue(heardFirst, era + ": the result of call " + i + " came before its log message");
        }
    }
}
