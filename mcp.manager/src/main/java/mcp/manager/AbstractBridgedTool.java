package mcp.manager;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import mcp.api.CallPolicy;
import mcp.api.McpNotDeliveredException;
import mcp.api.SourceMetadata;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.api.ToolRule;
import mcp.manager.internal.AgentText;
import mcp.manager.internal.CallFuture;
import mcp.manager.internal.OutputSchemas;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** What live and deferred tools share: the SPEC §9 presentation and the call path. */
abstract sealed class AbstractBridgedTool permits McpTool, DeferredMcpTool {

    final McpManager manager;
    private final String name;
    private final String serverName;
    private final ToolDefinition definition;
    private final Optional<SourceMetadata> source;
    private final CallPolicy callPolicy;
    private final JsonNode inputSchema;
    private final String label;
    /** The validator of the tool's outputSchema, made on the first result that needs it. */
    private volatile OutputSchemas outputValidator;

    AbstractBridgedTool(McpManager manager, String name, String serverName, ToolDefinition definition,
            Optional<SourceMetadata> source, CallPolicy callPolicy) {
        this.manager = manager;
        this.name = name;
        this.serverName = serverName;
        this.definition = definition;
        this.source = source;
        this.callPolicy = callPolicy;
        this.inputSchema = withProperties(definition.inputSchema());
        // The tool's own name stays as the server wrote it for calls; a person sees it clean.
        this.label = serverName + "/" + AgentText.clean(definition.name(), 128).text();
    }

    /** An object schema without {@code properties} gets an empty one: some model APIs insist. */
    private static JsonNode withProperties(JsonNode schema) {
        if (schema.isObject() && "object".equals(schema.path("type").asString(null)) && !schema.has("properties")) {
            ObjectNode copy = ((ObjectNode) schema).deepCopy();
            copy.putObject("properties");
            return copy;
        }
        return schema;
    }

    public String name() {
        return name;
    }

    public String label() {
        return label;
    }

    public String description() {
        return definition.description().filter(d -> !d.isBlank()).orElse("MCP tool from " + serverName);
    }

    public JsonNode inputSchema() {
        return inputSchema;
    }

    public String serverName() {
        return serverName;
    }

    public String toolName() {
        return definition.name();
    }

    public ToolDefinition definition() {
        return definition;
    }

    public Optional<SourceMetadata> source() {
        return source;
    }

    public CallPolicy callPolicy() {
        return callPolicy;
    }

    /**
     * Calls the tool once a client is there. A failure becomes an error output; cancelling the
     * returned future cancels the call on the server and stays a cancellation.
     */
    final CompletableFuture<ToolOutput> callThrough(CompletableFuture<McpClient> client, JsonNode arguments,
            CallOptions options) {
        return callThrough(client, arguments, options, OptionalLong.empty(), true);
    }

    /**
     * Calls the tool once the server's client is there, waited for within the call's timeout: a call made while its
     * server reconnects then runs with what is left of its timeout and of its cap ({@code maxTotalTimeout}), from
     * now. Its idle timeout starts when it is sent: waiting for a reconnect is not the server falling silent.
     */
    final CompletableFuture<ToolOutput> callWhenConnected(boolean pending, JsonNode arguments, CallOptions options) {
        // A tool held since its owner's rules changed (a reload) is refused as the current rules say, never sent.
        Optional<ToolRule> denial = manager.ownerDenial(serverName, definition.name());
        if (denial.isPresent()) {
            return CompletableFuture.completedFuture(new ToolOutput(ToolOutput.failureText("MCP server \"" + serverName
                    + "\": tool \"" + AgentText.clean(definition.name(), 128).text() + "\" is denied by "
                    + denial.get().describe()), true, details(true, null)));
        }
        // A lazy server stopped (or being started by a call) is started and waited for within its connect bound; the
        // call's own timeout then starts when it is sent, as on a running server.
        Optional<CompletableFuture<McpClient>> lazy = manager.lazyClient(serverName, Optional.of(definition.name()));
        if (lazy.isPresent()) {
            return callThrough(lazy.get(), arguments, options);
        }
        CallOptions bounds = manager.callBounds(serverName, options);
        Duration bound = bounds.timeout().orElseThrow();
        long start = System.nanoTime();
        CompletableFuture<McpClient> client = manager.clientForCall(serverName, bound, pending);
        return callThrough(client, arguments, client.isDone() ? options : bounds,
                client.isDone() ? OptionalLong.empty() : OptionalLong.of(start), true);
    }

