package mcp.server;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import mcp.protocol.SseEvent;
import mcp.protocol.SseParser;
import tools.jackson.databind.JsonNode;

/** An event stream read as it comes, for tests that answer the server while its stream is open. */
final class EventStream implements AutoCloseable {

    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    final int status;
    final Map<String, java.util.List<String>> headers;
    private final InputStream body;
    private final BlockingQueue<SseEvent> events = new LinkedBlockingQueue<>();
    private final Thread reader;
    private final SseParser parser;

    private EventStream(HttpResponse<InputStream> response) {
        this.status = response.statusCode();
        this.headers = response.headers().map();
        this.body = response.body();
        parser = new SseParser(1 << 24, events::add);
        reader = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try {
                int n;
                while ((n = body.read(buffer)) >= 0) {
                    parser.feed(java.nio.ByteBuffer.wrap(buffer, 0, n));
                }
            } catch (IOException | SseParser.TooLargeException e) {
                // closed
            }
        }, "test-sse-reader");
        reader.setDaemon(true);
        reader.start();
    }

    static EventStream post(URI uri, String body, Map<String, String> headers) throws Exception {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream").POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(builder::setHeader);
        return new EventStream(CLIENT.send(builder.build(), HttpResponse.BodyHandlers.ofInputStream()));
    }

    static EventStream get(URI uri, Map<String, String> headers) throws Exception {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).header("Accept", "text/event-stream").GET();
        headers.forEach(builder::setHeader);
        return new EventStream(CLIENT.send(builder.build(), HttpResponse.BodyHandlers.ofInputStream()));
    }

    /** @return the next event, waiting at most 20 s */
    SseEvent next() throws InterruptedException {
        SseEvent event = events.poll(20, TimeUnit.SECONDS);
        if (event == null) {
            throw new AssertionError("no event within 20 s");
        }
        return event;
    }

    /** @return the next event's message */
    JsonNode nextMessage() throws InterruptedException {
        return Wire.json(next().text());
    }

    /** @return the next message with a method of that name, skipping others */
    JsonNode nextWithMethod(String method) throws InterruptedException {
        while (true) {
            JsonNode message = nextMessage();
            if (method.equals(message.path("method").asString(""))) {
                return message;
            }
        }
    }

    /** @return the id of the last event, a priming event's (no data) included; read once the stream ended */
    String lastEventId() {
        return parser.lastEventId();
    }

    /** @return whether an event with data came, without waiting */
    boolean anyEvent() {
        return !events.isEmpty();
    }

    /** @return whether the server ended the stream within the time */
    boolean endsWithin(long millis) throws InterruptedException {
        reader.join(millis);
        return !reader.isAlive();
    }

    @Override
    public void close() throws IOException {
        body.close();
    }
}
