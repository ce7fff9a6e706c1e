package mcp.transport.http.internal;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import javax.net.ssl.SSLSession;

/**
 * The POSTs of a plain {@code http://} endpoint, over HTTP/1.1 connections of its own that are kept alive and
 * reused; everything else (TLS, HTTP/2, the GET stream, redirects) stays with the JDK's {@link HttpClient}.
 *
 * <p>Why: on loopback the JDK's client cost a call about 430 µs of CPU against about 80 µs for a blocking socket
 * (BENCHMARKS.md, the gateway section): each exchange passes between its selector thread and its executor several
 * times. Here the thread that sends a request writes it, reads the response's headers and, while the caller's body
 * subscriber still wants it, the body, with no hand-off; a body that goes on after the subscriber's result is known
 * (an event stream) is read on by a thread of the endpoint's executor.
 *
 * <p>The {@link HttpResponse.BodyHandler} contract is kept: the handler sees the status and headers before any of the
 * body, the body arrives as the subscriber asks for it, a cancelled subscription closes the connection. A cancelled
 * or timed-out send interrupts its thread, which closes the connection it is blocked on (an interruptible channel).
 * A connection that the server closed while it was idle is noticed before reuse. A request whose connection fails
 * before an answer is not sent again (nor does the JDK's client send a POST again): the server may have run it.
 */
final class PlainHttp {

    /** The most idle connections kept; more are closed as they come back. */
    static final int MAX_IDLE = 64;

    /** Idle connections older than this are closed rather than reused (servers close theirs after 5 s or more). */
    static final long MAX_IDLE_NANOS = Duration.ofSeconds(4).toNanos();

    /** The most bytes of a status line and headers. */
    static final int MAX_HEAD_BYTES = 64 * 1024;

    private static final int BUFFER_BYTES = 16 * 1024;

    /** The largest body {@link #writeAhead} writes on the caller's thread (larger ones could wait for the server). */
    static final int WRITE_AHEAD_BYTES = 8 * 1024;

    private final URI origin;
    private final InetSocketAddress address;
    private final String hostHeader;
    private final Duration connectTimeout;
    private final Executor executor;
    private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
    private final long maxIdleNanos;
    private volatile boolean closed;

    /**
     * @param uri the endpoint's URL (plain {@code http})
     * @param connectTimeout the bound on connecting
     * @param executor where a body that outlives its {@code send} is read on
     */
    PlainHttp(URI uri, Duration connectTimeout, Executor executor) {
        this(uri, connectTimeout, executor, MAX_IDLE_NANOS);
    }

    /** As above, with how long a connection may stay idle and be reused (tests). */
    PlainHttp(URI uri, Duration connectTimeout, Executor executor, long maxIdleNanos) {
        this.maxIdleNanos = maxIdleNanos;
        this.origin = uri;
        int port = uri.getPort() < 0 ? 80 : uri.getPort();
        this.address = InetSocketAddress.createUnresolved(uri.getHost(), port);
        this.hostHeader = uri.getPort() < 0 ? uri.getHost() : uri.getHost() + ":" + port;
        this.connectTimeout = connectTimeout;
        this.executor = executor;
    }

    /** @return whether requests to this URL can go through here: plain http */
    static boolean serves(URI uri) {
        return "http".equalsIgnoreCase(uri.getScheme()) && uri.getHost() != null && uri.getRawUserInfo() == null;
    }

    /** Closes the idle connections, and every one that comes back from now on. */
    void close() {
        closed = true;
        for (Connection c; (c = idle.pollFirst()) != null; ) {
            c.close();
        }
    }

    /**
     * Writes a small request on a kept connection at once, on the calling thread, so that the thread that will read
     * the answer ({@link #send(HttpRequest, HttpResponse.BodyHandler, Written)}) starts while the request travels,
     * not before it: one thread wake-up less on the way of a call. A write into an idle connection's empty socket
     * buffer does not wait.
     *
     * @return the written request, or empty when none is kept or the request is not one for here (or too large)
     */
    Optional<Written> writeAhead(HttpRequest request) {
        byte[] body = body(request);
        if (body == null || body.length > WRITE_AHEAD_BYTES || !accepts(request)) {
            return Optional.empty();
        }
        Connection connection = idleConnection();
        if (connection == null) {
            return Optional.empty();
        }
        try {
            connection.write(head(request, body.length), body);
        } catch (IOException e) {
            connection.close();
            return Optional.empty();
        }
        return Optional.of(new Written(connection));
    }

