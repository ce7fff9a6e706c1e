package mcp.transport.stdio.internal;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import mcp.api.Sandbox;
import mcp.api.StdioServerConfig;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportRequest;

/**
 * Run in a separate JVM by {@code SandboxTransportTest}, which kills it with SIGKILL: opens a sandboxed server that
 * ignores stdin EOF and SIGTERM and has a grandchild that ignores them too, both named by the marker (their pids
 * inside the sandbox mean nothing outside it), says {@code started}, and waits to be killed.
 */
public final class SandboxKillNineMain {

    private SandboxKillNineMain() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        String marker = args[1];
        String script = "(trap '' TERM HUP; exec -a " + marker + "-grandchild sleep 600) & trap '' TERM HUP; "
                + "exec -a " + marker + "-server bash -c 'trap \"\" TERM HUP; while :; do sleep 1; done'";
        StdioServerConfig config = StdioServerConfig.of("bash", List.of("-c", script))
                .withSandbox(Optional.of(Sandbox.DEFAULT));
        Transport transport = new StdioTransportProvider().open(TransportRequest.of("sandboxed", config, dir));
        transport.start(new Transport.Listener() {
            @Override
            public void onMessage(JsonRpcMessage message) {
            }

            @Override
            public void onClose(TransportClosedException reason) {
            }
        });
        System.out.println("started");
        System.out.flush();
        Thread.sleep(600_000);
    }
}
