package mcp.manager.internal;

import java.util.Optional;
import mcp.api.LogLevel;
import mcp.api.McpJson;
import mcp.api.spi.ElicitationUi;
import mcp.manager.ClientOptions;
import mcp.manager.ElicitationHandler;
import mcp.manager.ServerRequestHandler;
import mcp.protocol.RequestEnvelope;
import mcp.protocol.TaskRules;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code _meta} envelope of the stateless era (2026-07-28) for one session ({@link RequestEnvelope}, whose rules
 * the server side reads it by): the protocol version, the client's capabilities and its identity, put on every
 * request. The capabilities and the identity are built once, from the session's options, and the same (never
 * modified) nodes go into every request; a request's params are copied one level deep (their {@code _meta} too), so
 * the caller's params stay as they were and its arguments are not copied at all, as in the handshake era.
 */
final class Envelope {

    private final String version;
    private final ObjectNode capabilities;
    /** The capabilities with the tasks extension declared, for the requests of a server that offers it. */
    private final ObjectNode capabilitiesWithTasks;
    private final ObjectNode clientInfo;
    /** The log level every request asks for ({@code _meta} {@code io.modelcontextprotocol/logLevel}). */
    private volatile LogLevel logLevel;

    /**
     * @param version the protocol version of every request
     * @param options the session's options: its handlers and roots say its capabilities
     */
    Envelope(String version, ClientOptions options) {
        this.version = version;
        capabilities = McpJson.object();
        if (options.roots().isPresent()) {
            capabilities.putObject("roots");
        }
        if (options.handlers().containsKey(ClientOptions.SAMPLING_METHOD)) {
            capabilities.putObject("sampling");
        }
        elicitation(options, false).ifPresent(elicitation -> capabilities.set("elicitation", elicitation));
        capabilitiesWithTasks = capabilities.deepCopy();
        capabilitiesWithTasks.putObject("extensions").putObject(TaskRules.EXTENSION);
        clientInfo = McpJson.object().put("name", options.clientName()).put("version", options.clientVersion());
        // Always, not only to servers that declare logging: the Python SDK logs without declaring it, and a
        // server that does not log ignores the key.
        logLevel = options.logLevel();
    }

    /**
     * The {@code elicitation} capability the options declare: the modes of an {@link ElicitationHandler} (none at
     * all when it presents none), form mode for any other handler.
     *
     * @param options the session's options
     * @param bareForm whether a plain handler declares {@code {}} rather than {@code {"form": {}}}: the 2025
     *     handshake keeps the empty object that versions before 2025-11-25 know, which means form mode in all
     * @return the capability, or empty when none is declared
     */
    static Optional<ObjectNode> elicitation(ClientOptions options, boolean bareForm) {
        ServerRequestHandler handler = options.handlers().get(ClientOptions.ELICITATION_METHOD);
        if (handler == null) {
            return Optional.empty();
        }
        ObjectNode capability = McpJson.object();
        if (!(handler instanceof ElicitationHandler modal)) {
            if (!bareForm) {
                capability.putObject("form");
            }
            return Optional.of(capability);
        }
        if (modal.modes().isEmpty()) {
            return Optional.empty();
        }
        if (modal.modes().contains(ElicitationUi.Mode.FORM)) {
            capability.putObject("form");
        }
        if (modal.modes().contains(ElicitationUi.Mode.URL)) {
            capability.putObject("url");
        }
        return Optional.of(capability);
    }

    /** @param level the log level every later request asks for */
    void logLevel(LogLevel level) {
        this.logLevel = level;
    }

    /** @return the protocol version the envelope carries */
    String version() {
        return version;
    }

    /**
     * @param params a request's params, or {@code null}
     * @return a copy of them with the envelope in {@code _meta} (other {@code _meta} keys kept)
     */
    ObjectNode apply(JsonNode params) {
        return apply(params, false);
    }

    /**
     * @param params a request's params, or {@code null}
     * @param tasks whether the capabilities declare the tasks extension
     * @return a copy of them with the envelope in {@code _meta} (other {@code _meta} keys kept)
     */
    ObjectNode apply(JsonNode params, boolean tasks) {
        return apply(params, tasks, Optional.empty());
    }

    /**
     * @param params a request's params, or {@code null}
     * @param tasks whether the capabilities declare the tasks extension
     * @param callers the capabilities of the caller the request is made for, over the session's (a gateway declares
     *     its client's, so that the server asks only what that client can answer)
     * @return a copy of them with the envelope in {@code _meta} (other {@code _meta} keys kept)
     */
    ObjectNode apply(JsonNode params, boolean tasks, Optional<ObjectNode> callers) {
        ObjectNode declared = callers.orElse(tasks ? capabilitiesWithTasks : capabilities);
        return new RequestEnvelope(version, declared, Optional.of(clientInfo), Optional.of(logLevel)).applyTo(params);
    }
}
