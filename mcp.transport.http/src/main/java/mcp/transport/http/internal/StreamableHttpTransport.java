package mcp.transport.http.internal;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.api.McpAuthorizationException;
import mcp.api.McpException;
import mcp.api.McpHttpException;
import mcp.api.McpNotDeliveredException;
import mcp.api.McpStreamLostException;
import mcp.api.McpJson;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcResponse;
import mcp.api.jsonrpc.RequestId;
import mcp.api.spi.Transport;
import mcp.auth.internal.BoundedBody;
import mcp.auth.internal.OAuthClient;
import mcp.protocol.ErrorCodes;
import mcp.protocol.McpHeaders;
import mcp.protocol.Meta;
import mcp.protocol.SseEvent;
import mcp.protocol.SseParser;
import mcp.transport.http.HttpTransports;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The Streamable HTTP transport: every message is POSTed to one endpoint; a request's reply comes
 * back as JSON or as an SSE stream (with the server's notifications and requests interleaved); an
 * optional GET stream carries messages that belong to no request.
 *
 * <h2>What it does</h2>
 * <ul>
 *   <li><b>POST</b> with {@code Accept: application/json, text/event-stream}, the config headers, and
 *       after {@code initialize} the {@code Mcp-Session-Id} the server gave and the
 *       {@code MCP-Protocol-Version} from {@link #protocolVersion}. A notification or response is
 *       sent when the server accepts it (202); a request's send future completes when its reply has
 *       been delivered, and fails when the exchange fails (HTTP error, lost stream), which fails the
 *       request in the client at once instead of after its timeout.</li>
 *   <li><b>Ordering of the handshake.</b> After {@link #protocolVersion} the GET stream is opened and
 *       {@code notifications/initialized} waits (at most {@link HttpTransports#GET_READY_WAIT}) for its
 *       headers; every later message waits until {@code notifications/initialized} was accepted. So a
 *       server's first notifications (say {@code tools/list_changed} right after initialized) have a
 *       stream to go to, and no request overtakes initialized.</li>
 *   <li><b>GET stream.</b> 405 (or any error on the first try) means the server offers none. A
 *       stream that ends is reopened after the server's {@code retry} (else a backoff), with
 *       {@code Last-Event-ID}; it gives up after {@link HttpTransports#MAX_RECONNECT_FAILURES}
 *       failures in a row.</li>
 *   <li><b>Resuming.</b> A request's stream that ends before the reply is resumed with a GET carrying
 *       {@code Last-Event-ID}, after the server's {@code retry} (else a backoff); the reply may come on
 *       the resumed stream. Without an event id, after too many failed attempts, or on 404/405 the
 *       request fails with the reason.</li>
 *   <li><b>Session expiry.</b> A 404 to a POST that carried the current session id means the server
 *       forgot the session: the transport drops it, holds back every message but {@code initialize}
 *       and {@code notifications/initialized}, and asks the listener to initialize again
 *       ({@link Transport.Listener#onSessionExpired}); then it re-sends the requests the server refused
 *       (they were not processed) and releases the held messages. A new session that is refused
 *       again before anything succeeded on it closes the transport.</li>
 *   <li><b>Fallback.</b> An {@code initialize} POST answered 400, 404 or 405 on a transport that never had
 *       a session is retried over the legacy HTTP+SSE transport at the same URL (the spec's
 *       backward-compatibility procedure); everything then goes through it.</li>
 *   <li><b>Cancellation.</b> {@code notifications/cancelled} for a request in flight also abandons its
 *       exchange (stream closed), so a request the client gave up on holds no connection.</li>
 *   <li><b>Close.</b> Streams are closed, waiting sends fail, and the session is ended with DELETE
 *       (bounded by the close step; 405 is fine); {@link Transport.Listener#onClose} once.</li>
 *   <li><b>Server gone.</b> A POST, a reopening of the GET stream once it was open, or a resume that cannot
 *       connect any more (connection refused, connect timeout), and a GET stream whose reopening is answered 404
 *       (the session died with the server), close the transport with the reason: its owner's reconnect policy
 *       starts the server's connection again. The request that found out fails with the reason (a POST that
 *       could not connect with {@link McpNotDeliveredException}: the server never saw it); nothing is sent again by
 *       the transport.</li>
 * </ul>
 *
 * <h2>The stateless revision (2026-07-28)</h2>
 * A message whose {@code params._meta} holds {@code io.modelcontextprotocol/protocolVersion} (the client's
 * envelope) belongs to the stateless revision, and everything the transport does with it follows from the
 * message alone; the path above is not taken:
 * <ul>
 *   <li>POST with {@code MCP-Protocol-Version} (the envelope's version), {@code Mcp-Method} and, for
 *       {@code tools/call}, {@code prompts/get}, {@code resources/read} and the tasks extension's
 *       {@code tasks/get}, {@code tasks/update} and {@code tasks/cancel}, {@code Mcp-Name} (the
 *       {@code name} or {@code uri}; plain when it is printable ASCII without edge spaces, else
 *       {@code =?base64?...?=}). No session id is sent (one the server returns is ignored), no GET stream
 *       is opened ({@link #protocolVersion} then does nothing), nothing is deleted on close.</li>
 *   <li>The reply is JSON or SSE as above, notifications first. A stream may stay open as long as the
 *       server keeps it ({@code subscriptions/listen}); closing the transport closes it. A stream that ends
 *       before the reply is not resumed: the request fails with {@link mcp.api.McpStreamLostException}, and
 *       the client sends it again as a new request (mcp-host's does, once).</li>
 *   <li>A 4xx other than 401/403 whose body is a JSON-RPC error (a modern server's
 *       {@code UnsupportedProtocolVersionError}, a 2025 server's "not initialized") is delivered as the error
 *       response to the request, whatever id the body names (2025 servers say {@code null}): the client's
 *       era probe reads it. 401 and 403 go to OAuth as above.</li>
 *   <li>{@code notifications/cancelled} for a stateless request closes its exchange and is not sent: closing
 *       the stream is the cancellation over HTTP.</li>
 *   <li>Once {@code initialize} was sent (the client fell back to the handshake), a stateless message is
 *       refused: one connection speaks one era.</li>
 * </ul>
 *
 * <h2>State</h2>
 * {@code lock} guards {@code state}, {@code era}, the session id, the protocol version, {@code gate},
 * {@code reinit}, {@code held}, {@code expiriesWithoutSuccess}, {@code fallback} and
 * {@code serverStream}. {@code exchanges} (requests in flight) is a concurrent map: an exchange leaves
 * it once, by whoever finishes it first (its reply, its failure, its cancellation, the close).
 */
final class StreamableHttpTransport implements Transport {

    private static final Logger LOG = LoggerFactory.getLogger(StreamableHttpTransport.class);

    private static final CompletableFuture<Void> OPEN_GATE = CompletableFuture.completedFuture(null);

    private enum State { OPEN, CLOSED }

    /**
     * Which revision this connection speaks: not yet known, the stateless one (a message with the envelope
     * was sent), or the 2025 handshake ({@code initialize} was sent). It only ever moves away from
     * {@code UNDECIDED}, and from {@code STATELESS} to {@code HANDSHAKE} (the client's fallback).
     */
    private enum Era { UNDECIDED, STATELESS, HANDSHAKE }


    /**
     * A message on its way, with the future its sender holds.
     *
     * @param statelessVersion the envelope's protocol version for a message of the stateless revision, else
     *     {@code null}
     */
    private record Outgoing(JsonRpcMessage message, byte[] bytes, CompletableFuture<Void> future,
            AtomicInteger authorizations, AtomicBoolean headersRefreshed, String statelessVersion) {
        Outgoing(JsonRpcMessage message, byte[] bytes, CompletableFuture<Void> future, String statelessVersion) {
            this(message, bytes, future, new AtomicInteger(), new AtomicBoolean(), statelessVersion);
        }

        boolean stateless() {
            return statelessVersion != null;
        }
    }

    private final HttpEndpoint http;
    private final boolean fallbackAllowed;
    private final Inbound inbound;
    /** The x-mcp-header annotations of the tools listed in the stateless revision. */
    private final ParamHeaders paramHeaders = new ParamHeaders();
    private final ConcurrentHashMap<RequestId, Exchange> exchanges = new ConcurrentHashMap<>();

    private final Object lock = new Object();
    private State state = State.OPEN;
    private Era era = Era.UNDECIDED;
    /** Written under {@code lock}; volatile so that {@link #sessionId()} reads it without (telemetry, per request). */
    private volatile String sessionId;
    private String protocolVersion;
    private boolean initialized;
    private CompletableFuture<Void> gate = OPEN_GATE;
    private CompletableFuture<Void> reinit;
    private final List<Outgoing> held = new ArrayList<>();
    private int expiriesWithoutSuccess;
    private LegacySseTransport fallback;
    private ServerStream serverStream;
    private volatile String closeReason;
    private volatile String lastExchange = "nothing sent yet";

    StreamableHttpTransport(HttpEndpoint http, boolean fallbackAllowed) {
        this.http = http;
        this.fallbackAllowed = fallbackAllowed;
        this.inbound = new Inbound(http.serverName, http.closeStep);
        inbound.observe(this::learnParamHeaders);
    }

    @Override
    public void start(Listener listener) {
        inbound.start(listener);
    }

    /** {@inheritDoc} This transport does: see the class comment. */
    @Override
    public boolean carriesModernEra() {
        return true;
    }

    // ------------------------------------------------------------------------------------------ sending

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
        Outgoing out = new Outgoing(message, bytes, new CompletableFuture<>(), statelessVersion(message));
        if (out.stateless() || isStatelessCancel(message)) {
            return sendStateless(out);
        }
        CompletableFuture<Void> wait;
        LegacySseTransport legacy;
        synchronized (lock) {
            if (state != State.OPEN) {
                return CompletableFuture.failedFuture(closedException());
            }
            if (isInitialize(message)) {
                era = Era.HANDSHAKE;
            }
            legacy = fallback;
            if (legacy == null) {
                boolean lifecycle = isInitialize(message) || isInitialized(message);
                if (reinit != null && !lifecycle) {
                    held.add(out);
                    return out.future();
                }
                wait = isInitialize(message) ? OPEN_GATE : gate;
                if (isInitialized(message)) {
                    // Later messages wait until the server accepted initialized (bounded by the POST's timeout).
                    gate = out.future().handle((v, e) -> null);
                }
            } else {
                wait = null;
            }
        }
        if (legacy != null) {
            return legacy.send(message);
        }
        wait.whenComplete((v, e) -> post(out));
        cancelledRequest(message).ifPresent(this::abandon);
        return out.future();
    }

    /**
     * A message of the stateless revision: POSTed at once (there is no handshake to wait for), or, for
     * {@code notifications/cancelled}, not sent at all: its exchange is closed, which is the cancellation.
     */
    private CompletableFuture<Void> sendStateless(Outgoing out) {
        synchronized (lock) {
            if (state != State.OPEN) {
                return CompletableFuture.failedFuture(closedException());
            }
            if (out.stateless()) {
                if (era == Era.HANDSHAKE || fallback != null) {
                    return CompletableFuture.failedFuture(new McpException(prefix() + "cannot send a "
                            + describe(out.message()) + " of protocol version " + out.statelessVersion()
                            + " on a connection that initialized a 2025 session"));
                }
                era = Era.STATELESS;
            }
        }
        Optional<RequestId> cancelled = cancelledRequest(out.message());
        if (cancelled.isPresent()) {
            abandon(cancelled.get());
            return CompletableFuture.completedFuture(null);
        }
        post(out);
        return out.future();
    }

    /** A {@code notifications/cancelled} about a stateless request, or sent while the connection is stateless. */
    private boolean isStatelessCancel(JsonRpcMessage message) {
        Optional<RequestId> id = cancelledRequest(message);
        if (id.isEmpty()) {
            return false;
        }
        Exchange ex = exchanges.get(id.get());
        if (ex != null) {
            return ex.out.stateless();
        }
        synchronized (lock) {
            return era == Era.STATELESS;
        }
    }

    private void post(Outgoing out) {
        OAuthClient oauth = http.oauth;
        if (oauth != null) {
            // A token about to expire is renewed first.
            CompletableFuture<Void> ready = oauth.ready();
            if (!ready.isDone()) {
                ready.whenCompleteAsync((v, e) -> post(out), http.executor);
                return;
            }
        }
        String session;
        String version;
        synchronized (lock) {
            if (state != State.OPEN) {
                out.future().completeExceptionally(closedException());
                return;
            }
            if (fallback != null) {
                fallback.send(out.message()).whenComplete((v, e) -> complete(out.future(), e));
                return;
            }
            boolean init = isInitialize(out.message());
            if (reinit != null && !init && !isInitialized(out.message())) {
                // It passed send() before the session was lost: it waits for the new session too.
                held.add(out);
                return;
            }
            session = init || out.stateless() ? null : sessionId;
            version = out.stateless() ? out.statelessVersion() : init ? null : protocolVersion;
        }
        boolean isRequest = out.message() instanceof JsonRpcRequest;
        Duration responseTimeout = isRequest ? http.timeout.multipliedBy(HttpTransports.REQUEST_BACKSTOP_FACTOR)
                : http.timeout;
        HttpEndpoint.Prepared prepared = http.prepare("POST", http.uri, null); // sendAsync keeps the time
        HttpRequest.Builder builder = prepared.builder()
                .POST(new PlainHttp.Bytes(out.bytes()))
                .setHeader("Accept", McpHeaders.ACCEPT_BOTH)
                .setHeader("Content-Type", McpHeaders.JSON);
        sessionHeaders(builder, session, version);
        if (out.stateless()) {
            statelessHeaders(builder, out.message());
            if (out.message() instanceof JsonRpcRequest call && call.method().equals("tools/call")) {
                paramHeaders.apply(builder, call.params());
            }
        }
        OAuthClient.Presentation sentAuthorization = prepared.presented();
        Exchange exchange = null;
        if (out.message() instanceof JsonRpcRequest request) {
            exchange = new Exchange(out, request.id(), request.method(), session);
            Exchange previous = exchanges.put(request.id(), exchange);
            if (previous != null) {
                previous.fail(new McpException("request id " + request.id() + " was sent again"));
            }
        }
        Exchange ex = exchange;
        String what = describe(out.message());
        LOG.debug("MCP server \"{}\": POST {} ({})", http.serverName, HttpEndpoint.redact(http.uri), what);
        lastExchange = "POST " + HttpEndpoint.redact(http.uri) + " (" + what + ") sent, no response yet";
        CompletableFuture<HttpResponse<Reply>> response;
        // The session id must be known before the initialize reply is delivered: the client answers it
        // with notifications/initialized at once, which must carry the id.
        ReplyHandler handler = new ReplyHandler(isRequest, http.maxMessageBytes, ex,
                isInitialize(out.message()) ? this::initializeHeaders : null,
                out.stateless() ? ReplyHandler.ERROR_BODY_BYTES : ReplyHandler.EXCERPT_BYTES);
        int sentHeaders = prepared.headerGeneration();
        try {
            response = http.sendAsync(builder.build(), handler, responseTimeout, (reply, error) -> onPostResponse(out, ex, session,
                    responseTimeout, sentAuthorization, sentHeaders, reply, error));
        } catch (RuntimeException e) {
            failOutgoing(out, ex, new McpException(prefix() + "cannot send POST " + HttpEndpoint.redact(http.uri) + ": "
                    + e.getMessage(), e));
            return;
        }
        if (ex != null) {
            ex.pending = response;
        }
    }

    private void onPostResponse(Outgoing out, Exchange ex, String sentSession, Duration responseTimeout,
            OAuthClient.Presentation sentAuthorization, int sentHeaders, HttpResponse<Reply> response,
            Throwable error) {
        if (error != null) {
            if (response != null && response.body() instanceof Reply.Stream late) {
                // The request was abandoned as its stream began: closing the stream is what tells the server.
                late.stream().cancel();
            }
            Throwable cause = HttpEndpoint.unwrap(error);
            lastExchange = "POST " + HttpEndpoint.redact(http.uri) + " (" + describe(out.message()) + ") failed";
            if (cause instanceof BoundedBody.TooLargeException tooLarge) {
                failOutgoing(out, ex, new McpException(prefix() + tooLarge.getMessage()));
                closeFromPeer(tooLarge.getMessage(), null);
            } else if (HttpEndpoint.isCancellation(cause) || ex != null && ex.finished.get()) {
                failOutgoing(out, ex, new McpException(prefix() + "request abandoned"));
            } else {
                String what = http.failureMessage("POST", http.uri, cause, responseTimeout);
                boolean gone = HttpEndpoint.isUnreachable(cause);
                failOutgoing(out, ex, !isOpen() ? closedException()
                        : gone ? new McpNotDeliveredException(prefix() + what, cause)
                        : new McpException(prefix() + what, cause));
                if (gone) {
                    serverGone(what, cause);
                }
            }
            return;
        }
        int status = response.statusCode();
        Reply reply = response.body();
        http.nonce(http.uri, response);
        lastExchange = "POST " + HttpEndpoint.redact(http.uri) + " (" + describe(out.message()) + ") answered HTTP "
                + status + " " + ReplyHandler.contentType(response.headers());
        LOG.debug("MCP server \"{}\": POST {} ({}) answered HTTP {}", http.serverName, HttpEndpoint.redact(http.uri),
                describe(out.message()), status);
        if (status >= 200 && status <= 299) {
            accepted(out, ex, sentSession, response, reply);
            return;
        }
        String excerpt = reply instanceof Reply.Failure failure ? failure.excerpt() : "";
        Optional<CompletableFuture<Boolean>> refreshed = http.refreshHeaders(status, sentHeaders, out.headersRefreshed());
        if (refreshed.isPresent()) {
            // A token a command printed expired: the command runs again, and the message goes out once more with
            // what it prints now, before the OAuth client (if any) is asked; a second refusal goes on from here.
            if (ex != null) {
                exchanges.remove(ex.id, ex);
            }
            refreshed.get().whenCompleteAsync((changed, e) -> {
                if (Boolean.TRUE.equals(changed) && isOpen()) {
                    post(out);
                } else {
                    if (ex != null) {
                        exchanges.put(ex.id, ex);
                    }
                    onPostResponse(out, ex, sentSession, responseTimeout, sentAuthorization, sentHeaders, response, null);
                }
            }, http.executor);
            return;
        }
        OAuthClient oauth = http.oauth;
        List<String> challenges = response.headers().allValues("WWW-Authenticate");
        if (oauth != null && HttpEndpoint.isAuthorizationChallenge(status, challenges)) {
            authorizeAndRetry(oauth, out, ex, sentAuthorization, response.headers().firstValue("DPoP-Nonce"), status,
                    challenges, http.statusMessage("POST", http.uri, response, excerpt, false));
            return;
        }
        // A rate limit's body is the JSON-RPC error with its retry hint, in either era.
        if (ex != null && (out.stateless() || status == ErrorCodes.RATE_LIMITED) && status >= 400 && status <= 499
                && status != 401 && status != 403) {
            Optional<JsonRpcError> answer = jsonRpcError(reply, ex.id);
            if (answer.isPresent()) {
                LOG.debug("MCP server \"{}\": HTTP {} to request {} carries JSON-RPC error {}", http.serverName, status,
                        ex.id, answer.get().code());
                if (inbound.deliver(answer.get())) {
                    ex.finish();
                } else {
                    ex.fail(closedException());
                }
                return;
            }
            if ((status == 404 || status == 405) && fallbackAllowed && !everInitialized()) {
                // Not a JSON-RPC error: the URL is no Streamable HTTP endpoint of either era (the spec's
                // backward-compatibility procedure), so the legacy transport is opened at once; the request fails,
                // and the client's initialize goes through it. The exchange leaves the map first, so that the
                // legacy transport's own failure (which closes this one) cannot overtake this one.
                String what = http.statusMessage("POST", http.uri, response, excerpt);
                fallBack(null, ex, what);
                ex.fail(new McpException(prefix() + what));
                return;
            }
        }
        if (status == 404 && sentSession != null) {
            sessionExpired(out, ex, sentSession, http.statusMessage("POST", http.uri, response, excerpt));
            return;
        }
        Optional<JsonRpcError> refusal = ex != null && isInitialize(out.message()) && status >= 400 && status <= 499
                ? jsonRpcError(reply, ex.id).filter(e -> e.code() == ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION) : Optional.empty();
        if (refusal.isPresent()) {
            // A server of the stateless era only: UnsupportedProtocolVersionError is its answer to initialize
            // (with the versions it supports), not a sign of the legacy HTTP+SSE transport.
            LOG.debug("MCP server \"{}\": HTTP {} to initialize carries UnsupportedProtocolVersionError",
                    http.serverName, status);
            if (inbound.deliver(refusal.get())) {
                ex.finish();
            } else {
                ex.fail(closedException());
            }
            return;
        }
        if (isInitialize(out.message()) && (status == 400 || status == 404 || status == 405) && fallbackAllowed
                && !everInitialized()) {
            fallBack(out, ex, http.statusMessage("POST", http.uri, response, excerpt));
            return;
        }
        failOutgoing(out, ex, new McpHttpException(status, prefix() + http.statusMessage("POST", http.uri, response,
                excerpt)));
    }

    /**
     * A 401, or a 403 for missing scopes: the OAuth client obtains a better credential (refresh,
     * step-up, or a new authorization), then the same message goes out again; at most
     * {@link OAuthClient#MAX_ATTEMPTS} times per message.
     */
    private void authorizeAndRetry(OAuthClient oauth, Outgoing out, Exchange ex,
            OAuthClient.Presentation sentAuthorization, Optional<String> dpopNonce, int status, List<String> challenges,
            String statusMessage) {
        if (ex != null) {
            // The retry registers a new exchange under the same id.
            exchanges.remove(ex.id, ex);
        }
        int attempt = out.authorizations().incrementAndGet();
        LOG.debug("MCP server \"{}\": {} (authorization attempt {})", http.serverName, statusMessage, attempt);
        oauth.challenged(status, challenges, dpopNonce, sentAuthorization, attempt, statusMessage)
                .whenCompleteAsync((v, e) -> {
            if (e == null && isOpen()) {
                post(out);
                return;
            }
            Throwable cause = e == null ? closedException() : HttpEndpoint.unwrap(e);
            McpException error = cause instanceof TransportClosedException closed ? closed
                    : new McpAuthorizationException(prefix() + "authorization failed: " + cause.getMessage(), cause);
            if (ex != null) {
                ex.fail(error);
            } else {
                out.future().completeExceptionally(error);
            }
        }, http.executor);
    }

    /** The headers of a 2xx answer to initialize: the session starts here. */
    private void initializeHeaders(HttpResponse.ResponseInfo info) {
        if (info.statusCode() < 200 || info.statusCode() > 299) {
            return;
        }
        synchronized (lock) {
            if (state == State.OPEN && fallback == null) {
                sessionId = info.headers().firstValue(McpHeaders.SESSION_ID).filter(s -> !s.isBlank()).orElse(null);
                initialized = true;
            }
        }
    }

    private void accepted(Outgoing out, Exchange ex, String sentSession, HttpResponse<Reply> response, Reply reply) {
        synchronized (lock) {
            if (sentSession != null && sentSession.equals(sessionId)) {
                expiriesWithoutSuccess = 0;
            }
        }
        if (ex == null) {
            out.future().complete(null);
            return;
        }
        if (reply instanceof Reply.Stream stream) {
            ex.attach(stream.stream());
        } else if (reply instanceof Reply.Json json) {
            afterDelivery(inbound.deliverJson(json.body(), ex.id));
            if (!ex.finished.get()) {
                ex.fail(new McpException(prefix() + "POST " + HttpEndpoint.redact(http.uri)
                        + " answered with JSON that holds no response to request " + ex.id));
            }
        } else if (reply instanceof Reply.Failure failure) {
            ex.fail(new McpException(prefix() + "POST " + HttpEndpoint.redact(http.uri) + " answered HTTP "
                    + response.statusCode() + " with content type \"" + ReplyHandler.contentType(response.headers())
                    + "\", neither JSON nor an SSE stream; body: " + failure.excerpt()));
        } else if (out.stateless()) {
            ex.fail(new McpException(prefix() + "POST " + HttpEndpoint.redact(http.uri) + " answered request " + ex.id
                    + " (" + ex.method + ") with HTTP " + response.statusCode() + " and no body; in protocol version "
                    + out.statelessVersion() + " the answer comes in the POST's own response"));
        } else {
            // 202 to a request: the reply will come on the GET stream.
            ex.acceptedWithoutReply();
        }
    }

    private void failOutgoing(Outgoing out, Exchange ex, McpException error) {
        if (ex != null) {
            ex.fail(error);
        } else {
            out.future().completeExceptionally(error);
        }
    }

    /** Marks the exchanges of the responses just delivered as finished. */
    private void afterDelivery(List<JsonRpcMessage> delivered) {
        for (JsonRpcMessage message : delivered) {
            if (message instanceof JsonRpcResponse response && response.id() != null) {
                Exchange ex = exchanges.get(response.id());
                if (ex != null) {
                    ex.finish();
                }
            }
        }
    }

    /** The client gave up on a request: close its exchange. */
    private void abandon(RequestId id) {
        Exchange ex = exchanges.get(id);
        if (ex != null) {
            LOG.debug("MCP server \"{}\": request {} cancelled; closing its exchange", http.serverName, id);
            ex.fail(new McpException(prefix() + "request " + id + " cancelled"));
        }
    }

    /** A {@code tools/list} result of the stateless revision, before it is delivered: its tools' header annotations. */
    private void learnParamHeaders(JsonRpcMessage message) {
        if (message instanceof mcp.api.jsonrpc.JsonRpcSuccess success && success.id() != null) {
            Exchange ex = exchanges.get(success.id());
            if (ex != null && ex.method.equals("tools/list") && ex.out.stateless()) {
                paramHeaders.learn(success.result());
            }
        }
    }

    /** The standard headers of the stateless revision: {@code Mcp-Method}, and {@code Mcp-Name} where it applies. */
    private static void statelessHeaders(HttpRequest.Builder builder, JsonRpcMessage message) {
        String method = message instanceof JsonRpcRequest request ? request.method()
                : ((JsonRpcNotification) message).method();
        builder.setHeader(McpHeaders.METHOD, McpHeaders.encode(method));
        JsonNode params = message instanceof JsonRpcRequest request ? request.params() : null;
        McpHeaders.nameOf(method, params).ifPresent(name -> builder.setHeader(McpHeaders.NAME,
                McpHeaders.encode(name)));
    }

    /** @return the envelope's protocol version when the message belongs to the stateless revision */
    static String statelessVersion(JsonRpcMessage message) {
        JsonNode params = message instanceof JsonRpcRequest request ? request.params()
                : message instanceof JsonRpcNotification notification ? notification.params() : null;
        return Meta.protocolVersion(params).orElse(null);
    }

    /**
     * The JSON-RPC error an HTTP error body holds, as the error response to request {@code id} (the body's own
     * id may be {@code null}: the server could not read it, or did not try).
     */
    static Optional<JsonRpcError> jsonRpcError(Reply reply, RequestId id) {
        if (!(reply instanceof Reply.Failure failure) || failure.body().length == 0) {
            return Optional.empty();
        }
        JsonNode body;
        try {
            body = McpJson.mapper().readTree(failure.body());
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        JsonNode error = body == null ? null : body.get("error");
        if (body == null || !body.isObject() || !"2.0".equals(body.path("jsonrpc").asString(null)) || error == null
                || !error.isObject() || !error.path("code").isIntegralNumber() || !error.path("code").canConvertToInt()) {
            return Optional.empty();
        }
        JsonNode message = error.get("message");
        return Optional.of(new JsonRpcError(id, error.get("code").asInt(),
                message != null && message.isString() ? message.asString() : "", error.get("data")));
    }

    private static void sessionHeaders(HttpRequest.Builder builder, String session, String version) {
        if (session != null) {
            builder.setHeader(McpHeaders.SESSION_ID, session);
        }
        if (version != null) {
            builder.setHeader(McpHeaders.PROTOCOL_VERSION, version);
        }
    }

    // ------------------------------------------------------------------------------------------ session expiry

    private void sessionExpired(Outgoing out, Exchange ex, String sentSession, String what) {
        boolean start = false;
        boolean giveUp = false;
        boolean resendNow = false;
        boolean isRequest = out.message() instanceof JsonRpcRequest;
        ServerStream oldStream = null;
        synchronized (lock) {
            if (state != State.OPEN) {
                failOutgoing(out, ex, closedException());
                return;
            }
            if (sentSession.equals(sessionId)) {
                expiriesWithoutSuccess++;
                if (expiriesWithoutSuccess > 1) {
                    giveUp = true;
                } else {
                    start = true;
                    sessionId = null;
                    protocolVersion = null;
                    reinit = new CompletableFuture<>();
                    gate = OPEN_GATE;
                    oldStream = serverStream;
                    serverStream = null;
                }
            }
            if (!giveUp && isRequest) {
                if (ex != null) {
                    exchanges.remove(ex.id, ex);
                }
                if (reinit != null) {
                    held.add(out);
                } else {
                    resendNow = true;
                }
            }
        }
        if (oldStream != null) {
            oldStream.stop();
        }
        if (giveUp) {
            String reason = "the server ended the new session at once, right after mcp-host initialized it (" + what + ")";
            failOutgoing(out, ex, new TransportClosedException(reason));
            closeFromPeer(reason, null);
            return;
        }
        if (!isRequest) {
            out.future().completeExceptionally(new McpException(prefix() + "the server ended the session (" + what
                    + "); a " + describe(out.message()) + " of the old session is not sent again"));
        } else if (resendNow) {
            post(out);
        }
        if (start) {
            String reason = "the server ended the session (" + what + ")";
            LOG.debug("MCP server \"{}\": {}; asking the client to initialize a new session", http.serverName, reason);
            Listener listener = inbound.listener();
            CompletionStage<Void> done;
            try {
                done = listener == null ? CompletableFuture.failedFuture(new McpException("transport not started"))
                        : listener.onSessionExpired(reason);
            } catch (RuntimeException e) {
                done = CompletableFuture.failedFuture(e);
            }
            done.whenComplete((v, error) -> reinitialized(reason, error));
        }
    }

    private void reinitialized(String reason, Throwable error) {
        List<Outgoing> release;
        synchronized (lock) {
            reinit = null;
            release = new ArrayList<>(held);
            held.clear();
        }
        if (error != null) {
            Throwable cause = HttpEndpoint.unwrap(error);
            String why = reason + ", and initializing a new session failed: " + cause.getMessage();
            TransportClosedException closed = new TransportClosedException(why, cause);
            release.forEach(o -> o.future().completeExceptionally(closed));
            closeFromPeer(why, cause);
            return;
        }
        LOG.debug("MCP server \"{}\": new session initialized; sending {} held messages", http.serverName,
                release.size());
        for (Outgoing out : release) {
            CompletableFuture<Void> wait;
            synchronized (lock) {
                wait = gate;
            }
            wait.whenComplete((v, e) -> post(out));
        }
    }

    // ------------------------------------------------------------------------------------------ fallback

    private boolean everInitialized() {
        synchronized (lock) {
            return initialized;
        }
    }

    /**
     * Moves everything to the legacy HTTP+SSE transport at the same URL and sends {@code init} through it;
     * {@code init} is {@code null} when a stateless request found the URL serves no Streamable HTTP: the
     * client's {@code initialize} then follows.
     */
    private void fallBack(Outgoing init, Exchange ex, String what) {
        if (ex != null) {
            exchanges.remove(ex.id, ex);
        }
        String context = what + ", so mcp-host tried the legacy HTTP+SSE transport";
        LegacySseTransport legacy;
        synchronized (lock) {
            if (init == null && (state != State.OPEN || fallback != null)) {
                return;
            }
            if (state != State.OPEN) {
                init.future().completeExceptionally(closedException());
                return;
            }
            legacy = new LegacySseTransport(http, context);
            fallback = legacy;
        }
        LOG.debug("MCP server \"{}\": {} at the same URL (it does not speak Streamable HTTP)", http.serverName, context);
        legacy.start(new Listener() {
            @Override
            public void onMessage(JsonRpcMessage message) {
                inbound.deliver(message);
            }

            @Override
            public void onClose(TransportClosedException reason) {
                closeFromPeer(reason.reason(), reason.getCause());
            }
        });
        if (init != null) {
            legacy.send(init.message()).whenComplete((v, e) -> complete(init.future(), e));
        }
    }

    // ------------------------------------------------------------------------------------------ protocol version and GET stream

    @Override
    public void protocolVersion(String version) {
        Objects.requireNonNull(version, "version");
        LegacySseTransport legacy;
        ServerStream stream = null;
        ServerStream old = null;
        synchronized (lock) {
            if (era == Era.STATELESS) {
                // No session, so no GET stream: each request carries its version itself.
                LOG.debug("MCP server \"{}\" speaks protocol version {} statelessly", http.serverName, version);
                return;
            }
            legacy = fallback;
            if (legacy == null && state == State.OPEN) {
                protocolVersion = version;
                old = serverStream;
                stream = new ServerStream(sessionId, version);
                serverStream = stream;
                CompletableFuture<Void> ready = stream.ready;
                HttpThreads.TIMER.schedule(() -> ready.complete(null),
                        Math.min(HttpTransports.GET_READY_WAIT.toMillis(), http.timeout.toMillis()), TimeUnit.MILLISECONDS);
                gate = ready;
            }
        }
        if (legacy != null) {
            legacy.protocolVersion(version);
            return;
        }
        if (old != null) {
            old.stop();
        }
        if (stream != null) {
            stream.open();
        }
    }

    /** The GET stream: messages that belong to no request. */
    private final class ServerStream implements SseStream.Listener {
        final String session;
        final String version;
        final CompletableFuture<Void> ready = new CompletableFuture<>();
        final AtomicInteger failures = new AtomicInteger();
        volatile SseStream current;
        volatile String lastEventId;
        volatile long retryMillis = -1;
        volatile boolean stopped;
        volatile boolean everOpen;
        /** The stream of the GET in flight once its body began, before (or without) its response being handled. */
        volatile SseStream opened;

        ServerStream(String session, String version) {
            this.session = session;
            this.version = version;
        }

        private boolean active() {
            synchronized (lock) {
                return !stopped && state == State.OPEN && serverStream == this;
            }
        }

        void open() {
            if (!active()) {
                ready.complete(null);
                return;
            }
            HttpRequest.Builder builder = http.request("GET", http.uri, http.timeout).GET()
                    .setHeader("Accept", McpHeaders.EVENT_STREAM);
            sessionHeaders(builder, session, version);
            if (lastEventId != null) {
                builder.setHeader(McpHeaders.LAST_EVENT_ID, lastEventId);
            }
            opened = null;
            try {
                http.client.sendAsync(builder.build(), new ReplyHandler(true, http.maxMessageBytes, this))
                        .whenCompleteAsync(this::onResponse, http.executor);
            } catch (RuntimeException e) {
                failed("GET " + HttpEndpoint.redact(http.uri) + " failed: " + e.getMessage());
            }
        }

        private void onResponse(HttpResponse<Reply> response, Throwable error) {
            if (!active()) {
                if (response != null && response.body() instanceof Reply.Stream stream) {
                    stream.stream().cancel();
                }
                ready.complete(null);
                return;
            }
            if (error != null) {
                Throwable cause = HttpEndpoint.unwrap(error);
                if (cause instanceof BoundedBody.TooLargeException tooLarge) {
                    closeFromPeer(tooLarge.getMessage(), null);
                    return;
                }
                if (opened != null) {
                    // The server answered with a stream that then broke: the stream's end reconnects (onEnd).
                    ready.complete(null);
                    return;
                }
                String what = http.failureMessage("GET", http.uri, cause, http.timeout);
                if (everOpen && HttpEndpoint.isUnreachable(cause)) {
                    // The stream ended because the server went away: the session went with it.
                    stop();
                    serverGone("its GET stream ended and " + what, cause);
                    return;
                }
                failed(what);
                return;
            }
            int status = response.statusCode();
            Reply reply = response.body();
            if (everOpen && status == 404) {
                // The session the stream belonged to is gone (a restarted server knows none of its old sessions).
                stop();
                closeFromPeer("the server no longer knows the session: its GET stream ended and reopening it answered "
                        + "HTTP 404", null);
                return;
            }
            if (reply instanceof Reply.Stream stream) {
                LOG.debug("MCP server \"{}\": GET stream open", http.serverName);
                everOpen = true;
                current = stream.stream();
                ready.complete(null);
                return;
            }
            if (reply instanceof Reply.Json json) {
                // Not a stream: take what it holds, and do not poll for more.
                afterDelivery(inbound.deliverJson(json.body()));
                LOG.debug("MCP server \"{}\" answered the GET with JSON, not a stream; no GET stream", http.serverName);
                stop();
                return;
            }
            String excerpt = reply instanceof Reply.Failure failure ? failure.excerpt() : "";
            if (status == 405) {
                LOG.debug("MCP server \"{}\" offers no GET stream (HTTP 405)", http.serverName);
                stop();
                return;
            }
            failed(status >= 200 && status <= 299
                    ? "GET " + HttpEndpoint.redact(http.uri) + " answered HTTP " + status + " without an SSE stream"
                    : http.statusMessage("GET", http.uri, response, excerpt));
        }

        private void failed(String why) {
            ready.complete(null);
            if (!everOpen) {
                LOG.debug("MCP server \"{}\": no GET stream: {}", http.serverName, why);
                stop();
                return;
            }
            LOG.debug("MCP server \"{}\": reopening the GET stream failed: {}", http.serverName, why);
            reconnectLater(false);
        }

        private void reconnectLater(boolean progress) {
            int failed = progress ? 0 : failures.incrementAndGet();
            if (progress) {
                failures.set(0);
            }
            if (failed > HttpTransports.MAX_RECONNECT_FAILURES) {
                LOG.warn("MCP server \"{}\": the GET stream failed {} times in a row; messages the server sends outside "
                        + "requests will be missed", http.serverName, failed);
                stop();
                return;
            }
            long delay = retryMillis >= 0 ? Math.max(MIN_RETRY_MILLIS, retryMillis) : backoff(failed);
            HttpThreads.TIMER.schedule(this::open, delay, TimeUnit.MILLISECONDS);
        }

        /**
         * The server answered the GET with a stream: it offers one. Known here, before the response is handled, since a
         * stream that breaks at once may fail the response itself, and its end must still count as a stream that was
         * open (a server that went away, not one without a GET stream).
         */
        @Override
        public void onOpen(SseStream stream) {
            if (!active()) {
                stream.cancel();
                return;
            }
            everOpen = true;
            opened = stream;
            current = stream;
        }

        @Override
        public void onEvent(SseStream stream, SseEvent event) {
            if (!"message".equals(event.type())) {
                LOG.debug("MCP server \"{}\": ignoring an SSE event of type \"{}\"", http.serverName, event.type());
                return;
            }
            afterDelivery(inbound.deliverJson(event.data()));
        }

        @Override
        public void onEnd(SseStream stream, Throwable error) {
            if (stream.lastEventId() != null) {
                lastEventId = stream.lastEventId();
            }
            if (stream.retryMillis() >= 0) {
                retryMillis = stream.retryMillis();
            }
            if (!active() || stream.isCancelled()) {
                return;
            }
            if (error instanceof SseParser.TooLargeException tooLarge) {
                closeFromPeer(tooLarge.getMessage(), null);
                return;
            }
            LOG.debug("MCP server \"{}\": the GET stream ended{}; reconnecting", http.serverName,
                    error == null ? "" : " (" + error + ")");
            reconnectLater(stream.sawEvent());
        }

        void stop() {
            stopped = true;
            ready.complete(null);
            SseStream stream = current;
            if (stream != null) {
                stream.cancel();
            }
        }
    }

    /** A server's {@code retry} below this is raised to it, so that {@code retry: 0} cannot make a busy loop. */
    private static final long MIN_RETRY_MILLIS = 50;

    /** 1 s, 2 s, 4 s, ... at most 10 s. */
    private static long backoff(int attempt) {
        return Math.min(10_000L, 1000L << Math.max(0, Math.min(attempt - 1, 4)));
    }

    // ------------------------------------------------------------------------------------------ requests in flight

    /** One request in flight: its POST, then its SSE stream, then any resumed streams. */
    private final class Exchange implements SseStream.Listener {
        final Outgoing out;
        final RequestId id;
        final String method;
        final String session;
        final long deadlineNanos;
        final AtomicBoolean finished = new AtomicBoolean();
        final AtomicInteger failedResumes = new AtomicInteger();
        volatile CompletableFuture<HttpResponse<Reply>> pending;
        volatile SseStream stream;
        volatile String lastEventId;
        volatile long retryMillis = -1;

        Exchange(Outgoing out, RequestId id, String method, String session) {
            this.out = out;
            this.id = id;
            this.method = method;
            this.session = session;
            this.deadlineNanos = System.nanoTime() + http.timeout
                    .multipliedBy(HttpTransports.REQUEST_BACKSTOP_FACTOR).toNanos();
        }

        void attach(SseStream value) {
            stream = value;
            if (finished.get()) {
                value.cancel();
            }
        }

        /** The reply was delivered. */
        void finish() {
            if (finished.compareAndSet(false, true)) {
                exchanges.remove(id, this);
                out.future().complete(null);
                closeStreams();
            }
        }

        /** 202 to a request: nothing more to do here. */
        void acceptedWithoutReply() {
            if (finished.compareAndSet(false, true)) {
                exchanges.remove(id, this);
                out.future().complete(null);
            }
        }

        void fail(McpException error) {
            if (finished.compareAndSet(false, true)) {
                exchanges.remove(id, this);
                out.future().completeExceptionally(error);
                closeStreams();
            }
        }

        private void closeStreams() {
            SseStream s = stream;
            if (s != null) {
                s.cancel();
            }
            CompletableFuture<HttpResponse<Reply>> pendingResponse = pending;
            if (pendingResponse != null && !pendingResponse.isDone()) {
                pendingResponse.cancel(true);
            }
        }

        /**
         * The request's stream, as soon as its body begins: a request given up on before its response was handed
         * over (its cancelled future never delivers the response) still gets its stream closed here.
         */
        @Override
        public void onOpen(SseStream source) {
            attach(source);
        }

        @Override
        public void onEvent(SseStream source, SseEvent event) {
            stream = source;
            if (!"message".equals(event.type())) {
                LOG.debug("MCP server \"{}\": ignoring an SSE event of type \"{}\"", serverName(), event.type());
                return;
            }
            afterDelivery(inbound.deliverJson(event.data(), id));
        }

        @Override
        public void onEnd(SseStream source, Throwable error) {
            // The response that carried the stream is over, and its connection may already serve another request:
            // cancelling that response's future (its completion may still be on its way) would close it.
            pending = null;
            if (source.lastEventId() != null) {
                lastEventId = source.lastEventId();
            }
            if (source.retryMillis() >= 0) {
                retryMillis = source.retryMillis();
            }
            if (finished.get() || source.isCancelled()) {
                return;
            }
            if (!isOpen()) {
                fail(closedException());
                return;
            }
            if (error instanceof SseParser.TooLargeException tooLarge) {
                fail(new McpException(prefix() + tooLarge.getMessage()));
                closeFromPeer(tooLarge.getMessage(), null);
                return;
            }
            if (source.sawEvent()) {
                failedResumes.set(0);
            }
            String why = error == null ? "the server closed the SSE stream of request " + id + " (" + method
                    + ") before answering" : "the SSE stream of request " + id + " (" + method + ") broke before the answer: "
                    + failureText(error);
            if (out.stateless()) {
                fail(new McpStreamLostException(prefix() + why + "; protocol version " + out.statelessVersion()
                        + " resumes no stream, so the request is lost (it may be sent again as a new request)"));
                return;
            }
            resumeLater(why, !source.sawEvent());
        }

        private String failureText(Throwable error) {
            Throwable cause = HttpEndpoint.unwrap(error);
            return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        }

        private void resumeLater(String why, boolean countAsFailure) {
            if (lastEventId == null) {
                fail(new McpException(prefix() + why + ", and sent no event id to resume from"));
                return;
            }
            int failed = countAsFailure ? failedResumes.incrementAndGet() : failedResumes.get();
            if (failed > HttpTransports.MAX_RECONNECT_FAILURES) {
                fail(new McpException(prefix() + why + "; resuming failed " + (failed - 1) + " times in a row"));
                return;
            }
            if (System.nanoTime() - deadlineNanos > 0) {
                fail(new McpException(prefix() + why + "; no answer within " + http.timeout
                        .multipliedBy(HttpTransports.REQUEST_BACKSTOP_FACTOR).toMillis() + " ms"));
                return;
            }
            long delay = retryMillis >= 0 ? Math.max(MIN_RETRY_MILLIS, retryMillis) : backoff(Math.max(1, failed));
            LOG.debug("MCP server \"{}\": {}; resuming with Last-Event-ID in {} ms", serverName(), why, delay);
            HttpThreads.TIMER.schedule(this::resume, delay, TimeUnit.MILLISECONDS);
        }

        private void resume() {
            if (finished.get()) {
                return;
            }
            String current;
            String version;
            synchronized (lock) {
                if (state != State.OPEN) {
                    fail(closedException());
                    return;
                }
                current = sessionId;
                version = protocolVersion;
            }
            if (!Objects.equals(current, session)) {
                fail(new McpException(prefix() + "the session ended while request " + id + " (" + method
                        + ") was in flight"));
                return;
            }
            HttpEndpoint endpoint = http;
            HttpRequest.Builder builder = endpoint.request("GET", endpoint.uri, endpoint.timeout).GET()
                    .setHeader("Accept", McpHeaders.EVENT_STREAM)
                    .setHeader(McpHeaders.LAST_EVENT_ID, lastEventId);
            sessionHeaders(builder, session, version);
            CompletableFuture<HttpResponse<Reply>> response;
            try {
                response = endpoint.client.sendAsync(builder.build(), new ReplyHandler(true, endpoint.maxMessageBytes,
                        this));
            } catch (RuntimeException e) {
                fail(new McpException(prefix() + "cannot resume the SSE stream of request " + id + ": " + e.getMessage(),
                        e));
                return;
            }
            pending = response;
            response.whenCompleteAsync(this::onResumed, endpoint.executor);
        }

        private void onResumed(HttpResponse<Reply> response, Throwable error) {
            HttpEndpoint endpoint = http;
            if (finished.get()) {
                if (response != null && response.body() instanceof Reply.Stream s) {
                    s.stream().cancel();
                }
                return;
            }
            if (error != null) {
                Throwable cause = HttpEndpoint.unwrap(error);
                if (cause instanceof BoundedBody.TooLargeException tooLarge) {
                    fail(new McpException(prefix() + tooLarge.getMessage()));
                    closeFromPeer(tooLarge.getMessage(), null);
                    return;
                }
                String what = endpoint.failureMessage("GET", endpoint.uri, cause, endpoint.timeout);
                if (HttpEndpoint.isUnreachable(cause)) {
                    fail(new McpException(prefix() + "the SSE stream of request " + id + " (" + method
                            + ") ended before the answer, and resuming it failed: " + what, cause));
                    serverGone("resuming the SSE stream of request " + id + " failed: " + what, cause);
                    return;
                }
                resumeLater("resuming the SSE stream of request " + id + " failed: " + what, true);
                return;
            }
            int status = response.statusCode();
            Reply reply = response.body();
            LOG.debug("MCP server \"{}\": resuming request {}: GET answered HTTP {}", serverName(), id, status);
            if (reply instanceof Reply.Stream s) {
                attach(s.stream());
                return;
            }
            if (reply instanceof Reply.Json json) {
                afterDelivery(inbound.deliverJson(json.body(), id));
                if (!finished.get()) {
                    resumeLater("the resumed stream of request " + id + " ended before the answer", true);
                }
                return;
            }
            String excerpt = reply instanceof Reply.Failure failure ? failure.excerpt() : "";
            String what = endpoint.statusMessage("GET", endpoint.uri, response, excerpt);
            if (status == 405 || status == 404 || status >= 200 && status <= 299) {
                fail(new McpException(prefix() + "the SSE stream of request " + id + " (" + method
                        + ") ended before the answer and cannot be resumed: " + what));
                return;
            }
            resumeLater("resuming the SSE stream of request " + id + " failed: " + what, true);
        }
    }

    // ------------------------------------------------------------------------------------------ closing

    @Override
    public void close() {
        closeWith("closed by client", null);
    }

    /**
     * Nothing answers at the URL any more (connection refused, or no connection within the timeout): the server
     * stopped or its host is unreachable, so the transport closes, and its owner reconnects by its policy. A request
     * the server never saw has failed with the reason already; nothing is sent again here.
     */
    private void serverGone(String what, Throwable cause) {
        closeFromPeer("the server stopped answering: " + what, cause);
    }

    /** A close the server caused; the teardown runs on a thread of its own. */
    private void closeFromPeer(String reason, Throwable cause) {
        if (isOpen()) {
            HttpThreads.run(http.serverName, "close", () -> closeWith(reason, cause));
        }
    }

    private void closeWith(String reason, Throwable cause) {
        String session;
        String version;
        List<Outgoing> waiting;
        LegacySseTransport legacy;
        ServerStream stream;
        synchronized (lock) {
            if (state != State.OPEN) {
                return;
            }
            state = State.CLOSED;
            closeReason = reason;
            session = sessionId;
            version = protocolVersion;
            waiting = new ArrayList<>(held);
            held.clear();
            legacy = fallback;
            stream = serverStream;
            serverStream = null;
        }
        inbound.stopDeliveries();
        LOG.debug("MCP server \"{}\": closing the HTTP transport: {}", http.serverName, reason);
        TransportClosedException closed = new TransportClosedException(reason, cause);
        if (stream != null) {
            stream.stop();
        }
        waiting.forEach(o -> o.future().completeExceptionally(closed));
        for (Exchange ex : new ArrayList<>(exchanges.values())) {
            ex.fail(closed);
        }
        if (legacy != null) {
            legacy.close();
        }
        if (session != null && legacy == null) {
            deleteSession(session, version);
        }
        http.closeConnections();
        inbound.closed(closed);
    }

    /** Ends the session on the server: DELETE, bounded by the close step; 405 means the server does not allow it. */
    private void deleteSession(String session, String version) {
        HttpRequest.Builder builder = http.request("DELETE", http.uri, http.closeStep).DELETE();
        sessionHeaders(builder, session, version);
        CompletableFuture<HttpResponse<Reply>> response = null;
        try {
            response = http.client.sendAsync(builder.build(), new ReplyHandler(false, 1, null));
            int status = response.get(http.closeStep.toMillis() + 250, TimeUnit.MILLISECONDS).statusCode();
            LOG.debug("MCP server \"{}\": DELETE of the session answered HTTP {}", http.serverName, status);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            response.cancel(true);
        } catch (Exception e) {
            LOG.debug("MCP server \"{}\": DELETE of the session failed: {}", http.serverName,
                    HttpEndpoint.unwrap(e).toString());
            if (response != null) {
                response.cancel(true);
            }
        }
    }

    private boolean isOpen() {
        synchronized (lock) {
            return state == State.OPEN;
        }
    }

    private TransportClosedException closedException() {
        String reason = closeReason;
        return new TransportClosedException(reason != null ? reason : "transport is closing");
    }

    @Override
    public Optional<String> sessionId() {
        return Optional.ofNullable(sessionId);
    }

    @Override
    public String diagnostics() {
        LegacySseTransport legacy;
        synchronized (lock) {
            legacy = fallback;
        }
        if (legacy != null) {
            String inner = legacy.diagnostics();
            return "legacy HTTP+SSE fallback" + (inner.isEmpty() ? "" : "; " + inner);
        }
        return "last HTTP exchange: " + lastExchange;
    }

    // ------------------------------------------------------------------------------------------ helpers

    private String serverName() {
        return http.serverName;
    }

    private String prefix() {
        return "MCP server \"" + http.serverName + "\": ";
    }

    private static void complete(CompletableFuture<Void> future, Throwable error) {
        if (error == null) {
            future.complete(null);
        } else {
            future.completeExceptionally(HttpEndpoint.unwrap(error));
        }
    }

    static boolean isInitialize(JsonRpcMessage message) {
        return message instanceof JsonRpcRequest request && request.method().equals("initialize");
    }

    static boolean isInitialized(JsonRpcMessage message) {
        return message instanceof JsonRpcNotification notification
                && notification.method().equals("notifications/initialized");
    }

    /** @return the request a {@code notifications/cancelled} is about */
    static java.util.Optional<RequestId> cancelledRequest(JsonRpcMessage message) {
        if (message instanceof JsonRpcNotification notification && notification.method().equals("notifications/cancelled")
                && notification.params() != null) {
            JsonNode id = notification.params().get("requestId");
            if (id != null && id.isIntegralNumber()) {
                return java.util.Optional.of(RequestId.of(id.asLong()));
            }
            if (id != null && id.isString()) {
                return java.util.Optional.of(RequestId.of(id.asString()));
            }
        }
        return java.util.Optional.empty();
    }

    private static String describe(JsonRpcMessage message) {
        if (message instanceof JsonRpcRequest request) {
            return "request " + request.id() + " " + request.method();
        }
        if (message instanceof JsonRpcNotification notification) {
            return "notification " + notification.method();
        }
        return "response " + ((JsonRpcResponse) message).id();
    }

    @Override
    public String toString() {
        return "StreamableHttpTransport[server=" + http.serverName + ", url=" + HttpEndpoint.redact(http.uri) + "]";
    }

    /** For tests: how many requests are in flight. */
    int exchangesInFlight() {
        return exchanges.size();
    }

    /** For tests: the URL. */
    URI uri() {
        return http.uri;
    }
}
