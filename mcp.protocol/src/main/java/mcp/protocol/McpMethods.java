package mcp.protocol;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** What each MCP method may do in each era, as both sides must agree. */
public final class McpMethods {

    /** The requests whose result may be {@link ResultType#INPUT_REQUIRED} in the stateless revision. */
    public static final Set<String> MULTI_ROUND = Set.of("tools/call", "prompts/get", "resources/read");

    /**
     * The requests of the handshake era that the stateless revision removed: a server of that revision answers them
     * {@code -32601} (over HTTP with 404).
     */
    public static final Set<String> HANDSHAKE_ONLY = Set.of("initialize", "ping", "logging/setLevel",
            "resources/subscribe", "resources/unsubscribe");

    /** The requests that exist only in the stateless revision. */
    public static final Set<String> STATELESS_ONLY = Set.of("server/discover", "subscriptions/listen");

    /**
     * The server-to-client requests, and the client capability each needs: in the handshake era the server sends
     * them during a call; in the stateless revision they are the {@code inputRequests} of an
     * {@link ResultType#INPUT_REQUIRED} result.
     */
    public static final Map<String, String> CLIENT_CAPABILITY_OF = Map.of("sampling/createMessage", "sampling",
            "elicitation/create", "elicitation", "roots/list", "roots");

    /**
     * The requests whose name or URI goes into the {@code Mcp-Name} HTTP header of the stateless revision, and the
     * param it comes from. The tasks extension's requests name their task, so that a load balancer can route them to
     * the instance that holds it.
     */
    public static final Map<String, String> NAME_PARAM = Map.of("tools/call", "name", "prompts/get", "name",
            "resources/read", "uri", "tasks/get", "taskId", "tasks/update", "taskId", "tasks/cancel", "taskId");

    private McpMethods() {
    }

    /**
     * @param method a server-to-client request method
     * @return the client capability it needs, or empty when it needs none (or is not one)
     */
    public static Optional<String> clientCapabilityOf(String method) {
        return Optional.ofNullable(CLIENT_CAPABILITY_OF.get(method));
    }
}
