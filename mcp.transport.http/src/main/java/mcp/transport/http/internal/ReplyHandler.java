package mcp.transport.http.internal;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import mcp.auth.internal.BoundedBody;
import mcp.protocol.McpHeaders;

/**
 * Decides, when a response's headers arrive, how its body is read; every way is bounded in memory:
 * <ul>
 *   <li>a non-2xx status: the first {@value #EXCERPT_BYTES} bytes for the error message
 *       ({@link Reply.Failure}), or as many as the caller asked to keep for its own reading, waited for
 *       at most {@link #EXCERPT_WAIT};</li>
 *   <li>a 2xx when no reply is wanted (the POST of a notification or a response): the body is
 *       discarded ({@link Reply.Empty} at once);</li>
 *   <li>{@code text/event-stream}: an {@link SseStream} ({@link Reply.Stream} at once);</li>
 *   <li>{@code application/json}: the whole body up to the message limit ({@link Reply.Json}); a
 *       larger one fails the response with {@link BoundedBody.TooLargeException};</li>
 *   <li>an empty 2xx (202, 204, length 0): {@link Reply.Empty};</li>
 *   <li>any other 2xx content: an excerpt ({@link Reply.Failure}).</li>
 * </ul>
 */
final class ReplyHandler implements HttpResponse.BodyHandler<Reply> {

    /** How much of an unexpected body is kept for an error message. */
    static final int EXCERPT_BYTES = 512;

    /** How long an error body may take to arrive before the message is built from what came. */
    static final Duration EXCERPT_WAIT = Duration.ofSeconds(2);

    /** How much of an error body a 2026-07-28 request keeps: enough for a JSON-RPC error with its data. */
    static final int ERROR_BODY_BYTES = 64 * 1024;

    /** The limit on discarded bodies, after which the connection is dropped instead of drained. */
    private static final long DISCARD_LIMIT = 1024 * 1024;

    private final boolean wantReply;
    private final long maxBytes;
    private final SseStream.Listener streamListener;
    private final Consumer<HttpResponse.ResponseInfo> onHeaders;
    private final int keepErrorBytes;

    /**
     * @param wantReply whether the body may carry messages (a request's POST, a GET)
     * @param maxBytes the message limit
     * @param streamListener receives the events of an SSE body; may be {@code null} when no reply is wanted
     */
    ReplyHandler(boolean wantReply, long maxBytes, SseStream.Listener streamListener) {
        this(wantReply, maxBytes, streamListener, null);
    }

    /**
     * @param wantReply whether the body may carry messages (a request's POST, a GET)
     * @param maxBytes the message limit
     * @param streamListener receives the events of an SSE body; may be {@code null} when no reply is wanted
     * @param onHeaders called with the status and headers before any of the body is read (so that,
     *     say, a session id is known before the first message is delivered); may be {@code null}
     */
    ReplyHandler(boolean wantReply, long maxBytes, SseStream.Listener streamListener,
            Consumer<HttpResponse.ResponseInfo> onHeaders) {
        this(wantReply, maxBytes, streamListener, onHeaders, EXCERPT_BYTES);
    }

    /**
     * As above; {@code keepErrorBytes}: how many bytes of a non-2xx body {@link Reply.Failure#body()} keeps
     * (at least {@value #EXCERPT_BYTES}).
     */
    ReplyHandler(boolean wantReply, long maxBytes, SseStream.Listener streamListener,
            Consumer<HttpResponse.ResponseInfo> onHeaders, int keepErrorBytes) {
        this.wantReply = wantReply;
        this.maxBytes = maxBytes;
        this.streamListener = streamListener;
        this.onHeaders = onHeaders;
        this.keepErrorBytes = Math.max(EXCERPT_BYTES, keepErrorBytes);
    }

    @Override
    public HttpResponse.BodySubscriber<Reply> apply(HttpResponse.ResponseInfo info) {
        if (onHeaders != null) {
            onHeaders.accept(info);
        }
        int status = info.statusCode();
        if (status < 200 || status > 299) {
            return new Excerpt(keepErrorBytes);
        }
        if (!wantReply) {
            return new Discard();
        }
        String type = contentType(info.headers());
        long length = info.headers().firstValueAsLong("Content-Length").orElse(-1L);
        if (type.equals(McpHeaders.EVENT_STREAM)) {
            return new SseStream(maxBytes, streamListener);
        }
        if (type.equals(McpHeaders.JSON) || type.endsWith("+json")) {
            if (length > maxBytes) {
                return new Refused(new BoundedBody.TooLargeException(maxBytes));
            }
            return HttpResponse.BodySubscribers.mapping(new BoundedBody(maxBytes), Reply.Json::new);
        }
        if (status == 202 || status == 204 || length == 0) {
            return new Discard();
        }
        return new Excerpt(EXCERPT_BYTES);
    }

