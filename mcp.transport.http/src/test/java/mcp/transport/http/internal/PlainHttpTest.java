package mcp.transport.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PlainHttp} against a server of raw sockets, so that each test decides the bytes on the wire: how a body is
 * framed, when a connection closes, what comes in pieces.
 */
class PlainHttpTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    private final ExecutorService executor = Executors.newCachedThreadPool();
    private RawServer server;
    private PlainHttp http;

    @AfterEach
    void tearDown() throws IOException {
        if (http != null) {
            http.close();
        }
        if (server != null) {
            server.close();
        }
        executor.shutdownNow();
    }

    /** What the server does with one request on a connection: write an answer, and whether to keep the connection. */
    @FunctionalInterface
    interface Answer {
        boolean answer(String head, byte[] body, OutputStream out) throws Exception;
    }

    /** Accepts connections on 127.0.0.1 and answers each request with the answer at hand. */
    static final class RawServer implements AutoCloseable {
        final ServerSocket socket;
        final AtomicInteger accepted = new AtomicInteger();
        /** Connections the client closed between requests. */
        final AtomicInteger closedByClient = new AtomicInteger();
        final BlockingQueue<String> requests = new LinkedBlockingQueue<>();
        final List<Socket> open = new ArrayList<>();
        volatile Answer answer;

        RawServer(Answer answer) throws IOException {
            this.answer = answer;
            socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(this::accept, "raw-server");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/mcp");
        }

        private void accept() {
            while (!socket.isClosed()) {
                try {
                    Socket connection = socket.accept();
                    accepted.incrementAndGet();
                    synchronized (open) {
                        open.add(connection);
                    }
                    Thread serving = new Thread(() -> serve(connection), "raw-connection");
                    serving.setDaemon(true);
                    serving.start();
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void serve(Socket connection) {
            try (connection) {
                InputStream in = connection.getInputStream();
                OutputStream out = connection.getOutputStream();
                while (true) {
                    String head = readHead(in);
                    if (head == null) {
                        closedByClient.incrementAndGet();
                        return;
                    }
                    int length = 0;
                    for (String line : head.split("\r\n")) {
                        if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                            length = Integer.parseInt(line.substring(15).trim());
                        }
                    }
                    byte[] body = in.readNBytes(length);
                    requests.add(head);
                    if (!answer.answer(head, body, out)) {
                        return;
                    }
                }
            } catch (Exception e) {
                // the connection ends
            }
        }

        private static String readHead(InputStream in) throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int matched = 0;
            for (int b; (b = in.read()) >= 0; ) {
                head.write(b);
                matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
                if (matched == 4) {
                    return head.toString(StandardCharsets.ISO_8859_1);
                }
            }
            return null;
        }

        @Override
        public void close() throws IOException {
            socket.close();
            synchronized (open) {
                for (Socket s : open) {
                    s.close();
                }
            }
        }
    }

    private static boolean json(OutputStream out, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.write(bytes);
        out.flush();
        return true;
    }

    private PlainHttp start(Answer answer) throws IOException {
        server = new RawServer(answer);
        http = new PlainHttp(server.uri(), WAIT, executor);
        return http;
    }

    private HttpRequest post(String body) {
        return HttpRequest.newBuilder(server.uri()).header("Content-Type", "application/json")
                .header("X-Test", "one").POST(new PlainHttp.Bytes(body.getBytes(StandardCharsets.UTF_8))).build();
    }

    private HttpResponse<String> send(String body) throws IOException {
        return http.send(post(body), HttpResponse.BodyHandlers.ofString(), null).orElseThrow();
    }

    @Test
    void postsOnOneKeptConnectionWithTheRequestsHeadersAndBody() throws Exception {
        start((head, body, out) -> json(out, "{\"echo\":" + new String(body, StandardCharsets.UTF_8) + "}"));
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> response = send("[" + i + "]");
            assertEquals(200, response.statusCode());
            assertEquals("{\"echo\":[" + i + "]}", response.body());
            assertEquals(Optional.of("application/json"), response.headers().firstValue("content-type"));
        }
        assertEquals(1, server.accepted.get(), "one connection for every request");
        String head = server.requests.take();
        assertTrue(head.startsWith("POST /mcp HTTP/1.1\r\n"), head);
        assertTrue(head.contains("\r\nHost: 127.0.0.1:" + server.socket.getLocalPort() + "\r\n"), head);
        assertTrue(head.contains("\r\nX-Test: one\r\n") || head.contains("\r\nx-test: one\r\n"), head);
        assertTrue(head.contains("Content-Length: 3\r\n"), head);
    }

    @Test
    void aSmallRequestIsWrittenAheadOnAKeptConnectionAndItsAnswerReadByAnotherThread() throws Exception {
        start((head, body, out) -> json(out, "{\"echo\":" + new String(body, StandardCharsets.UTF_8) + "}"));
        assertFalse(http.writeAhead(post("[0]")).isPresent(), "no kept connection yet");
        assertEquals(0, server.accepted.get());
        send("[0]");
        server.requests.clear();

        PlainHttp.Written written = http.writeAhead(post("[1]")).orElseThrow();
        assertTrue(server.requests.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS).startsWith("POST /mcp HTTP/1.1"),
                "the request went out before anyone reads its answer");
        CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> {
            try {
                return http.send(post("[1]"), HttpResponse.BodyHandlers.ofString(), written).orElseThrow().body();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, executor);
        assertEquals("{\"echo\":[1]}", answer.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        assertEquals(null, server.requests.poll(), "sent once");

        // Given up before its answer was read: the connection is not kept, the next request takes a new one.
        http.writeAhead(post("[2]")).orElseThrow().abandon();
        assertEquals("{\"echo\":[3]}", send("[3]").body());
        assertEquals(2, server.accepted.get());
        assertFalse(http.writeAhead(post("x".repeat(PlainHttp.WRITE_AHEAD_BYTES + 1))).isPresent(), "too large");
    }

    @Test
    void readsAChunkedBodyThatComesInPiecesWithExtensionsAndTrailers() throws Exception {
        start((head, body, out) -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            for (String piece : List.of("5;name=value\r\nhel", "lo\r\n", "6\r\n wor", "ld\r\n0\r\nTrailer: x\r\n\r\n")) {
                out.write(piece.getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                Thread.sleep(20);
            }
            return true;
        });
        assertEquals("hello world", send("{}").body());
        assertEquals("hello world", send("{}").body(), "the connection is reused after the chunked body");
        assertEquals(1, server.accepted.get());
    }

    @Test
    void aBodyWithoutALengthEndsWhenTheServerClosesAndTheConnectionIsNotKept() throws Exception {
        start((head, body, out) -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end"
                    .getBytes(StandardCharsets.ISO_8859_1));
            return false;
        });
        assertEquals("until the end", send("{}").body());
        assertEquals("until the end", send("{}").body());
        assertEquals(2, server.accepted.get());
    }

    @Test
    void aConnectionTheServerClosedIsNotReusedAndNothingFails() throws Exception {
        // Closes without saying so (no "Connection: close"): the next request, once the close has arrived, finds it
        // closed before it is sent and takes a new connection.
        start((head, body, out) -> !json(out, "{}"));
        for (int i = 0; i < 10; i++) {
            assertEquals("{}", send("{}").body());
            Thread.sleep(50);
        }
        assertEquals(10, server.accepted.get());
        assertEquals(10, server.requests.size(), "every request reached the server once");

        // Says so: not kept at all, however soon the next request comes.
        server.answer = (head, body, out) -> {
            out.write("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}"
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return false;
        };
        for (int i = 0; i < 10; i++) {
            assertEquals("{}", send("{}").body());
        }
        assertEquals(20, server.accepted.get());
    }

    @Test
    void aRequestWhoseConnectionEndsWithoutAnAnswerIsNotSentAgain() throws Exception {
        AtomicInteger served = new AtomicInteger();
        // The second request on the kept connection is taken and the connection closed without an answer, as a
        // server (or a balancer's replica) that ends mid-call: it may have run, so it must not run twice.
        start((head, body, out) -> served.incrementAndGet() % 2 == 1 && json(out, "{\"n\":" + served.get() + "}"));
        assertEquals("{\"n\":1}", send("{}").body());
        IOException error = assertThrows(IOException.class, () -> send("{}"));
        assertTrue(error.getMessage().contains("closed the connection"), error.getMessage());
        assertEquals(2, server.requests.size(), "each request reached the server once");
        assertEquals("{\"n\":3}", send("{}").body(), "the next request takes a new connection");
        assertEquals(2, server.accepted.get());
    }

    @Test
    void aRedirectIsLeftToTheJdksClient() throws Exception {
        start((head, body, out) -> {
            out.write("HTTP/1.1 307 Temporary Redirect\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n"
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return true;
        });
        assertFalse(http.send(post("{}"), HttpResponse.BodyHandlers.ofString(), null).isPresent());
    }

    @Test
    void aRequestWithATimeoutOrAnotherBodyIsLeftToTheJdksClient() throws Exception {
        start((head, body, out) -> json(out, "{}"));
        HttpRequest timed = HttpRequest.newBuilder(server.uri()).timeout(Duration.ofSeconds(1))
                .POST(new PlainHttp.Bytes(new byte[1])).build();
        HttpRequest other = HttpRequest.newBuilder(server.uri()).POST(HttpRequest.BodyPublishers.ofString("{}")).build();
        assertFalse(http.send(timed, HttpResponse.BodyHandlers.ofString(), null).isPresent());
        assertFalse(http.send(other, HttpResponse.BodyHandlers.ofString(), null).isPresent());
        assertEquals(0, server.accepted.get());
    }

    @Test
    void refusedConnectionsFailAsTheJdksClientFails() throws Exception {
        start((head, body, out) -> json(out, "{}"));
        server.close();
        assertThrows(ConnectException.class, () -> send("{}"));
    }

    @Test
    void headersOverTheLimitFailTheExchange() throws Exception {
        start((head, body, out) -> {
            out.write("HTTP/1.1 200 OK\r\n".getBytes(StandardCharsets.ISO_8859_1));
            String line = "X-Big: " + "a".repeat(1000) + "\r\n";
            for (int i = 0; i < 70; i++) {
                out.write(line.getBytes(StandardCharsets.ISO_8859_1));
            }
            out.flush();
            return true;
        });
        IOException error = assertThrows(IOException.class, () -> send("{}"));
        assertTrue(error.getMessage().contains("exceed " + PlainHttp.MAX_HEAD_BYTES), error.getMessage());
    }

    @Test
    void aStreamedBodyIsReadOnAfterSendReturnsAndACancelClosesItsConnection() throws Exception {
        CompletableFuture<Void> release = new CompletableFuture<>();
        start((head, body, out) -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.write("6\r\nfirst\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            release.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            out.write("7\r\nsecond\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            Thread.sleep(WAIT.toMillis()); // the stream stays open until the client cancels
            return false;
        });
        BlockingQueue<String> pieces = new LinkedBlockingQueue<>();
        Flow.Subscription[] subscription = new Flow.Subscription[1];
        // As the transport's event streams are read: the result is known at once, the body comes one piece at a time.
        HttpResponse.BodyHandler<String> streaming = info -> new HttpResponse.BodySubscriber<>() {
            @Override
            public CompletionStage<String> getBody() {
                return CompletableFuture.completedFuture("stream");
            }

            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription[0] = s;
                s.request(1);
            }

            @Override
            public void onNext(List<ByteBuffer> item) {
                item.forEach(b -> pieces.add(StandardCharsets.UTF_8.decode(b).toString()));
                subscription[0].request(1);
            }

            @Override
            public void onError(Throwable throwable) {
                pieces.add("error");
            }

            @Override
            public void onComplete() {
                pieces.add("complete");
            }
        };
        HttpResponse<String> response = http.send(post("{}"), streaming, null).orElseThrow();
        assertEquals("stream", response.body());
        assertEquals("first\n", pieces.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        release.complete(null);
        assertEquals("second\n", pieces.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        subscription[0].cancel();
        Thread.sleep(100);
        assertEquals(null, pieces.poll(), "nothing after a cancel, neither an error nor the end");
        // The cancelled stream's connection is closed, not kept: the next request opens a new one.
        server.answer = (head, body, out) -> json(out, "{}");
        assertEquals("{}", send("{}").body());
        assertEquals(2, server.accepted.get());
    }

    @Test
    void connectionsIdleTooLongAreClosedNotReused() throws Exception {
        CountDownLatch both = new CountDownLatch(2);
        start((head, body, out) -> {
            both.countDown();
            both.await(WAIT.toMillis(), TimeUnit.MILLISECONDS); // the first two answers wait for each other: two connections
            return json(out, "{}");
        });
        http.close();
        http = new PlainHttp(server.uri(), WAIT, executor, TimeUnit.MILLISECONDS.toNanos(1000));
        CompletableFuture<?> first = CompletableFuture.runAsync(() -> sendUnchecked(), executor);
        CompletableFuture<?> second = CompletableFuture.runAsync(() -> sendUnchecked(), executor);
        first.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        second.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(2, server.accepted.get());
        // One of the two is reused within the bound; when it comes back, the other, idle past the bound, is closed.
        Thread.sleep(600);
        send("{}");
        Thread.sleep(600);
        send("{}");
        assertEquals(2, server.accepted.get(), "the kept connection was reused");
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (server.closedByClient.get() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(1, server.closedByClient.get(), "the connection idle past the bound was closed");
        // Past the bound, the last one is not reused either: a new connection answers.
        Thread.sleep(1100);
        send("{}");
        assertEquals(3, server.accepted.get());
    }

    private void sendUnchecked() {
        try {
            send("{}");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void closingClosesTheKeptConnections() throws Exception {
        start((head, body, out) -> json(out, "{}"));
        send("{}");
        Thread.sleep(100);
        assertEquals(0, server.closedByClient.get());
        http.close();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (server.closedByClient.get() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(1, server.closedByClient.get(), "the client closed its kept connection");
    }
}
