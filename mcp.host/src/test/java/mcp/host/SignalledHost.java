package mcp.host;

import java.nio.file.Path;

/**
 * A host that loads its servers and waits to be stopped by a signal: run in its own JVM by
 * {@link McpHostTest}, which sends it SIGTERM, SIGINT or SIGHUP and checks that every server was closed
 * the normal way (its stdin ended) rather than killed.
 */
public final class SignalledHost {

    private SignalledHost() {
    }

    /** @param args the config file and a scratch directory */
    public static void main(String[] args) throws InterruptedException {
        Path dir = Path.of(args[1]);
        McpHost host = McpHost.builder().configFile(Path.of(args[0])).home(dir).workingDirectory(dir)
                .cache(false).build();
        LoadResult loaded = host.load();
        System.out.println("ready " + loaded.tools().size() + " tools, errors " + loaded.errors());
        System.out.flush();
        Thread.sleep(600_000); // until the signal; no host.close() here
    }
}
