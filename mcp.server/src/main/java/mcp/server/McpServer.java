package mcp.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.SecureRandom;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import mcp.api.CompletionReference;
import mcp.api.PromptDefinition;
import mcp.api.ResourceDefinition;
import mcp.api.ResourceTemplate;
import mcp.api.ToolDefinition;
import mcp.protocol.CacheHints;
import mcp.protocol.McpTelemetry;
import mcp.server.internal.HttpFront;
import mcp.server.internal.ServerCore;
import mcp.server.internal.StdioEndpoint;

/**
 * An MCP server: both eras of MCP on one endpoint, over stdio and Streamable HTTP. What it serves comes from a
 * {@link RequestHandler}: typed tools, resources, templates, prompts and completions ({@link ServerFeatures}, which
 * the builder's {@code tool}, {@code resource}, ... fill), or a handler of one's own (a gateway's).
 *
 * <pre>{@code
 * McpServer server = McpServer.builder("weather", "1.0")
 *         .tool(ToolDefinition.of("forecast", "Tomorrow's weather", schema),
 *               (arguments, context) -> ToolResult.text("sunny"))
 *         .build();
 * server.serveStdio(System.in, System.out).awaitClosed(Duration.ofDays(365));
 * }</pre>
 *
 * <p>One server may serve several endpoints at once (stdio and HTTP); they share its state, its limits and its
 * events: {@link #toolsChanged()} and the others reach every client that listens, in either era.
 */
public final class McpServer implements AutoCloseable {

    private final ServerCore core;
    private final Optional<ServerFeatures> features;
    private final List<ServerEndpoint> endpoints = new CopyOnWriteArrayList<>();

    private McpServer(ServerCore core, Optional<ServerFeatures> features) {
        this.core = core;
        this.features = features;
    }

    /**
     * @param name the server's name ({@code serverInfo.name})
     * @param version its version
     * @return a builder
     */
    public static Builder builder(String name, String version) {
        return new Builder(name, version);
    }

    /** @return the typed features it serves, when it serves its own (not a handler given to the builder) */
    public Optional<ServerFeatures> features() {
        return features;
    }

    /**
     * Serves one client over stdio: newline-delimited JSON-RPC, read on a thread of its own.
     *
     * @param in what the client writes (the process's standard input)
     * @param out what the client reads (the process's standard output; nothing else may write to it)
     * @return the endpoint; it ends when the input ends
     */
    public ServerEndpoint serveStdio(InputStream in, OutputStream out) {
        StdioEndpoint endpoint = new StdioEndpoint(core, Objects.requireNonNull(in, "in"),
                Objects.requireNonNull(out, "out"));
        endpoints.add(endpoint);
        endpoint.start();
        return endpoint;
    }

    /**
     * Serves Streamable HTTP.
     *
     * @param options where and how; {@link HttpOptions#LOOPBACK} for loopback on any port
     * @return the endpoint, listening
     * @throws IOException if the address cannot be bound
     */
    public HttpEndpoint serveHttp(HttpOptions options) throws IOException {
        HttpEndpoint endpoint = HttpFront.start(core, Objects.requireNonNull(options, "options"));
        endpoints.add(endpoint);
        return endpoint;
    }

    /** Tells every client that listens that the tools changed ({@code notifications/tools/list_changed}). */
    public void toolsChanged() {
        core.listChanged("notifications/tools/list_changed");
    }

    /**
     * Tells one client that its tools changed: a handler that gives each client a list of its own changed that
     * client's only.
     *
     * @param clientId the client ({@link RequestContext#clientId()})
     */
    public void toolsChanged(String clientId) {
        core.listChanged("notifications/tools/list_changed", Objects.requireNonNull(clientId, "clientId"));
    }

    /** Tells every client that listens that the prompts changed. */
    public void promptsChanged() {
        core.listChanged("notifications/prompts/list_changed");
    }

    /** Tells every client that listens that the resources changed. */
    public void resourcesChanged() {
        core.listChanged("notifications/resources/list_changed");
    }

