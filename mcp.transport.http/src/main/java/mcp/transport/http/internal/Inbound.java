package mcp.transport.http.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import mcp.api.McpJson;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.RequestId;
import mcp.api.spi.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The listener side of one transport: decodes what the server sent, delivers it in order, and
 * reports the close exactly once.
 *
 * <p>Messages arrive on several HttpClient threads at once (a POST's stream, the GET stream, a
 * resumed stream); they are delivered one at a time under {@code deliveryLock}, and only while the
 * transport is open. {@link #closed} first marks the transport closed, then takes that lock once
 * (bounded) so that no delivery is still running, then calls {@link Transport.Listener#onClose}: no
 * message is delivered after it.
 */
final class Inbound {

    private static final Logger LOG = LoggerFactory.getLogger(Inbound.class);

    /** How many undecodable messages per transport are logged at WARN before DEBUG. */
    private static final int SKIPPED_WARNED = 5;

    private final String serverName;
    private final Duration closeStep;
    private final ReentrantLock deliveryLock = new ReentrantLock();
    private final AtomicBoolean closeDelivered = new AtomicBoolean();
    private final AtomicLong skipped = new AtomicLong();
    private final Object lock = new Object();
    private volatile Transport.Listener listener;
    private volatile boolean open = true;
    private TransportClosedException closedBy;

    Inbound(String serverName, Duration closeStep) {
        this.serverName = serverName;
        this.closeStep = closeStep;
    }

    /** Sets the listener; if the transport already closed, the listener hears about it now. */
    void start(Transport.Listener value) {
        Objects.requireNonNull(value, "listener");
        synchronized (lock) {
            if (listener != null) {
                throw new IllegalStateException("transport of MCP server \"" + serverName + "\" already started");
            }
            listener = value;
        }
        deliverCloseIfReady();
    }

    /** @return whether {@link #start} was called */
    boolean started() {
        return listener != null;
    }

    /** @return the listener, or {@code null} before start */
    Transport.Listener listener() {
        return listener;
    }

    /**
     * Decodes one body or event (a message or a batch) and delivers what it holds; what cannot be
     * decoded is skipped and counted.
     *
     * @return the messages delivered
     */
    List<JsonRpcMessage> deliverJson(byte[] data) {
        return deliverJson(data, null);
    }

    /**
     * As {@link #deliverJson(byte[])}, for what came on the stream of one of the client's requests.
     *
     * @param during the id of that request, or {@code null} when the stream belongs to no request
     * @return the messages delivered
     */
    List<JsonRpcMessage> deliverJson(byte[] data, RequestId during) {
        List<JsonRpcMessage> messages = new ArrayList<>(1);
        try {
            int first = 0;
            while (first < data.length && Character.isWhitespace(data[first])) {
                first++;
            }
            if (first < data.length && data[first] == '[') {
                JsonNode batch = McpJson.mapper().readTree(data);
                for (JsonNode item : batch) {
                    try {
                        messages.add(JsonRpcCodec.standard().fromTree(item));
                    } catch (RuntimeException e) {
                        skip(e, data);
                    }
                }
            } else {
                messages.add(JsonRpcCodec.standard().decode(data));
            }
        } catch (RuntimeException e) {
            skip(e, data);
        }
        List<JsonRpcMessage> delivered = new ArrayList<>(messages.size());
        for (JsonRpcMessage message : messages) {
            if (deliver(message, during)) {
                delivered.add(message);
            }
        }
        return delivered;
    }

    private void skip(RuntimeException error, byte[] data) {
        long count = skipped.incrementAndGet();
        String excerpt = ReplyHandler.printable(data, 120);
        if (count <= SKIPPED_WARNED) {
            LOG.warn("MCP server \"{}\" sent something that is not a JSON-RPC message; skipped ({}): {}", serverName,
                    error.getMessage(), excerpt);
        } else {
            LOG.debug("MCP server \"{}\" sent something that is not a JSON-RPC message; skipped (#{}): {}", serverName,
                    count, excerpt);
        }
    }

    /** @return how many messages could not be decoded */
    long skippedMessages() {
        return skipped.get();
    }

    /** Delivers one message if the transport is open; true if it was delivered. */
    /** Sees every message just before its delivery (the transport learns from some); must not throw or block. */
    private volatile java.util.function.Consumer<JsonRpcMessage> observer = message -> { };

    /** Sets what sees every message before it is delivered. */
    void observe(java.util.function.Consumer<JsonRpcMessage> value) {
        this.observer = Objects.requireNonNull(value, "value");
    }

    boolean deliver(JsonRpcMessage message) {
        return deliver(message, null);
    }

    private boolean deliver(JsonRpcMessage message, RequestId during) {
        Transport.Listener target = listener;
        if (target == null || !open) {
            return false;
        }
        deliveryLock.lock();
        try {
            if (!open) {
                return false;
            }
            try {
                observer.accept(message);
                if (during == null) {
                    target.onMessage(message);
                } else {
                    target.onMessage(message, during);
                }
            } catch (RuntimeException e) {
                LOG.warn("MCP server \"{}\": the transport listener failed on a message", serverName, e);
            }
            return true;
        } finally {
            deliveryLock.unlock();
        }
    }

    /** @return whether {@link #closed} has not been called yet */
    boolean isOpen() {
        return open;
    }

    /** Stops deliveries; does not report the close yet. */
    void stopDeliveries() {
        open = false;
    }

    /**
     * Reports the close, once: stops deliveries, waits (bounded) for one in progress, then tells the
     * listener (now, or at {@link #start} if it has not started).
     */
    void closed(TransportClosedException reason) {
        open = false;
        synchronized (lock) {
            if (closedBy != null) {
                return;
            }
            closedBy = reason;
        }
        if (!deliveryLock.isHeldByCurrentThread()) {
            try {
                if (deliveryLock.tryLock(closeStep.toMillis(), TimeUnit.MILLISECONDS)) {
                    deliveryLock.unlock();
                } else {
                    LOG.warn("MCP server \"{}\": the transport listener is still busy with a message after {} ms; "
                            + "closing anyway", serverName, closeStep.toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        deliverCloseIfReady();
    }

    private void deliverCloseIfReady() {
        Transport.Listener target;
        TransportClosedException reason;
        synchronized (lock) {
            target = listener;
            reason = closedBy;
        }
        if (target != null && reason != null && closeDelivered.compareAndSet(false, true)) {
            try {
                target.onClose(reason);
            } catch (RuntimeException e) {
                LOG.warn("MCP server \"{}\": the transport listener failed on close", serverName, e);
            }
        }
    }
}
