package mcp.bench.internal;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import mcp.bench.BenchClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The floor over Streamable HTTP, as {@link FloorClient} is over a pipe: the least Java that speaks one MCP session
 * (2025-11-25, {@code Mcp-Session-Id}) over HTTP/1.1 on loopback. Plain blocking sockets with keep-alive, one
 * connection per caller in flight (kept in a pool), the request written and the response read on the caller's
 * thread, a JSON body or an event stream read to its end, parsed with one shared {@link JsonMapper}. No TLS, no
 * redirects, no timeouts, no GET stream, no checks beyond the status: what a gateway's HTTP side costs when the
 * client costs next to nothing, so that the gateway, not the client's HTTP stack, is what is measured.
 */
public final class FloorHttpClient implements BenchClient {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private final URI uri;
    private final int port;
    private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
    private final AtomicLong ids = new AtomicLong();
    private volatile String session;
    private volatile String protocolVersion;

    FloorHttpClient(String url) {
        this.uri = URI.create(url);
        if (!"http".equals(uri.getScheme())) {
            throw new IllegalArgumentException("the floor speaks plain http only: " + url);
        }
        this.port = uri.getPort() < 0 ? 80 : uri.getPort();
    }

    @Override
    public void connect() throws IOException {
        protocolVersion = request("initialize", FloorClient.initializeParams("floor-http")).path("protocolVersion")
                .stringValue(null);
        post(MAPPER.createObjectNode().put("jsonrpc", "2.0").put("method", "notifications/initialized"), -1);
    }

    /** @return the version the gateway agreed in {@code initialize} */
    @Override
    public String protocolVersion() {
        return protocolVersion;
    }

    @Override
    public int listTools() throws Exception {
        return FloorClient.countTools(params -> request("tools/list", params));
    }

    /** Blocks the caller for the whole exchange: the future is complete when returned. */
    @Override
    public CompletableFuture<String> echo(String message) {
        ObjectNode params = MAPPER.createObjectNode().put("name", "echo");
        params.putObject("arguments").put("message", message);
        try {
            return CompletableFuture.completedFuture(request("tools/call", params).path("content").path(0).path("text")
                    .stringValue(null));
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private JsonNode request(String method, ObjectNode params) throws IOException {
        long id = ids.incrementAndGet();
        ObjectNode message = MAPPER.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", method);
        message.set("params", params);
        JsonNode reply = post(message, id);
        JsonNode error = reply.get("error");
        if (error != null) {
            throw new IOException("JSON-RPC error " + error);
        }
        return reply.get("result");
    }

    /** @return the response to {@code id}, or null for a notification (202, no body) */
    private JsonNode post(ObjectNode message, long id) throws IOException {
        byte[] body = MAPPER.writeValueAsBytes(message);
        Connection connection = idle.pollFirst();
        if (connection == null) {
            connection = new Connection(new Socket(uri.getHost(), port));
        }
        boolean reusable = false;
        try {
            String sessionHeader = session == null ? "" : "Mcp-Session-Id: " + session + "\r\n";
            String head = "POST " + uri.getRawPath() + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + port
                    + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                    + "MCP-Protocol-Version: " + GatewayClient.PROTOCOL + "\r\n" + sessionHeader
                    + "Content-Length: " + body.length + "\r\n\r\n";
            connection.out.write(head.getBytes(StandardCharsets.US_ASCII));
            connection.out.write(body);
            connection.out.flush();
            Response response = connection.read();
            if (response.status / 100 != 2) {
                throw new IOException("HTTP " + response.status + ": " + new String(response.body, StandardCharsets.UTF_8));
            }
            if (response.session != null) {
                session = response.session;
            }
            reusable = response.keepAlive;
            if (id < 0) {
                return null;
            }
            return response.eventStream ? fromEvents(response.body, id) : MAPPER.readTree(response.body);
        } finally {
            if (reusable) {
                idle.addFirst(connection);
            } else {
                connection.socket.close();
            }
        }
    }

    /** @return the message with this id among the stream's {@code data:} lines */
    private static JsonNode fromEvents(byte[] body, long id) throws IOException {
        StringBuilder data = new StringBuilder();
        for (String line : new String(body, StandardCharsets.UTF_8).split("\r?\n", -1)) {
            if (line.startsWith("data:")) {
                data.append(line.substring(line.startsWith("data: ") ? 6 : 5)).append('\n');
            } else if (line.isEmpty() && data.length() > 0) {
                JsonNode event = MAPPER.readTree(data.toString());
                if (event.path("id").asLong(-1) == id && !event.has("method")) {
                    return event;
                }
                data.setLength(0);
            }
        }
        throw new IOException("no response to " + id + " in the event stream");
    }

    private record Response(int status, byte[] body, boolean eventStream, boolean keepAlive, String session) {
    }

    /** One keep-alive connection, used by one caller at a time. */
    private static final class Connection {
        final Socket socket;
        final OutputStream out;
        final InputStream in;

        Connection(Socket socket) throws IOException {
            this.socket = socket;
            socket.setTcpNoDelay(true);
            this.out = socket.getOutputStream();
            this.in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
        }

        Response read() throws IOException {
            String status = line();
            String[] parts = status.split(" ", 3);
            if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
                throw new IOException("not an HTTP/1.x response: " + status);
            }
            boolean keepAlive = parts[0].equals("HTTP/1.1");
            long length = -1;
            boolean chunked = false;
            boolean eventStream = false;
            String sessionId = null;
            for (String header = line(); !header.isEmpty(); header = line()) {
                int colon = header.indexOf(':');
                String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = header.substring(colon + 1).trim();
                switch (name) {
                    case "content-length" -> length = Long.parseLong(value);
                    case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                    case "content-type" -> eventStream = value.toLowerCase(Locale.ROOT).startsWith("text/event-stream");
                    case "connection" -> keepAlive = !value.equalsIgnoreCase("close");
                    case "mcp-session-id" -> sessionId = value;
                    default -> { }
                }
            }
            int code = Integer.parseInt(parts[1]);
            byte[] body;
            if (code == 204 || code == 304 || code / 100 == 1) {
                body = new byte[0];
            } else if (chunked) {
                ByteArrayOutputStream all = new ByteArrayOutputStream();
                for (int size = Integer.parseInt(line().split(";", 2)[0].trim(), 16); size > 0;
                        size = Integer.parseInt(line().split(";", 2)[0].trim(), 16)) {
                    all.write(in.readNBytes(size));
                    line();
                }
                while (!line().isEmpty()) {
                    // trailers
                }
                body = all.toByteArray();
            } else if (length >= 0) {
                body = in.readNBytes((int) length);
            } else {
                body = in.readAllBytes();
                keepAlive = false;
            }
            return new Response(code, body, eventStream, keepAlive, sessionId);
        }

        private String line() throws IOException {
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) {
                    throw new IOException("the connection ended mid-response");
                }
                if (c != '\r') {
                    line.append((char) c);
                }
            }
            return line.toString();
        }
    }

    @Override
    public void close() {
        String id = session;
        if (id != null) {
            try (Socket socket = new Socket(uri.getHost(), port)) {
                Connection connection = new Connection(socket);
                connection.out.write(("DELETE " + uri.getRawPath() + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + port
                        + "\r\nMcp-Session-Id: " + id + "\r\nMCP-Protocol-Version: " + GatewayClient.PROTOCOL
                        + "\r\nConnection: close\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                connection.out.flush();
                connection.read();
            } catch (IOException e) {
                // the gateway is gone already
            }
        }
        for (Connection connection = idle.poll(); connection != null; connection = idle.poll()) {
            try {
                connection.socket.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }
}