    /**
     * Tells every client subscribed to a resource that it changed ({@code notifications/resources/updated}).
     *
     * @param uri the resource's URI
     */
    public void resourceUpdated(String uri) {
        core.resourceUpdated(Objects.requireNonNull(uri, "uri"));
    }

    /**
     * Shuts down gracefully, before {@link #close()}: from now on every endpoint refuses new requests (HTTP: 503 with
     * {@code Retry-After} and a JSON-RPC error; stdio: the error as the answer) while the requests in flight go on,
     * for at most {@code bound}; what they still need of their clients (answers to the server's requests, the retries
     * of input rounds, cancellations) is still taken. A request still running at the bound is answered with an error
     * that says the server shut down, and cancelled (its handler sees {@link RequestContext#cancellation()}).
     * Sessions and streams stay open until {@link #close()}.
     *
     * @param bound how long the requests in flight may take
     * @return how many requests were still running at the bound
     * @throws InterruptedException if interrupted while waiting (nothing is cancelled then)
     */
    public int drain(java.time.Duration bound) throws InterruptedException {
        return core.drain(Objects.requireNonNull(bound, "bound"));
    }

    /** Stops every endpoint and ends every session and call. Idempotent. */
    @Override
    public void close() {
        endpoints.forEach(ServerEndpoint::close);
        core.close();
    }

    /**
     * Builds a server. Either a {@link #handler(RequestHandler)} or the typed declarations ({@link #tool},
     * {@link #resource}, {@link #resourceTemplate}, {@link #prompt}, {@link #completion}), not both.
     */
    public static final class Builder {
        private final String name;
        private final String version;
        private Optional<String> title = Optional.empty();
        private Optional<String> instructions = Optional.empty();
        private RequestHandler handler;
        private ServerFeatures features;
        private ServerLimits limits = ServerLimits.DEFAULT;
        private CacheHints cacheHints = CacheHints.NONE;
        private byte[] stateKey;
        private ReplicaKeys replicaKeys;

        private Builder(String name, String version) {
            this.name = Objects.requireNonNull(name, "name");
            this.version = Objects.requireNonNull(version, "version");
        }

        /**
         * @param text a display title ({@code serverInfo.title})
         * @return this
         */
        public Builder title(String text) {
            this.title = Optional.of(text);
            return this;
        }

        /**
         * @param text what the server tells clients about itself ({@code instructions})
         * @return this
         */
        public Builder instructions(String text) {
            this.instructions = Optional.of(text);
            return this;
        }

        /**
         * @param requestHandler what answers the requests about the server's features
         * @return this
         */
        public Builder handler(RequestHandler requestHandler) {
            this.handler = Objects.requireNonNull(requestHandler, "requestHandler");
            return this;
        }

        private ServerFeatures features() {
            if (features == null) {
                features = new ServerFeatures();
            }
            return features;
        }

        /**
         * @param definition a tool
         * @param toolHandler what runs it
         * @return this
         */
        public Builder tool(ToolDefinition definition, ToolHandler toolHandler) {
            features().tool(definition, toolHandler);
            return this;
        }

        /**
         * @param definition a tool
         * @param taskSupport whether it may, or must, run as a task ({@link ServerFeatures#tool(ToolDefinition,
         *     TaskSupport, ToolHandler)})
         * @param toolHandler what runs it
         * @return this
         */
        public Builder tool(ToolDefinition definition, TaskSupport taskSupport, ToolHandler toolHandler) {
            features().tool(definition, taskSupport, toolHandler);
            return this;
        }

        /**
         * @param definition a tool
         * @param taskSupport whether it may, or must, run as a task
         * @param toolHandler what runs it: it may ask for input first, then {@link RequestContext#runAsTask}
         *     ({@link ServerFeatures#toolWithDeferredTask})
         * @return this
         */
        public Builder toolWithDeferredTask(ToolDefinition definition, TaskSupport taskSupport,
                ToolHandler toolHandler) {
            features().toolWithDeferredTask(definition, taskSupport, toolHandler);
            return this;
        }

