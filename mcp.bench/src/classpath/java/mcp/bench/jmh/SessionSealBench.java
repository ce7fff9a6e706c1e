package mcp.bench.jmh;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import mcp.server.ReplicaKeys;
import mcp.server.internal.SessionSeal;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The cost of a new session of the handshake era when replicas share keys: sealing its id at {@code initialize}
 * (AES-256-GCM over the agreed version and the client's capabilities and info) and opening it on a replica that never
 * saw the session. On the class path: {@link SessionSeal} lives in a package mcp.server does not export.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SessionSealBench {

    private SessionSeal seal;
    private JsonNode capabilities;
    private Optional<JsonNode> info;
    private String sealed;

    @Setup
    public void setup() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        seal = new SessionSeal(ReplicaKeys.parse("k1:" + Base64.getEncoder().encodeToString(key), "bench"));
        // What a typical client sends: Claude Code's and the SDKs' capabilities are about this size.
        ObjectNode caps = McpJson.object();
        caps.putObject("roots").put("listChanged", true);
        caps.putObject("sampling");
        caps.putObject("elicitation").putObject("form");
        capabilities = caps;
        info = Optional.of(McpJson.object().put("name", "claude-code").put("version", "2.1.328"));
        sealed = seal.seal("2025-11-25", capabilities, info, System.currentTimeMillis());
    }

    /** Sealing a new session id (the replica that answers {@code initialize}). */
    @Benchmark
    public String seal() {
        return seal.seal("2025-11-25", capabilities, info, System.currentTimeMillis());
    }

    /** Opening a sealed id (a replica that takes the session up). */
    @Benchmark
    public Optional<SessionSeal.Opened> open() {
        return seal.open(sealed, System.currentTimeMillis());
    }

    /** Both: the cost per new session that another replica serves. */
    @Benchmark
    public Optional<SessionSeal.Opened> sealAndOpen() {
        return seal.open(seal.seal("2025-11-25", capabilities, info, System.currentTimeMillis()),
                System.currentTimeMillis());
    }
}
