package mcp.manager.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import mcp.api.CallLimits;
import mcp.api.CompletionReference;
import mcp.api.CompletionResult;
import mcp.api.LoadedSkill;
import mcp.api.LogLevel;
import mcp.api.McpAuthorizationException;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.McpStreamLostException;
import mcp.api.McpTimeoutException;
import mcp.api.McpVerificationException;
import mcp.api.PromptDefinition;
import mcp.api.PromptResult;
import mcp.api.ResourceDefinition;
import mcp.api.ResourceResult;
import mcp.api.ResourceTemplate;
import mcp.api.SkillEntry;
import mcp.api.SkillFile;
import mcp.api.SkillResource;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcResponse;
import mcp.api.jsonrpc.JsonRpcSuccess;
import mcp.api.jsonrpc.RequestId;
import mcp.api.spi.Transport;
import mcp.manager.CallOptions;
import mcp.manager.Caller;
import mcp.manager.ClientOptions;
import mcp.manager.ElicitationHandler;
import mcp.manager.InitializeResult;
import mcp.manager.McpClient;
import mcp.manager.ProgressUpdate;
import mcp.manager.Root;
import mcp.manager.ServerLog;
import mcp.manager.ServerRequestHandler;
import mcp.manager.ToolListing;
import mcp.protocol.CacheHints;
import mcp.protocol.ErrorCodes;
import mcp.protocol.McpMethods;
import mcp.protocol.Meta;
import mcp.protocol.ProtocolVersions;
import mcp.protocol.ResultType;
import mcp.protocol.TaskRules;
import mcp.protocol.ToolHeaders;
import mcp.protocol.internal.McpTracing;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The MCP client protocol over one transport.
 *
 * <p>Threads: the transport's reader calls {@link #onMessage} and {@link #onClose}. A response
 * completes its future right there, running the code chained on it, when the transport delivers past a
 * blocked listener ({@link Transport#listenerMayBlock()}: stdio), when the caller asked for it
 * ({@link ClientOptions#directCompletion()}), or when no user code can chain on the future (a blocking
 * call's own); otherwise on {@link ClientThreads#WORKERS}. Server requests are answered on
 * {@link ClientThreads#WORKERS}; listener events and progress run in order on {@link #events}.
 *
 * <p>State: {@link #pending} holds every request sent and not yet settled, keyed by id. A request
 * leaves it exactly once, by whoever removes it first: its response, its timeout, its cancellation,
 * a failed send, or the close. {@link #closeReason} is set once, before the pending requests are
 * failed; a request registered after that sees it and fails itself, so none is left waiting.
 *
 * <p>Parts with a class of their own, which this session feeds and whose wire it keeps: {@link ListChanges} (the
 * list changes told to the listener, and the listen streams of the stateless era that carry them) and
 * {@link ResourceSubscriptions}.
 */
public final class ClientSession implements McpClient, Transport.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(ClientSession.class);

    private final Transport transport;
    private final ClientOptions options;
    /** Whether responses complete their futures on the delivering thread (see the class comment). */
    private final boolean completeInPlace;
    private final AtomicLong nextId = new AtomicLong(1);
    private final ConcurrentHashMap<RequestId, Pending> pending = new ConcurrentHashMap<>();
    private final ClientThreads.Serial events = new ClientThreads.Serial(LOG);
    /**
     * Held while a log message is given its place on {@link #events}, and while a result of a call with a caller
     * decides where to complete. A transport may deliver the next message on another thread while one is still in
     * the listener (stdio does when a delivery takes long), so the result could otherwise be placed before a message
     * that came first on the wire.
     */
    private final Object callerOrder = new Object();
    /** The warnings this server's junk causes, rate-limited. */
    private final WarningLimiter warnings;
    /** What the bounds did: see {@link #bounds()}. */
    private final AtomicLong coalescedProgress = new AtomicLong();
    private final AtomicLong droppedNotifications = new AtomicLong();
    private final AtomicLong refusedRequests = new AtomicLong();
    private final AtomicLong coalescedListChanges = new AtomicLong();
    /** The list changes told to the listener, and the stateless era's listen streams that carry them. */
    private final ListChanges listChanges;
    /** The URIs whose {@code notifications/resources/updated} is waiting on {@link #events}: more before it runs are one. */
    private final Set<String> updatesQueued = ConcurrentHashMap.newKeySet();
    /** The resources subscribed to, in either era. */
    private final ResourceSubscriptions subscriptions = new ResourceSubscriptions(subscriptionSession());
    /** The server's requests being answered now; see {@link #MAX_SERVER_REQUESTS}. */
    private final java.util.concurrent.atomic.AtomicInteger serverRequests = new java.util.concurrent.atomic.AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile TransportClosedException closeReason;
    private volatile InitializeResult initializeResult;
    /**
     * The envelope of every request of the stateless era (its protocol version), or {@code null} in the handshake
     * era. Set before the {@code server/discover} probe, so that the probe carries it; cleared when the server
     * turns out to be of the handshake era.
     */
    private volatile Envelope envelope;
    /**
     * Whether the server offers the tasks extension ({@code io.modelcontextprotocol/tasks}, stateless era only):
     * then {@link #TASK_METHODS} declare it in their envelope, and a tool call may be answered with a task.
     */
    private volatile boolean tasksOffered;
    /** The tasks being followed: the close ends them at once with its reason, as it ends the pending requests. */
    private final Set<TaskPoller> tasks = ConcurrentHashMap.newKeySet();
    /**
     * The requests in flight that count as use of the server (every one but the untimed listen streams, which live
     * as long as the session), and when one last started or settled ({@link System#nanoTime()}): what
     * {@link #idleFor()} reads to stop a lazy server.
     */
    private final java.util.concurrent.atomic.AtomicInteger inUse = new java.util.concurrent.atomic.AtomicInteger();
    private volatile long lastUse = System.nanoTime();
    /** Where the server's log messages go (appended on {@link #events}, in order). */
    private final ServerLog serverLog;
    /** The least severe log message asked of the server; see {@link #setLogLevel}. */
    private volatile LogLevel logLevel;

    /** The spans and metrics of this session's requests ({@link McpTracing#NOOP} without OpenTelemetry). */
    private final McpTracing tracing;
    private final McpTracing.Peer peer;
    private final long openedAt = System.nanoTime();
    /** Whether {@link #close()} was called: a close that follows is the client's, not the connection dropping. */
    private volatile boolean closing;
    /** Whether {@code mcp.client.session.duration} was recorded: once, by a close or by the connection dropping. */
    private final AtomicBoolean sessionRecorded = new AtomicBoolean();
    /** The server's counts, which outlive this session (the manager's), or this session's own. */
    private final ActivityCounters activity;

    private ClientSession(Transport transport, ClientOptions options, ActivityCounters activity) {
        this.transport = transport;
        this.options = options;
        this.activity = activity;
        this.tracing = McpTracing.of(options.telemetry());
        this.peer = McpTracing.Peer.of(options.serverUrl().orElse(null));
        this.completeInPlace = transport.listenerMayBlock() || options.directCompletion();
        this.warnings = new WarningLimiter(LOG, options.serverName());
        this.listChanges = new ListChanges(options, events, coalescedListChanges, listChangesSession());
        this.serverLog = options.serverLog().orElseGet(() -> new ServerLog(options.serverName(), ServerLog.DEFAULT_CAPACITY));
        this.logLevel = options.logLevel();
    }

    /** The default of {@link ClientOptions#maxServerRequests()}. */
    public static final int MAX_SERVER_REQUESTS = ClientOptions.DEFAULT_MAX_SERVER_REQUESTS;

    /**
     * What the bounds on what a server can fill did so far, for diagnostics and tests.
     *
     * @param coalescedProgress progress updates replaced by a later one before the consumer took them (beyond
     *     {@link #MAX_QUEUED_PROGRESS} waiting)
     * @param coalescedListChanges {@code list_changed} notifications, and {@code resources/updated} of one URI,
     *     folded into one already waiting
     * @param droppedNotifications notifications dropped because {@link ClientThreads.Serial#DEFAULT_CAPACITY} waited
     * @param refusedRequests server requests answered with an error because {@link #MAX_SERVER_REQUESTS} were running
     * @param suppressedWarnings warnings about the server left out by the rate limit
     * @param queuedEvents the events waiting now for the listener or a progress consumer
     */
    public record Bounds(long coalescedProgress, long coalescedListChanges, long droppedNotifications,
            long refusedRequests, long suppressedWarnings, int queuedEvents) {
    }

    /** @return what the bounds did so far */
    public Bounds bounds() {
        return new Bounds(coalescedProgress.get(), coalescedListChanges.get(), droppedNotifications.get(),
                refusedRequests.get(), warnings.suppressed(), events.queued());
    }

    /**
     * Starts the transport and performs the handshake.
     *
     * @param transport a transport not yet started
     * @param options the settings
     * @return the connected session
     */
    public static CompletableFuture<ClientSession> connect(Transport transport, ClientOptions options) {
        return connect(transport, options, new ActivityCounters());
    }

    /**
     * Starts the transport and performs the handshake, counting the session's tool calls in the server's counters.
     *
     * @param transport a transport not yet started
     * @param options the settings
     * @param activity where its tool calls are counted (the manager keeps one per server, across its sessions)
     * @return the connected session
     */
    public static CompletableFuture<ClientSession> connect(Transport transport, ClientOptions options,
            ActivityCounters activity) {
        ClientSession session = new ClientSession(transport, options, activity);
        try {
            transport.start(session);
        } catch (RuntimeException e) {
            transport.close();
            return CompletableFuture.failedFuture(session.connectFailure(e));
        }
        return session.negotiate().handle((ignored, error) -> {
            if (error != null) {
                session.close();
                Throwable cause = unwrap(error);
                throw new CompletionException(cause instanceof ProbeClosedException ? cause : session.connectFailure(cause));
            }
            return session;
        });
    }

    // ---------------------------------------------------------------- era

    /** The most rounds of one multi round-trip request; the spec sets none, the TypeScript SDK 10. */
    static final int MAX_INPUT_ROUNDS = 10;

    /** The progress updates of one request that may wait for its consumer; beyond, the newest replaces the last. */
    public static final int MAX_QUEUED_PROGRESS = 32;
    /** The requests whose envelope declares the tasks extension, when the server offers it. */
    private static final Set<String> TASK_METHODS = Set.of("tools/call", "tasks/get", "tasks/update", "tasks/cancel");

    /**
     * The server closed the connection while its era was being probed: some servers of the handshake era
     * exit on any request before {@code initialize}. The manager starts such a server again in that era.
     */
    public static final class ProbeClosedException extends McpException {
        private static final long serialVersionUID = 1L;

        ProbeClosedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * The server answered {@code initialize} with {@code UnsupportedProtocolVersionError} (-32022) listing
     * 2026-07-28: it speaks only the stateless era. A handshake that the tool cache chose (a server that spoke
     * the 2025 era last time) is then stale, and the manager starts the server again with the probe, once.
     */
    public static final class HandshakeRefusedException extends McpException {
        private static final long serialVersionUID = 1L;

        HandshakeRefusedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Finds and sets up the server's era, as {@link ClientOptions#protocolVersion()} asks. */
    private CompletableFuture<Void> negotiate() {
        String pinned = options.protocolVersion();
        if (!pinned.equals(McpClient.AUTO)) {
            return pinned.equals(McpClient.MODERN_PROTOCOL_VERSION) ? discover(pinned, false, false) : handshake(pinned);
        }
        boolean knownLegacy = options.knownProtocolVersion().filter(SUPPORTED_PROTOCOL_VERSIONS::contains).isPresent();
        if (!transport.carriesModernEra() || knownLegacy) {
            // No probe: the transport speaks only the handshake, or this server did last time.
            return handshake(LATEST_PROTOCOL_VERSION);
        }
        return discover(McpClient.MODERN_PROTOCOL_VERSION, true, false);
    }

    /**
     * Sends {@code server/discover} in the stateless era. A {@code DiscoverResult} with a version mcp-host
     * speaks makes the session modern; {@code UnsupportedProtocolVersionError} listing one is retried once with
     * it (never a fallback: the server is modern); anything else (another error, a timeout, a result that is
     * not a {@code DiscoverResult}) means the handshake era, when {@code fallBack} allows it.
     */
    private CompletableFuture<Void> discover(String version, boolean fallBack, boolean retried) {
        envelope = new Envelope(version, options);
        CallOptions probeOptions = CallOptions.DEFAULT.withTimeout(options.initializeTimeout());
        return request("server/discover", McpJson.object(), probeOptions).handle((result, error) -> {
            String legacyBecause;
            if (error == null) {
                Optional<String> mutual = ProtocolVersions.mutualStateless(result.path("supportedVersions"));
                if (mutual.isPresent() && result.isObject()) {
                    return acceptDiscover(result, version);
                }
                legacyBecause = "its answer to server/discover lists no version mcp-host speaks";
            } else {
                Throwable cause = unwrap(error);
                if (cause instanceof TransportClosedException closed) {
                    throw new CompletionException(new ProbeClosedException("MCP server \"" + options.serverName()
                            + "\" closed the connection when asked server/discover: " + closed.getMessage(), closed));
                }
                if (cause instanceof McpAuthorizationException) {
                    // Credentials, not the era: the transport already tried to obtain them (the spec's 401/403).
                    throw new CompletionException(cause);
                }
                Optional<JsonNode> supportedVersions = cause instanceof McpProtocolException protocol
                        ? ErrorCodes.supportedVersions(protocol) : Optional.empty();
                if (supportedVersions.isPresent()) {
                    JsonNode supported = supportedVersions.get();
                    Optional<String> mutual = ProtocolVersions.mutualStateless(supported);
                    if (mutual.isPresent() && !retried) {
                        return discover(mutual.get(), fallBack, true);
                    }
                    if (mutual.isPresent() || !fallBack) {
                        throw new CompletionException(new McpException("MCP server \"" + options.serverName()
                                + "\" refused protocol version " + version + " and supports " + supported));
                    }
                    legacyBecause = "it supports " + supported;
                } else {
                    legacyBecause = "it answered server/discover with " + cause.getMessage();
                }
            }
            if (!fallBack) {
                throw new CompletionException(new McpException("MCP server \"" + options.serverName()
                        + "\" does not speak protocol version " + version + ": " + legacyBecause));
            }
            LOG.debug("MCP server \"{}\" is of the handshake era ({}); initializing", options.serverName(),
                    legacyBecause);
            envelope = null;
            return handshake(LATEST_PROTOCOL_VERSION);
        }).thenCompose(next -> next);
    }

    /**
     * Takes a {@code DiscoverResult}: the session is modern, and listens for the list changes it offers. The session
     * is ready once the server acknowledged that stream, so that a change right after the first listing is not lost,
     * or after {@link ListChanges#LISTEN_ACK_WAIT_MILLIS} at most (a server slow to acknowledge costs that once, and
     * the stream stays open); a refused stream does not fail the session.
     */
    private CompletableFuture<Void> acceptDiscover(JsonNode result, String version) {
        JsonNode metaInfo = result.path(Meta.KEY).path(Meta.SERVER_INFO);
        // Some servers (and the conformance suite's) also put serverInfo at the top level.
        JsonNode info = metaInfo.isObject() ? metaInfo : result.path("serverInfo");
        JsonNode capabilities = result.path("capabilities").isObject() ? result.get("capabilities") : McpJson.object();
        JsonNode instructions = result.get("instructions");
        initializeResult = new InitializeResult(version, info.path("name").asString(""),
                info.path("version").asString(""), capabilities,
                instructions != null && instructions.isString() ? Optional.of(instructions.asString()) : Optional.empty());
        transport.protocolVersion(version);
        tasksOffered = TaskRules.declaresExtension(capabilities);
        LOG.debug("MCP server \"{}\" speaks {}: {} {}{}", options.serverName(), version, initializeResult.serverName(),
                initializeResult.serverVersion(), tasksOffered ? " (tasks extension)" : "");
        return listChanges.listenOffered(capabilities);
    }

    /**
     * The {@code initialize} handshake of the 2025 era, offering this version. A server that refuses it with
     * {@code UnsupportedProtocolVersionError} is reported with the versions it supports; when those include
     * 2026-07-28, as a {@link HandshakeRefusedException} (a server of the stateless era only).
     */
    private CompletableFuture<Void> handshake(String version) {
        CallOptions initOptions = CallOptions.DEFAULT.withTimeout(options.initializeTimeout());
        return request("initialize", initializeParams(version), initOptions).exceptionally(error -> {
            Throwable cause = unwrap(error);
            Optional<JsonNode> supportedVersions = cause instanceof McpProtocolException protocol
                    ? ErrorCodes.supportedVersions(protocol) : Optional.empty();
            if (supportedVersions.isPresent()) {
                JsonNode supported = supportedVersions.get();
                String refused = "MCP server \"" + options.serverName() + "\" refused protocol version " + version
                        + " and supports " + supported;
                if (ProtocolVersions.mutualStateless(supported).isEmpty()) {
                    throw new CompletionException(new McpException(refused, cause));
                }
                throw new CompletionException(new HandshakeRefusedException(options.protocolVersion()
                        .equals(McpClient.AUTO) ? refused : refused + ": set its protocolVersion to auto or "
                        + McpClient.MODERN_PROTOCOL_VERSION, cause));
            }
            throw error instanceof CompletionException completion ? completion : new CompletionException(error);
        }).thenCompose(this::accept);
    }

    /**
     * A request that may take several rounds in the stateless era: while the result says
     * {@code input_required}, the inputs it asks for are answered by this client's handlers (elicitation,
     * sampling, roots) and the request is sent again with a new id, the original params, the
     * {@code inputResponses} and the {@code requestState} as given; at most {@link #MAX_INPUT_ROUNDS} rounds,
     * each with the request's own timeout. A result without {@code resultType} is complete.
     */
    private CompletableFuture<JsonNode> multiRound(String method, ObjectNode params, CallOptions callOptions,
            boolean direct) {
        CompletableFuture<JsonNode> first = request(method, params, callOptions, direct);
        if (envelope == null) {
            return first;
        }
        // The round in flight: cancelling the whole request cancels it, so the server hears of it as in 2025.
        AtomicReference<CompletableFuture<JsonNode>> inFlight = new AtomicReference<>(first);
        CompletableFuture<JsonNode> rounds = first.thenCompose(result -> nextRound(method, params, callOptions,
                direct, result, 1, inFlight));
        rounds.whenComplete((value, error) -> {
            if (error instanceof CancellationException) {
                inFlight.get().cancel(false);
            }
        });
        return rounds;
    }

    private CompletableFuture<JsonNode> nextRound(String method, ObjectNode params, CallOptions callOptions,
            boolean direct, JsonNode result, int round, AtomicReference<CompletableFuture<JsonNode>> inFlight) {
        Optional<ResultType> type = ResultType.of(result);
        if (type.equals(Optional.of(ResultType.COMPLETE))) {
            return CompletableFuture.completedFuture(result);
        }
        if (tasksOffered && method.equals("tools/call") && TaskPoller.isTask(result)) {
            return CompletableFuture.completedFuture(result); // callTool follows it
        }
        String server = "MCP server \"" + options.serverName() + "\"";
        if (type.isEmpty()) {
            return CompletableFuture.failedFuture(new McpException(server + " answered " + method
                    + " with a resultType mcp-host does not know: " + result.get(ResultType.KEY)));
        }
        if (!McpMethods.MULTI_ROUND.contains(method)) {
            return CompletableFuture.failedFuture(new McpException(server + " asked for input in its answer to "
                    + method + ", which may not"));
        }
        if (round >= MAX_INPUT_ROUNDS) {
            return CompletableFuture.failedFuture(new McpException(server + " still asked for input after "
                    + MAX_INPUT_ROUNDS + " rounds of " + method));
        }
        // The handlers may ask a person, and so block: never on the thread that read the response.
        return CompletableFuture.supplyAsync(() -> inputResponses(result.path("inputRequests"),
                callOptions.caller()), ClientThreads.WORKERS)
                .thenCompose(responses -> {
                    ObjectNode retry = params.deepCopy();
                    retry.remove("inputResponses");
                    retry.remove("requestState");
                    if (!responses.isEmpty()) {
                        retry.set("inputResponses", responses);
                    }
                    JsonNode state = result.get("requestState");
                    if (state != null && state.isString()) {
                        retry.set("requestState", state);
                    }
                    CompletableFuture<JsonNode> again = request(method, retry, callOptions, direct);
                    inFlight.set(again);
                    return again.thenCompose(next -> nextRound(method, params, callOptions, direct, next, round + 1,
                            inFlight));
                });
    }

    /**
     * Answers a round: the call's caller as a whole, under the server's keys; else each input request as the 2025
     * era answers the same server request.
     */
    private ObjectNode inputResponses(JsonNode inputRequests, Optional<Caller> caller) {
        ObjectNode responses = McpJson.object();
        if (inputRequests == null || !inputRequests.isObject()) {
            return responses;
        }
        if (caller.isPresent()) {
            try {
                ObjectNode answered = caller.get().answer((ObjectNode) inputRequests);
                return answered == null ? responses : answered;
            } catch (McpProtocolException e) {
                throw new CompletionException(e);
            } catch (Exception e) {
                throw new CompletionException(new McpException("MCP server \"" + options.serverName() + "\": the"
                        + " caller's answer to its input requests failed: " + e.getMessage(), e));
            }
        }
        for (String key : inputRequests.propertyNames()) {
            JsonNode input = inputRequests.get(key);
            String method = input.path("method").asString("");
            try {
                responses.set(key, handle(new JsonRpcRequest(RequestId.of(key), method, input.get("params")),
                        Optional.empty()));
            } catch (McpProtocolException e) {
                throw new CompletionException(new McpException("MCP server \"" + options.serverName() + "\" asked for "
                        + method + ", which mcp-host cannot answer: " + e.getMessage(), e));
            } catch (Exception e) {
                throw new CompletionException(new McpException("MCP server \"" + options.serverName() + "\": the answer"
                        + " to its " + method + " failed: " + e.getMessage(), e));
            }
        }
        return responses;
    }

    /** @return the protocol version of the session: the stateless era's, or the one agreed in {@code initialize} */
    public Optional<String> modernProtocolVersion() {
        Envelope current = envelope;
        return current == null ? Optional.empty() : Optional.of(current.version());
    }

    private ObjectNode initializeParams(String version) {
        ObjectNode params = McpJson.object().put("protocolVersion", version);
        ObjectNode capabilities = params.putObject("capabilities");
        if (options.roots().isPresent()) {
            capabilities.putObject("roots").put("listChanged", false);
        }
        if (options.handlers().containsKey(ClientOptions.SAMPLING_METHOD)) {
            capabilities.putObject("sampling");
        }
        Envelope.elicitation(options, true).ifPresent(elicitation -> capabilities.set("elicitation", elicitation));
        params.putObject("clientInfo").put("name", options.clientName()).put("version", options.clientVersion());
        return params;
    }

    /**
     * Takes the server's answer to {@code initialize} and sends {@code notifications/initialized}.
     *
     * @return completes when the transport has sent {@code notifications/initialized}
     */
    private CompletableFuture<Void> accept(JsonNode result) {
        String version = result.path("protocolVersion").asString("");
        if (!ProtocolVersions.acceptableHandshake(version)) {
            throw new McpException("the server answered protocol version \"" + version + "\" to mcp-host's \""
                    + LATEST_PROTOCOL_VERSION + "\"; mcp-host accepts " + String.join(", ", SUPPORTED_PROTOCOL_VERSIONS));
        }
        JsonNode info = result.path("serverInfo");
        JsonNode capabilities = result.path("capabilities").isObject() ? result.get("capabilities") : McpJson.object();
        JsonNode instructions = result.get("instructions");
        initializeResult = new InitializeResult(version, info.path("name").asString(""),
                info.path("version").asString(""), capabilities,
                instructions != null && instructions.isString() ? Optional.of(instructions.asString()) : Optional.empty());
        transport.protocolVersion(version);
        CompletableFuture<Void> initialized = notify("notifications/initialized", null);
        LOG.debug("MCP server \"{}\" initialized: {} {} (protocol {})", options.serverName(),
                initializeResult.serverName(), initializeResult.serverVersion(), version);
        if (capabilities.has("logging")) {
            // Waited for (within the handshake's bound; a refusal or a timeout is no failure): a server may run
            // requests concurrently, and the first tool call must already see the level.
            return initialized.thenCompose(sent -> sendLogLevel(logLevel));
        }
        return initialized;
    }

    /**
     * The server forgot the session (an HTTP transport saw 404): run the handshake again over the same
     * transport, with the same capabilities. The transport holds other messages back meanwhile and
     * re-sends the requests the server refused once this completes.
     */
    @Override
    public CompletionStage<Void> onSessionExpired(String reason) {
        if (closeReason != null) {
            return CompletableFuture.failedFuture(closeReason);
        }
        LOG.debug("MCP server \"{}\": {}; initializing a new session", options.serverName(), reason);
        CallOptions initOptions = CallOptions.DEFAULT.withTimeout(options.initializeTimeout());
        return request("initialize", initializeParams(LATEST_PROTOCOL_VERSION), initOptions).thenCompose(this::accept);
    }

    private McpException connectFailure(Throwable cause) {
        String detail = cause.getMessage();
        if (cause instanceof McpTimeoutException) {
            // A timeout says nothing of why; what the server printed usually does.
            String diagnostics = transport.diagnostics();
            if (!diagnostics.isEmpty()) {
                detail += "; " + diagnostics;
            }
        }
        return new McpException("Failed to connect to MCP server \"" + options.serverName() + "\": " + detail, cause);
    }

    @Override
    public InitializeResult initializeResult() {
        return initializeResult;
    }

    @Override
    public String serverName() {
        return options.serverName();
    }

    // ---------------------------------------------------------------- requests

    @Override
    public CompletableFuture<JsonNode> request(String method, JsonNode params, CallOptions callOptions) {
        return request(method, params, callOptions, false);
    }

    /**
     * @param direct whether the response completes the future on the reader thread: only for futures
     *     that no user code can chain on (a blocking call's own), which saves the hand-off to a worker
     */
    private CompletableFuture<JsonNode> request(String method, JsonNode params, CallOptions callOptions,
            boolean direct) {
        return request(method, params, callOptions, direct, false);
    }

    /**
     * @param untimed whether the request has no timeout: only a {@code subscriptions/listen} stream, which
     *     lives as long as the session and ends with it
     */
    private CompletableFuture<JsonNode> request(String method, JsonNode params, CallOptions callOptions,
            boolean direct, boolean untimed) {
        return request(method, params, callOptions, direct, untimed, true, null);
    }

    /**
     * @param reissue whether a request of the stateless era whose response stream breaks
     *     ({@link McpStreamLostException}) is sent again as a new request with a new id, as that revision asks
     *     (once: the new request's own loss fails the call)
     * @param onId sees the id of the request before it is sent, and the new id of a request sent again; or
     *     {@code null}
     */
    private CompletableFuture<JsonNode> request(String method, JsonNode params, CallOptions callOptions,
            boolean direct, boolean untimed, boolean reissue, Consumer<RequestId> onId) {
        JsonNode original = params;
        CallFuture<JsonNode> future = new CallFuture<>();
        TransportClosedException reason = closeReason;
        if (reason != null) {
            future.completeExceptionally(reason);
            return future;
        }
        RequestId id = RequestId.of(nextId.getAndIncrement());
        CallOptions bounds = callOptions.withDefaults(options.requestTimeout(), CallLimits.NONE);
        if (callOptions.onProgress().isPresent() || CallClock.countsProgress(bounds)) {
            params = withProgressToken(params, id);
        }
        Envelope current = envelope;
        if (current != null) {
            params = current.apply(params, tasksOffered && TASK_METHODS.contains(method),
                    callOptions.caller().flatMap(Caller::capabilities));
        }
        String tool = method.equals("tools/call") && params != null && params.path("name").isString()
                ? params.get("name").asString() : null;
        McpTracing.Operation traced = tracing == McpTracing.NOOP ? McpTracing.Operation.NOOP
                : tracing.startClient(method, params, id, peer, protocolVersionNow(),
                        transport.sessionId().orElse(null));
        if (traced != McpTracing.Operation.NOOP) {
            params = traced.inject(params);
            future.beforeCompletion(traced::end);
        }
        Pending entry = new Pending(id, method, tool, future, bounds, direct, untimed);
        if (!untimed) {
            inUse.incrementAndGet();
            lastUse = System.nanoTime();
            future.whenComplete((value, error) -> {
                lastUse = System.nanoTime();
                inUse.decrementAndGet();
            });
        }
        pending.put(id, entry);
        reason = closeReason;
        if (reason != null && pending.remove(id, entry)) {
            future.completeExceptionally(reason);
            return future;
        }
        if (onId != null) {
            onId.accept(id);
        }
        entry.startClock();
        future.whenComplete((value, error) -> {
            if (error instanceof CancellationException && pending.remove(id, entry)) {
                entry.stopClock();
                sendCancelled(id, "cancelled by the client");
            }
        });
        transport.send(new JsonRpcRequest(id, method, params)).whenComplete((ignored, error) -> {
            if (error != null && pending.remove(id, entry)) {
                entry.stopClock();
                Throwable cause = unwrap(error);
                if (cause instanceof McpStreamLostException && reissue && current != null && closeReason == null) {
                    LOG.debug("MCP server \"{}\": {}; sending it again as a new request", options.serverName(),
                            cause.getMessage());
                    CompletableFuture<JsonNode> again = request(method, original, callOptions, direct, untimed, false,
                            onId);
                    future.whenComplete((value, failure) -> {
                        if (failure instanceof CancellationException) {
                            again.cancel(false);
                        }
                    });
                    again.whenComplete((value, failure) -> {
                        if (failure != null) {
                            future.completeExceptionally(unwrap(failure));
                        } else {
                            future.complete(value);
                        }
                    });
                    return;
                }
                ClientThreads.WORKERS.execute(() -> future.completeExceptionally(cause));
            }
        });
        return future;
    }

    /** @return the protocol version agreed so far, or {@code null} before it is */
    private String protocolVersionNow() {
        Envelope current = envelope;
        if (current != null) {
            return current.version();
        }
        InitializeResult init = initializeResult;
        return init == null ? null : init.protocolVersion();
    }

    private static JsonNode withProgressToken(JsonNode params, RequestId id) {
        ObjectNode copy = params != null && params.isObject() ? ((ObjectNode) params).deepCopy() : McpJson.object();
        JsonNode meta = copy.get("_meta");
        ObjectNode metaObject = meta != null && meta.isObject() ? (ObjectNode) meta : copy.putObject("_meta");
        metaObject.put("progressToken", ((RequestId.NumberId) id).value());
        return copy;
    }

    @Override
    public CompletableFuture<Void> notify(String method, JsonNode params) {
        TransportClosedException reason = closeReason;
        if (reason != null) {
            return CompletableFuture.failedFuture(reason);
        }
        return transport.send(new JsonRpcNotification(method, params));
    }

    private void sendCancelled(RequestId id, String why) {
        ObjectNode params = McpJson.object().put("reason", why);
        if (id instanceof RequestId.NumberId number) {
            params.put("requestId", number.value());
        } else {
            params.put("requestId", ((RequestId.StringId) id).value());
        }
        notify("notifications/cancelled", params).exceptionally(e -> null);
    }

    @Override
    public CompletableFuture<List<ToolDefinition>> listTools() {
        return listToolsWithHints().thenApply(ToolListing::tools);
    }

    @Override
    public CompletableFuture<ToolListing> listToolsWithHints() {
        Hints hints = new Hints();
        // Hints belong to the stateless revision; a server of the handshake era that sends them is not read.
        boolean hinted = envelope != null;
        return listAll("tools/list", "tools", "tool", ToolDefinition::fromJson, ToolDefinition::name,
                this::headersValid, hints::add, tools -> hints.listing(tools, hinted));
    }

    /** 2026-07-28: a tool whose x-mcp-header is invalid must be left out; the others stay. */
    private boolean headersValid(ToolDefinition tool) {
        Optional<String> badHeader = envelope == null ? Optional.empty() : ToolHeaders.problem(tool.inputSchema());
        badHeader.ifPresent(problem -> LOG.warn("MCP server \"{}\": tool \"{}\" left out: {}", options.serverName(),
                AgentText.clean(tool.name(), 64).text(), problem));
        return badHeader.isEmpty();
    }

    /** The caching hints of the pages of one tool listing ({@link CacheHints}: the shortest, shared only if all are). */
    private static final class Hints {
        CacheHints hints = new CacheHints(Long.MAX_VALUE, true);

        void add(JsonNode page) {
            hints = hints.and(CacheHints.read(page));
        }

        ToolListing listing(List<ToolDefinition> tools, boolean hinted) {
            return hinted ? new ToolListing(tools, Duration.ofMillis(hints.ttlMs()), hints.shared())
                    : ToolListing.unhinted(tools);
        }
    }

    // ---------------------------------------------------------------- prompts, resources, completions

    /**
     * @return a failed future when the server did not declare the capability (nothing is sent then), else
     *     {@code null}
     */
    private <T> CompletableFuture<T> missing(String capability, String method) {
        return undeclared(capabilities -> capabilities.path(capability), capability,
                "\"" + capability + "\" capability", method);
    }

    /**
     * @param declaration where the server's capabilities declare the feature (an object when they do)
     * @return a failed future naming the feature when the server did not declare it, else {@code null}
     */
    private <T> CompletableFuture<T> undeclared(Function<JsonNode, JsonNode> declaration, String feature,
            String declared, String method) {
        InitializeResult init = initializeResult;
        if (init != null && declaration.apply(init.capabilities()).isObject()) {
            return null;
        }
        return CompletableFuture.failedFuture(new McpException("MCP server \"" + options.serverName()
                + "\" does not offer " + feature + " (it declared no " + declared + "); " + method + " was not sent"));
    }

    @Override
    public CompletableFuture<List<PromptDefinition>> listPrompts() {
        CompletableFuture<List<PromptDefinition>> refused = missing("prompts", "prompts/list");
        return refused != null ? refused
                : listAll("prompts/list", "prompts", "prompt", PromptDefinition::fromJson, PromptDefinition::name);
    }

    @Override
    public CompletableFuture<List<ResourceDefinition>> listResources() {
        CompletableFuture<List<ResourceDefinition>> refused = missing("resources", "resources/list");
        return refused != null ? refused
                : listAll("resources/list", "resources", "resource", ResourceDefinition::fromJson,
                        ResourceDefinition::uri);
    }

    @Override
    public CompletableFuture<List<ResourceTemplate>> listResourceTemplates() {
        CompletableFuture<List<ResourceTemplate>> refused = missing("resources", "resources/templates/list");
        return refused != null ? refused
                : listAll("resources/templates/list", "resourceTemplates", "resource template",
                        ResourceTemplate::fromJson, ResourceTemplate::uriTemplate);
    }

    @Override
    public CompletableFuture<PromptResult> getPrompt(String name, Map<String, String> arguments,
            CallOptions callOptions) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(arguments, "arguments");
        CompletableFuture<PromptResult> refused = missing("prompts", "prompts/get");
        if (refused != null) {
            return refused;
        }
        ObjectNode params = McpJson.object().put("name", name);
        if (!arguments.isEmpty()) {
            ObjectNode args = params.putObject("arguments");
            arguments.forEach(args::put);
        }
        return parsed(multiRound("prompts/get", params, callOptions, false), "prompts/get " + name,
                PromptResult::fromJson);
    }

    @Override
    public CompletableFuture<ResourceResult> readResource(String uri, CallOptions callOptions) {
        Objects.requireNonNull(uri, "uri");
        CompletableFuture<ResourceResult> refused = missing("resources", "resources/read");
        if (refused != null) {
            return refused;
        }
        ObjectNode params = McpJson.object().put("uri", uri);
        return parsed(multiRound("resources/read", params, callOptions, false), "resources/read " + uri, json -> {
            ResourceResult result = ResourceResult.fromJson(json);
            long size = result.size();
            if (size > options.maxResourceBytes()) {
                throw new McpException("MCP server \"" + options.serverName() + "\": resource "
                        + AgentText.clean(uri, 200).text() + " is " + size + " bytes, over the limit of "
                        + options.maxResourceBytes() + " bytes (maxResourceBytes); not read");
            }
            return result;
        });
    }

    @Override
    public CompletableFuture<CompletionResult> complete(CompletionReference ref, String argument, String value,
            Map<String, String> context) {
        Objects.requireNonNull(ref, "ref");
        Objects.requireNonNull(argument, "argument");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(context, "context");
        CompletableFuture<CompletionResult> refused = missing("completions", "completion/complete");
        if (refused != null) {
            return refused;
        }
        ObjectNode params = McpJson.object();
        params.set("ref", ref.toJson());
        params.putObject("argument").put("name", argument).put("value", value);
        if (!context.isEmpty()) {
            ObjectNode args = params.putObject("context").putObject("arguments");
            context.forEach(args::put);
        }
        return parsed(request("completion/complete", params, CallOptions.DEFAULT), "completion/complete",
                CompletionResult::fromJson);
    }

    @Override
    public CompletableFuture<Void> subscribeResource(String uri) {
        Objects.requireNonNull(uri, "uri");
        CompletableFuture<Void> refused = cannotSubscribe(envelope == null ? "resources/subscribe" : "subscriptions/listen");
        return refused != null ? refused : subscriptions.subscribe(uri);
    }

    @Override
    public CompletableFuture<Void> unsubscribeResource(String uri) {
        Objects.requireNonNull(uri, "uri");
        CompletableFuture<Void> refused = cannotSubscribe(envelope == null ? "resources/unsubscribe"
                : "subscriptions/listen");
        return refused != null ? refused : subscriptions.unsubscribe(uri);
    }

    /**
     * How long the session has been unused: no request in flight (a {@code subscriptions/listen} stream aside) and
     * no task being followed, for this long since the last one started or settled.
     *
     * @return that time, or empty while the session is in use
     */
    public java.util.Optional<java.time.Duration> idleFor() {
        if (inUse.get() > 0 || !tasks.isEmpty()) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(java.time.Duration.ofNanos(Math.max(0, System.nanoTime() - lastUse)));
    }

    @Override
    public Set<String> subscribedResources() {
        return subscriptions.uris();
    }

    /** @return a failed future when the server declared no {@code resources.subscribe} (nothing sent), else null */
    private CompletableFuture<Void> cannotSubscribe(String method) {
        InitializeResult init = initializeResult;
        if (init != null && init.capabilities().path("resources").path("subscribe").asBoolean(false)) {
            return null;
        }
        return CompletableFuture.failedFuture(new McpException("MCP server \"" + options.serverName()
                + "\" does not offer resource subscriptions (its \"resources\" capability has no \"subscribe\": true); "
                + method + " was not sent"));
    }

    /** What {@link #subscriptions} ask of this session. */
    private ResourceSubscriptions.Session subscriptionSession() {
        return new ResourceSubscriptions.Session() {
            @Override
            public String serverName() {
                return options.serverName();
            }

            @Override
            public boolean modern() {
                return envelope != null;
            }

            @Override
            public boolean closed() {
                return closeReason != null;
            }

            @Override
            public CompletableFuture<JsonNode> request(String method, ObjectNode params) {
                return ClientSession.this.request(method, params, CallOptions.DEFAULT);
            }

            @Override
            public ListChanges.Listen listen(ObjectNode notifications) {
                return listChanges.openListen(notifications);
            }

            @Override
            public void updated(String uri) {
                resourceUpdated(uri);
            }
        };
    }

    /** What {@link #listChanges} ask of this session. */
    private ListChanges.Session listChangesSession() {
        return new ListChanges.Session() {
            @Override
            public CompletableFuture<JsonNode> listen(ObjectNode params, Consumer<RequestId> onId) {
                return ClientSession.this.request("subscriptions/listen", params, CallOptions.DEFAULT, false, true,
                        true, onId);
            }

            @Override
            public boolean closed() {
                return closeReason != null;
            }
        };
    }

    // ---------------------------------------------------------------- skills (io.modelcontextprotocol/skills)

    /**
     * @return a failed future when the server did not declare the skills extension (nothing is sent then), else
     *     {@code null}
     */
    private <T> CompletableFuture<T> withoutSkills(String method) {
        return undeclared(capabilities -> capabilities.path("extensions").path(SkillChecks.EXTENSION), "skills",
                "\"" + SkillChecks.EXTENSION + "\" extension", method);
    }

    @Override
    public CompletableFuture<List<SkillEntry>> listSkills() {
        CompletableFuture<List<SkillEntry>> refused = withoutSkills("skills/list");
        return refused != null ? refused : listAll("skills/list", "skills", "skill",
                json -> SkillEntry.fromJson(options.serverName(), json), SkillEntry::uri);
    }

    @Override
    public CompletableFuture<SkillEntry> getSkill(String uri) {
        Objects.requireNonNull(uri, "uri");
        CompletableFuture<SkillEntry> refused = withoutSkills("skills/get");
        if (refused != null) {
            return refused;
        }
        return parsed(request("skills/get", McpJson.object().put("uri", uri), CallOptions.DEFAULT), "skills/get " + uri,
                json -> {
                    SkillEntry entry = SkillEntry.fromJson(options.serverName(), json.path("skill"));
                    if (!entry.uri().equals(uri)) {
                        throw new McpException("MCP server \"" + options.serverName() + "\" answered skills/get "
                                + SkillChecks.shown(uri) + " with another skill, " + SkillChecks.shown(entry.uri()));
                    }
                    return entry;
                });
    }

    @Override
    public CompletableFuture<LoadedSkill> loadSkill(SkillEntry entry) {
        Objects.requireNonNull(entry, "entry");
        CompletableFuture<LoadedSkill> refused = withoutSkills("resources/read");
        if (refused != null) {
            return refused;
        }
        if (!entry.server().equals(options.serverName())) {
            return CompletableFuture.failedFuture(new McpException(otherOrigin(entry)));
        }
        try {
            SkillChecks.loadable(options.serverName(), entry);
        } catch (McpException e) {
            return CompletableFuture.failedFuture(e);
        }
        return readSkillResource(entry.resource(entry.uri()).orElseThrow(),
                file -> SkillChecks.load(options.serverName(), entry, file));
    }

    @Override
    public CompletableFuture<SkillFile> readSkillFile(LoadedSkill skill, String reference) {
        Objects.requireNonNull(skill, "skill");
        Objects.requireNonNull(reference, "reference");
        if (!skill.server().equals(options.serverName())) {
            return CompletableFuture.failedFuture(new McpException(otherOrigin(skill.entry())));
        }
        String uri = skill.entry().resolve(reference);
        Optional<SkillResource> listed = skill.entry().resource(uri);
        if (listed.isEmpty()) {
            return CompletableFuture.failedFuture(new McpVerificationException("MCP server \"" + options.serverName()
                    + "\": " + SkillChecks.shown(uri) + " is not a file of skill " + SkillChecks.shown(skill.entry().uri())
                    + " as the entry it was loaded by lists them; not read", uri));
        }
        CompletableFuture<SkillFile> refused = withoutSkills("resources/read");
        return refused != null ? refused : readSkillResource(listed.get(), file -> file);
    }

    /** A skill binds its reads to the server it came from: one server's entry never reads another's files. */
    private String otherOrigin(SkillEntry entry) {
        return "Skill " + SkillChecks.shown(entry.uri()) + " is of MCP server \"" + entry.server()
                + "\"; its files are not read from \"" + options.serverName() + "\"";
    }

    /**
     * Reads one listed file of a skill ({@code resources/read}, in either era) and verifies it; a file listed
     * over {@link ClientOptions#maxResourceBytes()} is not read at all.
     */
    private <T> CompletableFuture<T> readSkillResource(SkillResource listed, Function<SkillFile, T> then) {
        if (listed.size() > options.maxResourceBytes()) {
            return CompletableFuture.failedFuture(new McpException("MCP server \"" + options.serverName()
                    + "\": skill file " + SkillChecks.shown(listed.uri()) + " is listed at " + listed.size()
                    + " bytes, over the limit of " + options.maxResourceBytes() + " bytes (maxResourceBytes); not read"));
        }
        ObjectNode params = McpJson.object().put("uri", listed.uri());
        return parsed(multiRound("resources/read", params, CallOptions.DEFAULT, false), "resources/read " + listed.uri(),
                json -> then.apply(SkillChecks.verify(options.serverName(), listed, json)));
    }

    /**
     * The request's result, parsed; a result that cannot be read fails the future (never one left pending), and
     * cancelling the returned future cancels the request.
     */
    private <T> CompletableFuture<T> parsed(CompletableFuture<JsonNode> request, String what,
            Function<JsonNode, T> parse) {
        CompletableFuture<T> result = new CallFuture<>();
        cancelsWith(result, request);
        request.whenComplete((json, error) -> {
            if (error != null) {
                result.completeExceptionally(unwrap(error));
                return;
            }
            try {
                result.complete(parse.apply(json));
            } catch (McpException e) {
                result.completeExceptionally(e);
            } catch (RuntimeException e) {
                result.completeExceptionally(new McpException("MCP server \"" + options.serverName() + "\" answered "
                        + what + " with a result that cannot be read: " + e, e));
            }
        });
        return result;
    }

    /** Cancelling {@code result} cancels the {@code request} it waits on (the server hears of it). */
    private static void cancelsWith(CompletableFuture<?> result, CompletableFuture<?> request) {
        result.whenComplete((value, error) -> {
            if (error instanceof CancellationException) {
                request.cancel(false);
            }
        });
    }

    /** {@link #listAll(String, String, String, Function, Function, Predicate, Consumer, Function)} of plain items. */
    private <T> CompletableFuture<List<T>> listAll(String method, String member, String kind,
            Function<JsonNode, T> parse, Function<T, String> key) {
        return listAll(method, member, kind, parse, key, item -> true, page -> { }, items -> items);
    }

    /**
     * Lists every item of a paginated list method (tools, prompts, resources, templates), following
     * {@code nextCursor}: an item that cannot be read is skipped with a warning, one listed twice (by its key) keeps
     * the first, a repeated or malformed cursor or the page cap ({@link ClientOptions#maxListPages()}) ends the
     * listing with what it has. Cancelling the returned future cancels the page in flight.
     *
     * @param keep whether a parsed item stays (it says why not)
     * @param onPage sees every page's result
     * @param finish makes the result of the items
     */
    private <T, R> CompletableFuture<R> listAll(String method, String member, String kind,
            Function<JsonNode, T> parse, Function<T, String> key, Predicate<T> keep, Consumer<JsonNode> onPage,
            Function<List<T>, R> finish) {
        CompletableFuture<R> result = new CallFuture<>();
        listPage(new Listing<>(method, member, kind, parse, key, keep, onPage, finish), null, 1, result);
        return result;
    }

    /** One paginated listing in progress: what it lists and what its pages have given so far. */
    private record Listing<T, R>(String method, String member, String kind, Function<JsonNode, T> parse,
            Function<T, String> key, Predicate<T> keep, Consumer<JsonNode> onPage, Function<List<T>, R> finish,
            Map<String, T> items, Set<String> cursors) {
        Listing(String method, String member, String kind, Function<JsonNode, T> parse, Function<T, String> key,
                Predicate<T> keep, Consumer<JsonNode> onPage, Function<List<T>, R> finish) {
            this(method, member, kind, parse, key, keep, onPage, finish, new LinkedHashMap<>(), new HashSet<>());
        }

        R result() {
            return finish.apply(List.copyOf(items.values()));
        }
    }

    private <T, R> void listPage(Listing<T, R> listing, String cursor, int page, CompletableFuture<R> result) {
        ObjectNode params = cursor == null ? null : McpJson.object().put("cursor", cursor);
        CompletableFuture<JsonNode> request = request(listing.method(), params, CallOptions.DEFAULT);
        cancelsWith(result, request);
        request.whenComplete((json, error) -> {
            if (error != null) {
                result.completeExceptionally(unwrap(error));
                return;
            }
            JsonNode array = json.get(listing.member());
            if (array == null || !array.isArray()) {
                result.completeExceptionally(new McpException("MCP server \"" + options.serverName()
                        + "\" answered " + listing.method() + " without a \"" + listing.member() + "\" array"));
                return;
            }
            for (JsonNode element : array) {
                try {
                    T item = listing.parse().apply(element);
                    if (!listing.keep().test(item)) {
                        continue;
                    }
                    String key = listing.key().apply(item);
                    if (listing.items().putIfAbsent(key, item) != null) {
                        LOG.warn("MCP server \"{}\" listed {} \"{}\" twice; keeping the first", options.serverName(),
                                listing.kind(), AgentText.clean(key, 200).text());
                    }
                } catch (McpException e) {
                    LOG.warn("MCP server \"{}\": skipping a {}: {}", options.serverName(), listing.kind(),
                            e.getMessage());
                }
            }
            listing.onPage().accept(json);
            int count = listing.items().size();
            JsonNode next = json.get("nextCursor");
            if (next == null || next.isNull()) {
                result.complete(listing.result());
            } else if (!next.isString() || !listing.cursors().add(next.asString())) {
                LOG.warn("MCP server \"{}\" repeated the {} cursor {}; stopping after {} {}s", options.serverName(),
                        listing.method(), AgentText.clean(next.toString(), 100).text(), count, listing.kind());
                result.complete(listing.result());
            } else if (page >= options.maxListPages()) {
                LOG.warn("MCP server \"{}\": {} stopped at the page cap of {} ({} {}s)", options.serverName(),
                        listing.method(), options.maxListPages(), count, listing.kind());
                result.complete(listing.result());
            } else {
                listPage(listing, next.asString(), page + 1, result);
            }
        });
    }

    @Override
    public CompletableFuture<ToolResult> callTool(String name, JsonNode arguments, CallOptions callOptions) {
        return callTool(name, arguments, callOptions, false);
    }

    /**
     * Waits for the call with one thread hand-off less: the result's future is this method's own, so
     * the reader thread may complete it (and parse the result) and wake the caller directly.
     */
    @Override
    public ToolResult callToolBlocking(String name, JsonNode arguments) {
        return McpClient.await(callTool(name, arguments, CallOptions.DEFAULT, true));
    }

    private CompletableFuture<ToolResult> callTool(String name, JsonNode arguments, CallOptions callOptions,
            boolean direct) {
        ObjectNode params = McpJson.object().put("name", name);
        params.set("arguments", arguments == null ? McpJson.object() : arguments);
        CallOptions bounded = callOptions.withDefaults(options.toolCallTimeout(), options.callLimits());
        long start = System.nanoTime();
        activity.callSent();
        // A caller of its own answers a refusal until its user finishes on a page itself: it reaches it unchanged.
        CompletableFuture<JsonNode> request = bounded.caller().isPresent()
                ? multiRound("tools/call", params, bounded, direct)
                : UrlElicitations.retrying(options.serverName(), "tools/call " + name,
                        options.handlers().get(ClientOptions.ELICITATION_METHOD),
                        () -> multiRound("tools/call", params, bounded, direct));
        CompletableFuture<ToolResult> result = new CallFuture<>();
        // The task the server made of the call, once it has answered with one: a cancel then goes to it.
        AtomicReference<TaskPoller> task = new AtomicReference<>();
        result.whenComplete((value, error) -> {
            if (error instanceof CancellationException) {
                TaskPoller poller = task.get();
                if (poller != null) {
                    poller.cancel();
                } else {
                    request.cancel(false);
                }
            }
        });
        CompletableFuture<JsonNode> answer = !tasksOffered ? request : request.thenCompose(json -> {
            if (!TaskPoller.isTask(json)) {
                return CompletableFuture.completedFuture(json);
            }
            TaskPoller poller = new TaskPoller(taskSession(bounded.caller()), options.serverName(), name, bounded,
                    start, options.requestTimeout(), events);
            bounded.caller().ifPresent(caller -> {
                try {
                    caller.taskStarted();
                } catch (RuntimeException e) {
                    // A caller's own failure to pass the news on does not end the call: the task is followed anyway.
                    LOG.debug("MCP server \"{}\": the caller of {} failed on its task's start: {}",
                            options.serverName(), name, e.toString());
                }
            });
            task.set(poller);
            tasks.add(poller);
            CompletableFuture<JsonNode> followed = poller.follow(json);
            followed.whenComplete((value, error) -> tasks.remove(poller));
            TransportClosedException closing = closeReason;
            if (closing != null) {
                poller.closed(closing);
            }
            if (result.isCancelled()) {
                poller.cancel();
            }
            return followed;
        });
        answer.whenComplete((json, error) -> {
            if (error != null) {
                Throwable cause = unwrap(error);
                if (!(cause instanceof CancellationException)) {
                    // A cancellation is the caller's choice, not the server failing.
                    activity.callError("tools/call " + name + ": " + (cause.getMessage() == null ? cause.toString()
                            : cause.getMessage()));
                }
                result.completeExceptionally(cause);
                return;
            }
            ToolResult read;
            try {
                read = ToolResult.fromJson(json);
            } catch (RuntimeException e) {
                // Never a future left pending: a result that cannot be read fails the call.
                McpException failure = new McpException("MCP server \"" + options.serverName()
                        + "\" answered tools/call " + name + " with a result that cannot be read: " + e, e);
                activity.callError(failure.getMessage());
                result.completeExceptionally(failure);
                return;
            }
            if (read.isError()) {
                activity.toolError();
            }
            result.complete(read);
        });
        return result;
    }

    /**
     * What a {@link TaskPoller} asks of this session: the input its task asks for goes to the call's caller, as
     * the input a multi-round answer asks for does, so that a gateway puts it to the client whose call it is.
     */
    private TaskPoller.Session taskSession(Optional<Caller> caller) {
        return new TaskPoller.Session() {
            @Override
            public CompletableFuture<JsonNode> request(String method, JsonNode params, CallOptions callOptions) {
                return ClientSession.this.request(method, params, callOptions);
            }

            @Override
            public ObjectNode inputResponses(JsonNode inputRequests) {
                return ClientSession.this.inputResponses(inputRequests, caller);
            }
        };
    }

    // ---------------------------------------------------------------- inbound

    @Override
    public void onMessage(JsonRpcMessage message, RequestId during) {
        if (message instanceof JsonRpcRequest request) {
            try {
                onRequest(request, during);
            } catch (RuntimeException e) {
                warnings.warn("sent a message mcp-host cannot take ({}); ignored", e.toString());
            }
            return;
        }
        if (message instanceof JsonRpcNotification notification
                && notification.method().equals(ClientOptions.LOG_NOTIFICATION)) {
            toCaller(notification, during);
        }
        process(message);
    }

    /**
     * Passes a log message of the server to the call it belongs to, when that call's caller wants them: the call on
     * whose stream it came, else the one call in flight whose caller does (several: none, it cannot be told which).
     */
    private void toCaller(JsonRpcNotification notification, RequestId during) {
        synchronized (callerOrder) {
            toCallerInOrder(notification, during);
        }
    }

    private void toCallerInOrder(JsonRpcNotification notification, RequestId during) {
        Optional<Caller> caller;
        try {
            caller = caller(during, null);
        } catch (McpProtocolException e) {
            return;
        }
        if (caller.isEmpty()) {
            return;
        }
        markCallerEvents(during, caller.get());
        if (!events.offer(() -> {
            try {
                caller.get().log(notification.params());
            } catch (RuntimeException e) {
                LOG.debug("MCP server \"{}\": a caller failed on a log message: {}", options.serverName(), e.toString());
            }
        })) {
            droppedNotifications.incrementAndGet();
        }
    }

    /**
     * Notes on the calls a caller's log message may belong to that it waits on {@link #events}: their results then
     * come after it there, rather than overtake it and end the call before the message reaches the caller.
     */
    private void markCallerEvents(RequestId during, Caller caller) {
        if (during != null) {
            Pending call = pending.get(during);
            if (call != null) {
                call.callerEvents = true;
            }
            return;
        }
        for (Pending call : pending.values()) {
            if (call.callOptions.caller().filter(c -> c == caller).isPresent()) {
                call.callerEvents = true;
            }
        }
    }

    @Override
    public void onMessage(JsonRpcMessage message) {
        if (message instanceof JsonRpcNotification notification
                && notification.method().equals(ClientOptions.LOG_NOTIFICATION)) {
            toCaller(notification, null);
        }
        process(message);
    }

    private void process(JsonRpcMessage message) {
        try {
            if (message instanceof JsonRpcResponse response) {
                onResponse(response);
            } else if (message instanceof JsonRpcRequest request) {
                onRequest(request, null);
            } else if (message instanceof JsonRpcNotification notification) {
                onNotification(notification);
            }
        } catch (RuntimeException e) {
            // A field of a form nothing expected: one line, rate-limited, never a stack trace per message.
            warnings.warn("sent a message mcp-host cannot take ({}); ignored", e.toString());
        }
    }

    /** @param during the client request on whose stream it came, or {@code null} when the transport cannot say */
    private void onRequest(JsonRpcRequest request, RequestId during) {
        if (serverRequests.incrementAndGet() > options.maxServerRequests()) {
            serverRequests.decrementAndGet();
            refusedRequests.incrementAndGet();
            warnings.warn("has more than {} requests to mcp-host in progress; {} answered with an error",
                    options.maxServerRequests(), request.method());
            transport.send(new JsonRpcError(request.id(), JsonRpcError.INTERNAL_ERROR, "Client busy: more than "
                    + options.maxServerRequests() + " requests of this server are in progress", null))
                    .exceptionally(e -> null);
            return;
        }
        ClientThreads.WORKERS.execute(() -> {
            try {
                answer(request, during);
            } finally {
                serverRequests.decrementAndGet();
            }
        });
    }

    private void onResponse(JsonRpcResponse response) {
        Pending entry = response.id() == null ? null : pending.remove(response.id());
        if (entry == null) {
            if (response instanceof JsonRpcError error) {
                warnings.warn("sent an error for no request in flight: {} {}", error.code(),
                        AgentText.clean(String.valueOf(error.message()), 200).text());
            } else {
                LOG.debug("MCP server \"{}\" answered request {} which is no longer in flight", options.serverName(),
                        response.id());
            }
            return;
        }
        entry.stopClock();
        boolean afterEvents = entry.callOptions.onProgress().isPresent();
        if (!afterEvents && entry.callOptions.caller().isPresent()) {
            // A log message delivered before this result has marked the call, and taken its place on `events`, by
            // the time this lock is had. Only the decision is made under it: completing runs the caller's code.
            synchronized (callerOrder) {
                afterEvents = entry.callerEvents;
            }
        }
        if (afterEvents) {
            // Progress updates and the caller's log messages run on `events`: the result comes after the last of
            // them, not racing it.
            Runnable complete = response instanceof JsonRpcSuccess success
                    ? () -> entry.future.complete(success.result())
                    : () -> entry.future.completeExceptionally(protocolFailure((JsonRpcError) response));
            events.execute(() -> ClientThreads.WORKERS.execute(complete));
            return;
        }
        // Chained code runs on the reader thread only when it may block there (the transport reads on
        // past it), when the caller asked for it and promised not to block (directCompletion), or when no
        // user code can chain on the future (a blocking call's own).
        boolean inPlace = completeInPlace || entry.direct;
        if (response instanceof JsonRpcSuccess success) {
            if (inPlace) {
                completeHere(entry.future, success.result(), null);
            } else {
                ClientThreads.WORKERS.execute(() -> entry.future.complete(success.result()));
            }
        } else {
            McpProtocolException failure = protocolFailure((JsonRpcError) response);
            if (inPlace) {
                completeHere(entry.future, null, failure);
            } else {
                ClientThreads.WORKERS.execute(() -> entry.future.completeExceptionally(failure));
            }
        }
    }

    /**
     * Completes a future on the delivering thread, noting on the thread whose delivery it is, so that
     * code chained on it that waits ({@link McpClient#await}, or {@code get}/{@code join} of a
     * {@link CallFuture}) can tell the transport first ({@link #blockingHere()}).
     */
    private void completeHere(CompletableFuture<JsonNode> future, JsonNode result, Throwable failure) {
        ClientSession outer = COMPLETING.get();
        COMPLETING.set(this);
        try {
            if (failure == null) {
                future.complete(result);
            } else {
                future.completeExceptionally(failure);
            }
        } finally {
            COMPLETING.set(outer);
        }
    }

    /** The session whose response the current thread is completing in place, if any. */
    private static final ThreadLocal<ClientSession> COMPLETING = new ThreadLocal<>();

    /**
     * Called just before a wait for a future that is not done: if the current thread is completing a
     * response of a session in place, that session's transport reads on on another thread now rather
     * than after its watchdog's delay (the wait may be for a response only that transport can read).
     */
    public static void blockingHere() {
        ClientSession session = COMPLETING.get();
        if (session != null) {
            session.transport.listenerBlocking();
        }
    }

    private static McpProtocolException protocolFailure(JsonRpcError error) {
        return new McpProtocolException(error.code(), error.message(), error.data());
    }

    /** Tells the elicitation handler, in order with the session's other events, that a URL request is done. */
    private void onElicitationComplete(JsonNode params) {
        String id = params == null ? "" : params.path("elicitationId").asString("");
        if (id.isEmpty()) {
            warnings.warn("sent notifications/elicitation/complete without an elicitationId; ignored");
            return;
        }
        if (options.handlers().get(ClientOptions.ELICITATION_METHOD) instanceof ElicitationHandler handler
                && !events.offer(() -> handler.completed(id))) {
            droppedNotifications.incrementAndGet();
        }
    }

    private void onNotification(JsonRpcNotification notification) {
        switch (notification.method()) {
            case "notifications/progress" -> onProgress(notification.params());
            case "notifications/tools/list_changed" -> listChanges.onListChanged(ListChanges.ListKind.TOOLS);
            case "notifications/prompts/list_changed" -> listChanges.onListChanged(ListChanges.ListKind.PROMPTS);
            case "notifications/resources/list_changed" -> listChanges.onListChanged(ListChanges.ListKind.RESOURCES);
            case "notifications/resources/updated" -> onResourceUpdated(notification.params());
            case "notifications/message" -> onLogMessage(notification.params());
            case "notifications/cancelled" -> LOG.debug("MCP server \"{}\" cancelled its request: {}",
                    options.serverName(), notification.params());
            case "notifications/subscriptions/acknowledged" -> listChanges.onAcknowledged(notification.params());
            case "notifications/elicitation/complete" -> onElicitationComplete(notification.params());
            default -> {
                if (!events.offer(() -> options.listener().onNotification(notification))) {
                    droppedNotifications.incrementAndGet();
                    warnings.warn("sends notifications faster than they are taken ({} waiting); {} dropped",
                            events.capacity(), AgentText.clean(notification.method(), 100).text());
                }
            }
        }
    }

    /**
     * A log message: made an entry (cleaned, bounded, secrets masked) and kept on {@link #events}, in order and
     * off the reader thread, since the log may write a file; dropped and counted when too many wait.
     */
    private void onLogMessage(JsonNode params) {
        Instant received = Instant.now();
        if (!events.offer(() -> serverLog.append(LogMessages.entry(params, received)))) {
            droppedNotifications.incrementAndGet();
            warnings.warn("sends notifications faster than they are taken ({} waiting); a log message dropped",
                    events.capacity());
        }
    }

    @Override
    public ServerLog serverLog() {
        return serverLog;
    }

    @Override
    public CompletableFuture<Void> setLogLevel(LogLevel level) {
        Objects.requireNonNull(level, "level");
        logLevel = level;
        Envelope modern = envelope;
        if (modern != null) {
            modern.logLevel(level);
            return CompletableFuture.completedFuture(null);
        }
        InitializeResult result = initializeResult;
        if (result == null || !result.capabilities().has("logging")) {
            return CompletableFuture.completedFuture(null);
        }
        return logLevelRequest(level).thenApply(ignored -> null);
    }

    private CompletableFuture<JsonNode> logLevelRequest(LogLevel level) {
        return request("logging/setLevel", McpJson.object().put("level", level.wire()),
                CallOptions.DEFAULT.withTimeout(options.initializeTimeout()));
    }

    /** {@code logging/setLevel} after the handshake; a server that refuses it keeps its own level. */
    private CompletableFuture<Void> sendLogLevel(LogLevel level) {
        return logLevelRequest(level).handle((ignored, error) -> {
            if (error != null) {
                LOG.debug("MCP server \"{}\" did not take log level {}: {}", options.serverName(), level.wire(),
                        unwrap(error).getMessage());
            }
            return null;
        });
    }

    /**
     * {@code notifications/resources/updated}: to the listener, unless it comes on a listen stream that is no longer
     * the current one (stateless era); many for one URI before the listener took the first are one.
     */
    private void onResourceUpdated(JsonNode params) {
        JsonNode uri = params == null ? null : params.get("uri");
        if (uri == null || !uri.isString()) {
            warnings.warn("sent notifications/resources/updated without a uri; ignored");
            return;
        }
        if (!subscriptions.current(ListChanges.subscriptionId(params))) {
            LOG.debug("MCP server \"{}\": an update of {} on a subscription ended; ignored", options.serverName(),
                    AgentText.clean(uri.asString(), 200).text());
            return;
        }
        resourceUpdated(uri.asString());
    }

    private void resourceUpdated(String uri) {
        if (!updatesQueued.add(uri)) {
            coalescedListChanges.incrementAndGet();
            return;
        }
        if (!events.offer(() -> {
            updatesQueued.remove(uri);
            options.listener().onResourceUpdated(uri);
        })) {
            updatesQueued.remove(uri);
            droppedNotifications.incrementAndGet();
            warnings.warn("sends notifications faster than they are taken ({} waiting); {} dropped",
                    events.capacity(), "notifications/resources/updated");
        }
    }

    private void onProgress(JsonNode params) {
        if (params == null) {
            return;
        }
        JsonNode token = params.get("progressToken");
        // The tokens mcp-host sends are its request ids, longs: any other token (a string, a number of any
        // size, an object) is for no request in flight.
        Pending entry = token != null && token.isIntegralNumber() && token.canConvertToLong()
                ? pending.get(RequestId.of(token.longValue())) : null;
        if (entry == null) {
            if (LOG.isDebugEnabled()) {
                LOG.debug("MCP server \"{}\" sent progress for no request in flight: {}", options.serverName(),
                        token == null ? null : AgentText.clean(token.toString(), 100).text());
            }
            return;
        }
        entry.activity();
        if (entry.callOptions.onProgress().isEmpty()) {
            return;
        }
        JsonNode total = params.get("total");
        JsonNode message = params.get("message");
        JsonNode progress = params.get("progress");
        ProgressUpdate update = new ProgressUpdate(progress != null && progress.isNumber() ? progress.asDouble() : 0,
                total != null && total.isNumber() ? Optional.of(total.asDouble()) : Optional.empty(),
                message != null && message.isString() ? Optional.of(message.asString()) : Optional.empty());
        // Every update reaches the consumer in order while it keeps up (a gateway passes each one on); a flood to one
        // that does not holds MAX_QUEUED_PROGRESS, the newest replacing the last, not all.
        boolean draining;
        synchronized (entry.progress) {
            draining = !entry.progress.isEmpty();
            if (entry.progress.size() >= MAX_QUEUED_PROGRESS) {
                entry.progress.pollLast();
                coalescedProgress.incrementAndGet();
            }
            entry.progress.addLast(update);
        }
        if (draining) {
            return;
        }
        Consumer<ProgressUpdate> consumer = entry.callOptions.onProgress().get();
        events.execute(() -> {
            while (true) {
                ProgressUpdate next;
                synchronized (entry.progress) {
                    next = entry.progress.pollFirst();
                }
                if (next == null) {
                    return;
                }
                consumer.accept(next);
            }
        });
    }

    /** Every server request gets an answer: unanswered requests hang real servers. */
    private void answer(JsonRpcRequest request, RequestId during) {
        JsonRpcMessage response;
        try {
            response = new JsonRpcSuccess(request.id(), handle(request, caller(during, request.method())));
        } catch (McpProtocolException e) {
            response = new JsonRpcError(request.id(), e.code(), e.serverMessage(), e.data().orElse(null));
        } catch (Exception e) {
            LOG.warn("MCP server \"{}\": the handler of {} failed: {}", options.serverName(), request.method(),
                    e.toString());
            response = new JsonRpcError(request.id(), JsonRpcError.INTERNAL_ERROR,
                    "Client error: " + e.getMessage(), null);
        }
        transport.send(response).exceptionally(e -> {
            LOG.debug("MCP server \"{}\": could not answer {}: {}", options.serverName(), request.method(),
                    e.getMessage());
            return null;
        });
    }

    /**
     * The caller of the call a server message belongs to ({@link CallOptions#caller()}): the call on whose stream it
     * came; else, when the transport cannot say, the one call in flight whose caller takes it. Empty: the session's
     * handlers answer.
     *
     * @param during the client request on whose stream it came, or {@code null}
     * @param method the server request's method, or {@code null} for a log message
     * @throws McpProtocolException when calls of several callers that take it are in flight and the transport cannot
     *     say which one it belongs to: it reaches no caller
     */
    private Optional<Caller> caller(RequestId during, String method) throws McpProtocolException {
        if (during != null) {
            Pending call = pending.get(during);
            return call == null ? Optional.empty() : call.callOptions.caller();
        }
        Set<Caller> callers = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Pending call : pending.values()) {
            call.callOptions.caller().filter(caller -> method == null || caller.answers(method)).ifPresent(callers::add);
        }
        if (callers.size() > 1) {
            throw new McpProtocolException(JsonRpcError.INVALID_REQUEST, "Declined: calls of " + callers.size()
                    + " callers are in flight and this transport does not say which one the request belongs to", null);
        }
        return callers.stream().findFirst();
    }

    private JsonNode handle(JsonRpcRequest request, Optional<Caller> caller) throws Exception {
        if (caller.isPresent() && caller.get().answers(request.method())) {
            JsonNode result = caller.get().ask(request.method(), request.params());
            return result == null ? McpJson.object() : result;
        }
        ServerRequestHandler handler = options.handlers().get(request.method());
        if (handler != null) {
            JsonNode result = handler.handle(request.params());
            return result == null ? McpJson.object() : result;
        }
        if (request.method().equals("ping")) {
            return McpJson.object();
        }
        if (request.method().equals("roots/list") && options.roots().isPresent()) {
            ObjectNode result = McpJson.object();
            ArrayNode roots = result.putArray("roots");
            for (Root root : options.roots().get()) {
                ObjectNode item = roots.addObject().put("uri", root.uri());
                root.name().ifPresent(name -> item.put("name", name));
            }
            return result;
        }
        throw new McpProtocolException(JsonRpcError.METHOD_NOT_FOUND, "Method not found: " + request.method(), null);
    }

    // ---------------------------------------------------------------- closing

    @Override
    public void onClose(TransportClosedException reason) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        closeReason = reason;
        if (!closing) {
            // The connection dropped: the session ends here, with why as its error.
            sessionEnded(reason);
        }
        LOG.debug("MCP server \"{}\": {}", options.serverName(), reason.getMessage());
        warnings.flush();
        List<Pending> failed = new ArrayList<>();
        for (RequestId id : pending.keySet()) {
            Pending entry = pending.remove(id);
            if (entry != null) {
                entry.stopClock();
                failed.add(entry);
            }
        }
        List<TaskPoller> followed = List.copyOf(tasks);
        // The listener first: whoever sees a call fail with this reason then also sees the server as
        // closed in its owner's state (the manager's status, its tool view).
        events.execute(() -> {
            try {
                options.listener().onClose(reason);
            } finally {
                if (!failed.isEmpty()) {
                    ClientThreads.WORKERS.execute(() -> failed.forEach(entry -> entry.future.completeExceptionally(reason)));
                }
                followed.forEach(poller -> poller.closed(reason));
            }
        });
    }

    @Override
    public boolean isOpen() {
        return !closed.get();
    }

    @Override
    public Optional<TransportClosedException> closeReason() {
        return Optional.ofNullable(closeReason);
    }

    @Override
    public String diagnostics() {
        return transport.diagnostics();
    }

    @Override
    public void close() {
        closing = true;
        sessionEnded(null);
        transport.close();
        // The transport reports its close too; whichever comes first gives the reason.
        onClose(new TransportClosedException("closed by client"));
    }

    /** Records the session's duration, from connect to its end, once; not for a session that never connected. */
    private void sessionEnded(Throwable error) {
        if (tracing != McpTracing.NOOP && (initializeResult != null || envelope != null)
                && sessionRecorded.compareAndSet(false, true)) {
            tracing.sessionEnded(true, openedAt, peer, protocolVersionNow(), error);
        }
    }

    static Throwable unwrap(Throwable error) {
        Throwable current = error;
        while ((current instanceof CompletionException || current instanceof java.util.concurrent.ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    /** A request in flight. */
    private final class Pending {
        final RequestId id;
        final String method;
        /** The tool of a {@code tools/call}, else {@code null}. */
        final String tool;
        final CompletableFuture<JsonNode> future;
        /** The request's options, with its timeout and cap present. */
        final CallOptions callOptions;
        final boolean direct;
        /** The request's bounds; {@code null} for an untimed one. */
        final CallClock clock;
        /** Whether a log message for the call's caller was put on {@link #events} (set on the reader thread). */
        volatile boolean callerEvents;
        /**
         * The progress updates waiting for the consumer, oldest first, at most {@link #MAX_QUEUED_PROGRESS}; whenever
         * it is not empty, a task on {@link #events} is due to pass them on. Guarded by itself.
         */
        final ArrayDeque<ProgressUpdate> progress = new ArrayDeque<>();

        Pending(RequestId id, String method, String tool, CompletableFuture<JsonNode> future, CallOptions callOptions,
                boolean direct, boolean untimed) {
            this.id = id;
            this.direct = direct;
            this.method = method;
            this.tool = tool;
            this.future = future;
            this.callOptions = callOptions;
            long now = System.nanoTime();
            this.clock = untimed ? null : new CallClock(callOptions, now, now, this::expire);
        }

        void startClock() {
            if (clock != null) {
                clock.start();
            }
        }

        void stopClock() {
            if (clock != null) {
                clock.stop();
            }
        }

        void activity() {
            if (clock != null) {
                clock.activity();
            }
        }

        private void expire(CallClock.Expiry expiry) {
            if (pending.remove(id, this)) {
                McpTimeoutException failure;
                if (tool != null) {
                    failure = new McpTimeoutException(CallClock.message(options.serverName(), tool, expiry,
                            callOptions.resetTimeoutOnProgress()), expiry.value(), expiry.bound());
                } else if (expiry.bound() == McpTimeoutException.Bound.TIMEOUT) {
                    failure = new McpTimeoutException(expiry.value());
                } else {
                    failure = new McpTimeoutException("Request " + method + " ended by its "
                            + (expiry.bound() == McpTimeoutException.Bound.IDLE_TIMEOUT ? "idleTimeout" : "maxTotalTimeout")
                            + " of " + expiry.value().toMillis() + "ms", expiry.value(), expiry.bound());
                }
                LOG.debug("MCP server \"{}\": {}", options.serverName(), failure.getMessage());
                ClientThreads.WORKERS.execute(() -> future.completeExceptionally(failure));
                sendCancelled(id, expiry.bound() == McpTimeoutException.Bound.TIMEOUT
                        ? "Request timeout after " + expiry.value().toMillis() + "ms" : failure.getMessage());
            }
        }
    }
}
