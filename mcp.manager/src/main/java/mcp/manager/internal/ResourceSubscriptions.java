package mcp.manager.internal;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.protocol.SubscriptionFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The resources a client session is subscribed to, in either era.
 *
 * <p>Handshake era: {@code resources/subscribe} and {@code resources/unsubscribe}, one request each; the set holds
 * the URIs the server accepted. Stateless era (2026-07-28), which has neither method: one {@code subscriptions/listen}
 * stream whose {@code resourceSubscriptions} lists every subscribed URI. A stream's filter cannot change, so a
 * change of the set opens a new stream with the whole new set and, once the server has acknowledged it (every URI
 * honoured), cancels the old one; until then the old stream stays the current one. A URI the acknowledgement leaves
 * out fails that subscribe, and the set stays as it was. A current stream the server ends, or that breaks, is opened
 * again with the same set after a wait that doubles (250 ms to 30 s), and every subscribed URI is reported updated,
 * since an update may have been missed; a stream refused on such a re-open (-32601, -32602) loses the subscriptions,
 * with a warning.
 *
 * <p>State: {@link #lock} guards {@link #subscribed} and {@link #current}; changes run one after the other on
 * {@link #changes}, each bounded by the acknowledgement's timeout, so two concurrent subscribes cannot race two
 * streams. Nothing survives the session: after a reconnect the owner subscribes again ({@link #uris()}).
 */
final class ResourceSubscriptions {

    private static final Logger LOG = LoggerFactory.getLogger(ResourceSubscriptions.class);

    /** What the subscriptions ask of their session. */
    interface Session {
        /** @return the server's name, for messages */
        String serverName();

        /** @return whether the session speaks the stateless era */
        boolean modern();

        /** @return whether the session has closed */
        boolean closed();

        /** Sends a plain request of the handshake era. */
        CompletableFuture<JsonNode> request(String method, ObjectNode params);

        /** Opens a {@code subscriptions/listen} stream with this filter. */
        ListChanges.Listen listen(ObjectNode notifications);

        /** Tells the listener that a resource changed (a stream re-opened: an update may have been missed). */
        void updated(String uri);
    }

    private final Session session;
    private final Object lock = new Object();
    /** Guarded by {@link #lock}: the URIs subscribed now, in the order subscribed. */
    private final Set<String> subscribed = new LinkedHashSet<>();
    /** Guarded by {@link #lock}: the stream of the stateless era that carries {@link #subscribed}, or {@code null}. */
    private ListChanges.Listen current;
    /** Guarded by {@link #lock}: the end of the chain of changes; the next one runs after it. */
    private CompletableFuture<Void> changes = CompletableFuture.completedFuture(null);

    ResourceSubscriptions(Session session) {
        this.session = session;
    }

    /** @return the URIs subscribed now */
    Set<String> uris() {
        synchronized (lock) {
            return Set.copyOf(subscribed);
        }
    }

    /**
     * Whether an update the server sent on this subscription stream is for the current one: in the stateless era
     * an update tagged with an older stream's id (being replaced, or cancelled after an unsubscribe) is dropped.
     *
     * @param subscriptionId the {@code io.modelcontextprotocol/subscriptionId} of the notification, or {@code null}
     */
    boolean current(String subscriptionId) {
        if (subscriptionId == null || !session.modern()) {
            return true;
        }
        synchronized (lock) {
            return current != null && subscriptionId.equals(current.id());
        }
    }

    CompletableFuture<Void> subscribe(String uri) {
        return change("resources/subscribe", uri, set -> set.add(uri));
    }

    CompletableFuture<Void> unsubscribe(String uri) {
        return change("resources/unsubscribe", uri, set -> set.remove(uri));
    }

    /** One request of the handshake era, the set changed once it succeeded; else a new stream (see below). */
    private CompletableFuture<Void> change(String legacyMethod, String uri, Consumer<Set<String>> edit) {
        if (!session.modern()) {
            return session.request(legacyMethod, McpJson.object().put("uri", uri)).thenRun(() -> {
                synchronized (lock) {
                    edit.accept(subscribed);
                }
            });
        }
        return change(edit);
    }

    /**
     * Queues a change of the set (stateless era); it runs once the changes before it are done. The returned future
     * completes on a worker: a change may finish on the thread that read the acknowledgement, where the caller's
     * code must not run.
     */
    private CompletableFuture<Void> change(Consumer<Set<String>> edit) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (lock) {
            changes = changes.handle((ignored, error) -> null).thenCompose(ignored -> {
                apply(edit, done);
                return done.handle((value, error) -> null);
            });
        }
        CompletableFuture<Void> result = new CallFuture<>();
        done.whenComplete((value, error) -> ClientThreads.WORKERS.execute(() -> {
            if (error != null) {
                result.completeExceptionally(error);
            } else {
                result.complete(null);
            }
        }));
        return result;
    }

    private void apply(Consumer<Set<String>> edit, CompletableFuture<Void> done) {
        Set<String> wanted;
        synchronized (lock) {
            wanted = new LinkedHashSet<>(subscribed);
            edit.accept(wanted);
            if (wanted.equals(subscribed) && (current != null || wanted.isEmpty())) {
                done.complete(null);
                return;
            }
            if (wanted.isEmpty()) {
                // Nothing left to listen for: the stream ends, and with it every update.
                ListChanges.Listen old = current;
                current = null;
                subscribed.clear();
                if (old != null) {
                    old.stream().cancel(false);
                }
                done.complete(null);
                return;
            }
        }
        open(wanted, ListChanges.RELISTEN_FIRST_MILLIS).whenComplete((listen, error) -> {
            if (error != null) {
                done.completeExceptionally(ClientSession.unwrap(error));
            } else {
                done.complete(null);
            }
        });
    }

    /**
     * Opens a stream for this set and, once acknowledged with every URI, makes it the current one (the old one is
     * cancelled). Completes with the stream, or fails (the new stream cancelled, the old one kept).
     */
    private CompletableFuture<ListChanges.Listen> open(Set<String> uris, long nextWaitMillis) {
        ObjectNode filter = McpJson.object();
        ArrayNode array = filter.putArray(SubscriptionFilter.RESOURCE_SUBSCRIPTIONS);
        uris.forEach(array::add);
        ListChanges.Listen listen = session.listen(filter);
        long opened = System.nanoTime();
        listen.stream().whenComplete((result, error) -> ended(listen, error, opened, nextWaitMillis));
        return listen.acknowledged().whenComplete((ack, error) -> {
            if (error != null) {
                listen.stream().cancel(false); // not acknowledged in time: nobody waits for it
            }
        }).thenApply(ack -> {
            Set<String> honoured = new LinkedHashSet<>();
            JsonNode granted = ack.path(SubscriptionFilter.KEY).path(SubscriptionFilter.RESOURCE_SUBSCRIPTIONS);
            granted.forEach(uri -> honoured.add(uri.asString("")));
            Set<String> refused = new LinkedHashSet<>(uris);
            refused.removeAll(honoured);
            if (!refused.isEmpty()) {
                listen.stream().cancel(false);
                throw new CompletionException(new McpException("MCP server \"" + session.serverName()
                        + "\" did not accept the subscription to " + AgentText.clean(refused.toString(), 300).text()
                        + " (its acknowledgement of subscriptions/listen leaves it out)"));
            }
            ListChanges.Listen old;
            synchronized (lock) {
                old = current;
                current = listen;
                subscribed.clear();
                subscribed.addAll(uris);
            }
            if (old != null) {
                old.stream().cancel(false);
            }
            return listen;
        });
    }

    /** A stream ended: if it is still the current one, it is opened again after a wait; a retired one is done. */
    private void ended(ListChanges.Listen listen, Throwable error, long opened, long nextWaitMillis) {
        Throwable cause = error == null ? null : ClientSession.unwrap(error);
        if (cause instanceof CancellationException || session.closed()) {
            return;
        }
        Set<String> uris;
        synchronized (lock) {
            if (current != listen) {
                return;
            }
            uris = Set.copyOf(subscribed);
        }
        if (cause instanceof McpProtocolException protocol && (protocol.code() == -32601 || protocol.code() == -32602)) {
            LOG.warn("MCP server \"{}\" refused to listen for its resources again ({}); {} subscription(s) lost",
                    session.serverName(), protocol.getMessage(), uris.size());
            synchronized (lock) {
                if (current == listen) {
                    current = null;
                    subscribed.clear();
                }
            }
            return;
        }
        LOG.debug("MCP server \"{}\" ended the subscription to its resources: {}", session.serverName(),
                cause != null ? cause.getMessage() : "a result");
        long wait = ListChanges.relistenWait(opened, nextWaitMillis);
        ClientThreads.TIMERS.schedule(() -> reopen(listen, Math.min(wait * 2, ListChanges.RELISTEN_MAX_MILLIS)),
                wait, TimeUnit.MILLISECONDS);
    }

    private void reopen(ListChanges.Listen ended, long nextWaitMillis) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (lock) {
            changes = changes.handle((ignored, error) -> null).thenCompose(ignored -> {
                Set<String> uris;
                synchronized (lock) {
                    uris = current == ended && !session.closed() ? Set.copyOf(subscribed) : Set.of();
                }
                if (uris.isEmpty()) {
                    done.complete(null);
                } else {
                    open(uris, nextWaitMillis).whenComplete((listen, error) -> {
                        if (error != null) {
                            LOG.warn("MCP server \"{}\": the subscription to its resources could not be opened again"
                                    + " ({}); {} subscription(s) lost", session.serverName(),
                                    ClientSession.unwrap(error).getMessage(), uris.size());
                            synchronized (lock) {
                                if (current == ended) {
                                    current = null;
                                    subscribed.clear();
                                }
                            }
                        } else {
                            // What changed while no stream was open has not been said.
                            uris.forEach(session::updated);
                        }
                        done.complete(null);
                    });
                }
                return done;
            });
        }
    }
}
