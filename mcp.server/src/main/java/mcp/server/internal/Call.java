package mcp.server.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.api.LogLevel;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.api.jsonrpc.RequestId;
import mcp.protocol.Era;
import mcp.protocol.ErrorCodes;
import mcp.protocol.McpHeaders;
import mcp.protocol.McpMethods;
import mcp.protocol.Meta;
import mcp.server.InputRequest;
import mcp.server.Caller;
import mcp.server.RequestContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One client request being served: the {@link RequestContext} its handler gets, and what the server keeps about it
 * until it is answered. A multi round-trip request of the stateless revision is one call over all its rounds: the
 * handler runs once, and each round's HTTP request (or stdio request) becomes the call's {@link #channel} in turn.
 *
 * <p>State: {@link #lock} guards the round fields ({@link #open}, {@link #asked}, {@link #round}, {@link #expiry},
 * {@link #presets}); {@link #channel} and {@link #roundId} are written under it and read without it (volatile). A
 * round with keys still missing is in {@link #open} until the client's answers complete it.
 */
final class Call implements RequestContext {

    /** A round of input asked for and not fully answered yet. */
    static final class Round {
        final Map<String, InputRequest> missing;
        final Map<String, JsonNode> answers;
        final CompletableFuture<Map<String, JsonNode>> future = new CompletableFuture<>();

        Round(Map<String, InputRequest> missing, Map<String, JsonNode> answers) {
            this.missing = missing;
            this.answers = answers;
        }
    }

    final ServerCore core;
    final Era era;
    final String protocolVersion;
    final JsonNode capabilities;
    final Optional<JsonNode> clientInfo;
    /** The handshake-era client, or {@code null} in the stateless revision. */
    final HandshakeSession session;
    final String method;
    final ObjectNode params;
    final JsonNode meta;
    private final Optional<JsonNode> progressToken;
    /** The stateless revision's log level of the request; the session's is read live in the handshake era. */
    private final Optional<LogLevel> requestLogLevel;
    private final CompletableFuture<Void> cancellation = new CompletableFuture<>();
    private final AtomicInteger keys = new AtomicInteger();
    volatile Channel channel;
    private final Caller caller;
    volatile RequestId roundId;
    /** The handler's answer; set once the handler was called. */
    volatile CompletableFuture<JsonNode> result;
    /** The task this call runs as, or {@code null} for a plain call; set before the call starts. */
    volatile ServerTask task;
    /**
     * Whose task this call becomes when its handler asks ({@link #runAsTask}), or {@code null}: set for a call whose
     * task is deferred, until it becomes one. Guarded by {@link #lock}.
     */
    Object taskOwner;
    /**
     * Whether a call whose task is deferred must still be answered with a task if it ends first; set before the call
     * starts.
     */
    boolean taskRequired;
    /** The stateless client's connection (stdio), or {@code null}: see {@link #clientId()}. */
    volatile String connection;
    /** Ended by the server's shutdown: unlike a client's cancellation, it is answered (with the error saying so). */
    volatile boolean aborted;

    final Object lock = new Object();
    /** Answers the client sent with the first round of a call (a retry without state): an ask takes them at once. */
    Map<String, JsonNode> presets = Map.of();
    /** The answers the client sent with its retries so far, by key: what a state carries to another replica. */
    final Map<String, JsonNode> given = new LinkedHashMap<>();
    final List<Round> open = new ArrayList<>();
    /** Completes when a round with missing keys is asked; replaced when the round goes to the client. */
    CompletableFuture<Void> asked = new CompletableFuture<>();
    int round;
    String waitingId;
    ScheduledFuture<?> expiry;

    Call(ServerCore core, Era era, String protocolVersion, JsonNode capabilities, Optional<JsonNode> clientInfo,
            HandshakeSession session, String method, ObjectNode params, Optional<LogLevel> requestLogLevel,
            RequestId id, Channel channel) {
        this.core = core;
        this.era = era;
        this.protocolVersion = protocolVersion;
        this.capabilities = capabilities;
        this.clientInfo = clientInfo;
        this.session = session;
        this.method = method;
        this.params = params;
        this.meta = Meta.of(params).orElseGet(McpJson::object);
        this.progressToken = Meta.progressToken(params);
        this.requestLogLevel = requestLogLevel;
        this.roundId = id;
        this.channel = channel;
        // The first round's sender is the call's: later rounds carry the same call, whoever's connection they use.
        this.caller = channel.caller();
    }

    @Override
    public Caller caller() {
        return caller;
    }

    @Override
    public Era era() {
        return era;
    }

    @Override
    public String protocolVersion() {
        return protocolVersion;
    }

    @Override
    public JsonNode clientCapabilities() {
        return capabilities;
    }

    @Override
    public Optional<JsonNode> clientInfo() {
        return clientInfo;
    }

    @Override
    public Optional<String> sessionId() {
        return session == null ? Optional.empty() : Optional.ofNullable(session.id);
    }

    @Override
    public Optional<String> clientId() {
        return session != null ? Optional.of(session.clientId) : Optional.ofNullable(connection);
    }

    @Override
    public JsonNode meta() {
        return meta;
    }

    @Override
    public void progress(double progress, double total, String message) {
        ServerTask running = task;
        if (running != null && !cancelled()) {
            running.progressed(progress, total, message);
        }
        Channel current = channel;
        if (progressToken.isEmpty() || current == null || cancelled()) {
            return;
        }
        ObjectNode notification = McpJson.object();
        notification.set(Meta.PROGRESS_TOKEN, progressToken.get());
        notification.put("progress", progress);
        if (total >= 0) {
            notification.put("total", total);
        }
        if (message != null) {
            notification.put("message", message);
        }
        current.send(new JsonRpcNotification("notifications/progress", notification));
    }

    @Override
    public void log(LogLevel level, String logger, JsonNode data) {
        Channel current = channel;
        Optional<LogLevel> threshold = session != null ? Optional.of(session.logLevel) : requestLogLevel;
        if (current == null || threshold.isEmpty() || !level.atLeast(threshold.get()) || cancelled()) {
            return;
        }
        ObjectNode params = McpJson.object().put("level", level.wire());
        if (logger != null) {
            params.put("logger", logger);
        }
        params.set("data", data);
        current.send(new JsonRpcNotification("notifications/message", params));
    }

    @Override
    public boolean cancelled() {
        return cancellation.isDone();
    }

    @Override
    public CompletableFuture<Void> cancellation() {
        return cancellation.thenApply(ignored -> null);
    }

    @Override
    public String nextKey(String prefix) {
        return prefix + "-" + keys.incrementAndGet();
    }

    @Override
    public boolean closeStream() {
        Channel current = channel;
        return current != null && !cancelled() && current.closeStream();
    }

    @Override
    public boolean runAsTask() {
        return core.becomeTask(this);
    }

    @Override
    public CompletableFuture<Map<String, JsonNode>> ask(Map<String, InputRequest> requests) {
        if (requests.isEmpty()) {
            return CompletableFuture.completedFuture(Map.of());
        }
        for (InputRequest request : requests.values()) {
            Optional<String> capability = McpMethods.clientCapabilityOf(request.method());
            if (capability.isEmpty()) {
                return CompletableFuture.failedFuture(new IllegalArgumentException("not a request a server may ask of "
                        + "a client: " + request.method()));
            }
            if (!declares(capability.get())) {
                return CompletableFuture.failedFuture(ErrorCodes.missingClientCapability(capability.get(),
                        request.method() + " during " + method));
            }
        }
        if (cancelled()) {
            return CompletableFuture.failedFuture(new CancellationException("the request was cancelled"));
        }
        ServerTask running = task;
        if (running != null) {
            CompletableFuture<Map<String, JsonNode>> answers = running.ask(new LinkedHashMap<>(requests));
            cancellation.whenComplete((ignored, error) -> answers.cancel(false));
            return answers;
        }
        if (era == Era.STATELESS && !McpMethods.MULTI_ROUND.contains(method)) {
            return CompletableFuture.failedFuture(new McpException("the stateless revision lets a server ask the "
                    + "client for input only while it serves " + String.join(", ", new java.util.TreeSet<>(
                    McpMethods.MULTI_ROUND)) + ", not " + method));
        }
        return era == Era.HANDSHAKE ? askInSession(requests) : core.inputs.ask(this, new LinkedHashMap<>(requests));
    }

    private CompletableFuture<Map<String, JsonNode>> askInSession(Map<String, InputRequest> requests) {
        Channel current = channel;
        if (current == null || !current.carriesRequests()) {
            return CompletableFuture.failedFuture(new McpException("the client accepts no event stream for "
                    + method + ", so the server cannot ask it for input"));
        }
        Map<String, CompletableFuture<JsonNode>> answers = new LinkedHashMap<>();
        requests.forEach((key, request) -> answers.put(key, session.request(request.method(), request.params(),
                current)));
        CompletableFuture<Map<String, JsonNode>> all = CompletableFuture.allOf(answers.values()
                .toArray(CompletableFuture[]::new)).thenApply(ignored -> {
                    Map<String, JsonNode> results = new HashMap<>();
                    answers.forEach((key, answer) -> results.put(key, answer.join()));
                    return results;
                });
        cancellation.whenComplete((ignored, error) -> answers.values().forEach(answer -> answer.cancel(false)));
        return all;
    }

    /**
     * Cancels the call: its handler's future and its open rounds are cancelled, and the handler sees
     * {@link #cancelled()}.
     */
    void cancel(String why) {
        if (!cancellation.complete(null)) {
            return;
        }
        ServerCore.LOG.debug("MCP request {} {} cancelled: {}", roundId, method, why);
        CompletableFuture<JsonNode> running = result;
        if (running != null) {
            running.cancel(false);
        }
        List<Round> rounds;
        synchronized (lock) {
            rounds = new ArrayList<>(open);
            open.clear();
        }
        rounds.forEach(round -> round.future.cancel(false));
        core.inputs.forget(this);
    }

    /**
     * Ends a call the server will not wait for any longer (its shutdown's bound): the client is answered with the
     * error, then the call is cancelled as a client's cancellation cancels it, so that its handler stops (a gateway
     * cancels its upstream request).
     */
    void abort(Throwable error) {
        aborted = true;
        CompletableFuture<JsonNode> running = result;
        if (running != null) {
            running.completeExceptionally(error);
        }
        cancel("the server shut down: " + error.getMessage());
    }

    /** @return the name or URI the call acts on ({@code ""} for none): what binds its request state */
    String subject() {
        return McpHeaders.nameOf(method, params).orElse("");
    }
}
