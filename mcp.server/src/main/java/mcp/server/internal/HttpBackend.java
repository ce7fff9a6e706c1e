package mcp.server.internal;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The embedded HTTP server under {@link HttpFront}, kept behind this interface so that the library can be swapped:
 * it moves bytes and knows nothing of MCP. Every response is started from any thread without blocking it; the
 * backend does the I/O.
 */
interface HttpBackend extends AutoCloseable {

    /** @return the port it listens on */
    int port();

    /** Stops listening and ends every exchange. */
    @Override
    void close();

    /** Called for every request, on a thread of the backend; must not block for long. */
    @FunctionalInterface
    interface Handler {
        void handle(Exchange exchange);
    }

    /** One HTTP request and its response. */
    interface Exchange {

        /** @return the method ({@code POST}, ...) */
        String method();

        /** @return the request path, without the query */
        String path();

        /**
         * @param name a header name (any case)
         * @return its first value
         */
        Optional<String> header(String name);

        /** @return the body's declared length, or -1 when not declared (chunked) */
        long contentLength();

        /**
         * Reads the whole body, at most {@code limit} bytes, without holding a thread while the client sends it.
         *
         * @param limit the most bytes
         * @return the body; {@code null} when it is longer than the limit (then nothing more is read); fails when
         *     reading fails (the client stalled past the I/O timeout, or went away)
         */
        CompletableFuture<byte[]> body(long limit);

        /**
         * Answers with a complete response; the exchange ends.
         *
         * @param status the status
         * @param headers the headers
         * @param body the body (empty for none)
         */
        void respond(int status, Map<String, String> headers, byte[] body);

        /**
         * Starts a streamed response (an event stream).
         *
         * @param status the status
         * @param headers the headers
         * @param maxQueued the most chunks waiting for the client; one more closes the stream
         * @param maxQueuedBytes the most bytes waiting for the client (one chunk, whatever its size, always fits);
         *     one more closes the stream
         * @return the stream
         */
        Stream stream(int status, Map<String, String> headers, int maxQueued, long maxQueuedBytes);
    }

    /** A streamed response. */
    interface Stream {

        /**
         * Queues a chunk; never blocks.
         *
         * @param chunk the bytes
         * @return whether it was queued: {@code false} once the stream is closed, or when the client reads so slowly
         *     that the queue is full (the stream is then closed)
         */
        boolean write(byte[] chunk);

        /** Ends the response once the queued chunks are written. */
        void close();

        /** @return completes when the stream ended: closed, or the client went away */
        CompletableFuture<Void> closed();
    }
}
