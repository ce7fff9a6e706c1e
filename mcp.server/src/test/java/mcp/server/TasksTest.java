package mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import mcp.api.McpJson;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tool calls run as tasks, over HTTP on 127.0.0.1: the 2026-07-28 extension (created, polled, its result inlined,
 * input by {@code tasks/update}, cancelled, gated on the extension) and 2025-11-25's utility (a {@code task} param,
 * {@code tasks/result}, {@code tasks/list}, {@code tasks/cancel}); a client never reaches another's task; the bounds
 * in count and time hold.
 */
class TasksTest {

    private static final JsonNode OBJECT = Wire.json("{\"type\":\"object\"}");
    private static final String TASKS = "{\"elicitation\":{},\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}";

    private McpServer server;
    /** The labels of the slow calls whose handler was interrupted (cancelled). */
    private final Set<String> interrupted = ConcurrentHashMap.newKeySet();
    /** The labels of the slow calls whose handler started. */
    private final Set<String> started = ConcurrentHashMap.newKeySet();
    /** What {@link RequestContext#runAsTask} said, by tool. */
    private final Map<String, Boolean> escalated = new ConcurrentHashMap<>();

    @AfterEach
    void close() {
        if (server != null) {
            server.close();
        }
    }

    private URI start(ServerLimits limits) throws Exception {
        server = McpServer.builder("tasks", "1").limits(limits)
                .tool(ToolDefinition.of("slow", "Sleeps", OBJECT), TaskSupport.OPTIONAL, (arguments, context) -> {
                    String label = arguments.path("label").asString("");
                    started.add(label);
                    context.progress(1, 2, "sleeping " + label);
                    try {
                        Thread.sleep(arguments.path("ms").asLong(0));
                    } catch (InterruptedException e) {
                        interrupted.add(label);
                        throw e;
                    }
                    return ToolResult.text("done " + label);
                })
                .tool(ToolDefinition.of("plain", "Never a task", OBJECT), (arguments, context) -> ToolResult.text("plain"))
                .tool(ToolDefinition.of("must", "Always a task", OBJECT), TaskSupport.REQUIRED,
                        (arguments, context) -> ToolResult.text("must"))
                .tool(ToolDefinition.of("ask", "Asks a name", OBJECT), TaskSupport.OPTIONAL, (arguments, context) -> {
                    ObjectNode params = McpJson.object().put("message", "Name?");
                    params.putObject("requestedSchema").put("type", "object");
                    JsonNode answer = context.elicit(params).join();
                    return ToolResult.text("Hello, " + answer.path("content").path("name").asString("?"));
                })
                .toolWithDeferredTask(ToolDefinition.of("askThenTask", "Asks a name, then runs as a task", OBJECT),
                        TaskSupport.REQUIRED, (arguments, context) -> {
                            ObjectNode params = McpJson.object().put("message", "Name?");
                            params.putObject("requestedSchema").put("type", "object");
                            JsonNode answer = context.elicit(params).join();
                            escalated.put("askThenTask", context.runAsTask());
                            Thread.sleep(100);
                            return ToolResult.text("Hi, " + answer.path("content").path("name").asString("?"));
                        })
                .toolWithDeferredTask(ToolDefinition.of("neverEscalates", "Required, answers at once", OBJECT),
                        TaskSupport.REQUIRED, (arguments, context) -> ToolResult.text("quick"))
                .toolWithDeferredTask(ToolDefinition.of("mayEscalate", "Optional, escalates when told to", OBJECT),
                        TaskSupport.OPTIONAL, (arguments, context) -> {
                            if (arguments.path("escalate").asBoolean(false)) {
                                escalated.put("mayEscalate", context.runAsTask());
                            }
                            return ToolResult.text("maybe");
                        })
                .build();
        return server.serveHttp(HttpOptions.LOOPBACK).uri();
    }

    // ------------------------------------------------------------------------------------------ 2026-07-28

    /** A stateless request of a client: its capabilities, and its Authorization header (or none). */
    private static Wire.Reply stateless(URI uri, String method, String params, String capabilities, String auth)
            throws Exception {
        ObjectNode body = Wire.stateless(params, capabilities);
        String name = body.has("name") ? body.get("name").asString() : body.path("taskId").asString(null);
        Map<String, String> headers = Wire.statelessHeaders(method, name);
        if (auth != null) {
            headers.put("Authorization", auth);
        }
        return Wire.post(uri, Wire.request(1, method, body), headers);
    }

