package mcp.manager;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import mcp.api.CallLimits;
import mcp.api.LogLevel;
import mcp.protocol.McpTelemetry;

/**
 * Settings of one client session. Build with {@link #builder(String)}.
 *
 * @param serverName the server's name, used in messages and thread names
 * @param clientName sent as {@code clientInfo.name} (default {@code mcp-host})
 * @param clientVersion sent as {@code clientInfo.version}
 * @param initializeTimeout the bound of the {@code initialize} handshake (default 30 s)
 * @param requestTimeout the default bound of every other request (default 30 s)
 * @param toolCallTimeout the default bound of a {@code tools/call} (default: {@code requestTimeout})
 * @param roots the roots to offer; when present the client declares the {@code roots} capability and
 *     answers {@code roots/list}; absent: no roots capability, {@code roots/list} gets {@code -32601}
 * @param handlers answers to further server requests by method; a handler for
 *     {@code sampling/createMessage} declares {@code sampling}, one for {@code elicitation/create}
 *     declares {@code elicitation}
 * @param listener session events
 * @param maxListPages the most pages a paginated list follows (default 1,000)
 * @param directCompletion where responses complete their futures when the transport cannot deliver
 *     past a blocked listener ({@link mcp.api.spi.Transport#listenerMayBlock()} false: the HTTP
 *     transports). {@code false} (the default): on a worker thread, so that code chained on a future
 *     with the non-async methods may block, even on another request of the same session. {@code true}:
 *     on the transport's delivering thread, which saves a thread hand-off per response; chained code
 *     then must not block (chain with the {@code ...Async} methods and an executor for work that may),
 *     or the session stalls until the blocked request times out. Over a transport whose listener may
 *     block ({@code stdio}) responses always complete on the delivering thread, whatever this says:
 *     chained code may block there; a wait on a future of this client's (or one chained on it) has the
 *     transport read on on a new thread at once, any other block holds up that server's other responses
 *     for 10 to 20 ms, once (see BENCHMARKS.md for what the hand-off costs).
 *     Timeouts, closes and server requests use worker threads either way.
 * @param protocolVersion {@link McpClient#AUTO} (the default: mcp-host finds the server's era), or one of
 *     {@link McpClient#ALL_PROTOCOL_VERSIONS}, which is then the only one spoken
 * @param knownProtocolVersion in {@code auto}, the version this server spoke last time (remembered in the tool
 *     cache): a handshake-era one skips the {@code server/discover} probe
 * @param callLimits the idle timeout, cap and reset of a {@code tools/call} whose {@link CallOptions} leave
 *     them unset (default {@link CallLimits#NONE}: no idle timeout, the cap is the timeout, no reset; see
 *     {@link CallOptions#withDefaults})
 * @param maxResourceBytes the largest decoded size of a {@code resources/read} result (text in UTF-8, blobs
 *     decoded, all contents together; default {@link #DEFAULT_MAX_RESOURCE_BYTES}): a larger one fails that read
 *     with an {@link mcp.api.McpException} naming the server, the URI, the size and the limit, and the session
 *     stays up. The transport's own message limit still applies first.
 * @param logLevel the least severe log message asked of the server (default {@link LogLevel#INFO}): sent with
 *     {@code logging/setLevel} after the handshake to a server of the 2025 era that declares {@code logging}, and
 *     in the {@code _meta} of every request ({@code io.modelcontextprotocol/logLevel}) in the 2026-07-28 era
 * @param serverLog where the server's log messages are kept; empty: a log of the session's own, in memory
 *     ({@link ServerLog#DEFAULT_CAPACITY} entries)
 * @param maxServerRequests the most requests of the server answered at once (default
 *     {@link #DEFAULT_MAX_SERVER_REQUESTS}): one more is answered with an error at once, without running its handler,
 *     since a handler may block (it may ask a person) and each runs on a thread of its own. A gateway, whose clients'
 *     calls each may bring one, raises it, its own server bounding those calls
 * @param telemetry where the spans and metrics of this session's requests go, and whether trace context is carried
 *     in {@code _meta} (default {@link McpTelemetry#global()}: nothing when the application has no OpenTelemetry)
 * @param serverUrl the server's URL, for {@code server.address}, {@code server.port} and {@code network.transport}
 *     in telemetry; empty for a child process over stdio (the default)
 */
