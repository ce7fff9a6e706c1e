package mcp.manager.internal;

/**
 * Whether the JVM is shutting down (SIGTERM, SIGINT, SIGHUP, {@code System.exit}): the servers then end
 * because the host does, and their ends are not news to warn about.
 */
public final class JvmShutdown {

    private JvmShutdown() {
    }

    /** @return true once the JVM has begun its shutdown (its hooks run) */
    public static boolean inProgress() {
        Thread probe = new Thread(() -> { }, "mcp-shutdown-probe");
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException e) {
            return true;
        }
    }
}