    /** A request written by {@link #writeAhead}, whose answer is still to be read. */
    static final class Written {
        private final Connection connection;

        private Written(Connection connection) {
            this.connection = connection;
        }

        /** Nobody will read the answer (the request was given up first): the connection cannot be kept. */
        void abandon() {
            connection.close();
        }
    }

    /** @return the request's body, or {@code null} when it is not one this client can read */
    private static byte[] body(HttpRequest request) {
        if (request.bodyPublisher().isEmpty()) {
            return new byte[0];
        }
        return request.bodyPublisher().get() instanceof Bytes bytes ? bytes.bytes : null;
    }

    private boolean accepts(HttpRequest request) {
        URI uri = request.uri();
        return request.timeout().isEmpty() && !request.expectContinue() && !request.method().equals("HEAD")
                && request.version().filter(v -> v != HttpClient.Version.HTTP_1_1).isEmpty()
                && uri.getScheme().equalsIgnoreCase(origin.getScheme()) && uri.getHost().equalsIgnoreCase(origin.getHost())
                && uri.getPort() == origin.getPort();
    }

    /**
     * Sends a request and reads its response as {@link HttpClient#send} does.
     *
     * @param written the request, already written by {@link #writeAhead}, or {@code null}
     * @return the response, or empty when the JDK's client must send this one instead (a method with a body
     *     other than {@link Bytes}, another host, a request timeout, an answer that redirects)
     * @throws IOException as {@link HttpClient#send}: {@link ConnectException}, {@link HttpConnectTimeoutException},
     *     or the failure of the exchange (the body subscriber's, as the cause of an {@link IOException})
     */
    <T> Optional<HttpResponse<T>> send(HttpRequest request, HttpResponse.BodyHandler<T> handler, Written written)
            throws IOException {
        byte[] body = body(request);
        if (body == null || !accepts(request)) {
            return Optional.empty();
        }
        Connection connection = written != null ? written.connection : idleConnection();
        if (connection == null) {
            connection = connect();
        }
        Response response;
        try {
            if (written == null) {
                connection.write(head(request, body.length), body);
            }
            response = connection.readHead();
        } catch (IOException e) {
            // Not sent again, as the JDK's client does not send a POST again: a server (or a balancer's replica) that
            // ended without an answer may have run it. The other kept connections are checked as they are reused.
            connection.close();
            throw e;
        }
        if (isRedirect(response.status) && response.headers.firstValue("Location").isPresent()) {
            connection.close();
            return Optional.empty();
        }
        return Optional.of(deliver(request, handler, connection, response));
    }

    private static boolean isRedirect(int status) {
        return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
    }

    private byte[] head(HttpRequest request, int bodyLength) {
        URI uri = request.uri();
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        StringBuilder head = new StringBuilder(256);
        head.append(request.method()).append(' ').append(path);
        if (uri.getRawQuery() != null) {
            head.append('?').append(uri.getRawQuery());
        }
        head.append(" HTTP/1.1\r\nHost: ").append(hostHeader).append("\r\n");
        request.headers().map().forEach((name, values) -> {
            for (String value : values) {
                head.append(name).append(": ").append(value).append("\r\n");
            }
        });
        if (bodyLength > 0 || request.bodyPublisher().isPresent()) {
            head.append("Content-Length: ").append(bodyLength).append("\r\n");
        }
        head.append("\r\n");
        return head.toString().getBytes(StandardCharsets.UTF_8);
    }

    private Connection idleConnection() {
        for (Connection c; (c = idle.pollFirst()) != null; ) {
            long idleNanos = System.nanoTime() - c.idleSince;
            if (idleNanos < maxIdleNanos && c.stillOpen()) {
                return c;
            }
            c.close();
        }
        return null;
    }

    private void release(Connection connection) {
        connection.idleSince = System.nanoTime();
        if (closed || idle.size() >= MAX_IDLE) {
            connection.close();
            return;
        }
        idle.offerFirst(connection);
        if (closed && idle.remove(connection)) {
            connection.close();
        }
        // The oldest kept ones (at the tail) that will not be reused any more are closed now, not at the next miss.
        for (Connection oldest; (oldest = idle.peekLast()) != null
                && connection.idleSince - oldest.idleSince >= maxIdleNanos; ) {
            if (idle.removeLastOccurrence(oldest)) {
                oldest.close();
            }
        }
    }

