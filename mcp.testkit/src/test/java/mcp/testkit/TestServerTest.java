package mcp.testkit;

import static mcp.testkit.ServerProcess.method;
import static mcp.testkit.ServerProcess.responseTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import tools.jackson.databind.JsonNode;

/** Runs the test server as a real child process and checks what it says on the wire. */
class TestServerTest {

    private final List<ServerProcess> started = new ArrayList<>();

    @AfterEach
    void killServers() throws InterruptedException {
        for (ServerProcess server : started) {
            server.close();
        }
    }

    private ServerProcess start(String... args) throws Exception {
        ServerProcess server = new ServerProcess(args);
        started.add(server);
        return server;
    }

    private static String text(JsonNode result) {
        return result.path("content").path(0).path("text").stringValue();
    }

    @Test
    void initializeAnswersTheAskedVersionWhenSupported() throws Exception {
        ServerProcess server = start();
        JsonNode result = server.request(1, "initialize", "{\"protocolVersion\":\"2025-06-18\"}").get("result");
        assertEquals("2025-06-18", result.path("protocolVersion").stringValue());
        assertTrue(result.path("capabilities").path("tools").path("listChanged").booleanValue());
        assertEquals("mcp-testkit", result.path("serverInfo").path("name").stringValue());
        assertEquals("1.0", result.path("serverInfo").path("version").stringValue());

        result = server.request(2, "initialize", "{\"protocolVersion\":\"1999-01-01\"}").get("result");
        assertEquals("2025-11-25", result.path("protocolVersion").stringValue());
        assertEquals("{}", server.request(3, "ping", "{}").get("result").toString());
        assertEquals(-32601, server.request(4, "nope/nope", "{}").path("error").path("code").intValue());
    }

    @Test
    void protocolVersionAndNameCanBeForced() throws Exception {
        ServerProcess server = start("--protocol-version", "2024-01-01", "--name", "other");
        JsonNode result = server.request(1, "initialize", "{\"protocolVersion\":\"2025-11-25\"}").get("result");
        assertEquals("2024-01-01", result.path("protocolVersion").stringValue());
        assertEquals("other", result.path("serverInfo").path("name").stringValue());
    }

    @Test
    void toolsListIsPaged() throws Exception {
        ServerProcess server = start("--tools", "250", "--page-size", "100");
        Set<String> names = new HashSet<>();
        List<String> cursors = new ArrayList<>();
        String params = "{}";
        int pages = 0;
        while (true) {
            JsonNode result = server.request(++pages, "tools/list", params).get("result");
            for (JsonNode tool : result.get("tools")) {
                assertTrue(names.add(tool.get("name").stringValue()), "duplicate " + tool);
                assertEquals("object", tool.path("inputSchema").path("type").stringValue());
            }
            if (!result.has("nextCursor")) {
                break;
            }
            cursors.add(result.get("nextCursor").stringValue());
            params = "{\"cursor\":\"" + cursors.get(cursors.size() - 1) + "\"}";
        }
        assertEquals(3, pages);
        assertEquals(List.of("100", "200"), cursors);
        assertEquals(261, names.size()); // 11 built-in tools, then tool_0 .. tool_249
        assertTrue(names.containsAll(List.of("echo", "add", "slow", "tool_0", "tool_249")));
        assertEquals(-32602, server.request(9, "tools/list", "{\"cursor\":\"bogus\"}").path("error").path("code").intValue());
    }

    @Test
    void toolsAnswer() throws Exception {
        ServerProcess server = start();
        assertEquals("héllo", text(server.callTool(1, "echo", "{\"message\":\"héllo\"}").get("result")));

        JsonNode sum = server.callTool(2, "add", "{\"a\":2,\"b\":3}").get("result");
        assertEquals("5", text(sum));
        assertEquals(5, sum.path("structuredContent").path("sum").intValue());
        assertEquals("0.3", text(server.callTool(3, "add", "{\"a\":0.1,\"b\":0.2}").get("result")));

        JsonNode failed = server.callTool(4, "fail", "{}").get("result");
        assertTrue(failed.path("isError").booleanValue());
        assertEquals("tool failed on purpose", text(failed));
        JsonNode error = server.callTool(5, "error", "{}").get("error");
        assertEquals(-32603, error.path("code").intValue());
        assertEquals("internal failure on purpose", error.path("message").stringValue());

        JsonNode content = server.callTool(6, "content", "{}").get("result");
        List<String> kinds = new ArrayList<>();
        content.get("content").forEach(item -> kinds.add(item.get("type").stringValue()));
        assertEquals(List.of("text", "image", "audio", "resource", "resource_link"), kinds);

        assertEquals("changed", text(server.callTool(7, "change_tools", "{}").get("result")));
        server.await(method("notifications/tools/list_changed"));
    }

