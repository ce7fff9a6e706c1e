package mcp.auth.internal;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Reads a whole response body into memory, failing with {@link TooLargeException} (and cancelling
 * the stream) once it outgrows its limit: JSON replies of MCP servers, and the answers of
 * authorization servers.
 */
public final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {

    /** A response body larger than the limit (the transport also fails a reply whose Content-Length says so). */
    public static final class TooLargeException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** @param limit the most bytes accepted */
        public TooLargeException(long limit) {
            super("message from server exceeds the limit of " + limit + " bytes");
        }
    }

    private final long limit;
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private Flow.Subscription subscription;

    /** @param limit the most bytes accepted */
    public BoundedBody(long limit) {
        this.limit = limit;
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        if (result.isDone()) {
            return;
        }
        for (ByteBuffer buffer : buffers) {
            if ((long) bytes.size() + buffer.remaining() > limit) {
                subscription.cancel();
                result.completeExceptionally(new TooLargeException(limit));
                return;
            }
            byte[] chunk = new byte[buffer.remaining()];
            buffer.get(chunk);
            bytes.write(chunk, 0, chunk.length);
        }
    }

    @Override
    public void onError(Throwable throwable) {
        result.completeExceptionally(throwable);
    }

    @Override
    public void onComplete() {
        result.complete(bytes.toByteArray());
    }
}
