package mcp.manager;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import mcp.api.CallPolicy;
import mcp.api.SourceMetadata;
import mcp.api.ToolDefinition;
import tools.jackson.databind.JsonNode;

/**
 * An MCP tool as the agent sees it: a unique name {@code mcp_<server>_<tool>}, a label, a
 * description, an input schema, and a call that never fails with an exception (a failure is an
 * output with {@code isError}); only an abort (cancelling the returned future) stays an abort.
 *
 * <p>Two kinds: {@link McpTool}, whose server is connected, and {@link DeferredMcpTool}, built from
 * the tool cache while its server is still connecting, whose call waits for the connection.
 */
public sealed interface BridgedTool permits McpTool, DeferredMcpTool {

    /**
     * The name the host gives a tool of a server, before a collision in one tool set changes it: {@code
     * mcp_<server>_<tool>} under the naming rule (lower case, {@code [a-z0-9_]}, at most 64 characters).
     *
     * @param server the server's name
     * @param tool the tool's name on that server
     * @return the name
     */
    static String nameOf(String server, String tool) {
        return mcp.manager.internal.ToolNames.baseName(server, tool);
    }

    /** @return the unique name, matching {@code ^[a-z0-9_]{1,64}$} */
    String name();

    /** @return {@code <server>/<tool>}, with the original names */
    String label();

    /** @return the tool's description, else {@code MCP tool from <server>} */
    String description();

    /** @return the argument schema as the server gave it (an object schema always has {@code properties}) */
    JsonNode inputSchema();

    /** @return the server's name, as configured */
    String serverName();

    /** @return the tool's name on its server */
    String toolName();

    /** @return the definition the server listed (or the cache held) */
    ToolDefinition definition();

    /** @return where the server's config came from, when known */
    Optional<SourceMetadata> source();

    /** @return {@code mcp:<server> via <providerName>}, or {@code mcp:<server>} when the source is unknown */
    default String origin() {
        return "mcp:" + serverName() + source().map(s -> " via " + s.providerName()).orElse("");
    }

    /**
     * @return what the tool that owns the server's config decided about calling this tool: {@link
     *     CallPolicy.Decision#ALLOW} (no confirmation), {@link CallPolicy.Decision#ASK} (confirm each call), or
     *     {@link CallPolicy#DEFAULT} when it decided nothing; never {@link CallPolicy.Decision#DENY}, since a denied
     *     tool is not offered ({@link McpManager#withheldByOwner()}). The embedder enforces it; the bridge calls
     *     whatever it is asked to
     */
    CallPolicy callPolicy();

    /** @return whether this tool came from the cache and its server is not connected yet */
    boolean deferred();

    /**
     * Calls the tool.
     *
     * @param arguments the arguments (an object), or {@code null} for none
     * @param options timeout and progress
     * @return the output; cancelling it cancels the call on the server
     */
    CompletableFuture<ToolOutput> call(JsonNode arguments, CallOptions options);

    /**
     * Calls the tool with the default options.
     *
     * @param arguments the arguments, or {@code null}
     * @return the output
     */
    default CompletableFuture<ToolOutput> call(JsonNode arguments) {
        return call(arguments, CallOptions.DEFAULT);
    }
}
