package mcp.manager.internal;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.McpTimeoutException;
import mcp.api.jsonrpc.RequestId;
import mcp.manager.ClientListener;
import mcp.manager.ClientOptions;
import mcp.protocol.Meta;
import mcp.protocol.SubscriptionFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The list changes of one client session, in both eras: the {@code list_changed} notifications of tools, prompts
 * and resources handed to the listener coalesced per kind, and, in the stateless era (2026-07-28), the
 * {@code subscriptions/listen} streams that carry them: opened for what the server offers, acknowledged, opened
 * again after a wait that doubles when the server ends them. {@link ResourceSubscriptions} opens its own streams
 * here ({@link #openListen}) and re-opens them with the same waits ({@link #relistenWait}).
 *
 * <p>Threads: the session's reader calls {@link #onListChanged} and {@link #onAcknowledged}; streams are opened
 * again on {@link ClientThreads#TIMERS}, which then also calls {@link #onListChanged}; the listener hears of a
 * change on the session's {@code events}.
 *
 * <p>State: {@link #listChangeQueued} (one flag per kind) and {@link #acknowledgements} (a concurrent map); the
 * session owns the wire (the requests, their ids, the close) and the counter of coalesced changes.
 */
final class ListChanges {

    private static final Logger LOG = LoggerFactory.getLogger(ListChanges.class);

    /** What the list changes ask of their session. */
    interface Session {
        /**
         * Sends {@code subscriptions/listen} with these params: a request without a timeout, sent again with a new id
         * when its response stream of the stateless era breaks.
         *
         * @param onId sees the id of the request before it is sent, and the new id of a request sent again
         */
        CompletableFuture<JsonNode> listen(ObjectNode params, Consumer<RequestId> onId);

        /** @return whether the session has closed (its close reason is set) */
        boolean closed();
    }

    private final ClientOptions options;
    private final ClientThreads.Serial events;
    /** The session's count of changes folded into one already waiting (see {@link ClientSession.Bounds}). */
    private final AtomicLong coalescedListChanges;
    private final Session session;
    /**
     * Whether a {@code list_changed} of each {@link ListKind} (by ordinal) is waiting on {@link #events}: more of
     * the same kind before it runs are one.
     */
    private final AtomicBoolean[] listChangeQueued = {new AtomicBoolean(), new AtomicBoolean(), new AtomicBoolean()};
    /**
     * The acknowledgements awaited, by the id of their {@code subscriptions/listen} request (as text: a server may
     * echo a number as a string). An entry leaves when its acknowledgement comes or its request ends.
     */
    private final ConcurrentHashMap<String, CompletableFuture<JsonNode>> acknowledgements = new ConcurrentHashMap<>();

    ListChanges(ClientOptions options, ClientThreads.Serial events, AtomicLong coalescedListChanges, Session session) {
        this.options = options;
        this.events = events;
        this.coalescedListChanges = coalescedListChanges;
        this.session = session;
    }

    /**
     * Listens for the list changes the server offers (its capabilities' {@code listChanged}: tools, prompts,
     * resources), as a new session of the stateless era does.
     *
     * @return completes once the server acknowledged the stream, or after {@link #LISTEN_ACK_WAIT_MILLIS} at most (a
     *     server slow to acknowledge costs that once, and the stream stays open), or at once when nothing is offered;
     *     never fails (a refused stream does not fail the session)
     */
    CompletableFuture<Void> listenOffered(JsonNode capabilities) {
        Set<ListKind> offered = EnumSet.noneOf(ListKind.class);
        for (ListKind kind : ListKind.values()) {
            if (capabilities.path(kind.capability).path("listChanged").asBoolean(false)) {
                offered.add(kind);
            }
        }
        if (offered.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return listen(offered).acknowledged().handle((ack, error) -> (Void) null)
                .completeOnTimeout(null, LISTEN_ACK_WAIT_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** How long a new modern session waits for its list-change stream's acknowledgement before it is ready. */
    static final long LISTEN_ACK_WAIT_MILLIS = 1_000;

    /** The lists a server may say changed, with their capability and their field in a listen filter. */
    enum ListKind {
        TOOLS("tools", SubscriptionFilter.TOOLS),
        PROMPTS("prompts", SubscriptionFilter.PROMPTS),
        RESOURCES("resources", SubscriptionFilter.RESOURCES);

        final String capability;
        final String filterField;

        ListKind(String capability, String filterField) {
            this.capability = capability;
            this.filterField = filterField;
        }

        void tell(ClientListener listener) {
            switch (this) {
                case TOOLS -> listener.onToolsListChanged();
                case PROMPTS -> listener.onPromptsListChanged();
                case RESOURCES -> listener.onResourcesListChanged();
            }
        }
    }

    /**
     * The first wait before a listen stream the server ended is opened again; doubled up to
     * {@link #RELISTEN_MAX_MILLIS}.
     */
    static final long RELISTEN_FIRST_MILLIS = 250;
    static final long RELISTEN_MAX_MILLIS = 30_000;
    /** A stream that lived this long counts as healthy: the next wait starts again from the first. */
    private static final long RELISTEN_HEALTHY_MILLIS = 60_000;

    /** @return the wait before a listen stream opened at {@code opened} (nanoTime) is opened again */
    static long relistenWait(long opened, long nextWaitMillis) {
        boolean healthy = System.nanoTime() - opened > TimeUnit.MILLISECONDS.toNanos(RELISTEN_HEALTHY_MILLIS);
        return healthy ? RELISTEN_FIRST_MILLIS : nextWaitMillis;
    }

    /**
     * One {@code subscriptions/listen} stream: the request, which completes only when the stream ends (cancel it to
     * end it), and the server's acknowledgement ({@code notifications/subscriptions/acknowledged}, its params),
     * which fails if the stream ends first or none comes within the request timeout.
     */
    static final class Listen {
        private final CompletableFuture<JsonNode> stream;
        private final CompletableFuture<JsonNode> acknowledged;
        /** The id of the request as sent last (a request of a lost HTTP stream is sent again with a new id). */
        private volatile String id;

        Listen(CompletableFuture<JsonNode> stream, CompletableFuture<JsonNode> acknowledged, String id) {
            this.stream = stream;
            this.acknowledged = acknowledged;
            this.id = id;
        }

        CompletableFuture<JsonNode> stream() {
            return stream;
        }

        CompletableFuture<JsonNode> acknowledged() {
            return acknowledged;
        }

        /** @return the subscription's id, as the server tags its notifications with it */
        String id() {
            return id;
        }
    }

    /** Opens a {@code subscriptions/listen} stream with this filter (the stateless era's untimed request). */
    Listen openListen(ObjectNode notifications) {
        ObjectNode params = McpJson.object();
        params.set(SubscriptionFilter.KEY, notifications);
        CompletableFuture<JsonNode> acknowledged = new CompletableFuture<>();
        Listen[] listen = new Listen[1];
        String[] firstId = new String[1];
        CompletableFuture<JsonNode> stream = session.listen(params, id -> {
            String key = idText(id);
            acknowledgements.put(key, acknowledged);
            acknowledged.whenComplete((ack, error) -> acknowledgements.remove(key, acknowledged));
            if (listen[0] != null) {
                listen[0].id = key;
            } else {
                firstId[0] = key;
            }
        });
        listen[0] = new Listen(stream, acknowledged, firstId[0]);
        stream.whenComplete((result, error) -> acknowledged.completeExceptionally(error != null
                ? ClientSession.unwrap(error)
                : new McpException("MCP server \"" + options.serverName() + "\" ended subscriptions/listen without"
                        + " acknowledging it")));
        ScheduledFuture<?> timer = ClientThreads.TIMERS.schedule(
                () -> acknowledged.completeExceptionally(new McpTimeoutException("MCP server \"" + options.serverName()
                        + "\" did not acknowledge subscriptions/listen within " + options.requestTimeout().toMillis()
                        + "ms", options.requestTimeout(), McpTimeoutException.Bound.TIMEOUT)),
                options.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
        acknowledged.whenComplete((ack, error) -> timer.cancel(false));
        return listen[0];
    }

    private static String idText(RequestId id) {
        return id instanceof RequestId.NumberId number ? Long.toString(number.value())
                : ((RequestId.StringId) id).value();
    }

    /** The subscription id a server tagged a notification with, as text; {@code null} when it has none. */
    static String subscriptionId(JsonNode params) {
        return Meta.subscriptionId(params).orElse(null);
    }

    /**
     * Opens the {@code subscriptions/listen} stream for the list changes the server offers (its capabilities'
     * {@code listChanged}: tools, prompts, resources): a request without a timeout, whose notifications arrive like
     * any other and which lives as long as the session. A stream the server ends or that breaks (an HTTP stream
     * cut) is a new request after a wait that doubles (250 ms up to 30 s), and the lists are listed again, since a
     * change may have been missed in between; a server that does not know the method or refuses its params is not
     * asked again, except that a refusal (-32602) of a filter with more than tools is asked once more for tools
     * alone, so that a server that knows only {@code toolsListChanged} keeps telling its tool changes. A stream's
     * acknowledgement narrows what is asked on a re-open to what it honoured; nothing honoured, nothing re-opened.
     */
    private Listen listen(Set<ListKind> kinds) {
        return listen(kinds, RELISTEN_FIRST_MILLIS, false);
    }

    private Listen listen(Set<ListKind> kinds, long nextWaitMillis, boolean reopened) {
        ObjectNode filter = McpJson.object();
        kinds.forEach(kind -> filter.put(kind.filterField, true));
        long opened = System.nanoTime();
        Listen listen = openListen(filter);
        // What the acknowledgement honoured; what was asked until it comes (or when it says nothing readable).
        AtomicReference<Set<ListKind>> honoured = new AtomicReference<>(kinds);
        listen.acknowledged().thenAccept(ack -> {
            JsonNode granted = ack.path(SubscriptionFilter.KEY);
            if (granted.isObject()) {
                Set<ListKind> set = EnumSet.noneOf(ListKind.class);
                kinds.stream().filter(kind -> granted.path(kind.filterField).asBoolean(false)).forEach(set::add);
                honoured.set(set);
                if (!set.equals(kinds)) {
                    LOG.debug("MCP server \"{}\" listens for {} of the list changes {}", options.serverName(), set,
                            kinds);
                }
            }
        });
        listen.stream().whenComplete((result, error) -> {
            if (session.closed()) {
                return;
            }
            Throwable cause = error == null ? null : ClientSession.unwrap(error);
            LOG.debug("MCP server \"{}\" ended the subscription to list changes {}: {}", options.serverName(), kinds,
                    cause != null ? cause.getMessage() : result);
            if (cause instanceof McpProtocolException protocol && (protocol.code() == -32601 || protocol.code() == -32602)) {
                if (protocol.code() == -32602 && kinds.contains(ListKind.TOOLS) && kinds.size() > 1) {
                    listen(EnumSet.of(ListKind.TOOLS), nextWaitMillis, reopened);
                }
                return;
            }
            Set<ListKind> again = honoured.get();
            if (again.isEmpty()) {
                return;
            }
            long wait = relistenWait(opened, nextWaitMillis);
            ClientThreads.TIMERS.schedule(() -> {
                if (!session.closed()) {
                    listen(again, Math.min(wait * 2, RELISTEN_MAX_MILLIS), true);
                }
            }, wait, TimeUnit.MILLISECONDS);
        });
        if (reopened) {
            // What changed while no stream was open has not been said: list again (the manager debounces), once the
            // server has the new stream (acknowledged; or at once when it failed), so that a change made between that
            // listing and the server's taking the stream is told too.
            listen.acknowledged().whenComplete((ack, error) -> {
                if (!session.closed()) {
                    kinds.forEach(this::onListChanged);
                }
            });
        }
        return listen;
    }

    /** Many {@code list_changed} of a kind before the listener took the first are one: the list is listed once. */
    void onListChanged(ListKind kind) {
        AtomicBoolean queued = listChangeQueued[kind.ordinal()];
        if (!queued.compareAndSet(false, true)) {
            coalescedListChanges.incrementAndGet();
            return;
        }
        events.execute(() -> {
            queued.set(false);
            kind.tell(options.listener());
        });
    }

    /** {@code notifications/subscriptions/acknowledged}: completes the wait of its listen request, if any. */
    void onAcknowledged(JsonNode params) {
        String id = subscriptionId(params);
        CompletableFuture<JsonNode> waiting = id == null ? null : acknowledgements.remove(id);
        LOG.debug("MCP server \"{}\" listens: {}", options.serverName(), params);
        if (waiting != null) {
            waiting.complete(params);
        }
    }
}
