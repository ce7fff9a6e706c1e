package mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * A graceful shutdown ({@link McpServer#drain}): new requests are refused while the ones in flight finish and are
 * answered, what they still need of the client comes in, and what is still running at the bound is answered with an
 * error and cancelled.
 */
class DrainTest {

    private static final JsonNode OBJECT = Wire.json("{\"type\":\"object\"}");

    private McpServer server;
    /** Counts down when a handler of {@code sleep} or {@code hold} has started. */
    private final Map<String, CountDownLatch> started = new HashMap<>();
    /** Counts down when {@code hold}'s handler saw its cancellation. */
    private final CountDownLatch holdCancelled = new CountDownLatch(1);

    @AfterEach
    void close() {
        if (server != null) {
            server.close();
        }
    }

    private CountDownLatch started(String tool) {
        synchronized (started) {
            return started.computeIfAbsent(tool, key -> new CountDownLatch(1));
        }
    }

    private McpServer server() {
        server = McpServer.builder("drain-server", "1.0")
                .tool(ToolDefinition.of("sleep", "Sleeps ms", OBJECT), (arguments, context) -> {
                    started("sleep").countDown();
                    Thread.sleep(arguments.path("ms").asLong(100));
                    return ToolResult.text("slept");
                })
                .tool(ToolDefinition.of("hold", "Runs until cancelled", OBJECT), (arguments, context) -> {
                    started("hold").countDown();
                    try {
                        context.cancellation().get(60, TimeUnit.SECONDS);
                        holdCancelled.countDown();
                    } catch (InterruptedException e) {
                        holdCancelled.countDown();
                    }
                    return ToolResult.text("held");
                })
                .tool(ToolDefinition.of("ask", "Asks the user's name", OBJECT), (arguments, context) -> {
                    started("ask").countDown();
                    JsonNode answer = context.elicit(Wire.json("{\"message\":\"Name?\",\"requestedSchema\":"
                            + "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}}")).join();
                    return ToolResult.text("Hello, " + answer.path("content").path("name").asString("?"));
                })
                .build();
        return server;
    }

    private CompletableFuture<Integer> drainInBackground(Duration bound) {
        CompletableFuture<Integer> drained = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                drained.complete(server.drain(bound));
            } catch (Throwable e) {
                drained.completeExceptionally(e);
            }
        }, "drain-test");
        thread.setDaemon(true);
        thread.start();
        return drained;
    }

    private static CompletableFuture<Wire.Reply> postAsync(URI uri, String body, Map<String, String> headers) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return Wire.post(uri, body, headers);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static String call(Object id, String tool, String arguments) {
        return Wire.request(id, "tools/call", Wire.json("{\"name\":\"" + tool + "\",\"arguments\":" + arguments + "}"));
    }

    @Test
    @Timeout(60)
    void overHttpTheCallsInFlightFinishNewOnesGet503AndTheLastIsCancelledAtTheBound() throws Exception {
        URI uri = server().serveHttp(HttpOptions.LOOPBACK).uri();
        String session = Wire.initialize(uri, "{\"elicitation\":{}}");
        CompletableFuture<Wire.Reply> sleeping = postAsync(uri, call(1, "sleep", "{\"ms\":1500}"),
                Wire.session(session));
        CompletableFuture<Wire.Reply> holding = postAsync(uri, call(2, "hold", "{}"), Wire.session(session));
        assertTrue(started("sleep").await(10, TimeUnit.SECONDS) && started("hold").await(10, TimeUnit.SECONDS));
        try (EventStream asking = EventStream.post(uri, call(3, "ask", "{}"), Wire.session(session))) {
            JsonNode question = asking.nextWithMethod("elicitation/create");

            CompletableFuture<Integer> drained = drainInBackground(Duration.ofSeconds(4));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            Wire.Reply refused;
            do {
                // The drain starts on its own thread: wait until it refuses.
                refused = Wire.post(uri, Wire.request(4, "tools/list", null), Wire.session(session));
            } while (refused.status() != 503 && System.nanoTime() < deadline);
            assertEquals(503, refused.status(), refused.toString());
            assertNotNull(refused.header("Retry-After"), "a refusal says when to try again: " + refused);
            assertTrue(refused.last().path("error").path("message").asString().contains("shutting down"),
                    refused.toString());
            assertEquals(4, refused.last().path("id").asInt(), refused.toString());
            Wire.Reply newSession = Wire.post(uri, Wire.request(0, "initialize", Wire.json("{\"protocolVersion\":"
                    + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"late\",\"version\":\"1\"}}")),
                    Map.of());
            assertEquals(503, newSession.status(), "no new session either: " + newSession);
            Wire.Reply stateless = Wire.post(uri, Wire.request(5, "tools/list", Wire.stateless("{}", "{}")),
                    Wire.statelessHeaders("tools/list", null));
            assertEquals(503, stateless.status(), "no new stateless request: " + stateless);

            // What a call in flight needs of its client still comes in.
            Wire.Reply answered = Wire.post(uri, "{\"jsonrpc\":\"2.0\",\"id\":" + question.path("id") + ",\"result\":"
                    + "{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}}", Wire.session(session));
            assertEquals(202, answered.status(), answered.toString());
            assertEquals("Hello, Ada", asking.nextMessage().path("result").path("content").path(0).path("text")
                    .asString());
            assertEquals("slept", sleeping.get(20, TimeUnit.SECONDS).last().path("result").path("content").path(0)
                    .path("text").asString(), "a call in flight finishes and is answered");

            assertEquals(1, drained.get(20, TimeUnit.SECONDS), "one call was still running at the bound");
            JsonNode aborted = holding.get(20, TimeUnit.SECONDS).last();
            assertEquals(2, aborted.path("id").asInt(), aborted.toString());
            assertTrue(aborted.path("error").path("message").asString().contains("shut down before the request "
                    + "finished"), "the client hears why: " + aborted);
            assertTrue(holdCancelled.await(10, TimeUnit.SECONDS), "the handler saw its cancellation");
        }
    }

    @Test
    @Timeout(60)
    void overStdioANewRequestIsAnsweredWithTheErrorWhileTheCallInFlightFinishes() throws Exception {
        server();
        PipedInputStream serverIn = new PipedInputStream(1 << 20);
        OutputStream toServer = new PipedOutputStream(serverIn);
        PipedInputStream clientIn = new PipedInputStream(1 << 20);
        BufferedReader fromServer = new BufferedReader(new InputStreamReader(clientIn, StandardCharsets.UTF_8));
        server.serveStdio(serverIn, new PipedOutputStream(clientIn));
        send(toServer, Wire.request(1, "initialize", Wire.json("{\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
                + "{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}")));
        assertEquals(1, Wire.json(fromServer.readLine()).path("id").asInt());
        send(toServer, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        send(toServer, call(2, "sleep", "{\"ms\":1000}"));
        send(toServer, call(3, "hold", "{}"));
        assertTrue(started("sleep").await(10, TimeUnit.SECONDS) && started("hold").await(10, TimeUnit.SECONDS));
        CompletableFuture<Integer> drained = drainInBackground(Duration.ofSeconds(2));
        Map<Integer, JsonNode> answers = new HashMap<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int last = 10;
        boolean waiting = false;
        // New requests one at a time until one is refused (the drain starts on its own thread), and the calls' answers.
        while (!answers.containsKey(2) || !answers.containsKey(3) || !refused(answers)) {
            assertTrue(System.nanoTime() < deadline, "answers so far: " + answers);
            if (!waiting && !refused(answers)) {
                send(toServer, Wire.request(++last, "tools/list", null));
                waiting = true;
            }
            JsonNode answer = Wire.json(fromServer.readLine());
            answers.put(answer.path("id").asInt(), answer);
            waiting &= answer.path("id").asInt() != last;
        }
        assertEquals("slept", answers.get(2).path("result").path("content").path(0).path("text").asString(),
                answers.toString());
        assertTrue(answers.get(3).path("error").path("message").asString().contains("shut down before the request"),
                answers.toString());
        assertEquals(1, drained.get(10, TimeUnit.SECONDS));
        assertTrue(holdCancelled.await(10, TimeUnit.SECONDS), "the handler saw its cancellation");
    }

    private static boolean refused(Map<Integer, JsonNode> answers) {
        return answers.values().stream().anyMatch(answer -> answer.path("error").path("message").asString()
                .contains("shutting down"));
    }

    private static void send(OutputStream out, String line) throws Exception {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