    /** @return the media type, lower case, without parameters; empty when absent */
    static String contentType(HttpHeaders headers) {
        String value = headers.firstValue("Content-Type").orElse("");
        int semicolon = value.indexOf(';');
        return (semicolon < 0 ? value : value.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
    }

    /** Fails at once (a Content-Length over the limit). */
    private static final class Refused implements HttpResponse.BodySubscriber<Reply> {
        private final CompletableFuture<Reply> result = new CompletableFuture<>();

        Refused(RuntimeException error) {
            result.completeExceptionally(error);
        }

        @Override
        public CompletionStage<Reply> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            s.cancel();
        }

        @Override
        public void onNext(List<ByteBuffer> item) {
        }

        @Override
        public void onError(Throwable throwable) {
        }

        @Override
        public void onComplete() {
        }
    }

    /** Throws the body away (dropping the connection if it is large); the reply is known at once. */
    private static final class Discard implements HttpResponse.BodySubscriber<Reply> {
        private Flow.Subscription subscription;
        private long seen;

        @Override
        public CompletionStage<Reply> getBody() {
            return CompletableFuture.completedFuture(new Reply.Empty());
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            for (ByteBuffer buffer : buffers) {
                seen += buffer.remaining();
            }
            if (seen > DISCARD_LIMIT) {
                subscription.cancel();
            }
        }

        @Override
        public void onError(Throwable throwable) {
        }

        @Override
        public void onComplete() {
        }
    }

    /** Keeps the first bytes of a body for a message; done at the end, past the kept size, or after a wait. */
    private static final class Excerpt implements HttpResponse.BodySubscriber<Reply> {
        private final CompletableFuture<Reply> result = new CompletableFuture<>();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final int keep;
        private volatile Flow.Subscription subscription;
        private final ScheduledFuture<?> deadline;

        Excerpt(int keep) {
            this.keep = keep;
            deadline = HttpThreads.TIMER.schedule(this::finishEarly, EXCERPT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        public CompletionStage<Reply> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            synchronized (bytes) {
                for (ByteBuffer buffer : buffers) {
                    int take = Math.min(buffer.remaining(), keep + 1 - bytes.size());
                    if (take > 0) {
                        byte[] chunk = new byte[take];
                        buffer.get(chunk);
                        bytes.write(chunk, 0, take);
                    }
                }
                if (bytes.size() > keep) {
                    subscription.cancel();
                    finish();
                }
            }
        }

        private void finishEarly() {
            Flow.Subscription s = subscription;
            if (s != null && !result.isDone()) {
                s.cancel();
            }
            finish();
        }

        private void finish() {
            deadline.cancel(false);
            String text;
            byte[] raw;
            synchronized (bytes) {
                raw = bytes.toByteArray();
                text = printable(raw, EXCERPT_BYTES);
            }
            result.complete(new Reply.Failure(text, raw.length > keep ? java.util.Arrays.copyOf(raw, keep) : raw));
        }

        @Override
        public void onError(Throwable throwable) {
            finish();
        }

        @Override
        public void onComplete() {
            finish();
        }
    }

    /**
     * A printable rendering of a body's first bytes: control characters become spaces, runs of
     * spaces collapse, and a cut is marked with {@code ...}.
     */
    static String printable(byte[] raw, int maxBytes) {
        boolean cut = raw.length > maxBytes;
        String text = new String(raw, 0, Math.min(raw.length, maxBytes), StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            char mapped = Character.isISOControl(c) ? ' ' : c;
            if (mapped == ' ' && out.length() > 0 && out.charAt(out.length() - 1) == ' ') {
                continue;
            }
            out.append(mapped);
        }
        String result = out.toString().strip();
        if (result.length() > 200) {
            result = result.substring(0, 200);
            cut = true;
        }
        return cut ? result + "..." : result;
    }
}
