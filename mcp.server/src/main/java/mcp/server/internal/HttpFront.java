package mcp.server.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcResponse;
import mcp.api.jsonrpc.RequestId;
import mcp.protocol.McpHeaders;
import mcp.protocol.ProtocolVersions;
import mcp.protocol.SseFrames;
import mcp.server.Caller;
import mcp.server.HttpAuthenticator;
import mcp.server.HttpEndpoint;
import mcp.server.HttpOptions;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The server over Streamable HTTP, on one endpoint for both eras: what the HTTP side of MCP says about requests,
 * sessions and streams, on an {@link HttpBackend}.
 *
 * <p>Every request is checked first: {@code Host} and {@code Origin} must name the server as the client reached it
 * (DNS rebinding would change them: 403), then the bearer token when one is set (401 with {@code WWW-Authenticate}).
 * Then by method:
 * <ul>
 *   <li><b>POST</b>: {@code Content-Type} must be JSON (415), the body at most {@code ServerLimits.maxBodyBytes} (413),
 *       one JSON-RPC message (-32700, -32600). With {@code Mcp-Session-Id}: a message of that handshake-era session
 *       (404 for a session this server does not have). Without: {@code initialize} starts a session; a request with
 *       the stateless envelope is served statelessly, after its {@code MCP-Protocol-Version}, {@code Mcp-Method} and
 *       {@code Mcp-Name} headers are checked against its body (-32020, 400). The answer is JSON, or an event stream
 *       once anything else about the request comes first (progress, logs, the server's own requests).</li>
 *   <li><b>GET</b>: a session's standalone event stream (one at a time: 409), or with {@code Last-Event-ID} the
 *       resumption of one of its streams.</li>
 *   <li><b>DELETE</b>: ends a session.</li>
 * </ul>
 *
 * <p>Bounds: sessions ({@code maxSessions}, 503 beyond), open event streams ({@code maxStreams}), events queued for one
 * stream ({@code maxQueuedEvents}: a client that does not read loses that stream, nobody else waits), idle sessions
 * expire ({@code sessionIdleTimeout}). A request that has not been answered within a few seconds is answered as an
 * event stream with keep-alive comments, so that a client that went away is noticed.
 *
 * <p>Replicas ({@code ServerCore.sessionSeal} present): session ids are sealed, and a session this process does not
 * hold is taken up from its id ({@code find}); what only the replica that ran it has (a request's stream to resume,
 * a server request's answer) is refused with 404 or 400, and DELETE ends the session here only. {@code GET /healthz}
 * and {@code GET /readyz} answer a load balancer before any other check.
 *
 * <p>{@code GET /status} answers scripts and probes with the server's own state and what its handler adds
 * ({@link mcp.server.RequestHandler#status}, a gateway's servers); unlike the probes it names servers and errors, so
 * it passes every check the endpoint does (Host, Origin, token, authenticator) and the handler answers as the caller
 * may see.
 */
public final class HttpFront implements HttpEndpoint {

    /** How long an answer may take before the response becomes an event stream with keep-alives. */
    static final long KEEP_ALIVE_MILLIS = 10_000;
    /**
     * The most bytes of events waiting for one stream's client: with {@code ServerLimits.maxQueuedEvents}, what a
     * client that does not read can make the server hold for it.
     */
    static final long MAX_QUEUED_BYTES = 16L << 20;
    /** How many sealed session ids ended by DELETE one replica remembers. */
    static final int MAX_ENDED = 10_000;
    /** The balancer's probes: answered before any other check, with nothing about the server in them. */
    static final String HEALTH_PATH = "/healthz";
    static final String READY_PATH = "/readyz";
    /** The status for scripts and probes: behind the endpoint's own checks, since it names servers and errors. */
    static final String STATUS_PATH = "/status";

    private final ServerCore core;
    private final HttpOptions options;
    private final HttpBackend backend;
    private final Set<String> hosts;
    private final Set<String> origins;
    private final Optional<byte[]> token;
    private final URI uri;
    private final Map<String, HttpSession> sessions = new ConcurrentHashMap<>();
    /**
     * Sealed session ids ended here by DELETE (replicas sharing keys): refused here from then on, though another
     * replica would still take them up until they expire. At most {@link #MAX_ENDED} of them, the oldest forgotten
     * first. Guarded by itself.
     */
    private final Map<String, Boolean> deleted = new java.util.LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > MAX_ENDED;
        }
    };
    /** The event streams that may still be opened: {@code ServerLimits.maxStreams} in all. */
    private final Semaphore streams;
    private final CountDownLatch ended = new CountDownLatch(1);
    private final ScheduledFuture<?> janitor;
    private volatile boolean closed;
    /** When it started listening, for the status's uptime. */
    private final java.time.Instant startedAt = java.time.Instant.now();
    private final long startedNanos = System.nanoTime();

    /** A handshake-era session over HTTP: the session, its streams kept for resumption, its GET stream. */
    private static final class HttpSession {
        final HandshakeSession session;
        final Replay replay;
        /** Who opened it ({@link #ownerKey}): the session answers nobody else, so an id seen elsewhere opens nothing. */
        final String owner;
        /** The open GET stream's channel, or {@code null}. */
        StandaloneChannel standalone;

        HttpSession(HandshakeSession session, Replay replay, String owner) {
            this.session = session;
            this.replay = replay;
            this.owner = owner;
        }

        boolean ownedBy(Caller caller) {
            return owner.equals(ownerKey(caller));
        }
    }

    /** @return what binds a session to its caller: the subject and the OAuth client, never a credential */
    static String ownerKey(Caller caller) {
        return caller.subject() + "\n" + caller.client().orElse("");
    }

    private HttpFront(ServerCore core, HttpOptions options, HttpBackend backend) {
        this.core = core;
        this.options = options;
        this.backend = backend;
        this.streams = new Semaphore(core.limits.maxStreams());
        int port = backend.port();
        Set<String> allowedHosts = new LinkedHashSet<>();
        for (String host : new String[] {"localhost", "127.0.0.1", "[::1]"}) {
            allowedHosts.add(host + ":" + port);
        }
        String bind = options.bindAddress().contains(":") && !options.bindAddress().startsWith("[")
                ? "[" + options.bindAddress() + "]" : options.bindAddress();
        if (!bind.equals("0.0.0.0") && !bind.equals("[::]")) {
            allowedHosts.add(bind + ":" + port);
        }
        options.allowedHosts().forEach(host -> allowedHosts.add(host.toLowerCase(Locale.ROOT)));
        this.hosts = Set.copyOf(allowedHosts.stream().map(h -> h.toLowerCase(Locale.ROOT)).toList());
        Set<String> allowedOrigins = new LinkedHashSet<>();
        hosts.forEach(host -> {
            allowedOrigins.add("http://" + host);
            allowedOrigins.add("https://" + host);
        });
        options.allowedOrigins().forEach(origin -> allowedOrigins.add(origin.toLowerCase(Locale.ROOT)));
        this.origins = Set.copyOf(allowedOrigins);
        this.token = options.bearerToken().map(value -> value.getBytes(StandardCharsets.UTF_8));
        this.uri = URI.create("http://" + (bind.equals("0.0.0.0") || bind.equals("[::]") ? "127.0.0.1" : bind) + ":"
                + port + options.path());
        long sweep = Math.max(1000, Math.min(30_000, core.limits.sessionIdleTimeout().toMillis() / 4));
        this.janitor = core.threads.timer.scheduleWithFixedDelay(this::expireIdleSessions, sweep, sweep,
                TimeUnit.MILLISECONDS);
    }

    /**
     * Starts serving.
     *
     * @param core the server
     * @param options where and how
     * @return the endpoint
     * @throws IOException if the address cannot be bound
     */
    public static HttpFront start(ServerCore core, HttpOptions options) throws IOException {
        HttpFront[] front = new HttpFront[1];
        CountDownLatch ready = new CountDownLatch(1);
        HttpBackend backend = JettyHttpBackend.start(new InetSocketAddress(options.bindAddress(), options.port()),
                exchange -> {
                    try {
                        ready.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    front[0].handle(exchange);
                }, 64, core.limits.ioTimeout().toMillis(), core.name);
        front[0] = new HttpFront(core, options, backend);
        ready.countDown();
        ServerCore.LOG.debug("MCP server \"{}\" listens on {}", core.name, front[0].uri);
        return front[0];
    }

    @Override
    public URI uri() {
        return uri;
    }

    // ------------------------------------------------------------------------------------------ dispatch

    private void handle(HttpBackend.Exchange exchange) {
        if (exchange.method().equals("GET") && (exchange.path().equals(HEALTH_PATH)
                || exchange.path().equals(READY_PATH))) {
            // Unauthenticated, for a load balancer: alive while it answers; ready while it takes new requests.
            boolean ready = exchange.path().equals(HEALTH_PATH) ? !closed : !closed && !core.draining();
            plain(exchange, ready ? 200 : 503, ready ? "ok\n" : "not ready\n");
            return;
        }
        if (closed) {
            plain(exchange, 503, "the server is closing");
            return;
        }
        boolean status = exchange.path().equals(STATUS_PATH) && !options.path().equals(STATUS_PATH);
        if (!exchange.path().equals(options.path()) && !status) {
            // What the authenticator publishes beside the endpoint (RFC 9728 metadata) is read before any token.
            Optional<JsonNode> document = exchange.method().equals("GET")
                    ? options.authenticator().flatMap(a -> a.document(exchange.path())) : Optional.empty();
            if (document.isPresent()) {
                exchange.respond(200, Map.of("Content-Type", McpHeaders.JSON, "Cache-Control", "max-age=300"),
                        McpJson.mapper().writeValueAsBytes(document.get()));
                return;
            }
            plain(exchange, 404, "no MCP endpoint at " + exchange.path() + "; it is " + options.path());
            return;
        }
        String host = exchange.header("Host").map(value -> value.trim().toLowerCase(Locale.ROOT)).orElse("");
        if (!hosts.contains(host)) {
            error(exchange, 403, null, JsonRpcError.INVALID_REQUEST, "Forbidden: Host \"" + host
                    + "\" is not this server's (DNS rebinding protection)", Map.of());
            return;
        }
        Optional<String> origin = exchange.header("Origin").map(value -> value.trim().toLowerCase(Locale.ROOT));
        if (origin.isPresent() && !origins.contains(origin.get())) {
            error(exchange, 403, null, JsonRpcError.INVALID_REQUEST, "Forbidden: Origin \"" + origin.get()
                    + "\" is not allowed (DNS rebinding protection)", Map.of());
            return;
        }
        if (token.isPresent()) {
            Optional<String> authorization = exchange.header("Authorization");
            boolean valid = authorization.filter(value -> value.regionMatches(true, 0, "Bearer ", 0, 7))
                    .map(value -> MessageDigest.isEqual(value.substring(7).trim().getBytes(StandardCharsets.UTF_8),
                            token.get())).orElse(false);
            if (!valid) {
                String challenge = authorization.isPresent() ? "Bearer realm=\"mcp\", error=\"invalid_token\""
                        : "Bearer realm=\"mcp\"";
                error(exchange, 401, null, JsonRpcError.INVALID_REQUEST, "Unauthorized: this server needs a bearer "
                        + "token (Authorization: Bearer ...)", Map.of("WWW-Authenticate", challenge));
                return;
            }
        }
        Caller caller = Caller.LOCAL;
        if (options.authenticator().isPresent()) {
            HttpAuthenticator.Outcome outcome;
            try {
                outcome = options.authenticator().get().authenticate(exchange.method(), exchange.path(),
                        exchange::header);
            } catch (RuntimeException e) {
                // Its message may hold what the credential said: the class is enough to find it in the code.
                ServerCore.LOG.warn("MCP HTTP authenticator failed: {}", e.getClass().getName());
                error(exchange, 503, null, JsonRpcError.INTERNAL_ERROR, "Service Unavailable: the credentials could "
                        + "not be checked now; try again", Map.of("Retry-After", "5"));
                return;
            }
            if (outcome instanceof HttpAuthenticator.Refused refused) {
                error(exchange, refused.status(), null, JsonRpcError.INVALID_REQUEST, refused.message(),
                        refused.headers());
                return;
            }
            caller = ((HttpAuthenticator.Allowed) outcome).caller();
        }
        if (status) {
            status(exchange, caller);
            return;
        }
        switch (exchange.method()) {
            case "POST" -> post(exchange, caller);
            case "GET" -> get(exchange, caller);
            case "DELETE" -> delete(exchange, caller);
            default -> error(exchange, 405, null, JsonRpcError.INVALID_REQUEST, "Method not allowed: "
                    + exchange.method(), Map.of("Allow", "GET, POST, DELETE"));
        }
    }

    private void post(HttpBackend.Exchange exchange, Caller caller) {
        String contentType = exchange.header("Content-Type").orElse("");
        if (!mediaType(contentType).equals(McpHeaders.JSON)) {
            error(exchange, 415, null, JsonRpcError.INVALID_REQUEST, "Unsupported Media Type: a POST carries one "
                    + "JSON-RPC message as " + McpHeaders.JSON + ", not \"" + contentType + "\"", Map.of());
            return;
        }
        String accept = exchange.header("Accept").orElse("*/*").toLowerCase(Locale.ROOT);
        boolean sse = accept.contains(McpHeaders.EVENT_STREAM) || accept.contains("*/*") || accept.contains("text/*");
        if (!sse && !accept.contains(McpHeaders.JSON) && !accept.contains("application/*")) {
            error(exchange, 406, null, JsonRpcError.INVALID_REQUEST, "Not Acceptable: the answer is "
                    + McpHeaders.JSON + " or " + McpHeaders.EVENT_STREAM, Map.of());
            return;
        }
        long limit = core.limits.maxBodyBytes();
        if (exchange.contentLength() > limit) {
            error(exchange, 413, null, JsonRpcError.INVALID_REQUEST, "Payload Too Large: a message may have at most "
                    + limit + " bytes", Map.of());
            return;
        }
        exchange.body(limit).whenComplete((body, failure) -> {
            if (failure != null) {
                ServerCore.LOG.debug("MCP HTTP body could not be read: {}", failure.toString());
                plain(exchange, 400, "the body could not be read");
            } else {
                post(exchange, body, sse, caller);
            }
        });
    }

    private void post(HttpBackend.Exchange exchange, byte[] body, boolean sse, Caller caller) {
        long limit = core.limits.maxBodyBytes();
        if (body == null) {
            error(exchange, 413, null, JsonRpcError.INVALID_REQUEST, "Payload Too Large: a message may have at most "
                    + limit + " bytes", Map.of());
            return;
        }
        Optional<String> sessionId = exchange.header(McpHeaders.SESSION_ID).map(String::trim);
        RequestParser.Parsed parsed = RequestParser.parse(body, sessionId.isPresent(), exchange::header,
                name -> core.handler.toolInputSchema(name, caller));
        if (parsed instanceof RequestParser.Refused refused) {
            error(exchange, refused.status(), refused.id(), refused.code(), refused.message(), Map.of());
        } else if (core.draining() && newRequest(parsed).isPresent()) {
            // Shutting down: what is in flight finishes, nothing new starts; the client may try again elsewhere.
            McpProtocolException refusal = ServerCore.shuttingDown();
            error(exchange, 503, newRequest(parsed).get().id(), refusal.code(), refusal.serverMessage(),
                    Map.of("Retry-After", "5"));
        } else if (parsed instanceof RequestParser.Initialize initialize) {
            initialize(exchange, initialize.request(), sse, caller);
        } else if (parsed instanceof RequestParser.Stateless stateless) {
            core.statelessRequest(stateless.request(), stateless.envelope(),
                    new PostChannel(exchange, Map.of(), sse, null, true, caller), null,
                    Tasks.httpCaller(exchange.header("Authorization")), null);
        } else if (parsed instanceof RequestParser.StatelessNotification notification) {
            core.statelessNotification(notification.notification(), null);
            exchange.respond(202, Map.of(), new byte[0]);
        } else {
            JsonRpcMessage message = ((RequestParser.InSession) parsed).message();
            HttpSession session = find(sessionId.orElseThrow());
            if (session == null && sessions.size() >= core.limits.maxSessions() && opens(sessionId.get())) {
                error(exchange, 503, idOf(message), JsonRpcError.INTERNAL_ERROR, "Service Unavailable: "
                        + core.limits.maxSessions() + " sessions are open", Map.of("Retry-After", "5"));
                return;
            }
            if (session == null || session.session.closed() || !session.ownedBy(caller)) {
                error(exchange, 404, idOf(message), JsonRpcError.INVALID_REQUEST, "Session not found: "
                        + "it ended or expired; initialize a new one", Map.of());
                return;
            }
            Optional<String> version = exchange.header(McpHeaders.PROTOCOL_VERSION).map(String::trim);
            if (version.isPresent() && !ProtocolVersions.acceptableHandshake(version.get())) {
                error(exchange, 400, idOf(message), JsonRpcError.INVALID_REQUEST, "Bad Request: unsupported "
                        + McpHeaders.PROTOCOL_VERSION + " \"" + version.get() + "\" for this session (it speaks "
                        + session.session.protocolVersion + ")", Map.of());
                return;
            }
            inSession(exchange, session, message, sse, caller);
        }
    }

    /** @return the request that would start something new (refused while the server shuts down), if it is one */
    private static Optional<JsonRpcRequest> newRequest(RequestParser.Parsed parsed) {
        JsonRpcRequest request = parsed instanceof RequestParser.Initialize initialize ? initialize.request()
                : parsed instanceof RequestParser.Stateless stateless ? stateless.request()
                : parsed instanceof RequestParser.InSession inSession && inSession.message() instanceof JsonRpcRequest r
                        ? r : null;
        return request != null && ServerCore.isNew(request) ? Optional.of(request) : Optional.empty();
    }

    private void initialize(HttpBackend.Exchange exchange, JsonRpcRequest request, boolean sse, Caller caller) {
        if (sessions.size() >= core.limits.maxSessions()) {
            error(exchange, 503, request.id(), JsonRpcError.INTERNAL_ERROR, "Service Unavailable: "
                    + core.limits.maxSessions() + " sessions are open", Map.of("Retry-After", "5"));
            return;
        }
        String id = core.newSessionId(request, ownerKey(caller));
        PostChannel channel = new PostChannel(exchange, Map.of(McpHeaders.SESSION_ID, id), sse, null, false, caller);
        core.initialize(id, request, channel, started -> sessions.put(id, new HttpSession(started,
                replay(), ownerKey(caller))));
    }

    private void inSession(HttpBackend.Exchange exchange, HttpSession session, JsonRpcMessage message, boolean sse,
            Caller caller) {
        if (message instanceof JsonRpcRequest request) {
            PostChannel channel = new PostChannel(exchange, Map.of(), sse, session.replay, false, caller);
            core.handshakeRequest(session.session, request, channel);
        } else if (message instanceof JsonRpcNotification notification) {
            core.handshakeNotification(session.session, notification);
            exchange.respond(202, Map.of(), new byte[0]);
        } else if (core.sessionSeal.isPresent() && !session.session.awaits(((JsonRpcResponse) message).id())) {
            // Replicas: the request it answers was made by another replica (the balancer took the answer elsewhere),
            // or has ended; the call waiting for it there fails when its wait runs out.
            error(exchange, 400, null, JsonRpcError.INVALID_REQUEST, "Bad Request: this server is not waiting for "
                    + "an answer with id " + ((JsonRpcResponse) message).id() + " (a server's request is answered "
                    + "to the replica that made it: route the session to one replica for elicitation and sampling)",
                    Map.of());
        } else {
            session.session.onResponse((JsonRpcResponse) message);
            exchange.respond(202, Map.of(), new byte[0]);
        }
    }

    private void get(HttpBackend.Exchange exchange, Caller caller) {
        Optional<String> sessionId = exchange.header(McpHeaders.SESSION_ID).map(String::trim);
        if (sessionId.isEmpty()) {
            error(exchange, 400, null, JsonRpcError.INVALID_REQUEST, "Bad Request: a GET stream belongs to a session ("
                    + McpHeaders.SESSION_ID + "); the stateless revision has none", Map.of());
            return;
        }
        HttpSession session = find(sessionId.get());
        if (session == null || session.session.closed() || !session.ownedBy(caller)) {
            error(exchange, 404, null, JsonRpcError.INVALID_REQUEST, "Session not found: it ended or expired",
                    Map.of());
            return;
        }
        if (!exchange.header("Accept").orElse("*/*").toLowerCase(Locale.ROOT).contains(McpHeaders.EVENT_STREAM)
                && !exchange.header("Accept").orElse("*/*").contains("*/*")) {
            error(exchange, 406, null, JsonRpcError.INVALID_REQUEST, "Not Acceptable: a GET stream is "
                    + McpHeaders.EVENT_STREAM, Map.of());
            return;
        }
        session.session.touch();
        Optional<String> lastEventId = exchange.header(McpHeaders.LAST_EVENT_ID).map(String::trim);
        if (lastEventId.isPresent() && core.sessionSeal.isPresent() && !session.replay.knows(lastEventId.get())
                && Replay.standalone(lastEventId.get())) {
            // Replicas: the session's GET stream ran on another replica (perhaps one that died). What it carried is
            // not here; the session goes on with a new GET stream here.
            lastEventId = Optional.empty();
        } else if (lastEventId.isPresent() && core.sessionSeal.isPresent()
                && !session.replay.knows(lastEventId.get())) {
            // Replicas: a request's stream that ran on another replica; its events are not here.
            error(exchange, 404, null, JsonRpcError.INVALID_REQUEST, "Not Found: no stream of this session with "
                    + "event id " + lastEventId.get() + " on this server (a stream resumes only on the replica that "
                    + "ran it; its request is lost: send it again)", Map.of());
            return;
        }
        if (!reserveStream()) {
            error(exchange, 503, null, JsonRpcError.INTERNAL_ERROR, "Service Unavailable: " + core.limits.maxStreams()
                    + " streams are open", Map.of("Retry-After", "5"));
            return;
        }
        if (lastEventId.isPresent()) {
            HttpBackend.Stream stream = openStream(exchange, Map.of());
            if (!session.replay.resume(lastEventId.get(), stream)) {
                stream.write(SseFrames.priming(session.replay.open().nextId(), core.limits.retryMillis()));
                stream.close();
            }
            keepAlive(stream);
            return;
        }
        synchronized (session) {
            if (session.standalone != null && !session.standalone.stream.closed().isDone()) {
                streams.release();
                error(exchange, 409, null, JsonRpcError.INVALID_REQUEST, "Conflict: the session has a GET stream open "
                        + "already", Map.of());
                return;
            }
            HttpBackend.Stream stream = openStream(exchange, Map.of());
            Replay.Record record = session.replay.open(true);
            stream.write(SseFrames.priming(record.nextId(), core.limits.retryMillis()));
            record.attach(stream);
            StandaloneChannel channel = new StandaloneChannel(stream, record);
            session.standalone = channel;
            session.session.standalone = channel;
            stream.closed().thenRun(() -> {
                record.detach(stream);
                synchronized (session) {
                    if (session.standalone == channel) {
                        session.standalone = null;
                        session.session.standalone = null;
                    }
                }
                session.session.touch();
            });
            keepAlive(stream);
        }
    }

    private void delete(HttpBackend.Exchange exchange, Caller caller) {
        Optional<String> sessionId = exchange.header(McpHeaders.SESSION_ID).map(String::trim);
        if (sessionId.isEmpty()) {
            error(exchange, 400, null, JsonRpcError.INVALID_REQUEST, "Bad Request: DELETE ends a session ("
                    + McpHeaders.SESSION_ID + ")", Map.of());
            return;
        }
        boolean sealed = core.sessionSeal.isPresent() && opens(sessionId.get(), caller);
        if (sealed) {
            synchronized (deleted) {
                deleted.put(sessionId.get(), Boolean.TRUE);
            }
        }
        HttpSession found = sessions.get(sessionId.get());
        HttpSession session = found != null && found.ownedBy(caller) && sessions.remove(sessionId.get(), found)
                ? found : null;
        if (session == null && sealed) {
            // Started or served elsewhere: nothing of it is held here, and this replica takes it up no more.
            exchange.respond(200, Map.of(), new byte[0]);
            return;
        }
        if (session == null) {
            error(exchange, 404, null, JsonRpcError.INVALID_REQUEST, "Session not found: it ended or expired",
                    Map.of());
            return;
        }
        core.endSession(session.session);
        exchange.respond(200, Map.of(), new byte[0]);
    }

    /**
     * @return the session of that id: held here, or (replicas sharing keys) taken up from its sealed id; {@code null}
     *     when there is none (ended here, expired, not sealed with these keys, or the session bound is reached)
     */
    private HttpSession find(String id) {
        HttpSession held = sessions.get(id);
        if (held != null || core.sessionSeal.isEmpty()) {
            return held;
        }
        synchronized (deleted) {
            if (deleted.containsKey(id)) {
                return null;
            }
        }
        if (sessions.size() >= core.limits.maxSessions()) {
            return null;
        }
        Optional<SessionSeal.Opened> opened = core.sessionSeal.flatMap(seal -> seal.open(id,
                System.currentTimeMillis()));
        if (opened.isEmpty()) {
            return null;
        }
        return sessions.computeIfAbsent(id, key -> new HttpSession(core.adopt(key, opened.get()), replay(),
                opened.get().owner()));
    }

    /** A session's kept streams: their ids name this instance when replicas share sessions. */
    private Replay replay() {
        return new Replay(core.limits.replayEvents(), Replay.MAX_BYTES,
                core.sessionSeal.isPresent() ? core.inputs.instance : null);
    }

    /** @return whether the id is a sealed session id of these keys that has not expired */
    private boolean opens(String id) {
        return core.sessionSeal.flatMap(seal -> seal.open(id, System.currentTimeMillis())).isPresent();
    }

    /** @return whether the id is a sealed session id of these keys, not expired, that this caller opened */
    private boolean opens(String id, Caller caller) {
        return core.sessionSeal.flatMap(seal -> seal.open(id, System.currentTimeMillis()))
                .filter(opened -> opened.owner().equals(ownerKey(caller))).isPresent();
    }

    // ------------------------------------------------------------------------------------------ streams

    private boolean reserveStream() {
        return streams.tryAcquire();
    }

    /** Opens an event stream on a reserved slot; the slot is freed when it ends. */
    private HttpBackend.Stream openStream(HttpBackend.Exchange exchange, Map<String, String> extra) {
        Map<String, String> headers = new HashMap<>(extra);
        headers.put("Content-Type", McpHeaders.EVENT_STREAM);
        headers.put("Cache-Control", "no-cache, no-transform");
        HttpBackend.Stream stream = exchange.stream(200, headers, core.limits.maxQueuedEvents(), MAX_QUEUED_BYTES);
        stream.closed().thenRun(streams::release);
        return stream;
    }

    /** Comments on an idle stream, so that a client that went away is noticed (the write fails). */
    private void keepAlive(HttpBackend.Stream stream) {
        ScheduledFuture<?> beat = core.threads.timer.scheduleWithFixedDelay(() -> stream.write(SseFrames.keepAlive()),
                KEEP_ALIVE_MILLIS, KEEP_ALIVE_MILLIS, TimeUnit.MILLISECONDS);
        stream.closed().thenRun(() -> beat.cancel(false));
    }

    /** The answer to one POSTed request: JSON until something else about it comes first, then an event stream. */
    private final class PostChannel implements Channel {
        private final HttpBackend.Exchange exchange;
        private final Map<String, String> extra;
        private final boolean sse;
        /** The session's streams, for events a client can resume (handshake era); {@code null}: not resumable. */
        private final Replay replay;
        /** Whether a stream that breaks cancels the request (the stateless revision). */
        private final boolean stateless;
        private final Caller caller;
        private final CompletableFuture<Void> gone = new CompletableFuture<>();
        private HttpBackend.Stream stream;
        private Replay.Record record;
        private boolean done;
        private final ScheduledFuture<?> patience;

        PostChannel(HttpBackend.Exchange exchange, Map<String, String> extra, boolean sse, Replay replay,
                boolean stateless, Caller caller) {
            this.caller = caller;
            this.exchange = exchange;
            this.extra = extra;
            this.sse = sse;
            this.replay = replay;
            this.stateless = stateless;
            this.patience = sse ? core.threads.timer.schedule(this::becomeStream, KEEP_ALIVE_MILLIS,
                    TimeUnit.MILLISECONDS) : null;
        }

        /** An answer that takes long comes as a stream, so that keep-alives can tell whether the client is there. */
        private synchronized void becomeStream() {
            if (!done && stream == null) {
                startStream();
            }
        }

        /** Starts the event stream; under the lock. */
        private boolean startStream() {
            if (!reserveStream()) {
                return false;
            }
            stream = openStream(exchange, extra);
            keepAlive(stream);
            if (replay != null) {
                record = replay.open();
                stream.write(SseFrames.priming(record.nextId(), core.limits.retryMillis()));
                record.attach(stream);
                HttpBackend.Stream mine = stream;
                stream.closed().thenRun(() -> record.detach(mine));
            } else {
                stream.closed().thenRun(() -> {
                    synchronized (this) {
                        if (done) {
                            return;
                        }
                    }
                    gone.complete(null);
                });
            }
            return true;
        }

        @Override
        public synchronized boolean send(JsonRpcMessage message) {
            if (done || !sse || stream == null && !startStream()) {
                return false;
            }
            return emit(JsonRpcCodec.standard().encodeToString(message));
        }

        private boolean emit(String json) {
            if (record != null) {
                record.emit(json);
                return true;
            }
            return stream.write(SseFrames.event(null, json));
        }

        @Override
        public boolean carriesRequests() {
            return sse;
        }

        /** Starts the stream if need be (its priming event gives the client an id to resume from) and closes it. */
        @Override
        public synchronized boolean closeStream() {
            if (done || !sse || replay == null || !replay.resumable()) {
                return false;
            }
            if (stream == null && !startStream()) {
                return false;
            }
            stream.close();
            return true;
        }

        @Override
        public void finish(JsonRpcResponse response, int httpStatus) {
            end(response, httpStatus, Map.of());
        }

        @Override
        public void finish(JsonRpcResponse response, int httpStatus, Map<String, String> headers) {
            end(response, httpStatus, headers);
        }

        @Override
        public void abandon() {
            end(null, 202, Map.of());
        }

        /** Answers (or, with no response, ends without an answer): JSON when no stream was started, else the last event. */
        private synchronized void end(JsonRpcResponse response, int httpStatus, Map<String, String> own) {
            if (done) {
                return;
            }
            done = true;
            if (patience != null) {
                patience.cancel(false);
            }
            if (stream == null) {
                Map<String, String> headers = new HashMap<>(extra);
                headers.putAll(own);
                if (response == null) {
                    exchange.respond(httpStatus, headers, new byte[0]);
                } else {
                    headers.put("Content-Type", McpHeaders.JSON);
                    exchange.respond(httpStatus, headers, JsonRpcCodec.standard().encode(response));
                }
                return;
            }
            if (response != null) {
                emit(JsonRpcCodec.standard().encodeToString(response));
            }
            if (record != null) {
                record.finish();
            }
            stream.close();
        }

        @Override
        public CompletableFuture<Void> gone() {
            return stateless ? gone : new CompletableFuture<>();
        }

        @Override
        public Caller caller() {
            return caller;
        }
    }

    /** A session's GET stream: what belongs to no request. */
    private static final class StandaloneChannel implements Channel {
        final HttpBackend.Stream stream;
        private final Replay.Record record;

        StandaloneChannel(HttpBackend.Stream stream, Replay.Record record) {
            this.stream = stream;
            this.record = record;
        }

        @Override
        public boolean send(JsonRpcMessage message) {
            if (stream.closed().isDone()) {
                return false;
            }
            record.emit(JsonRpcCodec.standard().encodeToString(message));
            return true;
        }

        @Override
        public boolean carriesRequests() {
            return true;
        }

        @Override
        public void finish(JsonRpcResponse response, int httpStatus) {
            send(response);
        }

        @Override
        public void abandon() {
            record.finish();
            stream.close();
        }

        @Override
        public CompletableFuture<Void> gone() {
            return stream.closed();
        }
    }

    // ------------------------------------------------------------------------------------------ helpers

    private static String mediaType(String contentType) {
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
    }

    private static RequestId idOf(JsonRpcMessage message) {
        return message instanceof JsonRpcRequest request ? request.id() : null;
    }

    private static void error(HttpBackend.Exchange exchange, int status, RequestId id, int code, String message,
            Map<String, String> extra) {
        Map<String, String> headers = new HashMap<>(extra);
        headers.put("Content-Type", McpHeaders.JSON);
        exchange.respond(status, headers, JsonRpcCodec.standard().encode(new JsonRpcError(id, code, message, null)));
    }

    /** {@code GET /status}: the server's own state, and what the handler shows this caller. */
    private void status(HttpBackend.Exchange exchange, Caller caller) {
        if (!exchange.method().equals("GET")) {
            exchange.respond(405, Map.of("Content-Type", "text/plain; charset=utf-8", "Allow", "GET"),
                    ("Method not allowed: " + exchange.method() + "; " + STATUS_PATH + " answers GET")
                            .getBytes(StandardCharsets.UTF_8));
            return;
        }
        ObjectNode answer = McpJson.object();
        answer.putObject("server").put("name", core.name).put("version", core.version)
                .put("startedAt", startedAt.toString())
                .put("uptimeMs", (System.nanoTime() - startedNanos) / 1_000_000L)
                .put("sessions", sessions.size())
                .put("draining", core.draining());
        try {
            Optional<JsonNode> added = core.handler.status(caller);
            if (added.isPresent() && added.get().isObject()) {
                for (Map.Entry<String, JsonNode> field : added.get().properties()) {
                    if (!field.getKey().equals("server")) {
                        answer.set(field.getKey(), field.getValue().deepCopy());
                    }
                }
            }
        } catch (RuntimeException e) {
            // Its message may name what the caller may not see: the class is enough to find it in the code.
            ServerCore.LOG.warn("MCP server \"{}\": its handler's status failed: {}", core.name,
                    e.getClass().getName());
            plain(exchange, 500, "the status could not be made");
            return;
        }
        exchange.respond(200, Map.of("Content-Type", McpHeaders.JSON, "Cache-Control", "no-store"),
                McpJson.mapper().writeValueAsBytes(answer));
    }

    private static void plain(HttpBackend.Exchange exchange, int status, String text) {
        exchange.respond(status, Map.of("Content-Type", "text/plain; charset=utf-8"),
                text.getBytes(StandardCharsets.UTF_8));
    }

    private void expireIdleSessions() {
        Duration idle = core.limits.sessionIdleTimeout();
        sessions.forEach((id, session) -> {
            boolean streamOpen;
            synchronized (session) {
                streamOpen = session.standalone != null;
            }
            if (session.session.closed() || !streamOpen && session.session.idleFor(idle)) {
                if (sessions.remove(id, session)) {
                    ServerCore.LOG.debug("MCP session {} expired after {} ms idle", id, idle.toMillis());
                    core.endSession(session.session);
                }
            }
        });
    }

    /** @return the sessions open now */
    int sessions() {
        return sessions.size();
    }

    @Override
    public boolean awaitClosed(Duration timeout) throws InterruptedException {
        return ended.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        janitor.cancel(false);
        sessions.values().forEach(session -> core.endSession(session.session));
        sessions.clear();
        backend.close();
        ended.countDown();
    }
}
