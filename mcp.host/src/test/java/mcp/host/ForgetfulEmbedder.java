package mcp.host;

import java.nio.file.Path;
import mcp.manager.McpClient;

/**
 * An embedder that loads a server and exits without closing the host: run in its own JVM by
 * {@link McpHostTest}, which checks that the server process ends anyway.
 */
public final class ForgetfulEmbedder {

    private ForgetfulEmbedder() {
    }

    /** @param args the config file and a scratch directory */
    public static void main(String[] args) {
        Path dir = Path.of(args[1]);
        McpHost host = McpHost.builder().configFile(Path.of(args[0])).home(dir).workingDirectory(dir)
                .cache(false).build();
        LoadResult loaded = host.load();
        // The server's own child ignores stdin: only a tree teardown ends it.
        long grandchild = McpClient.await(loaded.tools().stream().filter(t -> t.toolName().equals("pid")).findFirst()
                .orElseThrow().call(null)).details().structuredContent().orElseThrow().path("grandchildPid").asLong();
        System.out.println("grandchild pid " + grandchild);
        System.out.flush();
        // No host.close(): the JVM exits with the server still running.
    }
}
