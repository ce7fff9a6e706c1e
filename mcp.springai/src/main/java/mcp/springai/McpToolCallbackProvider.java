package mcp.springai;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import mcp.host.AgentTool;
import mcp.host.ToolSession;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;

/**
 * The tools of a {@link ToolSession} as Spring AI {@link ToolCallback}s: every tool the session gives its agent now
 * ({@link ToolSession#tools()}: the MCP tools of every server, the application's own tools, and with deferred loading
 * the search tool and what it found), each an {@link McpToolCallback} whose calls go through the session.
 *
 * <p>It follows the session: a server that arrives after the startup gate, a server's {@code tools/list_changed}, a
 * reload or a search that loaded tools changes what the next {@link #getToolCallbacks()} returns. Spring AI's
 * {@code ChatClient} asks its providers on every request ({@code .toolCallbacks(provider)} or
 * {@code defaultToolCallbacks(provider)}), so the model always gets the current set.
 *
 * <pre>{@code
 * try (McpHost host = McpHost.builder().build(); ToolSession session = host.openSession()) {
 *     ChatClient chat = ChatClient.builder(model).defaultToolCallbacks(new McpToolCallbackProvider(session)).build();
 *     String answer = chat.prompt("What is 2 + 40?").call().content();
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class McpToolCallbackProvider implements ToolCallbackProvider {

    private final ToolSession session;
    private final Predicate<AgentTool> filter;
    private final McpToolCallConfirmation confirmation;
    /** Bumped by every change of the session's tool set; the cached callbacks are of the version they were made at. */
    private final AtomicLong version = new AtomicLong();
    private volatile Snapshot snapshot = new Snapshot(-1, new ToolCallback[0]);

    private record Snapshot(long version, ToolCallback[] callbacks) {
    }

    /**
     * Every tool of the session; a tool whose owner wants each call confirmed is refused
     * ({@link McpToolCallConfirmation#REFUSE}).
     *
     * @param session the session whose tools to offer
     */
    public McpToolCallbackProvider(ToolSession session) {
        this(session, tool -> true, McpToolCallConfirmation.REFUSE);
    }

    /**
     * @param session the session whose tools to offer
     * @param filter which of its tools to offer (e.g. one server's: {@code t -> t.name().startsWith("mcp_github_")})
     * @param confirmation asked before each call of a tool whose owner wants every call confirmed
     */
    public McpToolCallbackProvider(ToolSession session, Predicate<AgentTool> filter,
            McpToolCallConfirmation confirmation) {
        this.session = Objects.requireNonNull(session, "session");
        this.filter = Objects.requireNonNull(filter, "filter");
        this.confirmation = Objects.requireNonNull(confirmation, "confirmation");
        session.onToolsChanged(tools -> version.incrementAndGet());
    }

    /**
     * @param filter which of this provider's tools to keep
     * @return a provider over the same session with only those tools (and the same confirmation)
     */
    public McpToolCallbackProvider filter(Predicate<AgentTool> filter) {
        return new McpToolCallbackProvider(session, this.filter.and(filter), confirmation);
    }

    /** @return the session's tool set now, as callbacks, in the session's order */
    @Override
    public ToolCallback[] getToolCallbacks() {
        long current = version.get();
        Snapshot cached = snapshot;
        if (cached.version() != current) {
            List<AgentTool> tools = session.tools();
            ToolCallback[] callbacks = tools.stream().filter(filter)
                    .map(tool -> new McpToolCallback(tool, confirmation)).toArray(ToolCallback[]::new);
            cached = new Snapshot(current, callbacks);
            // A change after `current` was read bumped the version again, so the next call rebuilds.
            snapshot = cached;
        }
        return cached.callbacks().clone();
    }

    /** @return the session these tools come from */
    public ToolSession session() {
        return session;
    }
}
