package mcp.protocol.internal;

import mcp.api.jsonrpc.RequestId;
import mcp.protocol.McpTelemetry;
import tools.jackson.databind.JsonNode;

/**
 * The spans and metrics of MCP requests, by the OpenTelemetry semantic conventions, without a type of
 * OpenTelemetry's in sight: the client and server sides call this, and only {@link OtelTracing} touches the API,
 * loaded only when the API is present and readable. {@link #NOOP} costs a virtual call and nothing else.
 */
public abstract class McpTracing {

    /** Emits nothing and leaves requests as they are. */
    public static final McpTracing NOOP = new McpTracing() {
        @Override
        public Operation startClient(String method, JsonNode params, RequestId id, Peer peer, String protocolVersion,
                String sessionId) {
            return Operation.NOOP;
        }

        @Override
        public Operation startServer(String method, JsonNode params, RequestId id, Peer peer, String protocolVersion,
                String sessionId) {
            return Operation.NOOP;
        }

        @Override
        public void sessionEnded(boolean client, long startNanos, Peer peer, String protocolVersion, Throwable error) {
        }
    };

    /**
     * Where the other side is, for {@code network.transport}, {@code network.protocol.name},
     * {@code server.address} and {@code server.port}.
     *
     * @param transport {@code pipe} (stdio) or {@code tcp}
     * @param protocolName {@code http}, or {@code null}
     * @param address the server's host, or {@code null}
     * @param port the server's port, or {@code -1}
     */
    public record Peer(String transport, String protocolName, String address, int port) {
        /** A child process over stdio. */
        public static final Peer STDIO = new Peer("pipe", null, null, -1);

        /**
         * @param url the server's URL, or {@code null} for stdio
         * @return the peer
         */
        public static Peer of(java.net.URI url) {
            if (url == null) {
                return STDIO;
            }
            int port = url.getPort();
            if (port < 0) {
                port = "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
            }
            return new Peer("tcp", "http", url.getHost(), port);
        }
    }

    /** One request being traced. */
    public interface Operation {
        /** Traces nothing. */
        Operation NOOP = new Operation() {
        };

        /**
         * @param params the request's params
         * @return them with the trace context in {@code _meta} (a copy), or the same when there is none to carry
         */
        default JsonNode inject(JsonNode params) {
            return params;
        }

        /**
         * @return a scope in which this operation's span is the current one (the server side, so that the handler's
         *     own requests are its children); close it on the same thread
         */
        default AutoCloseable makeCurrent() {
            return () -> { };
        }

        /**
         * Ends the span and records the duration. Once; later calls do nothing.
         *
         * @param result the response's result, or {@code null}
         * @param error the failure, or {@code null}: a JSON-RPC error's code becomes {@code error.type} and
         *     {@code rpc.response.status_code}
         */
        default void end(JsonNode result, Throwable error) {
        }
    }

    /**
     * @param telemetry the application's choice
     * @return the tracing for it: {@link #NOOP} when it is {@link McpTelemetry#none()} or the API is missing
     */
    public static McpTracing of(McpTelemetry telemetry) {
        if (!telemetry.enabled() || !ApiPresence.PRESENT) {
            return NOOP;
        }
        return OtelTracing.create(telemetry);
    }

    /**
     * Starts the {@code CLIENT} span of a request about to be sent, a child of the current context; or, when the
     * current span is the application's own {@code execute_tool} span for this call, adds the attributes there.
     *
     * @param sessionId the HTTP session's id ({@code Mcp-Session-Id}) for {@code mcp.session.id}, or {@code null}
     *     (stdio, the stateless revision, before the server gave one)
     */
    public abstract Operation startClient(String method, JsonNode params, RequestId id, Peer peer,
            String protocolVersion, String sessionId);

    /**
     * Starts the {@code SERVER} span of a request received, a child of the trace context in its {@code _meta}.
     *
     * @param sessionId the session's id for {@code mcp.session.id} (a handshake-era session over HTTP), or
     *     {@code null}
     */
    public abstract Operation startServer(String method, JsonNode params, RequestId id, Peer peer,
            String protocolVersion, String sessionId);

    /** Records {@code mcp.client.session.duration} or {@code mcp.server.session.duration}. */
    public abstract void sessionEnded(boolean client, long startNanos, Peer peer, String protocolVersion,
            Throwable error);

    /** Whether the API can be used from here: present, and read by this module. */
    static final class ApiPresence {
        static final boolean PRESENT = present();

        private static boolean present() {
            try {
                Class<?> api = Class.forName("io.opentelemetry.api.GlobalOpenTelemetry", false,
                        McpTracing.class.getClassLoader());
                Class<?> context = Class.forName("io.opentelemetry.context.Context", false,
                        McpTracing.class.getClassLoader());
                Module self = McpTracing.class.getModule();
                return self.canRead(api.getModule()) && self.canRead(context.getModule());
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }
    }
}