    /**
     * @param given the call's options; with its timeout and cap present when {@code waitedSince} is set
     * @param waitedSince when the call started ({@link System#nanoTime()}), if it waited for its client: it then
     *     runs with what is left of its timeout and cap
     * @param resend whether a call that never reached the server ({@link McpNotDeliveredException}) goes to the
     *     server's next connection (once)
     */
    private CompletableFuture<ToolOutput> callThrough(CompletableFuture<McpClient> client, JsonNode arguments,
            CallOptions given, OptionalLong waitedSince, boolean resend) {
        CompletableFuture<ToolOutput> output = new CallFuture<>();
        AtomicReference<CompletableFuture<ToolResult>> call = new AtomicReference<>();
        long began = System.nanoTime();
        client.whenComplete((connected, error) -> {
            if (error != null) {
                output.complete(failure(error));
                return;
            }
            CallOptions options = given;
            if (waitedSince.isPresent()) {
                long spent = System.nanoTime() - waitedSince.getAsLong();
                options = given.withTimeout(less(given.timeout().orElseThrow(), spent))
                        .withMaxTotalTimeout(less(given.maxTotalTimeout().orElseThrow(), spent));
            }
            CompletableFuture<ToolResult> request = connected.callTool(definition.name(), arguments, options);
            call.set(request);
            if (output.isCancelled()) {
                request.cancel(false);
            }
            request.whenComplete((result, failure) -> {
                if (failure == null) {
                    Optional<String> mismatch = result.isError() ? Optional.empty() : outputMismatch(result);
                    output.complete(mismatch.isPresent()
                            ? new ToolOutput(mismatch.get(), true, details(true, result))
                            : manager.agentOutput(serverName, definition, result, details(result.isError(), result)));
                } else if (unwrap(failure) instanceof CancellationException) {
                    output.cancel(false);
                } else if (resend && unwrap(failure) instanceof McpNotDeliveredException && !output.isDone()) {
                    call.set(null);
                    resendToNextConnection(output, connected, arguments, given, waitedSince.orElse(began));
                } else {
                    output.complete(failure(failure));
                }
            });
        });
        output.whenComplete((ignored, error) -> {
            CompletableFuture<ToolResult> request = call.get();
            if (error instanceof CancellationException && request != null) {
                request.cancel(false);
            }
        });
        return output;
    }

    /**
     * A call that never reached the server (nothing listened): it waits for the reconnect that the closed connection
     * starts, within what is left of its timeout and of its cap (both counted from the call's start), and runs there,
     * once; {@code output} gets what that gives.
     */
    private void resendToNextConnection(CompletableFuture<ToolOutput> output, McpClient dead, JsonNode arguments,
            CallOptions given, long callStart) {
        CallOptions bounds = manager.callBounds(serverName, given);
        Duration bound = less(bounds.timeout().orElseThrow(), System.nanoTime() - callStart);
        CompletableFuture<ToolOutput> again = callThrough(manager.clientAfter(serverName, dead, bound), arguments,
                bounds, OptionalLong.of(callStart), false);
        again.whenComplete((value, error) -> {
            if (error instanceof CancellationException) {
                output.cancel(false);
            } else if (error != null) {
                output.complete(failure(error));
            } else {
                output.complete(value);
            }
        });
        output.whenComplete((value, error) -> {
            if (error instanceof CancellationException) {
                again.cancel(false);
            }
        });
    }

    /** @return what is left of a bound after this much of it went by, at least 1 ms */
    private static Duration less(Duration bound, long spentNanos) {
        return Duration.ofNanos(Math.max(bound.toNanos() - spentNanos, 1_000_000L));
    }

    /**
     * Why a successful result breaks the tool's {@code outputSchema} (MCP: a server that declares one must send
     * structured content that conforms to it), or empty when it does not or there is no schema.
     */
    private Optional<String> outputMismatch(ToolResult result) {
        Optional<JsonNode> schema = definition.outputSchema();
        if (schema.isEmpty()) {
            return Optional.empty();
        }
        String prefix = "MCP server \"" + serverName + "\": tool \"" + definition.name() + "\" ";
        if (result.structuredContent().isEmpty()) {
            return Optional.of(prefix + "declares an outputSchema but returned no structuredContent");
        }
        OutputSchemas validator = outputValidator;
        if (validator == null) {
            try {
                validator = OutputSchemas.of(schema.get());
            } catch (RuntimeException e) {
                return Optional.of(prefix + "has an outputSchema that cannot be used: " + e.getMessage());
            }
            outputValidator = validator;
        }
        return validator.problem(result.structuredContent().get())
                .map(reason -> prefix + "returned structuredContent that does not match its outputSchema: " + reason);
    }

    private ToolOutput failure(Throwable error) {
        Throwable cause = unwrap(error);
        return new ToolOutput(ToolOutput.failureText(cause.getMessage() == null ? cause.toString() : cause.getMessage()), true, details(true, null));
    }

    private ToolOutput.Details details(boolean isError, ToolResult result) {
        return new ToolOutput.Details(serverName, definition.name(), isError,
                result == null ? List.of() : result.content(),
                result == null ? Optional.empty() : result.structuredContent(),
                source.map(SourceMetadata::providerId), source.map(SourceMetadata::providerName));
    }

    private static Throwable unwrap(Throwable error) {
        Throwable current = error;
        while ((current instanceof java.util.concurrent.CompletionException
                || current instanceof java.util.concurrent.ExecutionException) && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + name + " = " + label() + "]";
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof AbstractBridgedTool tool && tool.getClass() == getClass() && tool.name.equals(name)
                && tool.serverName.equals(serverName) && tool.definition.equals(definition)
                && tool.callPolicy.equals(callPolicy);
    }

    @Override
    public int hashCode() {
        return Objects.hash(getClass(), name, serverName, definition, callPolicy);
    }
}