        /**
         * @param definition a resource
         * @param reader what reads it
         * @return this
         */
        public Builder resource(ResourceDefinition definition, ResourceReader reader) {
            features().resource(definition, reader);
            return this;
        }

        /**
         * @param definition a resource template
         * @param reader what reads the URIs it matches
         * @return this
         */
        public Builder resourceTemplate(ResourceTemplate definition, ResourceReader reader) {
            features().resourceTemplate(definition, reader);
            return this;
        }

        /**
         * @param definition a prompt
         * @param promptHandler what fills it in
         * @return this
         */
        public Builder prompt(PromptDefinition definition, PromptHandler promptHandler) {
            features().prompt(definition, promptHandler);
            return this;
        }

        /**
         * @param reference a prompt or resource template
         * @param completionHandler what completes its arguments
         * @return this
         */
        public Builder completion(CompletionReference reference, CompletionHandler completionHandler) {
            features().completion(reference, completionHandler);
            return this;
        }

        /**
         * @param serverLimits the bounds (default {@link ServerLimits#DEFAULT})
         * @return this
         */
        public Builder limits(ServerLimits serverLimits) {
            this.limits = Objects.requireNonNull(serverLimits, "serverLimits");
            return this;
        }

        /**
         * @param hints the caching hints of cacheable results that state none, in the stateless revision (default
         *     {@link CacheHints#NONE}: not to be reused, not to be shared)
         * @return this
         */
        public Builder cacheHints(CacheHints hints) {
            this.cacheHints = Objects.requireNonNull(hints, "hints");
            return this;
        }

        /**
         * @param key the HMAC key of the {@code requestState} of {@code input_required} rounds, at least 32 bytes
         *     (default: random, new for each server); servers behind one load balancer that hand calls over to each
         *     other would share one
         * @return this
         */
        public Builder requestStateKey(byte[] key) {
            if (key.length < 32) {
                throw new IllegalArgumentException("the request state key must have at least 32 bytes");
            }
            this.stateKey = key.clone();
            return this;
        }

        /**
         * Makes this server one of several replicas behind a load balancer: the {@code requestState} of
         * {@code input_required} rounds is sealed with these keys (a retry that reaches a replica where its call does
         * not wait runs the request again there, with the answers the state carries), and session ids of the
         * handshake era are sealed with them too (AES-GCM, with what the session needs), so that any replica with the
         * keys serves any session. Without it (the default) the request state key is this server's own and session
         * ids are random: a session lives in this process only. Replaces {@link #requestStateKey}.
         *
         * @param keys the keys every replica is given
         * @return this
         */
        public Builder replicaKeys(ReplicaKeys keys) {
            this.replicaKeys = java.util.Objects.requireNonNull(keys, "keys");
            return this;
        }

        /**
         * @param value where the {@code SERVER} spans and the {@code mcp.server.operation.duration} histogram of the
         *     requests served go, each span continuing the trace context of its request's {@code params._meta}
         *     (default {@link McpTelemetry#global()}: nothing when the application has no OpenTelemetry)
         * @return this
         */
        public Builder telemetry(McpTelemetry value) {
            this.telemetry = Objects.requireNonNull(value, "value");
            return this;
        }

        private McpTelemetry telemetry = McpTelemetry.global();

        /** @return the server */
        public McpServer build() {
            if (handler != null && features != null) {
                throw new IllegalStateException("a server takes a handler or typed declarations, not both");
            }
            ServerFeatures typed = handler == null ? features() : null;
            byte[] key = stateKey;
            if (key == null) {
                key = new byte[32];
                new SecureRandom().nextBytes(key);
            }
            ServerCore core = replicaKeys != null
                    ? new ServerCore(name, version, title, instructions, handler != null ? handler : typed, limits,
                            cacheHints, replicaKeys)
                    : new ServerCore(name, version, title, instructions, handler != null ? handler : typed, limits,
                            cacheHints, key);
            core.telemetry(telemetry);
            if (typed != null) {
                typed.onChange(core::listChanged);
            }
            return new McpServer(core, Optional.ofNullable(typed));
        }
    }
}
