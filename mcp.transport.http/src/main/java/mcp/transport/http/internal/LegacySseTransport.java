package mcp.transport.http.internal;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import mcp.api.McpAuthorizationException;
import mcp.api.McpException;
import mcp.api.McpHttpException;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.spi.Transport;
import mcp.auth.internal.BoundedBody;
import mcp.auth.internal.OAuthClient;
import mcp.protocol.McpHeaders;
import mcp.protocol.SseEvent;
import mcp.protocol.SseParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The legacy HTTP+SSE transport (protocol 2024-11-05): one long GET returns an SSE stream whose
 * first event, {@code endpoint}, names the URL to POST messages to; every reply and server message
 * comes on that stream.
 *
 * <p>{@link #start} opens the stream; sends wait (bounded by the config's timeout) for the
 * {@code endpoint} event, which must name a URL of the same origin. A POST is sent when the server
 * accepts it (2xx, usually 202). The transport closes when the stream ends (there is no resuming in
 * this protocol), when the endpoint does not come in time, on an oversized event, and on a 404 to a
 * POST (the server forgot the SSE session). Also used by the {@code http} transport as its fallback,
 * with a context that prefixes every close reason.
 *
 * <p>State: {@code lock} guards {@code open}, {@code stream} and {@code protocolVersion}; the
 * {@code endpoint} future completes once (the URL) or fails once (the close reason).
 */
final class LegacySseTransport implements Transport {

    private static final Logger LOG = LoggerFactory.getLogger(LegacySseTransport.class);

    private final HttpEndpoint http;
    private final String context;
    private final Inbound inbound;
    private final CompletableFuture<URI> endpoint = new CompletableFuture<>();

    private final Object lock = new Object();
    private boolean open = true;
    private boolean started;
    private SseStream stream;
    private CompletableFuture<HttpResponse<Reply>> streamResponse;
    private String protocolVersion;
    private ScheduledFuture<?> endpointDeadline;
    private volatile String closeReason;
    private volatile String lastExchange = "nothing sent yet";

    /**
     * @param http the endpoint (its URL is the SSE URL)
     * @param context for the fallback of the {@code http} transport: what happened first, put before every
     *     close reason; {@code null} otherwise
     */
    LegacySseTransport(HttpEndpoint http, String context) {
        this.http = http;
        this.context = context;
        this.inbound = new Inbound(http.serverName, http.closeStep);
    }

    @Override
    public void start(Listener listener) {
        inbound.start(listener);
        synchronized (lock) {
            if (started || !open) {
                return;
            }
            started = true;
            armEndpointDeadline();
        }
        openStream(1, new AtomicBoolean());
    }

    /**
     * GETs the SSE stream; {@code attempt} counts the authorizations it took (OAuth), from 1; {@code refreshed}
     * says whether the header commands ran again for it.
     */
    private void openStream(int attempt, AtomicBoolean refreshed) {
        HttpEndpoint.Prepared prepared = http.prepare("GET", http.uri, http.timeout);
        OAuthClient.Presentation sentAuthorization = prepared.presented();
        int sentHeaders = prepared.headerGeneration();
        HttpRequest request = prepared.builder().GET().setHeader("Accept", McpHeaders.EVENT_STREAM).build();
        LOG.debug("MCP server \"{}\": GET {} (legacy SSE)", http.serverName, HttpEndpoint.redact(http.uri));
        try {
            CompletableFuture<HttpResponse<Reply>> response = http.client.sendAsync(request,
                    new ReplyHandler(true, http.maxMessageBytes, new StreamListener()));
            synchronized (lock) {
                streamResponse = response;
            }
            response.whenCompleteAsync((reply, error) -> onStreamResponse(reply, error, sentAuthorization, attempt,
                    sentHeaders, refreshed), http.executor);
        } catch (RuntimeException e) {
            closeFromPeer("GET " + HttpEndpoint.redact(http.uri) + " failed: " + e.getMessage(), e);
        }
    }

    private void onStreamResponse(HttpResponse<Reply> response, Throwable error,
            OAuthClient.Presentation sentAuthorization, int attempt, int sentHeaders, AtomicBoolean refreshed) {
        if (error != null) {
            Throwable cause = HttpEndpoint.unwrap(error);
            closeFromPeer(cause instanceof BoundedBody.TooLargeException ? cause.getMessage()
                    : http.failureMessage("GET", http.uri, cause, http.timeout), cause);
            return;
        }
        int status = response.statusCode();
        Reply reply = response.body();
        http.nonce(http.uri, response);
        lastExchange = "GET " + HttpEndpoint.redact(http.uri) + " answered HTTP " + status + " "
                + ReplyHandler.contentType(response.headers());
        if (reply instanceof Reply.Stream sse) {
            boolean keep;
            synchronized (lock) {
                keep = open;
                if (keep) {
                    stream = sse.stream();
                }
            }
            if (!keep) {
                sse.stream().cancel();
            }
            return;
        }
        String excerpt = reply instanceof Reply.Failure failure ? failure.excerpt() : "";
        Optional<CompletableFuture<Boolean>> newHeaders = http.refreshHeaders(status, sentHeaders, refreshed);
        if (newHeaders.isPresent()) {
            // As for a POST: the header commands run again, and the stream is asked for once more.
            newHeaders.get().whenCompleteAsync((changed, e) -> {
                if (Boolean.TRUE.equals(changed)) {
                    synchronized (lock) {
                        if (!open) {
                            return;
                        }
                    }
                    openStream(attempt, refreshed);
                } else {
                    onStreamResponse(response, null, sentAuthorization, attempt, sentHeaders, refreshed);
                }
            }, http.executor);
            return;
        }
        List<String> challenges = response.headers().allValues("WWW-Authenticate");
        if (http.oauth != null && HttpEndpoint.isAuthorizationChallenge(status, challenges)) {
            // The endpoint deadline waits while the user authorizes; it starts again with the new GET.
            synchronized (lock) {
                if (endpointDeadline != null) {
                    endpointDeadline.cancel(false);
                }
            }
            http.oauth.challenged(status, challenges, response.headers().firstValue("DPoP-Nonce"), sentAuthorization,
                    attempt, http.statusMessage("GET", http.uri, response, excerpt, false)).whenCompleteAsync((v, e) -> {
                        if (e != null) {
                            // The cause says it was the authorization: nothing another connect could fix alone.
                            String failed = "authorization failed: " + HttpEndpoint.unwrap(e).getMessage();
                            closeFromPeer(failed, new McpAuthorizationException(prefix() + failed,
                                    HttpEndpoint.unwrap(e)));
                            return;
                        }
                        synchronized (lock) {
                            if (!open) {
                                return;
                            }
                            armEndpointDeadline();
                        }
                        openStream(attempt + 1, refreshed);
                    }, http.executor);
            return;
        }
        // The status goes with the close, so that whoever connects can tell a server that is busy for now from a
        // URL that is no MCP server.
        String what = status >= 200 && status <= 299 ? "GET " + HttpEndpoint.redact(http.uri) + " answered HTTP "
                + status + " with content type \"" + ReplyHandler.contentType(response.headers()) + "\", not an SSE stream"
                + (excerpt.isEmpty() ? "" : "; body: " + excerpt) : http.statusMessage("GET", http.uri, response, excerpt);
        closeFromPeer(what, new McpHttpException(status, prefix() + what));
    }

    /** Holding {@code lock}: the bound of the wait for the {@code endpoint} event. */
    private void armEndpointDeadline() {
        endpointDeadline = HttpThreads.TIMER.schedule(() -> closeFromPeer("no \"endpoint\" event on the SSE stream of GET "
                + HttpEndpoint.redact(http.uri) + " within " + http.timeout.toMillis() + " ms", null),
                http.timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The events of the one SSE stream. */
    private final class StreamListener implements SseStream.Listener {
        @Override
        public void onEvent(SseStream source, SseEvent event) {
            switch (event.type()) {
                case "endpoint" -> onEndpoint(event.text().trim());
                case "message" -> inbound.deliverJson(event.data());
                default -> LOG.debug("MCP server \"{}\": ignoring an SSE event of type \"{}\"", http.serverName,
                        event.type());
            }
        }

        @Override
        public void onEnd(SseStream source, Throwable error) {
            if (source.isCancelled()) {
                return;
            }
            if (error instanceof SseParser.TooLargeException tooLarge) {
                closeFromPeer(tooLarge.getMessage(), null);
            } else if (error != null) {
                Throwable cause = HttpEndpoint.unwrap(error);
                closeFromPeer("the SSE stream of GET " + HttpEndpoint.redact(http.uri) + " broke: "
                        + (cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage()), cause);
            } else {
                closeFromPeer("the server closed the SSE stream of GET " + HttpEndpoint.redact(http.uri), null);
            }
        }
    }

    private void onEndpoint(String value) {
        if (endpoint.isDone()) {
            LOG.debug("MCP server \"{}\": ignoring a second \"endpoint\" event", http.serverName);
            return;
        }
        URI target;
        try {
            target = http.uri.resolve(new URI(value));
        } catch (Exception e) {
            closeFromPeer("the \"endpoint\" event does not hold a valid URL", e);
            return;
        }
        if (!sameOrigin(http.uri, target)) {
            // A server must not send our messages (and headers, which may hold credentials) elsewhere.
            closeFromPeer("the \"endpoint\" event names another origin (" + HttpEndpoint.redact(target) + ") than "
                    + HttpEndpoint.redact(http.uri) + "; refusing to send messages there", null);
            return;
        }
        synchronized (lock) {
            if (endpointDeadline != null) {
                endpointDeadline.cancel(false);
            }
        }
        LOG.debug("MCP server \"{}\": legacy SSE endpoint {}", http.serverName, HttpEndpoint.redact(target));
        endpoint.complete(target);
    }

    private static boolean sameOrigin(URI a, URI b) {
        return a.getScheme().equalsIgnoreCase(String.valueOf(b.getScheme()))
                && a.getHost().equalsIgnoreCase(String.valueOf(b.getHost()))
                && effectivePort(a) == effectivePort(b);
    }

    private static int effectivePort(URI uri) {
        if (uri.getPort() >= 0) {
            return uri.getPort();
        }
        return "https".equals(uri.getScheme().toLowerCase(Locale.ROOT)) ? 443 : 80;
    }

    @Override
    public CompletableFuture<Void> send(JsonRpcMessage message) {
        Objects.requireNonNull(message, "message");
        byte[] bytes;
        try {
            bytes = JsonRpcCodec.standard().encode(message);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new McpException(
                    "Cannot encode a message for MCP server \"" + http.serverName + "\": " + e.getMessage(), e));
        }
        synchronized (lock) {
            if (!open) {
                return CompletableFuture.failedFuture(closedException());
            }
        }
        CompletableFuture<Void> sent = new CompletableFuture<>();
        endpoint.whenComplete((target, error) -> {
            if (error != null) {
                sent.completeExceptionally(HttpEndpoint.unwrap(error));
            } else {
                post(target, bytes, sent, 1, new AtomicBoolean());
            }
        });
        return sent;
    }

    /**
     * POSTs one message; {@code attempt} counts the authorizations it took (OAuth), from 1; {@code refreshed}
     * says whether the header commands ran again for it.
     */
    private void post(URI target, byte[] bytes, CompletableFuture<Void> sent, int attempt, AtomicBoolean refreshed) {
        String version;
        synchronized (lock) {
            if (!open) {
                sent.completeExceptionally(closedException());
                return;
            }
            version = protocolVersion;
        }
        HttpEndpoint.Prepared prepared = http.prepare("POST", target, http.timeout);
        HttpRequest.Builder builder = prepared.builder()
                .POST(HttpRequest.BodyPublishers.ofByteArray(bytes))
                .setHeader("Content-Type", McpHeaders.JSON);
        if (version != null) {
            builder.setHeader(McpHeaders.PROTOCOL_VERSION, version);
        }
        OAuthClient.Presentation sentAuthorization = prepared.presented();
        int sentHeaders = prepared.headerGeneration();
        try {
            http.client.sendAsync(builder.build(), new ReplyHandler(false, http.maxMessageBytes, null))
                    .whenCompleteAsync((response, error) -> onPostResponse(target, bytes, response, error, sent,
                            sentAuthorization, attempt, sentHeaders, refreshed), http.executor);
        } catch (RuntimeException e) {
            sent.completeExceptionally(new McpException(prefix() + "cannot send POST " + HttpEndpoint.redact(target)
                    + ": " + e.getMessage(), e));
        }
    }

    private void onPostResponse(URI target, byte[] bytes, HttpResponse<Reply> response, Throwable error,
            CompletableFuture<Void> sent, OAuthClient.Presentation sentAuthorization, int attempt, int sentHeaders,
            AtomicBoolean refreshed) {
        if (error != null) {
            Throwable cause = HttpEndpoint.unwrap(error);
            lastExchange = "POST " + HttpEndpoint.redact(target) + " failed";
            sent.completeExceptionally(new McpException(prefix() + http.failureMessage("POST", target, cause, http.timeout),
                    cause));
            return;
        }
        int status = response.statusCode();
        http.nonce(target, response);
        lastExchange = "POST " + HttpEndpoint.redact(target) + " answered HTTP " + status;
        if (status >= 200 && status <= 299) {
            sent.complete(null);
            return;
        }
        String excerpt = response.body() instanceof Reply.Failure failure ? failure.excerpt() : "";
        Optional<CompletableFuture<Boolean>> newHeaders = http.refreshHeaders(status, sentHeaders, refreshed);
        if (newHeaders.isPresent()) {
            newHeaders.get().whenCompleteAsync((changed, e) -> {
                if (Boolean.TRUE.equals(changed)) {
                    post(target, bytes, sent, attempt, refreshed);
                } else {
                    onPostResponse(target, bytes, response, null, sent, sentAuthorization, attempt, sentHeaders,
                            refreshed);
                }
            }, http.executor);
            return;
        }
        List<String> challenges = response.headers().allValues("WWW-Authenticate");
        if (http.oauth != null && HttpEndpoint.isAuthorizationChallenge(status, challenges)) {
            http.oauth.challenged(status, challenges, response.headers().firstValue("DPoP-Nonce"), sentAuthorization,
                    attempt, http.statusMessage("POST", target, response, excerpt, false)).whenCompleteAsync((v, e) -> {
                        if (e == null) {
                            post(target, bytes, sent, attempt + 1, refreshed);
                        } else {
                            sent.completeExceptionally(new McpAuthorizationException(prefix() + "authorization failed: "
                                    + HttpEndpoint.unwrap(e).getMessage(), HttpEndpoint.unwrap(e)));
                        }
                    }, http.executor);
            return;
        }
        String what = http.statusMessage("POST", target, response, excerpt);
        sent.completeExceptionally(new McpHttpException(status, prefix() + what));
        if (status == 404) {
            closeFromPeer("the server no longer knows this SSE session (" + what + ")", null);
        }
    }

    @Override
    public void protocolVersion(String version) {
        synchronized (lock) {
            protocolVersion = Objects.requireNonNull(version, "version");
        }
    }

    @Override
    public String diagnostics() {
        return "last HTTP exchange: " + lastExchange;
    }

    @Override
    public void close() {
        closeWith("closed by client", null);
    }

    private void closeFromPeer(String reason, Throwable cause) {
        boolean isOpen;
        synchronized (lock) {
            isOpen = open;
        }
        if (isOpen) {
            String full = context == null ? reason : context + ", which failed: " + reason;
            HttpThreads.run(http.serverName, "close", () -> closeWith(full, cause));
        }
    }

    private void closeWith(String reason, Throwable cause) {
        SseStream current;
        CompletableFuture<HttpResponse<Reply>> response;
        synchronized (lock) {
            if (!open) {
                return;
            }
            open = false;
            closeReason = reason;
            current = stream;
            stream = null;
            response = streamResponse;
            if (endpointDeadline != null) {
                endpointDeadline.cancel(false);
            }
        }
        inbound.stopDeliveries();
        LOG.debug("MCP server \"{}\": closing the legacy SSE transport: {}", http.serverName, reason);
        TransportClosedException closed = new TransportClosedException(reason, cause);
        endpoint.completeExceptionally(closed);
        if (current != null) {
            current.cancel();
        }
        if (response != null && !response.isDone()) {
            response.cancel(true);
        }
        inbound.closed(closed);
    }

    private TransportClosedException closedException() {
        String reason = closeReason;
        return new TransportClosedException(reason != null ? reason : "transport is closing");
    }

    private String prefix() {
        return "MCP server \"" + http.serverName + "\": ";
    }

    @Override
    public String toString() {
        return "LegacySseTransport[server=" + http.serverName + ", url=" + HttpEndpoint.redact(http.uri) + "]";
    }
}
