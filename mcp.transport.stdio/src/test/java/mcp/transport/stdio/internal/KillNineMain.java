package mcp.transport.stdio.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import mcp.api.StdioServerConfig;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportRequest;

/**
 * Run in a separate JVM by {@code StdioTransportTest}, which kills it with SIGKILL: opens transports to
 * servers that ignore stdin EOF, trap SIGTERM, and start grandchildren that ignore SIGTERM and SIGHUP
 * (one of them a daemon whose parent has exited already), prints every pid of theirs, and waits to
 * be killed. No shutdown hook runs then: only the watchdog can end them.
 */
public final class KillNineMain {

    /** Each server writes its pids, one per line, into its file; the number of lines each writes. */
    private static final List<String> SCRIPTS = List.of(
            "echo $$ >> \"$F\"; exec sleep 600",
            "trap '' TERM; echo $$ >> \"$F\"; while :; do sleep 1; done",
            "(trap '' TERM HUP; exec sleep 600) & echo $! >> \"$F\"; (trap '' TERM HUP; exec sleep 600) & echo $! >> \"$F\";"
                    + " echo $$ >> \"$F\"; trap '' TERM; while :; do sleep 1; done",
            "( (trap '' TERM HUP; exec sleep 600) & echo $! >> \"$F\" ); echo $$ >> \"$F\"; exec cat");
    private static final int[] LINES = {1, 1, 3, 2};

    private KillNineMain() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < SCRIPTS.size(); i++) {
            Path file = dir.resolve("pids-" + i);
            files.add(file);
            StdioServerConfig config = StdioServerConfig.of("bash", List.of("-c", SCRIPTS.get(i)))
                    .withEnv(Map.of("F", file.toString()));
            Transport transport = new StdioTransportProvider().open(TransportRequest.of("kind-" + i, config, dir));
            transport.start(new Transport.Listener() {
                @Override
                public void onMessage(JsonRpcMessage message) {
                }

                @Override
                public void onClose(TransportClosedException reason) {
                }
            });
        }
        StringBuilder pids = new StringBuilder("pids");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        for (int i = 0; i < files.size(); i++) {
            List<String> lines = List.of();
            while (System.nanoTime() < deadline) {
                lines = Files.exists(files.get(i)) ? Files.readAllLines(files.get(i)) : List.of();
                if (lines.size() >= LINES[i] && Files.readString(files.get(i)).endsWith("\n")) {
                    break;
                }
                Waits.sleep(10);
            }
            lines.forEach(line -> pids.append(' ').append(line.trim()));
        }
        System.out.println(pids);
        System.out.flush();
        Thread.sleep(600_000);
    }
}
