package mcp.bench.internal;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import mcp.bench.BenchClient;
import mcp.bench.ClientRun;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The floor: the least Java that speaks JSON-RPC over a pipe with Jackson. Spawn the server, write
 * one line per request and flush (under a lock, on the caller's thread), read lines on one thread,
 * parse each with one shared {@link JsonMapper}, complete the waiting future right there. No
 * timeouts, no validation, no process-tree handling, no stderr tail: what the machine allows.
 */
public final class FloorClient implements BenchClient {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private final List<String> command;
    private final Map<Long, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private Process process;
    private OutputStream out;
    private volatile String protocolVersion;

    FloorClient(List<String> command) {
        this.command = List.copyOf(command);
    }

    /**
     * Runs the client workload; see {@link ClientRun}.
     *
     * @param args options, {@code --}, the server command
     */
    public static void main(String[] args) {
        ClientRun.main(args, "floor", FloorClient::new);
    }

    @Override
    public void connect() throws Exception {
        process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        out = new BufferedOutputStream(process.getOutputStream(), 64 * 1024);
        Thread reader = new Thread(this::readLoop, "floor-reader");
        reader.setDaemon(true);
        reader.start();
        protocolVersion = request("initialize", initializeParams("floor")).get(30, TimeUnit.SECONDS).path("protocolVersion")
                .stringValue(null);
        write(MAPPER.createObjectNode().put("jsonrpc", "2.0").put("method", "notifications/initialized"));
    }

    /** @return the version the server agreed in {@code initialize} */
    @Override
    public String protocolVersion() {
        return protocolVersion;
    }

    @Override
    public int listTools() throws Exception {
        return countTools(params -> request("tools/list", params).get(30, TimeUnit.SECONDS));
    }

    /** One request and its result, or a failure. */
    interface Request {
        JsonNode send(ObjectNode params) throws Exception;
    }

    /** @return the params of {@code initialize} for the floor's handshake (2025-11-25, no capabilities) */
    static ObjectNode initializeParams(String clientName) {
        ObjectNode params = MAPPER.createObjectNode().put("protocolVersion", GatewayClient.PROTOCOL);
        params.putObject("capabilities");
        params.putObject("clientInfo").put("name", clientName).put("version", "1");
        return params;
    }

    /** @return how many tools {@code tools/list} gives, following {@code nextCursor} to the end */
    static int countTools(Request list) throws Exception {
        int count = 0;
        String cursor = null;
        do {
            ObjectNode params = MAPPER.createObjectNode();
            if (cursor != null) {
                params.put("cursor", cursor);
            }
            JsonNode result = list.send(params);
            count += result.path("tools").size();
            JsonNode next = result.get("nextCursor");
            cursor = next != null && next.isString() ? next.stringValue() : null;
        } while (cursor != null);
        return count;
    }

    @Override
    public CompletableFuture<String> echo(String message) {
        ObjectNode params = MAPPER.createObjectNode().put("name", "echo");
        params.putObject("arguments").put("message", message);
        return request("tools/call", params)
                .thenApply(result -> result.path("content").path(0).path("text").stringValue(null));
    }

    private CompletableFuture<JsonNode> request(String method, ObjectNode params) {
        long id = ids.incrementAndGet();
        CompletableFuture<JsonNode> future = new CompletableFuture<>();
        pending.put(id, future);
        ObjectNode message = MAPPER.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", method);
        message.set("params", params);
        try {
            write(message);
        } catch (IOException e) {
            pending.remove(id);
            future.completeExceptionally(e);
        }
        return future;
    }

    private void write(ObjectNode message) throws IOException {
        byte[] bytes = MAPPER.writeValueAsBytes(message);
        synchronized (this) {
            out.write(bytes);
            out.write('\n');
            out.flush();
        }
    }

    private void readLoop() {
        try (InputStream in = process.getInputStream()) {
            byte[] buffer = new byte[64 * 1024];
            byte[] line = new byte[64 * 1024];
            int lineLength = 0;
            int n;
            while ((n = in.read(buffer)) > 0) {
                int start = 0;
                for (int i = 0; i < n; i++) {
                    if (buffer[i] == '\n') {
                        if (lineLength == 0) {
                            onLine(buffer, start, i - start);
                        } else {
                            line = append(line, lineLength, buffer, start, i - start);
                            onLine(line, 0, lineLength + i - start);
                            lineLength = 0;
                        }
                        start = i + 1;
                    }
                }
                if (start < n) {
                    line = append(line, lineLength, buffer, start, n - start);
                    lineLength += n - start;
                }
            }
        } catch (IOException e) {
            // the server ended
        }
        pending.values().forEach(f -> f.completeExceptionally(new IOException("server closed its stdout")));
    }

    private static byte[] append(byte[] line, int length, byte[] src, int offset, int count) {
        byte[] target = length + count <= line.length ? line : Arrays.copyOf(line, Math.max(line.length * 2, length + count));
        System.arraycopy(src, offset, target, length, count);
        return target;
    }

    private void onLine(byte[] bytes, int offset, int length) {
        if (length == 0) {
            return;
        }
        JsonNode message = MAPPER.readTree(bytes, offset, length);
        JsonNode id = message.get("id");
        if (id == null || message.has("method")) {
            return; // notifications and server requests: the testkit server sends none here
        }
        CompletableFuture<JsonNode> future = pending.remove(id.asLong());
        if (future == null) {
            return;
        }
        JsonNode error = message.get("error");
        if (error != null) {
            future.completeExceptionally(new IOException("JSON-RPC error " + error));
        } else {
            future.complete(message.get("result"));
        }
    }

    @Override
    public void close() {
        if (process == null) {
            return;
        }
        try {
            out.close();
        } catch (IOException e) {
            // already gone
        }
        try {
            if (!process.waitFor(2, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