    private static JsonNode get(URI uri, String taskId, String auth) throws Exception {
        return stateless(uri, "tasks/get", "{\"taskId\":\"" + taskId + "\"}", TASKS, auth).last();
    }

    /** Polls (10 s at most) until the task's status is one of those. */
    private static JsonNode await(URI uri, String taskId, String auth, Set<String> statuses) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        JsonNode task = get(uri, taskId, auth).path("result");
        while (!statuses.contains(task.path("status").asString())) {
            assertTrue(System.nanoTime() < deadline, "still " + task);
            Thread.sleep(20);
            task = get(uri, taskId, auth).path("result");
        }
        return task;
    }

    @Test
    void aStatelessTaskIsCreatedPolledAndItsResultInlined() throws Exception {
        URI uri = start(ServerLimits.DEFAULT);
        JsonNode discover = stateless(uri, "server/discover", "{}", "{}", null).last().path("result");
        assertTrue(discover.path("capabilities").path("extensions").has("io.modelcontextprotocol/tasks"), discover.toString());
        assertFalse(discover.path("capabilities").has("tasks"), "no 2025-11-25 slot in 2026-07-28: " + discover);

        Wire.Reply created = stateless(uri, "tools/call", "{\"name\":\"slow\",\"arguments\":{\"ms\":300,\"label\":\"a\"}}",
                TASKS, "Bearer alice");
        JsonNode task = created.last().path("result");
        assertEquals("task", task.path("resultType").asString(), created.body());
        assertFalse(task.has("task") || task.has("requestState") || task.has("result"), task.toString());
        assertTrue(task.path("ttlMs").asLong() > 0 && task.path("pollIntervalMs").asLong() > 0, task.toString());
        String id = task.path("taskId").asString();
        assertTrue(id.length() >= 24, "an id with enough entropy: " + id);

        JsonNode working = get(uri, id, "Bearer alice").path("result");
        assertEquals(id, working.path("taskId").asString(), "held before the client heard of it");
        assertEquals("complete", working.path("resultType").asString());

        // Another authorization gets what a task that does not exist gets.
        JsonNode foreign = get(uri, id, "Bearer mallory");
        assertEquals(-32602, foreign.path("error").path("code").asInt(), foreign.toString());
        JsonNode foreignCancel = stateless(uri, "tasks/cancel", "{\"taskId\":\"" + id + "\"}", TASKS, null).last();
        assertEquals(-32602, foreignCancel.path("error").path("code").asInt(), foreignCancel.toString());

        JsonNode done = await(uri, id, "Bearer alice", Set.of("completed", "failed", "cancelled"));
        assertEquals("completed", done.path("status").asString(), done.toString());
        assertEquals("done a", done.path("result").path("content").path(0).path("text").asString(), done.toString());
        assertFalse(done.path("result").path("_meta").has("io.modelcontextprotocol/related-task"), done.toString());

        // A tool that is never a task answers as ever; the legacy task param changes nothing.
        JsonNode plain = stateless(uri, "tools/call", "{\"name\":\"plain\",\"task\":{\"ttl\":1000}}", TASKS, null)
                .last().path("result");
        assertEquals("complete", plain.path("resultType").asString(), plain.toString());
        assertEquals("plain", plain.path("content").path(0).path("text").asString());
        for (String removed : new String[] {"tasks/result", "tasks/list"}) {
            Wire.Reply reply = stateless(uri, removed, "{\"taskId\":\"" + id + "\"}", TASKS, "Bearer alice");
            assertEquals(-32601, reply.last().path("error").path("code").asInt(), removed + ": " + reply.body());
        }
    }

    @Test
    void withoutTheExtensionThereIsNoTask() throws Exception {
        URI uri = start(ServerLimits.DEFAULT);
        JsonNode sync = stateless(uri, "tools/call", "{\"name\":\"slow\",\"arguments\":{\"label\":\"s\"}}", "{}", null)
                .last().path("result");
        assertEquals("complete", sync.path("resultType").asString(), sync.toString());
        assertEquals("done s", sync.path("content").path(0).path("text").asString());
        Wire.Reply required = stateless(uri, "tools/call", "{\"name\":\"must\"}", "{}", null);
        assertEquals(-32021, required.last().path("error").path("code").asInt(), required.body());
        assertTrue(required.last().path("error").path("data").path("requiredCapabilities").path("extensions")
                .has("io.modelcontextprotocol/tasks"), required.body());
        Wire.Reply gated = stateless(uri, "tasks/get", "{\"taskId\":\"x\"}", "{}", null);
        assertEquals(-32021, gated.last().path("error").path("code").asInt(), gated.body());
        assertEquals(400, gated.status());
    }

    @Test
    void aStatelessTaskAsksForInputAndTasksUpdateAnswersIt() throws Exception {
        URI uri = start(ServerLimits.DEFAULT);
        String id = stateless(uri, "tools/call", "{\"name\":\"ask\"}", TASKS, null).last().path("result")
                .path("taskId").asString();
        JsonNode waiting = await(uri, id, null, Set.of("input_required"));
        String key = waiting.path("inputRequests").propertyNames().iterator().next();
        assertEquals("elicitation/create", waiting.path("inputRequests").path(key).path("method").asString());
        JsonNode ack = stateless(uri, "tasks/update", "{\"taskId\":\"" + id + "\",\"inputResponses\":{\"" + key
                + "\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}}}", TASKS, null).last().path("result");
        assertEquals("complete", ack.path("resultType").asString(), ack.toString());
        assertFalse(ack.has("status") || ack.has("taskId"), ack.toString());
        JsonNode done = await(uri, id, null, Set.of("completed", "failed", "cancelled"));
        assertEquals("Hello, Ada", done.path("result").path("content").path(0).path("text").asString(), done.toString());
    }

    @Test
    void aToolWhoseTaskIsDeferredAsksByRoundsFirstThenItsRetryIsAnsweredWithTheTask() throws Exception {
        URI uri = start(ServerLimits.DEFAULT);
        JsonNode round = stateless(uri, "tools/call", "{\"name\":\"askThenTask\"}", TASKS, null).last().path("result");
        assertEquals("input_required", round.path("resultType").asString(), round.toString());
        assertFalse(round.has("taskId"), round.toString());
        String key = round.path("inputRequests").propertyNames().iterator().next();
        ObjectNode retry = McpJson.object().put("name", "askThenTask").put("requestState",
                round.path("requestState").asString());
        retry.putObject("inputResponses").set(key, Wire.json("{\"action\":\"accept\",\"content\":{\"name\":\"Ann\"}}"));
        JsonNode created = stateless(uri, "tools/call", retry.toString(), TASKS, null).last().path("result");
        assertEquals("task", created.path("resultType").asString(), created.toString());
        assertFalse(created.has("requestState") || created.has("inputRequests"), created.toString());
        JsonNode done = await(uri, created.path("taskId").asString(), null, Set.of("completed", "failed", "cancelled"));
        assertEquals("Hi, Ann", done.path("result").path("content").path(0).path("text").asString(), done.toString());
        assertEquals(true, escalated.get("askThenTask"));
        // The request state handed out before the task names no call any more.
        JsonNode stale = stateless(uri, "tools/call", retry.toString(), TASKS, null).last();
        assertEquals(-32602, stale.path("error").path("code").asInt(), stale.toString());
    }

    @Test
    void aDeferredTaskIsATaskOnlyWhereTheToolOrItsHandlerSaysSo() throws Exception {
        URI uri = start(ServerLimits.DEFAULT);
        // Required, ended before it ran as a task: a task already complete.
        JsonNode required = stateless(uri, "tools/call", "{\"name\":\"neverEscalates\"}", TASKS, null).last()
                .path("result");
        assertEquals("task", required.path("resultType").asString(), required.toString());
        JsonNode done = await(uri, required.path("taskId").asString(), null, Set.of("completed", "failed"));
        assertEquals("quick", done.path("result").path("content").path(0).path("text").asString(), done.toString());
        // Optional: a plain answer unless its handler runs as a task.
        JsonNode plain = stateless(uri, "tools/call", "{\"name\":\"mayEscalate\"}", TASKS, null).last().path("result");
        assertEquals("maybe", plain.path("content").path(0).path("text").asString(), plain.toString());
        JsonNode task = stateless(uri, "tools/call", "{\"name\":\"mayEscalate\",\"arguments\":{\"escalate\":true}}",
                TASKS, null).last().path("result");
        assertEquals("task", task.path("resultType").asString(), task.toString());
        await(uri, task.path("taskId").asString(), null, Set.of("completed"));
        assertEquals(true, escalated.get("mayEscalate"));
        // A client without the extension: a plain call, which cannot become a task.
        JsonNode without = stateless(uri, "tools/call", "{\"name\":\"mayEscalate\",\"arguments\":{\"escalate\":true}}",
                "{}", null).last().path("result");
        assertEquals("maybe", without.path("content").path(0).path("text").asString(), without.toString());
        assertEquals(false, escalated.get("mayEscalate"));
    }

    @Test
    void aCancelledStatelessTaskStopsItsHandler() throws Exception {
        URI uri = start(ServerLimits.DEFAULT);
        String id = stateless(uri, "tools/call", "{\"name\":\"slow\",\"arguments\":{\"ms\":60000,\"label\":\"c\"}}",
                TASKS, null).last().path("result").path("taskId").asString();
        await(uri, id, null, Set.of("working"));
        for (int i = 0; i < 2; i++) {
            JsonNode ack = stateless(uri, "tasks/cancel", "{\"taskId\":\"" + id + "\"}", TASKS, null).last();
            assertEquals("complete", ack.path("result").path("resultType").asString(), "idempotent: " + ack);
        }
        assertEquals("cancelled", get(uri, id, null).path("result").path("status").asString());
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!interrupted.contains("c")) {
            assertTrue(System.nanoTime() < deadline, "the handler was not interrupted");
            Thread.sleep(20);
        }
    }

    @Test
    void theBoundsHoldInCountAndTime() throws Exception {
        URI uri = start(ServerLimits.DEFAULT.withTasks(3, 2, Duration.ofMillis(1500)));
        String first = slowTask(uri, "Bearer a", "1");
        String second = slowTask(uri, "Bearer a", "2");
        Wire.Reply third = stateless(uri, "tools/call", "{\"name\":\"slow\",\"arguments\":{\"ms\":60000}}", TASKS,
                "Bearer a");
        assertEquals(-32603, third.last().path("error").path("code").asInt(), "two of this client run: " + third.body());
        // Another client has a bound of its own, but the total is 3.
        String fourth = slowTask(uri, "Bearer b", "4");
        Wire.Reply fifth = stateless(uri, "tools/call", "{\"name\":\"slow\",\"arguments\":{\"ms\":60000}}", TASKS,
                "Bearer b");
        assertEquals(-32603, fifth.last().path("error").path("code").asInt(), "three run in all: " + fifth.body());
        // An ended task makes room: the oldest ended one is dropped.
        stateless(uri, "tasks/cancel", "{\"taskId\":\"" + first + "\"}", TASKS, "Bearer a");
        String again = slowTask(uri, "Bearer a", "5");
        assertEquals(-32602, get(uri, first, "Bearer a").path("error").path("code").asInt(), "dropped for " + again);
        // The time to live ends every task: held no more, and cancelled if it still ran.
        Thread.sleep(1_800);
        for (String id : new String[] {second, fourth, again}) {
            String auth = id.equals(fourth) ? "Bearer b" : "Bearer a";
            assertEquals(-32602, get(uri, id, auth).path("error").path("code").asInt(), "expired: " + id);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!interrupted.containsAll(Set.of("2", "4", "5"))) {
            assertTrue(System.nanoTime() < deadline, "still running after their time to live: " + interrupted);
            Thread.sleep(20);
        }
        assertNotNull(slowTask(uri, "Bearer a", "6"), "room again");
    }

    private static String slowTask(URI uri, String auth, String label) throws Exception {
        Wire.Reply reply = stateless(uri, "tools/call", "{\"name\":\"slow\",\"arguments\":{\"ms\":60000,\"label\":\""
                + label + "\"}}", TASKS, auth);
        String id = reply.last().path("result").path("taskId").asString(null);
        assertNotNull(id, reply.body());
        return id;
    }

    // ------------------------------------------------------------------------------------------ 2025-11-25

    private static JsonNode inSession(URI uri, String session, String method, String params) throws Exception {
        return Wire.post(uri, Wire.request(2, method, Wire.json(params)), Wire.session(session)).last();
    }

    @Test
    void aHandshakeTaskIsCreatedListedItsResultFetchedAndItIsTheSessionsAlone() throws Exception {
        URI uri = start(ServerLimits.DEFAULT);
        String session = Wire.initialize(uri, "{}");
        String other = Wire.initialize(uri, "{}");
        JsonNode tools = inSession(uri, session, "tools/list", "{}").path("result").path("tools");
        Map<String, String> support = new java.util.HashMap<>();
        tools.forEach(tool -> support.put(tool.path("name").asString(), tool.path("execution").path("taskSupport")
                .asString()));
        assertEquals(Map.of("slow", "optional", "plain", "forbidden", "must", "required", "ask", "optional",
                "askThenTask", "required", "neverEscalates", "required", "mayEscalate", "optional"), support);

        JsonNode created = inSession(uri, session, "tools/call", "{\"name\":\"slow\",\"arguments\":{\"ms\":300,"
                + "\"label\":\"h\"},\"task\":{\"ttl\":60000}}").path("result");
        String id = created.path("task").path("taskId").asString();
        assertEquals("working", created.path("task").path("status").asString(), created.toString());
        assertEquals(60_000, created.path("task").path("ttl").asLong());
        assertFalse(created.has("resultType"), created.toString());

        JsonNode listed = inSession(uri, session, "tasks/list", "{}").path("result").path("tasks");
        assertEquals(id, listed.path(0).path("taskId").asString(), listed.toString());
        assertEquals(0, inSession(uri, other, "tasks/list", "{}").path("result").path("tasks").size());
        assertEquals(-32602, inSession(uri, other, "tasks/get", "{\"taskId\":\"" + id + "\"}").path("error")
                .path("code").asInt());
        assertEquals(-32602, inSession(uri, other, "tasks/result", "{\"taskId\":\"" + id + "\"}").path("error")
                .path("code").asInt());

        JsonNode result = inSession(uri, session, "tasks/result", "{\"taskId\":\"" + id + "\"}").path("result");
        assertEquals("done h", result.path("content").path(0).path("text").asString(), result.toString());
        assertEquals(id, result.path("_meta").path("io.modelcontextprotocol/related-task").path("taskId").asString());
        assertEquals("completed", inSession(uri, session, "tasks/get", "{\"taskId\":\"" + id + "\"}").path("result")
                .path("status").asString());
        JsonNode late = inSession(uri, session, "tasks/cancel", "{\"taskId\":\"" + id + "\"}");
        assertEquals(-32602, late.path("error").path("code").asInt(), "a terminal task: " + late);

        JsonNode refused = inSession(uri, session, "tools/call", "{\"name\":\"must\"}");
        assertEquals(-32601, refused.path("error").path("code").asInt(), refused.toString());
        JsonNode forbidden = inSession(uri, session, "tools/call", "{\"name\":\"plain\",\"task\":{}}");
        assertEquals(-32601, forbidden.path("error").path("code").asInt(), forbidden.toString());
        JsonNode plain = inSession(uri, session, "tools/call", "{\"name\":\"slow\",\"arguments\":{\"label\":\"p\"}}");
        assertEquals("done p", plain.path("result").path("content").path(0).path("text").asString(), plain.toString());
    }

    @Test
    void aHandshakeTaskIsCancelledAndEndsWithItsSession() throws Exception {
        URI uri = start(ServerLimits.DEFAULT);
        String session = Wire.initialize(uri, "{}");
        String id = inSession(uri, session, "tools/call", "{\"name\":\"slow\",\"arguments\":{\"ms\":60000,\"label\":"
                + "\"x\"},\"task\":{}}").path("result").path("task").path("taskId").asString();
        JsonNode cancelled = inSession(uri, session, "tasks/cancel", "{\"taskId\":\"" + id + "\"}").path("result");
        assertEquals("cancelled", cancelled.path("status").asString(), cancelled.toString());
        JsonNode result = inSession(uri, session, "tasks/result", "{\"taskId\":\"" + id + "\"}");
        assertTrue(result.has("error"), "a cancelled task has no result: " + result);

        String second = inSession(uri, session, "tools/call", "{\"name\":\"slow\",\"arguments\":{\"ms\":60000,"
                + "\"label\":\"y\"},\"task\":{}}").path("result").path("task").path("taskId").asString();
        assertNotNull(second);
        Wire.send(java.net.http.HttpRequest.newBuilder(uri).header("Mcp-Session-Id", session).DELETE().build());
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        // A task cancelled before its handler got a worker (a busy machine) never runs: that is as good as stopped.
        while (!Set.of("x", "y").stream().allMatch(label -> interrupted.contains(label) || !started.contains(label))) {
            assertTrue(System.nanoTime() < deadline, "still running: started " + started + ", stopped " + interrupted);
            Thread.sleep(20);
        }
    }
}
