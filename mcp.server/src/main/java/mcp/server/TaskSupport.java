package mcp.server;

/**
 * Whether a tool may run as a task ({@code execution.taskSupport} of its {@code tools/list} entry, which the server
 * writes from {@link RequestHandler#taskSupport}). A tool that runs as a task runs exactly as a plain call (the same
 * handler, the same {@link RequestContext}); the server holds the task, its status and its result.
 */
public enum TaskSupport {
    /** Never a task (the default). */
    FORBIDDEN("forbidden"),
    /**
     * A task when the client wants one: a 2025-11-25 client that adds {@code task} to the call, or a 2026-07-28 client
     * that declares the tasks extension (the server then makes every such call a task); a plain call otherwise.
     */
    OPTIONAL("optional"),
    /**
     * Always a task: a 2025-11-25 call without {@code task} is refused ({@code -32601}), as is a 2026-07-28 call of a
     * client that does not declare the extension ({@code -32021}).
     */
    REQUIRED("required");

    private final String wire;

    TaskSupport(String wire) {
        this.wire = wire;
    }

    /** @return the value as MCP spells it */
    public String wire() {
        return wire;
    }
}
