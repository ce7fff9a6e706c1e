package mcp.server.internal;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import mcp.api.LogLevel;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcSuccess;
import mcp.api.jsonrpc.RequestId;
import mcp.protocol.CacheHints;
import mcp.protocol.Era;
import mcp.protocol.ErrorCodes;
import mcp.protocol.McpHeaders;
import mcp.protocol.McpMethods;
import mcp.protocol.McpTelemetry;
import mcp.protocol.Meta;
import mcp.protocol.ProtocolVersions;
import mcp.protocol.RequestEnvelope;
import mcp.protocol.ResultType;
import mcp.protocol.SubscriptionFilter;
import mcp.protocol.TaskRules;
import mcp.protocol.internal.McpTracing;
import mcp.server.Capabilities;
import mcp.server.Request;
import mcp.server.ReplicaKeys;
import mcp.server.RequestHandler;
import mcp.server.ServerLimits;
import mcp.server.TaskSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The server side of MCP, both eras, whatever the transport: what a request means and how it is answered. The
 * transports ({@link StdioEndpoint}, {@link HttpFront}) read messages, find the era and the session, check what only
 * they can (HTTP headers), and call in here with a {@link Channel} for the answer.
 *
 * <p>Handshake era: {@link #initialize} starts a {@link HandshakeSession}; its requests, notifications and answers go
 * to {@link #handshakeRequest}, {@link #handshakeNotification} and {@link HandshakeSession#onResponse}. Stateless
 * revision: every request comes with its checked {@link RequestEnvelope} to {@link #statelessRequest}; a multi
 * round-trip request's rounds are {@link InputRounds}' business.
 *
 * <p>State: the registries are concurrent sets and maps; {@link #permits} bounds the requests being served.
 */
public final class ServerCore implements AutoCloseable {

    static final Logger LOG = LoggerFactory.getLogger(ServerCore.class);

    /** A {@code subscriptions/listen} stream of the stateless revision; {@code client}: its connection's id, or null. */
    private record Listen(RequestId id, Channel channel, SubscriptionFilter filter, String client) {
    }

    final String name;
    final String version;
    private final Optional<String> title;
    private final Optional<String> instructions;
    final RequestHandler handler;
    /** {@link RequestHandler#blocks()}: whether a request is handed to a worker before its handler is called. */
    private final boolean handlerBlocks;
    final Capabilities capabilities;
    private final ObjectNode capabilitiesJson;
    /** What {@code server/discover} declares: the tasks extension in place of the handshake era's tasks. */
    private final ObjectNode statelessCapabilitiesJson;
    final ServerLimits limits;
    private final CacheHints cacheHints;
    final ServerThreads threads;
    final InputRounds inputs;
    /** How session ids are sealed when replicas share keys; empty: ids are random and sessions live here only. */
    final Optional<SessionSeal> sessionSeal;
    final Tasks tasks;
    private final Semaphore permits;
    private final Set<HandshakeSession> sessions = ConcurrentHashMap.newKeySet();
    private final Set<Listen> listens = ConcurrentHashMap.newKeySet();
    private final AtomicReference<Set<String>> subscribed = new AtomicReference<>(Set.of());
    /** The calls whose handlers run or wait for input: what a shutdown drains. Guarded by itself (for its waits). */
    private final Set<Call> running = new HashSet<>();
    private volatile boolean closed;
    /** Set by {@link #drain}: no new request is taken, the ones in flight go on. */
    private volatile boolean draining;

    /**
     * @param name the server's name ({@code serverInfo.name})
     * @param version its version
     * @param title its display title, or empty
     * @param instructions what it tells clients about itself, or empty
     * @param handler what answers the requests about its features
     * @param limits its bounds
     * @param cacheHints the caching hints of cacheable results that state none (stateless revision)
     * @param stateKey the HMAC key of request states (at least 32 bytes), this process's own: session ids are random
     */
    public ServerCore(String name, String version, Optional<String> title, Optional<String> instructions,
            RequestHandler handler, ServerLimits limits, CacheHints cacheHints, byte[] stateKey) {
        this(name, version, title, instructions, handler, limits, cacheHints,
                ReplicaKeys.of("p", Map.of("p", stateKey)), false);
    }

    /**
     * @param name the server's name ({@code serverInfo.name})
     * @param version its version
     * @param title its display title, or empty
     * @param instructions what it tells clients about itself, or empty
     * @param handler what answers the requests about its features
     * @param limits its bounds
     * @param cacheHints the caching hints of cacheable results that state none (stateless revision)
     * @param keys the keys this server shares with its replicas: request states and sealed session ids
     */
    public ServerCore(String name, String version, Optional<String> title, Optional<String> instructions,
            RequestHandler handler, ServerLimits limits, CacheHints cacheHints, ReplicaKeys keys) {
        this(name, version, title, instructions, handler, limits, cacheHints, keys, true);
    }

    private ServerCore(String name, String version, Optional<String> title, Optional<String> instructions,
            RequestHandler handler, ServerLimits limits, CacheHints cacheHints, ReplicaKeys stateKeys,
            boolean shared) {
        this.name = name;
        this.version = version;
        this.title = title;
        this.instructions = instructions;
        this.handler = handler;
        this.handlerBlocks = handler.blocks();
        this.capabilities = handler.capabilities();
        this.capabilitiesJson = capabilities.toJson();
        capabilitiesJson.putObject("logging");
        this.statelessCapabilitiesJson = capabilitiesJson.deepCopy();
        if (capabilities.tasks()) {
            ObjectNode tasksJson = capabilitiesJson.putObject("tasks");
            tasksJson.putObject("list");
            tasksJson.putObject("cancel");
            tasksJson.putObject("requests").putObject("tools").putObject("call");
            ObjectNode extensions = statelessCapabilitiesJson.has("extensions")
                    ? (ObjectNode) statelessCapabilitiesJson.get("extensions")
                    : statelessCapabilitiesJson.putObject("extensions");
            extensions.putObject(TaskRules.EXTENSION);
        }
        this.limits = limits;
        this.cacheHints = cacheHints;
        this.threads = new ServerThreads(name, limits.maxConcurrentRequests());
        this.inputs = new InputRounds(this, stateKeys);
        this.sessionSeal = shared ? Optional.of(new SessionSeal(stateKeys)) : Optional.empty();
        this.tasks = new Tasks(this);
        this.permits = new Semaphore(limits.maxConcurrentRequests());
    }

    /** @return the capabilities declared to clients of the handshake era */
    public ObjectNode capabilitiesJson() {
        return capabilitiesJson.deepCopy();
    }

    private ObjectNode serverInfo() {
        ObjectNode info = McpJson.object().put("name", name).put("version", version);
        title.ifPresent(text -> info.put("title", text));
        return info;
    }

    static JsonNode idNode(RequestId id) {
        return id instanceof RequestId.NumberId number ? McpJson.mapper().getNodeFactory().numberNode(number.value())
                : McpJson.mapper().getNodeFactory().stringNode(((RequestId.StringId) id).value());
    }

    private static ObjectNode paramsOf(JsonNode params) {
        return params != null && params.isObject() ? (ObjectNode) params : McpJson.object();
    }

    // ------------------------------------------------------------------------------------------ handshake era

    /**
     * Answers {@code initialize} and starts the session it agrees on.
     *
     * @param sessionId the session's id (HTTP), or {@code null} (stdio)
     * @param onStart gets the session before the answer goes out, so that the client's next message finds it
     * @return the session, registered; empty when the request was refused (the refusal is answered)
     */
    Optional<HandshakeSession> initialize(String sessionId, JsonRpcRequest request, Channel incoming,
            java.util.function.Consumer<HandshakeSession> onStart) {
        Channel channel = TracedChannel.of(incoming, tracing.startServer(request.method(), request.params(),
                request.id(), sessionId == null ? McpTracing.Peer.STDIO : HTTP_PEER, null, sessionId));
        ObjectNode params = paramsOf(request.params());
        JsonNode requested = params.get("protocolVersion");
        if (requested == null || !requested.isString()) {
            channel.finish(new JsonRpcError(request.id(), JsonRpcError.INVALID_PARAMS,
                    "Invalid params: initialize needs a protocolVersion (a string)", null), 400);
            return Optional.empty();
        }
        String agreed = ProtocolVersions.negotiateHandshake(requested.asString());
        JsonNode clientCapabilities = params.path("capabilities").isObject() ? params.get("capabilities")
                : McpJson.object();
        JsonNode info = params.get("clientInfo");
        HandshakeSession session = new HandshakeSession(this, sessionId, agreed, clientCapabilities,
                info != null && info.isObject() ? Optional.of(info) : Optional.empty());
        sessions.add(session);
        ObjectNode result = McpJson.object().put("protocolVersion", agreed);
        result.set("capabilities", capabilitiesJson);
        result.set("serverInfo", serverInfo());
        instructions.ifPresent(text -> result.put("instructions", text));
        LOG.debug("MCP client {} initialized a session{} with protocol version {}", info,
                sessionId == null ? "" : " " + sessionId, agreed);
        onStart.accept(session);
        channel.finish(new JsonRpcSuccess(request.id(), result), 200);
        return Optional.of(session);
    }

    /**
     * The id of the session an {@code initialize} will start: sealed with what the session needs when replicas share
     * keys ({@link SessionSeal}), else random.
     */
    String newSessionId(JsonRpcRequest request, String owner) {
        ObjectNode params = paramsOf(request.params());
        JsonNode requested = params.get("protocolVersion");
        if (sessionSeal.isEmpty() || requested == null || !requested.isString()) {
            byte[] bytes = new byte[24];
            CLIENT_IDS.nextBytes(bytes);
            return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        }
        JsonNode info = params.get("clientInfo");
        return sessionSeal.get().seal(ProtocolVersions.negotiateHandshake(requested.asString()),
                params.path("capabilities").isObject() ? params.get("capabilities") : McpJson.object(),
                info != null && info.isObject() ? Optional.of(info) : Optional.empty(), System.currentTimeMillis(),
                owner);
    }

    /**
     * Takes up a session that another replica (or this one, before it forgot it) started, from its sealed id.
     *
     * @param sessionId the id
     * @param opened what the id says, opened by the caller (once: each open is an AES-GCM decryption)
     * @return the session, registered and initialized
     */
    HandshakeSession adopt(String sessionId, SessionSeal.Opened opened) {
        HandshakeSession session = new HandshakeSession(this, sessionId, opened.protocolVersion(),
                opened.capabilities(), opened.clientInfo());
        session.initialized = true;
        session.adopted = true;
        sessions.add(session);
        LOG.debug("MCP session of client {} taken up from its sealed id (protocol version {})",
                opened.clientInfo().map(info -> info.path("name").asString("")).orElse(""), opened.protocolVersion());
        return session;
    }

    /**
     * @param request a request of a client without a session
     * @return whether it starts the handshake era: an {@code initialize} that is not a stateless request (one with the
     *     stateless envelope and no {@code protocolVersion} of its own, which that revision answers -32601)
     */
    static boolean isHandshake(JsonRpcRequest request) {
        return request.method().equals("initialize") && (paramsOf(request.params()).has("protocolVersion")
                || Meta.protocolVersion(request.params()).isEmpty());
    }

    /** A request of a handshake-era client. */
    void handshakeRequest(HandshakeSession session, JsonRpcRequest request, Channel incoming) {
        session.touch();
        String method = request.method();
        Channel channel = TracedChannel.of(incoming, tracing.startServer(method, request.params(), request.id(),
                session.id == null ? McpTracing.Peer.STDIO : HTTP_PEER, session.protocolVersion, session.id));
        ObjectNode params = paramsOf(request.params());
        switch (method) {
            case "ping" -> channel.finish(new JsonRpcSuccess(request.id(), McpJson.object()), 200);
            case "initialize" -> channel.finish(new JsonRpcError(request.id(), JsonRpcError.INVALID_REQUEST,
                    "Invalid request: the session is initialized already", null), 400);
            case "logging/setLevel" -> {
                Optional<LogLevel> level = LogLevel.parse(params.path("level").asString(null));
                if (level.isEmpty()) {
                    channel.finish(new JsonRpcError(request.id(), JsonRpcError.INVALID_PARAMS,
                            "Invalid params: not a log level: " + params.get("level"), null), 200);
                } else {
                    session.logLevel = level.get();
                    channel.finish(new JsonRpcSuccess(request.id(), McpJson.object()), 200);
                }
            }
            case "resources/subscribe", "resources/unsubscribe" -> {
                JsonNode uri = params.get("uri");
                if (!capabilities.resourcesSubscribe()) {
                    channel.finish(methodNotFound(request.id(), method), 200);
                } else if (uri == null || !uri.isString()) {
                    channel.finish(new JsonRpcError(request.id(), JsonRpcError.INVALID_PARAMS,
                            "Invalid params: " + method + " needs a uri (a string)", null), 200);
                } else {
                    if (method.equals("resources/subscribe")) {
                        if (maySubscribe(uri.asString(), channel)) {
                            session.subscriptions.add(uri.asString());
                        }
                    } else {
                        session.subscriptions.remove(uri.asString());
                    }
                    subscriptionsChanged();
                    channel.finish(new JsonRpcSuccess(request.id(), McpJson.object()), 200);
                }
            }
            case "tasks/get", "tasks/result", "tasks/list", "tasks/cancel" -> {
                if (capabilities.tasks()) {
                    tasks.handshakeRequest(session, request, params, channel);
                } else {
                    channel.finish(methodNotFound(request.id(), method), 200);
                }
            }
            default -> {
                if (McpMethods.STATELESS_ONLY.contains(method)) {
                    channel.finish(methodNotFound(request.id(), method), 200);
                    return;
                }
                if (method.equals("tools/call") && capabilities.tasks()) {
                    boolean asked = TaskRules.taskParam(params).isPresent();
                    TaskSupport support = taskSupport(params);
                    if (support == TaskSupport.FORBIDDEN && asked || support == TaskSupport.REQUIRED && !asked) {
                        channel.finish(new JsonRpcError(request.id(), JsonRpcError.METHOD_NOT_FOUND, "Method not "
                                + "found: tool " + params.path("name").asString("") + (asked ? " does not run as a "
                                + "task (its execution.taskSupport is forbidden)" : " runs only as a task (its "
                                + "execution.taskSupport is required): add task to the call's params"), null), 200);
                        return;
                    }
                    if (asked) {
                        startTask(new Call(this, Era.HANDSHAKE, session.protocolVersion, session.clientCapabilities,
                                session.clientInfo, session, method, params, Optional.empty(), request.id(), channel),
                                session, session, TaskRules.requestedTtlMillis(params).orElse(0L));
                        return;
                    }
                }
                Call call = new Call(this, Era.HANDSHAKE, session.protocolVersion, session.clientCapabilities,
                        session.clientInfo, session, method, params, Optional.empty(), request.id(), channel);
                if (session.calls.putIfAbsent(request.id(), call) != null) {
                    channel.finish(new JsonRpcError(request.id(), JsonRpcError.INVALID_REQUEST,
                            "Invalid request: a request with id " + request.id() + " is in flight already", null), 200);
                    return;
                }
                start(call, request.id());
            }
        }
    }

    /** A notification of a handshake-era client. */
    void handshakeNotification(HandshakeSession session, JsonRpcNotification notification) {
        session.touch();
        switch (notification.method()) {
            case "notifications/initialized" -> session.initialized = true;
            case "notifications/cancelled" -> {
                Optional<RequestId> id = requestIdOf(notification.params());
                Call call = id.map(session.calls::get).orElse(null);
                if (call != null) {
                    call.cancel(notification.params().path("reason").asString("cancelled by the client"));
                }
            }
            default -> LOG.debug("MCP client notification {} ignored", notification.method());
        }
    }

    /** Ends a session: its calls and tasks are cancelled, its subscriptions dropped, its handler told. */
    void endSession(HandshakeSession session) {
        if (sessions.remove(session)) {
            session.close();
            if (!session.adopted) {
                // A session taken up from its sealed id started elsewhere (or here, before): its start is not known
                // here, and the replica that started it records it.
                tracing.sessionEnded(false, session.startedNanos, session.id == null ? McpTracing.Peer.STDIO
                        : HTTP_PEER, session.protocolVersion, null);
            }
            tasks.dropOwner(session);
            if (!session.subscriptions.isEmpty()) {
                subscriptionsChanged();
            }
            clientEnded(session.clientId);
        }
    }

    /** Tells the handler that a client is gone, so that it forgets what it kept for it. */
    void clientEnded(String clientId) {
        try {
            handler.clientEnded(clientId);
        } catch (RuntimeException e) {
            LOG.warn("MCP server \"{}\": its handler failed on a client's end: {}", name, e.toString());
        }
    }

    /** @return the sessions of the handshake era open now, over every transport */
    int sessionCount() {
        return sessions.size();
    }

    // ------------------------------------------------------------------------------------------ stateless revision

    /** @return a new id for a client that has no session id of its own (a stdio connection) */
    static String newClientId() {
        byte[] bytes = new byte[18];
        CLIENT_IDS.nextBytes(bytes);
        return "conn-" + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static final java.security.SecureRandom CLIENT_IDS = new java.security.SecureRandom();

    /**
     * A request of the stateless revision whose envelope was read and checked against the transport's headers.
     *
     * @param cancellers where a transport that cancels by request id (stdio) keeps how to cancel it, or {@code null}
     * @param caller who sends it, as far as the transport can tell: whose tasks it may reach ({@link Tasks})
     * @param connection the id of the connection that is the client (stdio), or {@code null} (HTTP: none)
     */
    void statelessRequest(JsonRpcRequest request, RequestEnvelope envelope, Channel incoming,
            Map<RequestId, Runnable> cancellers, Object caller, String connection) {
        String method = request.method();
        Channel channel = TracedChannel.of(incoming, tracing.startServer(method, request.params(), request.id(),
                connection != null ? McpTracing.Peer.STDIO : HTTP_PEER, envelope.protocolVersion(), null));
        if (!ProtocolVersions.STATELESS_VERSIONS.contains(envelope.protocolVersion())) {
            McpProtocolException error = ErrorCodes.unsupportedProtocolVersion(envelope.protocolVersion(),
                    ProtocolVersions.STATELESS_VERSIONS);
            channel.finish(new JsonRpcError(request.id(), error.code(), error.serverMessage(),
                    error.data().orElse(null)), 400);
            return;
        }
        if (McpMethods.HANDSHAKE_ONLY.contains(method)) {
            channel.finish(methodNotFound(request.id(), method), 404);
            return;
        }
        ObjectNode params = paramsOf(request.params()).deepCopy();
        switch (method) {
            case "server/discover" -> {
                ObjectNode result = McpJson.object();
                ProtocolVersions.STATELESS_VERSIONS.forEach(result.putArray("supportedVersions")::add);
                result.set("capabilities", statelessCapabilitiesJson);
                instructions.ifPresent(text -> result.put("instructions", text));
                result.putObject(Meta.KEY).set(Meta.SERVER_INFO, serverInfo());
                channel.finish(new JsonRpcSuccess(request.id(), decorate(result, Era.STATELESS, method)), 200);
            }
            case "subscriptions/listen" -> listen(request.id(), params, channel, cancellers, connection);
            case "tasks/get", "tasks/update", "tasks/cancel" -> {
                if (!capabilities.tasks()) {
                    channel.finish(methodNotFound(request.id(), method), 404);
                    return;
                }
                try {
                    ObjectNode result = tasks.statelessRequest(method, params, envelope.clientCapabilities(), caller);
                    channel.finish(new JsonRpcSuccess(request.id(), decorate(result, Era.STATELESS, method)), 200);
                } catch (McpProtocolException e) {
                    channel.finish(new JsonRpcError(request.id(), e.code(), e.serverMessage(), e.data().orElse(null)),
                            Tasks.httpStatus(e));
                }
            }
            // The extension of 2026-07-28 has neither: the result is inlined in tasks/get, and ids are not listed.
            case "tasks/result", "tasks/list" -> channel.finish(methodNotFound(request.id(), method), 404);
            default -> {
                JsonNode responses = params.remove("inputResponses");
                JsonNode state = params.remove("requestState");
                Map<String, JsonNode> answers = Map.of();
                if (McpMethods.MULTI_ROUND.contains(method)) {
                    Optional<String> problem = inputProblem(responses, state);
                    if (problem.isPresent()) {
                        channel.finish(new JsonRpcError(request.id(), JsonRpcError.INVALID_PARAMS,
                                "Invalid params: " + problem.get(), null), 400);
                        return;
                    }
                    answers = responses == null ? Map.of() : toMap(responses);
                    if (state != null) {
                        Optional<Map<String, JsonNode>> elsewhere;
                        try {
                            elsewhere = inputs.elsewhere(state.asString(), answers, method,
                                    McpHeaders.nameOf(method, params).orElse(""));
                        } catch (McpProtocolException e) {
                            channel.finish(new JsonRpcError(request.id(), e.code(), e.serverMessage(),
                                    e.data().orElse(null)), 400);
                            return;
                        }
                        if (elsewhere.isPresent()) {
                            LOG.debug("MCP {} retried with a request state of another instance: it runs again here",
                                    method);
                            answers = elsewhere.get();
                            state = null;
                        }
                    }
                    if (state != null) {
                        retry(request.id(), method, params, state.asString(), answers, channel, cancellers);
                        return;
                    }
                }
                Call call = new Call(this, Era.STATELESS, envelope.protocolVersion(), envelope.clientCapabilities(),
                        envelope.clientInfo(), null, method, params, envelope.logLevel(), request.id(), channel);
                if (method.equals("tools/call") && capabilities.tasks()) {
                    TaskSupport support = taskSupport(params);
                    boolean declared = TaskRules.declaresExtension(envelope.clientCapabilities());
                    if (support == TaskSupport.REQUIRED && !declared) {
                        McpProtocolException e = TaskRules.missingExtension("tool " + params.path("name")
                                .asString("") + " (it runs only as a task)");
                        channel.finish(new JsonRpcError(request.id(), e.code(), e.serverMessage(),
                                e.data().orElse(null)), Tasks.httpStatus(e));
                        return;
                    }
                    // The server decides: a client that declares the extension gets a task for every tool that can
                    // be one (answers sent with the first request are still taken).
                    if (declared && support != TaskSupport.FORBIDDEN) {
                        synchronized (call.lock) {
                            call.presets = answers;
                            if (handler.deferTask(params.path("name").asString(""))) {
                                call.taskOwner = caller;
                                call.taskRequired = support == TaskSupport.REQUIRED;
                            }
                        }
                        if (call.taskOwner == null) {
                            startTask(call, null, caller, 0);
                            return;
                        }
                    }
                }
                synchronized (call.lock) {
                    call.presets = answers;
                }
                call.connection = connection;
                if (cancellers != null) {
                    cancellers.put(request.id(), () -> call.cancel("cancelled by the client"));
                }
                watchChannel(call, channel);
                start(call, request.id());
            }
        }
    }

    private void retry(RequestId id, String method, ObjectNode params, String state, Map<String, JsonNode> answers,
            Channel channel, Map<RequestId, Runnable> cancellers) {
        if (cancellers != null) {
            // Registered first: the round may be answered before retry returns, and its channel forgets the id then.
            AtomicReference<Call> retried = new AtomicReference<>();
            cancellers.put(id, () -> {
                Call call = retried.get();
                if (call != null) {
                    call.cancel("cancelled by the client");
                }
            });
            try {
                retried.set(inputs.retry(state, answers, method, McpHeaders.nameOf(method, params).orElse(""), id,
                        channel));
            } catch (McpProtocolException e) {
                channel.finish(new JsonRpcError(id, e.code(), e.serverMessage(), e.data().orElse(null)), 400);
            }
            return;
        }
        try {
            inputs.retry(state, answers, method, McpHeaders.nameOf(method, params).orElse(""), id, channel);
        } catch (McpProtocolException e) {
            channel.finish(new JsonRpcError(id, e.code(), e.serverMessage(), e.data().orElse(null)), 400);
        }
    }

    /** What is wrong with the {@code inputResponses} and {@code requestState} of a request, if anything. */
    private static Optional<String> inputProblem(JsonNode responses, JsonNode state) {
        if (responses != null) {
            if (!responses.isObject()) {
                return Optional.of("inputResponses must be an object (keyed answers), not " + responses.getNodeType());
            }
            for (String key : responses.propertyNames()) {
                if (!responses.get(key).isObject()) {
                    return Optional.of("inputResponses." + key + " must be an object (the answer to the input "
                            + "request of that key)");
                }
            }
        }
        if (state != null && !state.isString()) {
            return Optional.of("requestState must be a string, as the server gave it");
        }
        return Optional.empty();
    }

    private static Map<String, JsonNode> toMap(JsonNode object) {
        Map<String, JsonNode> map = new java.util.HashMap<>();
        for (String key : object.propertyNames()) {
            map.put(key, object.get(key));
        }
        return map;
    }

    /** A notification of the stateless revision (a stdio client's {@code notifications/cancelled}). */
    void statelessNotification(JsonRpcNotification notification, Map<RequestId, Runnable> cancellers) {
        if (notification.method().equals("notifications/cancelled") && cancellers != null) {
            requestIdOf(notification.params()).map(cancellers::remove).ifPresent(Runnable::run);
        } else {
            LOG.debug("MCP client notification {} ignored", notification.method());
        }
    }

    private void listen(RequestId id, ObjectNode params, Channel channel, Map<RequestId, Runnable> cancellers,
            String connection) {
        if (listens.size() >= limits.maxStreams()) {
            channel.finish(new JsonRpcError(id, JsonRpcError.INTERNAL_ERROR, "Server busy: "
                    + limits.maxStreams() + " streams are open", null), 503);
            return;
        }
        SubscriptionFilter filter = SubscriptionFilter.read(params.get(SubscriptionFilter.KEY)).narrowedTo(
                capabilities.toolsListChanged(), capabilities.promptsListChanged(), capabilities.resourcesListChanged(),
                capabilities.resourcesSubscribe());
        // The acknowledgement says what was asked; what the handler does not allow this caller is left out quietly.
        SubscriptionFilter allowed = new SubscriptionFilter(filter.toolsListChanged(), filter.promptsListChanged(),
                filter.resourcesListChanged(), filter.resourceSubscriptions().stream()
                        .filter(uri -> maySubscribe(uri, channel)).toList());
        Listen listen = new Listen(id, channel, allowed, connection);
        listens.add(listen);
        ObjectNode ack = McpJson.object();
        ack.set(SubscriptionFilter.KEY, filter.toJson());
        ack.putObject(Meta.KEY).set(Meta.SUBSCRIPTION_ID, idNode(id));
        channel.send(new JsonRpcNotification("notifications/subscriptions/acknowledged", ack));
        Runnable end = () -> {
            if (listens.remove(listen)) {
                subscriptionsChanged();
            }
        };
        channel.gone().thenRun(end);
        if (cancellers != null) {
            cancellers.put(id, () -> {
                end.run();
                channel.abandon();
            });
        }
        if (!filter.resourceSubscriptions().isEmpty()) {
            subscriptionsChanged();
        }
    }

    // ------------------------------------------------------------------------------------------ calls

    /** Runs a call's handler on a worker, within {@link ServerLimits#maxConcurrentRequests()}. */
    private void start(Call call, RequestId id) {
        if (closed || draining || !permits.tryAcquire()) {
            call.result = CompletableFuture.failedFuture(closed || draining ? shuttingDown()
                    : new McpProtocolException(JsonRpcError.INTERNAL_ERROR, "Server busy: "
                            + limits.maxConcurrentRequests() + " requests are being served", null));
            finish(call);
            return;
        }
        CompletableFuture<JsonNode> result = new CompletableFuture<>();
        call.result = result;
        synchronized (running) {
            running.add(call);
        }
        result.whenComplete((value, error) -> {
            permits.release();
            synchronized (running) {
                running.remove(call);
                running.notifyAll();
            }
        });
        if (!gated(call.method)) {
            result.completeExceptionally(new McpProtocolException(JsonRpcError.METHOD_NOT_FOUND,
                    "Method not found: " + call.method, null));
        } else if (!handlerBlocks) {
            invoke(call, id, result, false);
        } else {
            try {
                threads.workers.execute(() -> invoke(call, id, result, true));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                result.completeExceptionally(new McpProtocolException(JsonRpcError.INTERNAL_ERROR, "Server closing",
                        null));
            }
        }
        if (call.era == Era.STATELESS && McpMethods.MULTI_ROUND.contains(call.method) && call.task == null) {
            inputs.drive(call);
        } else {
            result.whenComplete((value, error) -> finish(call));
        }
    }

    /**
     * Calls the handler and passes its answer on to {@code result}.
     *
     * @param worker whether this is a worker of ours, which a cancellation interrupts (a handler that may block is
     *     interrupted when its call is cancelled meanwhile); a thread that read the request is never interrupted
     */
    private void invoke(Call call, RequestId id, CompletableFuture<JsonNode> result, boolean worker) {
        if (result.isDone()) {
            return;
        }
        CompletableFuture<JsonNode> answer;
        Thread thread = Thread.currentThread();
        CompletableFuture<Void> interrupt = worker ? call.cancellation().thenRun(thread::interrupt) : null;
        AutoCloseable traced = TracedChannel.current(call.channel);
        try {
            answer = handler.handle(new Request(id, call.method, call.params), call);
        } catch (RuntimeException | Error e) {
            answer = CompletableFuture.failedFuture(e);
        } finally {
            closeQuietly(traced);
            if (interrupt != null) {
                interrupt.cancel(false);
                Thread.interrupted();
            }
        }
        if (answer == null) {
            answer = CompletableFuture.failedFuture(new IllegalStateException("the handler returned no future"));
        }
        CompletableFuture<JsonNode> running = answer;
        result.whenComplete((value, error) -> {
            if (error instanceof CancellationException || call.aborted) {
                running.cancel(false);
            }
        });
        running.whenComplete((value, error) -> {
            if (error != null) {
                result.completeExceptionally(error);
            } else {
                result.complete(value);
            }
        });
    }

    private static void closeQuietly(AutoCloseable scope) {
        if (scope != null) {
            try {
                scope.close();
            } catch (Exception e) {
                LOG.debug("closing a trace scope failed: {}", e.toString());
            }
        }
    }

    /** The spans and metrics of the requests served ({@link McpTracing#NOOP} without OpenTelemetry). */
    private volatile McpTracing tracing = McpTracing.of(McpTelemetry.global());

    /** A client over HTTP: the conventions' {@code network.transport} and {@code network.protocol.name}. */
    private static final McpTracing.Peer HTTP_PEER = new McpTracing.Peer("tcp", "http", null, -1);

    /** @param telemetry where the spans and metrics of the requests served go from now on */
    public void telemetry(McpTelemetry telemetry) {
        this.tracing = McpTracing.of(telemetry);
    }

    /** @return whether the method's feature is one the handler declared (any method it does not know is its own) */
    private boolean gated(String method) {
        if (method.startsWith("tools/")) {
            return capabilities.tools();
        }
        if (method.equals("resources/list") || method.equals("resources/templates/list")
                || method.equals("resources/read")) {
            return capabilities.resources();
        }
        if (method.startsWith("prompts/")) {
            return capabilities.prompts();
        }
        if (method.equals("completion/complete")) {
            return capabilities.completions();
        }
        return true;
    }

    /** A stateless call ends when the client closes the stream of its current round (HTTP's cancellation). */
    void watchChannel(Call call, Channel channel) {
        if (call.era == Era.STATELESS) {
            channel.gone().thenRun(() -> {
                if (call.channel == channel) {
                    call.cancel("the client closed the request's stream");
                }
            });
        }
    }

    /** Answers a call whose handler is done (or which was cancelled), on its current channel. */
    void finish(Call call) {
        Channel channel;
        RequestId id;
        synchronized (call.lock) {
            channel = call.channel;
            id = call.roundId;
            call.channel = null;
        }
        inputs.forget(call);
        if (call.session != null) {
            call.session.calls.remove(id, call);
            call.session.touch();
        }
        if (channel == null) {
            return;
        }
        CompletableFuture<JsonNode> result = call.result;
        if ((call.cancelled() && !call.aborted) || result.isCancelled()) {
            channel.abandon();
            return;
        }
        JsonNode value;
        try {
            value = result.join();
        } catch (CompletionException | CancellationException e) {
            answerError(channel, id, call, e);
            return;
        }
        if (value == null || !value.isObject()) {
            answerError(channel, id, call, new IllegalStateException("the handler's result is not a JSON object"));
            return;
        }
        channel.finish(new JsonRpcSuccess(id, decorate((ObjectNode) value, call.era, call.method)), 200);
    }

    /** Answers an error about a call. */
    void answerError(Channel channel, RequestId id, Call call, Throwable error) {
        JsonRpcError response = toError(id, error);
        Optional<java.time.Duration> retryAfter = ErrorCodes.retryAfter(response.code(), response.data());
        if (retryAfter.isPresent()) {
            // A rate limit is about the HTTP exchange in either era: 429, and Retry-After for proxies and clients
            // that read no body (whole seconds, rounded up).
            long seconds = Math.max(1, (retryAfter.get().toMillis() + 999) / 1000);
            channel.finish(response, 429, Map.of("Retry-After", Long.toString(seconds)));
            return;
        }
        channel.finish(response, call.era == Era.STATELESS ? ErrorCodes.httpStatus(response.code()) : 200);
    }

    static JsonRpcError toError(RequestId id, Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof McpProtocolException protocol) {
            return new JsonRpcError(id, protocol.code(), protocol.serverMessage(), protocol.data().orElse(null));
        }
        LOG.debug("MCP request {} failed", id, cause);
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        return new JsonRpcError(id, JsonRpcError.INTERNAL_ERROR, "Internal error: " + message, null);
    }

    /** The result as the era writes it: the stateless revision states its type and, where cacheable, its hints. */
    private ObjectNode decorate(ObjectNode value, Era era, String method) {
        ObjectNode result = McpJson.object();
        result.setAll(value);
        if (method.equals("tools/list") && capabilities.tasks() && result.get("tools") instanceof ArrayNode listed) {
            result.set("tools", withTaskSupport(listed));
        }
        if (era == Era.STATELESS) {
            ResultType.COMPLETE.stateIn(result);
            if (CacheHints.CACHEABLE_METHODS.contains(method)) {
                cacheHints.stateIn(result);
            }
        } else {
            result.remove(ResultType.KEY);
            result.remove(CacheHints.TTL_MS);
            result.remove(CacheHints.CACHE_SCOPE);
        }
        return result;
    }

    /** The tools as listed, each with the {@code execution.taskSupport} the handler gives it. */
    private ArrayNode withTaskSupport(ArrayNode listed) {
        ArrayNode tools = McpJson.mapper().createArrayNode();
        for (JsonNode tool : listed) {
            JsonNode name = tool.get("name");
            if (tool instanceof ObjectNode object && name != null && name.isString()) {
                ObjectNode copy = McpJson.object();
                copy.setAll(object);
                ObjectNode execution = McpJson.object();
                if (object.get("execution") instanceof ObjectNode given) {
                    execution.setAll(given);
                }
                execution.put("taskSupport", handler.taskSupport(name.asString()).wire());
                copy.set("execution", execution);
                tools.add(copy);
            } else {
                tools.add(tool);
            }
        }
        return tools;
    }

    private TaskSupport taskSupport(ObjectNode params) {
        JsonNode name = params.get("name");
        if (name == null || !name.isString()) {
            return TaskSupport.FORBIDDEN;
        }
        TaskSupport support = handler.taskSupport(name.asString());
        return support == null ? TaskSupport.FORBIDDEN : support;
    }

    /**
     * Runs a tool call as a task: the task is held (within the bounds) before the client hears of it, the call runs
     * with the task's channel, and the client's request is answered with the {@code CreateTaskResult} at once.
     *
     * @param call the call, on the channel of the client's request
     * @param session the session of a handshake-era call, or {@code null}
     * @param owner whose task it is
     * @param requestedTtl the time to live the client asks for, or {@code 0}
     */
    private void startTask(Call call, HandshakeSession session, Object owner, long requestedTtl) {
        Channel channel = call.channel;
        RequestId id = call.roundId;
        ServerTask task;
        try {
            task = tasks.create(owner, call.era, session, requestedTtl);
        } catch (McpProtocolException e) {
            answerError(channel, id, call, e);
            return;
        }
        call.task = task;
        task.attach(call);
        synchronized (call.lock) {
            call.channel = task.channel();
        }
        channel.finish(new JsonRpcSuccess(id, task.createResult()), 200);
        start(call, id);
    }

    /**
     * Makes a call whose task was deferred a task now: the request waiting for the call is answered with the task,
     * and the call answers the task from here on. Not while the call waits for its client's input (no request waits
     * for it then), nor past the bound on tasks: it goes on as a plain call.
     *
     * @return whether the call runs as a task now
     */
    boolean becomeTask(Call call) {
        Channel channel;
        RequestId id;
        ServerTask task;
        synchronized (call.lock) {
            if (call.task != null) {
                return true;
            }
            if (call.taskOwner == null || call.cancelled() || call.channel == null || !call.open.isEmpty()) {
                return false;
            }
            try {
                task = tasks.create(call.taskOwner, call.era, null, 0);
            } catch (McpProtocolException e) {
                LOG.debug("MCP {} goes on as a plain call: {}", call.subject(), e.getMessage());
                return false;
            }
            channel = call.channel;
            id = call.roundId;
            call.task = task;
            call.taskOwner = null;
            task.attach(call);
            call.channel = task.channel();
        }
        // The call waits for no retry any more: a request state it handed out no longer names it.
        inputs.forget(call);
        channel.finish(new JsonRpcSuccess(id, task.createResult()), 200);
        return true;
    }

    private static JsonRpcError methodNotFound(RequestId id, String method) {
        return new JsonRpcError(id, JsonRpcError.METHOD_NOT_FOUND, "Method not found: " + method, null);
    }

    private static Optional<RequestId> requestIdOf(JsonNode params) {
        JsonNode id = params == null ? null : params.get("requestId");
        if (id == null) {
            return Optional.empty();
        }
        if (id.isString()) {
            return Optional.of(RequestId.of(id.asString()));
        }
        return id.isIntegralNumber() && id.canConvertToLong() ? Optional.of(RequestId.of(id.longValue()))
                : Optional.empty();
    }

    // ------------------------------------------------------------------------------------------ events to clients

    /** Tells every client that listens that a list changed. */
    public void listChanged(String notificationMethod) {
        broadcast(notificationMethod, null, session -> true, listen -> true);
    }

    /**
     * Tells one client that a list changed: the handshake-era session of that id, or the listen streams of the
     * stateless client's connection of that id.
     */
    public void listChanged(String notificationMethod, String clientId) {
        broadcast(notificationMethod, null, session -> session.clientId.equals(clientId),
                listen -> clientId.equals(listen.client()));
    }

    /** Tells every client subscribed to a resource that it changed. */
    public void resourceUpdated(String uri) {
        JsonNode params = McpJson.object().put("uri", uri);
        broadcast("notifications/resources/updated", params, session -> session.subscriptions.contains(uri),
                listen -> true);
    }

    private void broadcast(String method, JsonNode params, Predicate<HandshakeSession> wants,
            Predicate<Listen> listening) {
        for (HandshakeSession session : sessions) {
            Channel standalone = session.standalone;
            if (standalone != null && wants.test(session)) {
                standalone.send(new JsonRpcNotification(method, params));
            }
        }
        for (Listen listen : listens) {
            if (listening.test(listen) && listen.filter().carries(method, params)) {
                ObjectNode tagged = params == null ? McpJson.object() : ((ObjectNode) params).deepCopy();
                tagged.putObject(Meta.KEY).set(Meta.SUBSCRIPTION_ID, idNode(listen.id()));
                listen.channel().send(new JsonRpcNotification(method, tagged));
            }
        }
    }

    /** Whether the handler lets the channel's caller hear of the resource's changes (a failing handler: no). */
    private boolean maySubscribe(String uri, Channel channel) {
        try {
            return handler.maySubscribe(uri, channel.caller());
        } catch (RuntimeException e) {
            LOG.warn("MCP server \"{}\": its handler failed on a subscription: {}", name, e.toString());
            return false;
        }
    }

    private void subscriptionsChanged() {
        Set<String> uris = new HashSet<>();
        sessions.forEach(session -> uris.addAll(session.subscriptions));
        listens.forEach(listen -> uris.addAll(listen.filter().resourceSubscriptions()));
        Set<String> now = Set.copyOf(uris);
        if (!now.equals(subscribed.getAndSet(now))) {
            try {
                handler.subscriptionsChanged(now);
            } catch (RuntimeException e) {
                LOG.warn("MCP server \"{}\": its handler failed on a subscription change: {}", name, e.toString());
            }
        }
    }

    /** @return whether {@link #close()} was called */
    boolean closed() {
        return closed;
    }

    /** @return whether new requests are refused: the server is shutting down ({@link #drain}) or closed */
    public boolean draining() {
        return draining || closed;
    }

    /**
     * @param request a request of a client
     * @return whether it is a new request, which a server shutting down refuses; the retry of an input round
     *     ({@code requestState}) is not: it continues a call in flight
     */
    static boolean isNew(JsonRpcRequest request) {
        return !paramsOf(request.params()).has("requestState");
    }

    /** @return the error a new request gets while the server shuts down */
    static McpProtocolException shuttingDown() {
        return new McpProtocolException(JsonRpcError.INTERNAL_ERROR, "Service unavailable: the server is shutting "
                + "down and takes no new requests", null);
    }

    /**
     * Shuts down gracefully: from now on new requests are refused ({@link #shuttingDown()}), while the calls in
     * flight go on (the answers to the server's own requests and the retries of input rounds still come in) for at
     * most {@code bound}. Those still running then are answered with an error that says the server shut down, and
     * cancelled as a client's cancellation cancels them (their handlers stop; a gateway cancels upstream).
     *
     * @param bound how long the calls in flight may take
     * @return how many calls were still running at the bound
     * @throws InterruptedException if interrupted while waiting (nothing is aborted then)
     */
    public int drain(java.time.Duration bound) throws InterruptedException {
        draining = true;
        long deadline = System.nanoTime() + bound.toNanos();
        List<Call> left;
        synchronized (running) {
            long wait;
            while (!running.isEmpty() && (wait = deadline - System.nanoTime()) > 0) {
                java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(running, wait);
            }
            left = List.copyOf(running);
        }
        if (!left.isEmpty()) {
            McpProtocolException error = new McpProtocolException(JsonRpcError.INTERNAL_ERROR, "The server shut "
                    + "down before the request finished: requests in flight had " + bound.toMillis()
                    + " ms to finish, and this one was cancelled", null);
            LOG.info("MCP server \"{}\": {} requests still running after {} ms of shutdown; cancelled", name,
                    left.size(), bound.toMillis());
            left.forEach(call -> call.abort(error));
        }
        return left.size();
    }

    /** Ends everything: sessions and their calls, listen streams, the threads. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        sessions.forEach(this::endSession);
        for (Listen listen : listens) {
            ObjectNode end = McpJson.object().put(ResultType.KEY, ResultType.COMPLETE.wire());
            end.putObject(Meta.KEY).set(Meta.SUBSCRIPTION_ID, idNode(listen.id()));
            listen.channel().finish(new JsonRpcSuccess(listen.id(), end), 200);
        }
        listens.clear();
        tasks.close();
        threads.close();
    }
}
