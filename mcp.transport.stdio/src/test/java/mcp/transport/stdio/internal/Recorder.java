package mcp.transport.stdio.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.spi.Transport;

/** A listener that records what a transport delivers, for tests. */
class Recorder implements Transport.Listener {

    final BlockingQueue<JsonRpcMessage> messages = new LinkedBlockingQueue<>();
    final CompletableFuture<TransportClosedException> closed = new CompletableFuture<>();
    final AtomicInteger closeCalls = new AtomicInteger();
    final AtomicInteger messagesAfterClose = new AtomicInteger();

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

    JsonRpcMessage next(Duration timeout) throws InterruptedException {
        JsonRpcMessage message = messages.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (message == null) {
            throw new AssertionError("no message within " + timeout.toMillis() + " ms");
        }
        return message;
    }

    List<JsonRpcMessage> take(int count, Duration timeout) throws InterruptedException {
        List<JsonRpcMessage> out = new ArrayList<>(count);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (out.size() < count) {
            long left = deadline - System.nanoTime();
            JsonRpcMessage message = messages.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
            if (message == null) {
                throw new AssertionError("only " + out.size() + " of " + count + " messages within "
                        + timeout.toMillis() + " ms");
            }
            out.add(message);
        }
        return out;
    }

    TransportClosedException awaitClose(Duration timeout) throws Exception {
        return closed.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}