    private Connection connect() throws IOException {
        SocketChannel channel = SocketChannel.open();
        try {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            InetSocketAddress resolved = new InetSocketAddress(address.getHostString(), address.getPort());
            if (resolved.isUnresolved()) {
                throw new ConnectException("unknown host " + address.getHostString());
            }
            // A blocking channel has no connect timeout: the socket adaptor's connect has one.
            channel.socket().connect(resolved, (int) Math.min(Integer.MAX_VALUE, Math.max(1, connectTimeout.toMillis())));
            return new Connection(channel);
        } catch (SocketTimeoutException e) {
            channel.close();
            throw new HttpConnectTimeoutException("HTTP connect timed out");
        } catch (ConnectException e) {
            channel.close();
            // Worded as the rest of the transport's messages ("could not connect (connection refused)").
            throw new ConnectException(e.getMessage() == null ? null : e.getMessage().toLowerCase(Locale.ROOT));
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    // ------------------------------------------------------------------------------------------ the response

    /** A response's status line and headers, and how its body is framed. */
    private record Response(int status, HttpHeaders headers, long length, boolean chunked, boolean keepAlive) {
    }

    /** Hands the response to the handler and its body to the subscriber; reads on while the subscriber's result waits. */
    private <T> HttpResponse<T> deliver(HttpRequest request, HttpResponse.BodyHandler<T> handler, Connection connection,
            Response response) throws IOException {
        HttpResponse.ResponseInfo info = new HttpResponse.ResponseInfo() {
            @Override
            public int statusCode() {
                return response.status;
            }

            @Override
            public HttpHeaders headers() {
                return response.headers;
            }

            @Override
            public HttpClient.Version version() {
                return HttpClient.Version.HTTP_1_1;
            }
        };
        HttpResponse.BodySubscriber<T> subscriber;
        try {
            subscriber = handler.apply(info);
        } catch (RuntimeException e) {
            connection.close();
            throw new IOException(e.getMessage(), e);
        }
        BodyReader reader = new BodyReader(connection, response, subscriber);
        CompletableFuture<T> result = subscriber.getBody().toCompletableFuture();
        subscriber.onSubscribe(reader);
        reader.readWhile(() -> !result.isDone());
        if (!reader.finished()) {
            executor.execute(() -> reader.readWhile(() -> true));
        }
        try {
            return new Plain<>(request, response.status, response.headers, result.join());
        } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            if (cause instanceof IOException io && cause.getCause() == null) {
                throw io;
            }
            throw new IOException(cause.getMessage(), cause);
        }
    }

    /**
     * A body being read: the subscription the subscriber asks through, and the reading, on one thread at a time (the
     * sender's, then possibly one of the executor's).
     */
    private final class BodyReader implements Flow.Subscription {
        private final Connection connection;
        private final Response response;
        private final HttpResponse.BodySubscriber<?> subscriber;
        /** Bytes of the body still to come in this chunk (or in the whole body when not chunked); -1: until EOF. */
        private long remaining;
        private boolean afterChunk;
        private boolean done;
        private long demand;
        private boolean cancelled;

        BodyReader(Connection connection, Response response, HttpResponse.BodySubscriber<?> subscriber) {
            this.connection = connection;
            this.response = response;
            this.subscriber = subscriber;
            this.remaining = response.chunked ? 0 : response.length;
            this.done = !response.chunked && response.length == 0;
        }

        @Override
        public synchronized void request(long n) {
            if (n <= 0) {
                cancel();
                return;
            }
            demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
            notifyAll();
        }

        @Override
        public void cancel() {
            synchronized (this) {
                if (cancelled || done) {
                    return;
                }
                cancelled = true;
                notifyAll();
            }
            connection.close();
        }

        synchronized boolean finished() {
            return done || cancelled;
        }

        /** Delivers the body while {@code more} holds and the subscriber asks; completes or fails it at the end. */
        void readWhile(java.util.function.BooleanSupplier more) {
            try {
                while (true) {
                    synchronized (this) {
                        while (demand == 0 && !cancelled && !done) {
                            if (!more.getAsBoolean()) {
                                return;
                            }
                            wait();
                        }
                        if (cancelled) {
                            return;
                        }
                        if (done) {
                            break;
                        }
                    }
                    if (!more.getAsBoolean()) {
                        return;
                    }
                    ByteBuffer next = next();
                    if (next != null) {
                        synchronized (this) {
                            demand--;
                        }
                        subscriber.onNext(List.of(next));
                    }
                }
            } catch (IOException e) {
                connection.close();
                boolean quiet;
                synchronized (this) {
                    quiet = cancelled;
                    cancelled = true;
                }
                if (!quiet) {
                    subscriber.onError(e);
                }
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                cancel();
                subscriber.onError(new IOException("the response was abandoned"));
                return;
            } catch (RuntimeException e) {
                cancel();
                subscriber.onError(e);
                return;
            }
            if (response.keepAlive) {
                release(connection);
            } else {
                connection.close();
            }
            subscriber.onComplete();
        }

        /** @return the next piece of the body, or {@code null} at its end (then {@code done}) */
        private ByteBuffer next() throws IOException {
            if (response.chunked) {
                if (remaining == 0) {
                    if (afterChunk) {
                        connection.readLine(); // the CRLF after a chunk's data
                    }
                    long size = chunkSize(connection.readLine());
                    afterChunk = true;
                    if (size == 0) {
                        while (!connection.readLine().isEmpty()) {
                            // trailers, ignored
                        }
                        markDone();
                        return null;
                    }
                    remaining = size;
                }
                ByteBuffer piece = connection.readBody(remaining);
                remaining -= piece.remaining();
                return piece;
            }
            if (remaining < 0) {
                ByteBuffer piece = connection.readUntilEof();
                if (piece == null) {
                    markDone();
                }
                return piece;
            }
            ByteBuffer piece = connection.readBody(remaining);
            remaining -= piece.remaining();
            if (remaining == 0) {
                markDone();
            }
            return piece;
        }

        private synchronized void markDone() {
            done = true;
        }
    }

    private static long chunkSize(String line) throws IOException {
        int end = line.indexOf(';');
        String hex = (end < 0 ? line : line.substring(0, end)).trim();
        try {
            long size = Long.parseLong(hex, 16);
            if (size < 0) {
                throw new NumberFormatException();
            }
            return size;
        } catch (NumberFormatException e) {
            throw new IOException("malformed chunk size in the response: " + ReplyHandler.printable(
                    line.getBytes(StandardCharsets.ISO_8859_1), 40));
        }
    }

    /** One kept-alive connection: a blocking channel and what was read past the last response. */
    private final class Connection {
        private final SocketChannel channel;
        private final ByteBuffer in = ByteBuffer.allocate(BUFFER_BYTES).flip();
        volatile long idleSince;

        Connection(SocketChannel channel) {
            this.channel = channel;
        }

        void write(byte[] head, byte[] body) throws IOException {
            ByteBuffer[] out = {ByteBuffer.wrap(head), ByteBuffer.wrap(body)};
            while (out[1].hasRemaining() || out[0].hasRemaining()) {
                channel.write(out);
            }
        }

        /** Reads the status line and headers; a 1xx answer is skipped. */
        Response readHead() throws IOException {
            while (true) {
                int[] budget = {MAX_HEAD_BYTES};
                String status = readLine(budget);
                if (!status.startsWith("HTTP/1.") || status.length() < 12) {
                    throw new IOException("malformed HTTP response: " + ReplyHandler.printable(
                            status.getBytes(StandardCharsets.ISO_8859_1), 60));
                }
                int code;
                try {
                    code = Integer.parseInt(status.substring(9, 12));
                } catch (NumberFormatException e) {
                    throw new IOException("malformed HTTP status line: " + ReplyHandler.printable(
                            status.getBytes(StandardCharsets.ISO_8859_1), 60));
                }
                Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
                for (String line = readLine(budget); !line.isEmpty(); line = readLine(budget)) {
                    int colon = line.indexOf(':');
                    if (colon <= 0) {
                        throw new IOException("malformed HTTP header line in the response");
                    }
                    headers.computeIfAbsent(line.substring(0, colon).trim(), k -> new ArrayList<>(1))
                            .add(line.substring(colon + 1).trim());
                }
                if (code >= 100 && code < 200) {
                    continue;
                }
                HttpHeaders all = HttpHeaders.of(headers, (a, b) -> true);
                boolean http10 = status.startsWith("HTTP/1.0");
                String connectionHeader = all.firstValue("Connection").orElse("").toLowerCase(Locale.ROOT);
                boolean keepAlive = http10 ? connectionHeader.contains("keep-alive") : !connectionHeader.contains("close");
                boolean chunked = all.allValues("Transfer-Encoding").stream()
                        .anyMatch(v -> v.toLowerCase(Locale.ROOT).contains("chunked"));
                long length;
                if (code == 204 || code == 304) {
                    length = 0;
                    chunked = false;
                } else if (chunked) {
                    length = -1;
                } else {
                    Optional<String> declared = all.firstValue("Content-Length");
                    try {
                        length = declared.isPresent() ? Long.parseLong(declared.get().trim()) : -1;
                    } catch (NumberFormatException e) {
                        throw new IOException("malformed Content-Length in the response");
                    }
                    if (length < 0) {
                        length = -1;
                        keepAlive = false; // the body ends when the server closes
                    }
                }
                return new Response(code, all, length, chunked, keepAlive);
            }
        }

        String readLine() throws IOException {
            return readLine(new int[] {MAX_HEAD_BYTES});
        }

        /** A line ending in LF (a CR before it dropped), ISO-8859-1. */
        private String readLine(int[] budget) throws IOException {
            StringBuilder line = new StringBuilder(64);
            while (true) {
                if (!in.hasRemaining()) {
                    fill();
                }
                while (in.hasRemaining()) {
                    byte b = in.get();
                    if (--budget[0] < 0) {
                        throw new IOException("the response's headers exceed " + MAX_HEAD_BYTES + " bytes");
                    }
                    if (b == '\n') {
                        int last = line.length() - 1;
                        if (last >= 0 && line.charAt(last) == '\r') {
                            line.setLength(last);
                        }
                        return line.toString();
                    }
                    line.append((char) (b & 0xff));
                }
            }
        }

        /** At most {@code max} bytes of the body, at least one, in a buffer of their own. */
        ByteBuffer readBody(long max) throws IOException {
            if (!in.hasRemaining()) {
                fill();
            }
            int n = (int) Math.min(max, in.remaining());
            byte[] copy = new byte[n];
            in.get(copy);
            return ByteBuffer.wrap(copy);
        }

        /** What is there of a body that ends at EOF, or {@code null} at the end. */
        ByteBuffer readUntilEof() throws IOException {
            if (!in.hasRemaining()) {
                in.clear();
                int n = channel.read(in);
                in.flip();
                if (n < 0) {
                    return null;
                }
            }
            return readBody(in.remaining());
        }

        private void fill() throws IOException {
            in.clear();
            int n;
            do {
                n = channel.read(in);
            } while (n == 0);
            in.flip();
            if (n < 0) {
                throw new EOFException("the server closed the connection");
            }
        }

        /** Whether an idle connection is still open: no end of stream (nor a stray byte) waits on it. */
        boolean stillOpen() {
            try {
                channel.configureBlocking(false);
                ByteBuffer probe = ByteBuffer.allocate(1);
                int n = channel.read(probe);
                channel.configureBlocking(true);
                return n == 0;
            } catch (IOException e) {
                return false;
            }
        }

        void close() {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing to do: it is closed either way
            }
        }
    }

    /** A request body whose bytes the exchange can read directly (the JDK's own publisher hides them). */
    static final class Bytes implements HttpRequest.BodyPublisher {
        final byte[] bytes;
        private final HttpRequest.BodyPublisher publisher;

        Bytes(byte[] bytes) {
            this.bytes = bytes;
            this.publisher = HttpRequest.BodyPublishers.ofByteArray(bytes);
        }

        @Override
        public long contentLength() {
            return bytes.length;
        }

        @Override
        public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
            publisher.subscribe(subscriber);
        }
    }

    /** A response of this client. */
    private record Plain<T>(HttpRequest request, int statusCode, HttpHeaders headers, T body) implements HttpResponse<T> {
        @Override
        public Optional<HttpResponse<T>> previousResponse() {
            return Optional.empty();
        }

        @Override
        public Optional<SSLSession> sslSession() {
            return Optional.empty();
        }

        @Override
        public URI uri() {
            return request.uri();
        }

        @Override
        public HttpClient.Version version() {
            return HttpClient.Version.HTTP_1_1;
        }
    }
}
