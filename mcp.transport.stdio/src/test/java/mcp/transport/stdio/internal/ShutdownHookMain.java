package mcp.transport.stdio.internal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import mcp.api.StdioServerConfig;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportRequest;

/**
 * Run in a separate JVM by {@code StdioTransportTest}: opens a transport whose server and grandchild
 * ignore stdin EOF, prints their pids, and exits without closing it, leaving the shutdown hook to end
 * the tree.
 */
public final class ShutdownHookMain {

    private ShutdownHookMain() {
    }

    public static void main(String[] args) throws Exception {
        StdioServerConfig config = StdioServerConfig.of("bash",
                List.of("-c", "sleep 600 & echo \"grandchild $!\" >&2; exec sleep 600"));
        StdioTransport transport = (StdioTransport) new StdioTransportProvider()
                .open(TransportRequest.of("hook", config, Path.of(".")));
        transport.start(new Transport.Listener() {
            @Override
            public void onMessage(JsonRpcMessage message) {
            }

            @Override
            public void onClose(TransportClosedException reason) {
            }
        });
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!transport.diagnostics().contains("grandchild ") && System.nanoTime() < deadline) {
            Waits.sleep(10);
        }
        long grandchild = Long.parseLong(transport.diagnostics().replaceAll("(?s).*grandchild (\\d+).*", "$1"));
        transport.snapshotTree();
        if (!transport.knownDescendantPids().contains(grandchild)) {
            throw new IllegalStateException("grandchild not recorded");
        }
        System.out.println("pids " + transport.pid() + " " + grandchild);
        System.out.flush();
        System.exit(0);
    }
}
