package mcp.transport.http.internal;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import mcp.protocol.SseEvent;
import mcp.protocol.SseParser;

/**
 * One {@code text/event-stream} response body being read: parses the bytes as they arrive and hands
 * every event to its {@link Listener}. The response itself completes at once (with
 * {@link Reply.Stream}); the stream's end is reported to the listener.
 *
 * <p>{@link #cancel()} ends the stream from our side: the connection is closed (unless the body had already
 * ended) and the listener hears nothing more (neither events nor the end). Every other end (the server closed the body, the
 * connection broke, an event over the limit) is reported exactly once through {@link Listener#onEnd}.
 */
final class SseStream implements HttpResponse.BodySubscriber<Reply> {

    /** Receives one stream's events and its end, on the HttpClient's threads, one call at a time. */
    interface Listener {
        /**
         * @param stream the stream
         * @param event an event with data
         */
        void onEvent(SseStream stream, SseEvent event);

        /**
         * @param stream the stream
         * @param error {@code null} when the server ended the body normally; else why it broke
         *     ({@link SseParser.TooLargeException} for an oversized event)
         */
        void onEnd(SseStream stream, Throwable error);

        /**
         * The stream's body began (before its first byte is asked for): the moment from which {@link #cancel()}
         * closes it. A listener that may already have given up cancels it here, since the response that carries the
         * stream may never reach whoever asked for it (a cancelled request's future).
         *
         * @param stream the stream
         */
        default void onOpen(SseStream stream) {
        }
    }

    private final Listener listener;
    private final SseParser parser;
    private final CompletableFuture<Reply> body;
    private final AtomicBoolean ended = new AtomicBoolean();
    private volatile boolean cancelled;
    private volatile Flow.Subscription subscription;
    private volatile String lastEventId;
    private volatile long retryMillis = -1;
    private volatile boolean sawEvent;

    SseStream(long maxEventBytes, Listener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
        this.parser = new SseParser(maxEventBytes, this::dispatch);
        this.body = CompletableFuture.completedFuture(new Reply.Stream(this));
    }

    /** @return the last event id the server sent on this stream, or {@code null} */
    String lastEventId() {
        return lastEventId;
    }

    /** @return the reconnection time the server asked for on this stream, in ms, or -1 */
    long retryMillis() {
        return retryMillis;
    }

    /** @return whether any event, a priming one included, has arrived */
    boolean sawEvent() {
        return sawEvent;
    }

    /**
     * Ends the stream from our side; idempotent, and the listener hears nothing more. A body that already ended
     * is left alone: its connection is back in the client's pool, perhaps carrying the next request already, and
     * cancelling the finished subscription would close it under that request.
     */
    void cancel() {
        cancelled = true;
        if (ended.getAndSet(true)) {
            return;
        }
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }

    /** @return whether {@link #cancel()} was called */
    boolean isCancelled() {
        return cancelled;
    }

    @Override
    public CompletionStage<Reply> getBody() {
        return body;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        listener.onOpen(this);
        if (cancelled) {
            s.cancel();
        } else {
            s.request(1);
        }
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        if (cancelled) {
            return;
        }
        try {
            for (ByteBuffer buffer : buffers) {
                parser.feed(buffer);
                if (cancelled) {
                    return;
                }
            }
        } catch (SseParser.TooLargeException e) {
            Flow.Subscription s = subscription;
            if (s != null) {
                s.cancel();
            }
            end(e);
            return;
        } catch (RuntimeException e) {
            // A listener failure must not kill the HttpClient's thread; it ends this stream instead.
            Flow.Subscription s = subscription;
            if (s != null) {
                s.cancel();
            }
            end(e);
            return;
        }
        updateState();
        subscription.request(1);
    }

    private void dispatch(SseEvent event) {
        sawEvent = true;
        updateState();
        if (!cancelled) {
            listener.onEvent(this, event);
        }
    }

    private void updateState() {
        String id = parser.lastEventId();
        if (id != null) {
            lastEventId = id;
            sawEvent = true;
        }
        long retry = parser.retryMillis();
        if (retry >= 0) {
            retryMillis = retry;
            sawEvent = true;
        }
    }

    @Override
    public void onError(Throwable throwable) {
        end(throwable);
    }

    @Override
    public void onComplete() {
        end(null);
    }

    private void end(Throwable error) {
        if (ended.compareAndSet(false, true)) {
            updateState();
            listener.onEnd(this, error);
        }
    }
}
