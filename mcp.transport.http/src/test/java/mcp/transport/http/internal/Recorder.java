package mcp.transport.http.internal;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.RequestId;
import mcp.api.spi.Transport;

/** A listener that records what a transport delivers, for tests. */
class Recorder implements Transport.Listener {

    final BlockingQueue<JsonRpcMessage> messages = new LinkedBlockingQueue<>();
    final CompletableFuture<TransportClosedException> closed = new CompletableFuture<>();
    final AtomicInteger closeCalls = new AtomicInteger();
    final AtomicInteger messagesAfterClose = new AtomicInteger();
    final BlockingQueue<String> expiries = new LinkedBlockingQueue<>();

    /** The request on whose stream each message came, for those that came on one. */
    final java.util.Map<JsonRpcMessage, RequestId> during = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public void onMessage(JsonRpcMessage message, RequestId request) {
        during.put(message, request);
        onMessage(message);
    }

    @Override
    public void onMessage(JsonRpcMessage message) {
        if (closed.isDone()) {
            messagesAfterClose.incrementAndGet();
        }
        messages.add(message);
    }

    @Override
    public void onClose(TransportClosedException reason) {
        closeCalls.incrementAndGet();
        closed.complete(reason);
    }

    @Override
    public CompletionStage<Void> onSessionExpired(String reason) {
        expiries.add(reason);
        return Transport.Listener.super.onSessionExpired(reason);
    }

    JsonRpcMessage next(Duration timeout) throws InterruptedException {
        JsonRpcMessage message = messages.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (message == null) {
            throw new AssertionError("no message within " + timeout.toMillis() + " ms");
        }
        return message;
    }

    TransportClosedException awaitClose(Duration timeout) throws Exception {
        return closed.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}