public record ClientOptions(String serverName, String clientName, String clientVersion, Duration initializeTimeout,
        Duration requestTimeout, Duration toolCallTimeout, Optional<List<Root>> roots, Map<String, ServerRequestHandler> handlers,
        ClientListener listener, int maxListPages, boolean directCompletion, String protocolVersion,
        Optional<String> knownProtocolVersion, CallLimits callLimits, long maxResourceBytes, LogLevel logLevel,
        Optional<ServerLog> serverLog, int maxServerRequests, McpTelemetry telemetry, Optional<java.net.URI> serverUrl) {

    /** The default {@link #maxServerRequests()}. */
    public static final int DEFAULT_MAX_SERVER_REQUESTS = 64;

    /** The default {@link #maxResourceBytes()}: 16 MiB. */
    public static final long DEFAULT_MAX_RESOURCE_BYTES = 16L << 20;

    /** The handler method that declares the {@code sampling} capability. */
    public static final String SAMPLING_METHOD = "sampling/createMessage";
    /** The handler method that declares the {@code elicitation} capability. */
    public static final String ELICITATION_METHOD = "elicitation/create";

    /**
     * The server's log messages: those that belong to a call reach that call's {@link Caller#log}; the server's log
     * keeps them all, as ever.
     */
    public static final String LOG_NOTIFICATION = "notifications/message";

    /** Validates and copies. */
    public ClientOptions {
        Objects.requireNonNull(serverName, "serverName");
        Objects.requireNonNull(clientName, "clientName");
        Objects.requireNonNull(clientVersion, "clientVersion");
        Objects.requireNonNull(initializeTimeout, "initializeTimeout");
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        Objects.requireNonNull(toolCallTimeout, "toolCallTimeout");
        roots = roots.map(List::copyOf);
        handlers = Map.copyOf(handlers);
        Objects.requireNonNull(listener, "listener");
        if (maxServerRequests < 1) {
            throw new IllegalArgumentException("maxServerRequests must be at least 1");
        }
        if (maxListPages < 1) {
            throw new IllegalArgumentException("maxListPages must be at least 1");
        }
        if (!protocolVersion.equals(McpClient.AUTO) && !McpClient.ALL_PROTOCOL_VERSIONS.contains(protocolVersion)) {
            throw new IllegalArgumentException("protocolVersion is \"auto\" or one of " + McpClient.ALL_PROTOCOL_VERSIONS
                    + ", not \"" + protocolVersion + "\"");
        }
        Objects.requireNonNull(knownProtocolVersion, "knownProtocolVersion");
        Objects.requireNonNull(callLimits, "callLimits");
        if (maxResourceBytes < 0) {
            throw new IllegalArgumentException("maxResourceBytes must not be negative");
        }
        Objects.requireNonNull(logLevel, "logLevel");
        Objects.requireNonNull(serverLog, "serverLog");
        Objects.requireNonNull(telemetry, "telemetry");
        Objects.requireNonNull(serverUrl, "serverUrl");
    }

    /**
     * @param serverName the server's name
     * @return a builder with every default set
     */
    public static Builder builder(String serverName) {
        return new Builder(serverName);
    }

    /** Builds {@link ClientOptions}. */
    public static final class Builder {
        private final String serverName;
        private String clientName = "mcp-host";
        private String clientVersion = McpClient.VERSION;
        private Duration initializeTimeout = Duration.ofSeconds(30);
        private Duration requestTimeout = Duration.ofSeconds(30);
        private Duration toolCallTimeout;
        private List<Root> roots;
        private final Map<String, ServerRequestHandler> handlers = new LinkedHashMap<>();
        private ClientListener listener = new ClientListener() {
        };
        private int maxListPages = 1000;
        private boolean directCompletion;
        private String protocolVersion = McpClient.AUTO;
        private String knownProtocolVersion;
        private CallLimits callLimits = CallLimits.NONE;
        private long maxResourceBytes = DEFAULT_MAX_RESOURCE_BYTES;
        private LogLevel logLevel = LogLevel.INFO;
        private ServerLog serverLog;
        private int maxServerRequests = DEFAULT_MAX_SERVER_REQUESTS;
        private McpTelemetry telemetry = McpTelemetry.global();
        private java.net.URI serverUrl;

        private Builder(String serverName) {
            this.serverName = Objects.requireNonNull(serverName, "serverName");
        }

        /** @return the name of the server these options are for */
        public String serverName() {
            return serverName;
        }

        /** @return this, with the name and version sent in {@code clientInfo} */
        public Builder clientInfo(String name, String version) {
            this.clientName = Objects.requireNonNull(name, "name");
            this.clientVersion = Objects.requireNonNull(version, "version");
            return this;
        }

        /** @return this, with the handshake bound */
        public Builder initializeTimeout(Duration value) {
            this.initializeTimeout = Objects.requireNonNull(value, "value");
            return this;
        }

        /** @return this, with the default request bound */
        public Builder requestTimeout(Duration value) {
            this.requestTimeout = Objects.requireNonNull(value, "value");
            return this;
        }

        /** @return this, with the default bound of tool calls (otherwise the request bound) */
        public Builder toolCallTimeout(Duration value) {
            this.toolCallTimeout = Objects.requireNonNull(value, "value");
            return this;
        }

        /** @return this, offering these roots */
        public Builder roots(List<Root> value) {
            this.roots = List.copyOf(value);
            return this;
        }

        /** @return this, answering server requests of this method with the handler */
        public Builder handler(String method, ServerRequestHandler handler) {
            handlers.put(Objects.requireNonNull(method, "method"), Objects.requireNonNull(handler, "handler"));
            return this;
        }

        /** @return this, with this listener */
        public Builder listener(ClientListener value) {
            this.listener = Objects.requireNonNull(value, "value");
            return this;
        }

        /** @return this, with this page cap */
        public Builder maxListPages(int value) {
            this.maxListPages = value;
            return this;
        }

        /** @return this; {@code true} completes futures on the transport's reader thread (see {@link ClientOptions}) */
        public Builder directCompletion(boolean value) {
            this.directCompletion = value;
            return this;
        }

        /** @return this, speaking only this protocol version, or {@link McpClient#AUTO} (the default) */
        public Builder protocolVersion(String value) {
            this.protocolVersion = Objects.requireNonNull(value, "value");
            return this;
        }

        /** @return this, with the version the server spoke last time (used in {@code auto}) */
        public Builder knownProtocolVersion(String value) {
            this.knownProtocolVersion = value;
            return this;
        }

        /** @return this, with these bounds of tool calls beside the timeout */
        public Builder callLimits(CallLimits value) {
            this.callLimits = Objects.requireNonNull(value, "value");
            return this;
        }

        /** @return this, with this bound of the decoded size of a {@code resources/read} result */
        public Builder maxResourceBytes(long value) {
            this.maxResourceBytes = value;
            return this;
        }

        /** @return this, asking the server for log messages of this level and above */
        public Builder logLevel(LogLevel value) {
            this.logLevel = Objects.requireNonNull(value, "value");
            return this;
        }

        /** @return this, keeping the server's log messages in this log */
        public Builder serverLog(ServerLog value) {
            this.serverLog = Objects.requireNonNull(value, "value");
            return this;
        }

        /**
         * @param value the most requests of the server answered at once ({@link ClientOptions#maxServerRequests()})
         * @return this
         */
        public Builder maxServerRequests(int value) {
            this.maxServerRequests = value;
            return this;
        }

        /**
         * @param value where spans and metrics go ({@link ClientOptions#telemetry()})
         * @return this
         */
        public Builder telemetry(McpTelemetry value) {
            this.telemetry = Objects.requireNonNull(value, "value");
            return this;
        }

        /**
         * @param value the server's URL, for telemetry ({@link ClientOptions#serverUrl()}); {@code null} for stdio
         * @return this
         */
        public Builder serverUrl(java.net.URI value) {
            this.serverUrl = value;
            return this;
        }

        /** @return the options */
        public ClientOptions build() {
            return new ClientOptions(serverName, clientName, clientVersion, initializeTimeout, requestTimeout,
                    toolCallTimeout == null ? requestTimeout : toolCallTimeout, Optional.ofNullable(roots), handlers, listener, maxListPages, directCompletion,
                    protocolVersion, Optional.ofNullable(knownProtocolVersion), callLimits,
                    maxResourceBytes, logLevel, Optional.ofNullable(serverLog), maxServerRequests, telemetry,
                    Optional.ofNullable(serverUrl));
        }
    }
}
