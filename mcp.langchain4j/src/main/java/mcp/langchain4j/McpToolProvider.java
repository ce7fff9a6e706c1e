package mcp.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.exception.ToolArgumentsException;
import dev.langchain4j.exception.ToolExecutionException;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import mcp.api.CallPolicy;
import mcp.api.McpJson;
import mcp.host.AgentTool;
import mcp.host.ToolSession;
import mcp.manager.ToolOutput;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * A {@link ToolSession}'s tools as LangChain4j tools: give it to {@code AiServices.builder(...).toolProvider(...)}.
 *
 * <p>It is dynamic ({@link #isDynamic()}): LangChain4j asks it before every request to the model, and it answers with
 * the session's tool set at that moment, so a server that arrived after the startup gate, a server's
 * {@code tools/list_changed}, a reconnect, a reload, or tools loaded by the session's tool search are in the very
 * next request. Each tool becomes a {@link ToolSpecification} (name, description, and the input schema converted by
 * {@link JsonSchemas}) and a {@link ToolExecutor} that calls through the session:
 * <ul>
 *   <li>the result's content, rendered as text as mcp-host renders it for any agent, is the tool result the model
 *       sees; a tool's error result ({@code isError}) is a {@link ToolExecutionResult} with {@code isError} set;</li>
 *   <li>a call that failed (server gone past its reconnects, timeout, protocol error, a tool that left the session)
 *       throws {@link ToolExecutionException}, which the AI service's {@code toolExecutionErrorHandler} handles (by
 *       default: the message goes to the model);</li>
 *   <li>arguments that are not a JSON object throw {@link ToolArgumentsException}, for the
 *       {@code toolArgumentsErrorHandler};</li>
 *   <li>a tool whose owner asks for the user's confirmation of each call ({@link CallPolicy.Decision#ASK}) runs only
 *       when the {@link CallConfirmation} says yes; without one, or on a no, the model is told it was not run.</li>
 * </ul>
 * The raw {@link ToolOutput} is the {@link ToolExecutionResult#result()} of each call, for the application's
 * listeners; it is not sent to the model.
 *
 * <p>The provider owns nothing: closing the session (or its host) ends the servers. Thread-safe.
 */
public final class McpToolProvider implements ToolProvider {

    private static final Logger LOG = LoggerFactory.getLogger(McpToolProvider.class);

    /** The default of {@link Builder#callTimeout}. */
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofMinutes(15);

    private final ToolSession session;
    private final Predicate<AgentTool> filter;
    private final Optional<CallConfirmation> confirmation;
    private final Duration callTimeout;
    /** The specification of each tool by name, kept while the session holds that same tool object. */
    private final Map<String, Converted> converted = new ConcurrentHashMap<>();

    private record Converted(AgentTool tool, ToolSpecification specification, ToolExecutor executor) {
    }

    private McpToolProvider(Builder builder) {
        this.session = builder.session;
        this.filter = builder.filter;
        this.confirmation = Optional.ofNullable(builder.confirmation);
        this.callTimeout = builder.callTimeout;
    }

    /**
     * @param session the session whose tools the agent gets
     * @return a provider with the defaults: every tool of the session, tools that ask for confirmation refused
     */
    public static McpToolProvider of(ToolSession session) {
        return builder(session).build();
    }

    /**
     * @param session the session whose tools the agent gets
     * @return a builder
     */
    public static Builder builder(ToolSession session) {
        return new Builder(session);
    }

    /** @return {@code true}: the tool set is taken again before every request to the model */
    @Override
    public boolean isDynamic() {
        return true;
    }

    @Override
    public ToolProviderResult provideTools(ToolProviderRequest request) {
        ToolProviderResult.Builder result = ToolProviderResult.builder();
        for (Converted tool : current()) {
            result.add(tool.specification(), tool.executor());
        }
        return result.build();
    }

    /** @return the specifications the model gets now, in the session's order */
    public List<ToolSpecification> toolSpecifications() {
        return current().stream().map(Converted::specification).toList();
    }

    private List<Converted> current() {
        List<AgentTool> tools = session.tools().stream().filter(filter).toList();
        List<Converted> now = new ArrayList<>(tools.size());
        for (AgentTool tool : tools) {
            now.add(converted.compute(tool.name(), (name, known) ->
                    known != null && known.tool() == tool ? known : convert(tool)));
        }
        // Forget the tools that left, so a long session does not keep every definition it ever saw.
        converted.keySet().retainAll(tools.stream().map(AgentTool::name).toList());
        return now;
    }

    private Converted convert(AgentTool tool) {
        List<String> lost = JsonSchemas.unexpressedRootKeywords(tool.inputSchema());
        if (!lost.isEmpty()) {
            LOG.debug("Tool {} ({}): the input schema's root keywords {} cannot be given to LangChain4j; the server "
                    + "still checks them", tool.name(), tool.origin(), lost);
        }
        ToolSpecification specification = ToolSpecification.builder()
                .name(tool.name())
                .description(tool.description().isBlank() ? null : tool.description())
                .parameters(JsonSchemas.toParameters(tool.inputSchema()))
                .build();
        return new Converted(tool, specification, new Executor(tool.name()));
    }

    /** Calls the session's tool of a name, the one the session holds at call time. */
    private final class Executor implements ToolExecutor {

        private final String name;

        Executor(String name) {
            this.name = name;
        }

        @Override
        public String execute(ToolExecutionRequest request, Object memoryId) {
            ToolExecutionResult result = executeWithContext(request, null);
            return result.resultText();
        }

        @Override
        public ToolExecutionResult executeWithContext(ToolExecutionRequest request, InvocationContext context) {
            JsonNode arguments = arguments(request.arguments());
            AgentTool tool = session.tool(name).orElseThrow(() -> new ToolExecutionException("MCP error: the tool "
                    + name + " is no longer offered (its server left or changed its tools)"));
            CallPolicy policy = tool.callPolicy();
            if (policy.decision() == CallPolicy.Decision.DENY) {
                return refused("MCP error: the tool " + name + " may not be called (" + policy.describe() + ")");
            }
            if (policy.decision() == CallPolicy.Decision.ASK) {
                if (confirmation.isEmpty()) {
                    return refused("MCP error: the tool " + name + " runs only once the user confirms each call ("
                            + policy.describe() + "), and this application asks no one");
                }
                if (!confirmation.get().confirm(tool, arguments)) {
                    return refused("The user declined this call of " + name + ".");
                }
            }
            ToolOutput output = await(tool.call(arguments));
            if (output.isError() && output.details().content().isEmpty() && output.text().startsWith(ToolOutput.FAILURE)) {
                // The call itself failed (no result from the server): LangChain4j's error handler decides.
                throw new ToolExecutionException(output.text());
            }
            return ToolExecutionResult.builder()
                    .isError(output.isError())
                    .result(output)
                    .resultText(output.text())
                    .build();
        }

        private ToolOutput await(CompletableFuture<ToolOutput> call) {
            try {
                return call.get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                call.cancel(true);
                Thread.currentThread().interrupt();
                throw new ToolExecutionException("MCP error: the call of " + name + " was interrupted", e);
            } catch (TimeoutException e) {
                call.cancel(true);
                throw new ToolExecutionException("MCP error: the call of " + name + " did not finish within "
                        + callTimeout.toSeconds() + " s", e);
            } catch (CancellationException e) {
                throw new ToolExecutionException("MCP error: the call of " + name + " was cancelled", e);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                throw new ToolExecutionException(ToolOutput.failureText(cause.getMessage()), cause);
            }
        }
    }

    private static ToolExecutionResult refused(String text) {
        return ToolExecutionResult.builder().isError(true).resultText(text).build();
    }

    /** The model's arguments as JSON: nothing or blank is no arguments; anything but an object is refused. */
    static JsonNode arguments(String text) {
        if (text == null || text.isBlank()) {
            return McpJson.object();
        }
        JsonNode node;
        try {
            node = McpJson.mapper().readTree(text);
        } catch (JacksonException e) {
            throw new ToolArgumentsException("the arguments are not JSON: " + e.getOriginalMessage(), e);
        }
        if (node == null || node.isNull() || node.isMissingNode()) {
            return McpJson.object();
        }
        if (!node.isObject()) {
            throw new ToolArgumentsException("the arguments must be a JSON object, not " + node.getNodeType());
        }
        return node;
    }

    /** Options of a {@link McpToolProvider}. */
    public static final class Builder {

        private final ToolSession session;
        private Predicate<AgentTool> filter = tool -> true;
        private CallConfirmation confirmation;
        private Duration callTimeout = DEFAULT_CALL_TIMEOUT;

        private Builder(ToolSession session) {
            this.session = Objects.requireNonNull(session, "session");
        }

        /**
         * @param filter which of the session's tools the agent gets; default all of them (the application's own, the
         *     MCP tools, the resource, skill and search tools the session offers)
         * @return this builder
         */
        public Builder filter(Predicate<AgentTool> filter) {
            this.filter = Objects.requireNonNull(filter, "filter");
            return this;
        }

        /**
         * @param confirmation asked before each call of a tool whose owner wants the user to confirm it; default none:
         *     such calls are refused and the model is told why
         * @return this builder
         */
        public Builder confirmation(CallConfirmation confirmation) {
            this.confirmation = Objects.requireNonNull(confirmation, "confirmation");
            return this;
        }

        /**
         * @param timeout the longest a tool execution waits for its call, on top of the host's own bounds (the
         *     server's {@code toolTimeout}, the call limits), which end most calls first; default
         *     {@link #DEFAULT_CALL_TIMEOUT}. A call that outlasts it is cancelled on the server
         * @return this builder
         */
        public Builder callTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("the call timeout must be positive: " + timeout);
            }
            this.callTimeout = timeout;
            return this;
        }

        /** @return the provider */
        public McpToolProvider build() {
            return new McpToolProvider(this);
        }
    }
}