    @Test
    void slowReportsProgressDoesNotBlockAndCanBeCancelled() throws Exception {
        ServerProcess server = start();
        server.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\","
                + "\"arguments\":{\"ms\":5000,\"steps\":50},\"_meta\":{\"progressToken\":\"p1\"}}}");
        JsonNode progress = server.await(method("notifications/progress")).get("params");
        assertEquals("p1", progress.path("progressToken").stringValue());
        assertEquals(50, progress.path("total").intValue());
        server.request(2, "ping", "{}"); // answered while slow runs

        server.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}");
        server.request(3, "ping", "{}");
        assertTrue(server.silentFor(responseTo(1), Duration.ofMillis(300)), "cancelled call answered");
    }

    @Test
    void serverRequestsAreSentAndTheirAnswersRecorded() throws Exception {
        ServerProcess server = start("--fault", "server-requests");
        server.request(1, "initialize", "{\"protocolVersion\":\"2025-11-25\"}");
        server.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        assertEquals("s-1", server.await(method("ping")).path("id").stringValue());
        assertEquals("s-2", server.await(method("roots/list")).path("id").stringValue());
        assertEquals("s-3", server.await(method("sampling/createMessage")).path("id").stringValue());
        server.send("{\"jsonrpc\":\"2.0\",\"id\":\"s-1\",\"result\":{}}");
        server.send("{\"jsonrpc\":\"2.0\",\"id\":\"s-2\",\"result\":{\"roots\":[]}}");
        server.send("{\"jsonrpc\":\"2.0\",\"id\":\"s-3\",\"error\":{\"code\":-32601,\"message\":\"no\"}}");

        JsonNode answers = ServerProcess.MAPPER.readTree(text(server.callTool(2, "server_requests", "{}").get("result")));
        assertEquals(3, answers.size());
        assertEquals(-32601, answers.path(2).path("error").path("code").intValue());

        // The roots tool asks the client and returns what it answered.
        server.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"roots\"}}");
        String id = server.await(method("roots/list")).path("id").stringValue();
        server.send("{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"result\":{\"roots\":[{\"uri\":\"file:///tmp\"}]}}");
        assertEquals("{\"roots\":[{\"uri\":\"file:///tmp\"}]}", text(server.await(responseTo(3)).get("result")));
    }

    @Test
    void exitAtStartExitsWithCode3() throws Exception {
        ServerProcess server = start("--stderr", "hello from stderr", "--fault", "exit-at-start");
        assertTrue(server.process().waitFor(10, TimeUnit.SECONDS));
        assertEquals(3, server.process().exitValue());
        // stderr is drained by a thread of ServerProcess: give it a moment to read the last line.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!server.stderr().contains("fatal: exit at start on purpose") && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(server.stderr().contains("hello from stderr"), server.stderr());
        assertTrue(server.stderr().contains("fatal: exit at start on purpose"), server.stderr());
    }

    @Test
    void failFirstFailsTheFirstStartsCountedInTheStateFileThenServes(@TempDir Path temp) throws Exception {
        Path state = temp.resolve("starts");
        for (int i = 1; i <= 2; i++) {
            ServerProcess failing = start("--fail-first", "2", "--state", state.toString());
            assertTrue(failing.process().waitFor(10, TimeUnit.SECONDS));
            assertEquals(4, failing.process().exitValue(), "start " + i + " fails");
        }
        ServerProcess third = start("--fail-first", "2", "--state", state.toString());
        assertEquals("2025-11-25", third.request(1, "initialize", "{\"protocolVersion\":\"2025-11-25\"}")
                .path("result").path("protocolVersion").asString(), "the third start serves");
        List<String> lines = Files.readAllLines(state);
        assertEquals(3, lines.size(), lines.toString());
        assertEquals(String.valueOf(third.process().pid()), lines.get(2));

        ServerProcess fourth = start("--fail-first", "2", "--state", state.toString());
        fourth.request(1, "ping", "{}");
        assertTrue(Files.readAllLines(state).contains("overlap " + third.process().pid()),
                "a start beside a live earlier one is marked: " + Files.readAllLines(state));
    }

    @Test
    void failFirstCanHangInsteadAndEndsWithStdin(@TempDir Path temp) throws Exception {
        ServerProcess hanging = start("--fail-first", "1", "--state", temp.resolve("s").toString(), "--fail-with",
                "hang");
        hanging.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
        assertFalse(hanging.process().waitFor(300, TimeUnit.MILLISECONDS), "it neither answers nor exits");
        hanging.process().getOutputStream().close();
        assertTrue(hanging.process().waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, hanging.process().exitValue());
    }

    @Test
    void failFirstWithoutAStateFileIsAUsageError() throws Exception {
        ServerProcess server = start("--fail-first", "1");
        assertTrue(server.process().waitFor(10, TimeUnit.SECONDS));
        assertEquals(2, server.process().exitValue());
    }

    @Test
    void unknownOptionExitsWithCode2() throws Exception {
        ServerProcess server = start("--no-such-option", "1");
        assertTrue(server.process().waitFor(10, TimeUnit.SECONDS));
        assertEquals(2, server.process().exitValue());
    }

    @Test
    void toolUiGivesToolsTheMcpAppsMetadataAndTheyStillAnswer() throws Exception {
        ServerProcess server = start("--tools", "1", "--tool-ui", "echo=app", "--tool-ui", "add=",
                "--tool-ui", "tool_0=model,app", "--tool-ui", "pid");
        JsonNode tools = server.request(1, "tools/list", "{}").path("result").path("tools");
        java.util.Map<String, JsonNode> ui = new java.util.HashMap<>();
        tools.forEach(tool -> ui.put(tool.path("name").stringValue(), tool.path("_meta").path("ui")));
        assertEquals("{\"resourceUri\":\"ui://mcp-testkit/echo\",\"visibility\":[\"app\"]}", ui.get("echo").toString());
        assertEquals("[]", ui.get("add").path("visibility").toString(), "an empty list is kept empty");
        assertEquals("[\"model\",\"app\"]", ui.get("tool_0").path("visibility").toString());
        assertEquals("{\"resourceUri\":\"ui://mcp-testkit/pid\"}", ui.get("pid").toString(),
                "without =AUD the ui object has no visibility");
        assertTrue(ui.get("slow").isMissingNode(), "the other tools have no _meta");
        JsonNode echoed = server.request(2, "tools/call", "{\"name\":\"echo\",\"arguments\":{\"message\":\"hi\"}}");
        assertEquals("hi", text(echoed.get("result")));
    }

    @Test
    void toolUiOfAToolTheServerDoesNotOfferExitsWithCode2() throws Exception {
        ServerProcess server = start("--tool-ui", "no_such_tool=app");
        assertTrue(server.process().waitFor(10, TimeUnit.SECONDS));
        assertEquals(2, server.process().exitValue());
        ServerProcess wrong = start("--tool-ui", "echo=agent");
        assertTrue(wrong.process().waitFor(10, TimeUnit.SECONDS));
        assertEquals(2, wrong.process().exitValue());
    }

    @Test
    void stdinEofExitsWithCode0() throws Exception {
        ServerProcess server = start();
        server.request(1, "ping", "{}");
        server.process().getOutputStream().close();
        assertTrue(server.process().waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, server.process().exitValue());
    }

    @Test
    void grandchildIsReportedAlive() throws Exception {
        ServerProcess server = start("--fault", "grandchild");
        Optional<ProcessHandle> grandchild = Optional.empty();
        try {
            JsonNode structured = server.callTool(1, "pid", "{}").get("result").get("structuredContent");
            assertEquals(server.process().pid(), structured.path("pid").longValue());
            grandchild = ProcessHandle.of(structured.path("grandchildPid").longValue());
            assertTrue(grandchild.isPresent() && grandchild.get().isAlive(), "grandchild not alive");
            assertTrue(server.process().children().anyMatch(c -> c.pid() == structured.path("grandchildPid").longValue()));
        } finally {
            grandchild.ifPresent(ProcessHandle::destroyForcibly);
        }
        assertFalse(grandchild.get().onExit().get(5, TimeUnit.SECONDS).isAlive());
    }

    @Test
    void commandRunsThisJvm() {
        List<String> command = TestServers.command("--tools", "3");
        assertEquals(TestServers.javaExecutable(), command.get(0));
        assertTrue(command.contains("-cp"));
        assertEquals(List.of(TestServer.class.getName(), "--tools", "3"), command.subList(command.size() - 3, command.size()));
    }
}
