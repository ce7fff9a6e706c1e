package mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mcp.api.LogLevel;
import mcp.api.McpJson;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import org.junit.jupiter.api.Test;

/**
 * A client that never reads its stream holds only that stream: the server queues a bounded number of its events,
 * then drops the stream; its handler is never blocked by it, and every other client is served meanwhile.
 */
class SlowReaderTest {

    @Test
    void aClientThatNeverReadsSlowsNobody() throws Exception {
        CountDownLatch flooded = new CountDownLatch(1);
        String chunk = "x".repeat(16 * 1024);
        McpServer server = McpServer.builder("slow-reader", "1.0")
                .limits(ServerLimits.DEFAULT.withStreams(100, 16).withIoTimeout(Duration.ofSeconds(2)))
                .tool(ToolDefinition.of("flood", "Logs 4,000 messages of 16 KiB", McpJson.object()), (a, context) -> {
                    for (int i = 0; i < 4000; i++) {
                        context.log(LogLevel.WARNING, "flood", McpJson.mapper().getNodeFactory().stringNode(chunk));
                    }
                    flooded.countDown();
                    return ToolResult.text("flooded");
                })
                .tool(ToolDefinition.of("echo", "Echoes", McpJson.object()),
                        (a, context) -> ToolResult.text(a.path("text").asString("")))
                .build();
        try (server) {
            URI uri = server.serveHttp(HttpOptions.LOOPBACK).uri();
            String session = Wire.initialize(uri, "{}");
            try (Socket stalled = new Socket(uri.getHost(), uri.getPort())) {
                // 64 MB of events for a client that reads none of them.
                String body = Wire.request(1, "tools/call", Wire.json("{\"name\":\"flood\",\"arguments\":{}}"));
                String request = "POST /mcp HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                        + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                        + "Mcp-Session-Id: " + session + "\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: "
                        + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
                OutputStream out = stalled.getOutputStream();
                out.write(request.getBytes(StandardCharsets.UTF_8));
                out.flush();
                assertTrue(flooded.await(30, TimeUnit.SECONDS), "the handler never waits for the client's reading");
                for (int i = 0; i < 20; i++) {
                    long start = System.nanoTime();
                    Wire.Reply reply = Wire.post(uri, Wire.request(10 + i, "tools/call",
                            Wire.stateless("{\"name\":\"echo\",\"arguments\":{\"text\":\"t" + i + "\"}}", "{}")),
                            Wire.statelessHeaders("tools/call", "echo"));
                    assertEquals("t" + i, reply.last().path("result").path("content").path(0).path("text").asString());
                    // Generous: a bound that only a client held up behind the stalled one would miss.
                    assertTrue(System.nanoTime() - start < 10_000_000_000L, "call " + i + " was held up");
                }
                Wire.Reply sameSession = Wire.post(uri, Wire.request(99, "ping", null), Wire.session(session));
                assertEquals(200, sameSession.status(), "even the stalled client's session is served on another request");
            }
        }
    }
}
