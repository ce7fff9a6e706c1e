package mcp.it;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * mcp-host's client against a server on the MCP Python SDK ({@code mcp} 2.3.0, pinned in
 * {@code interop/python/requirements.txt}, installed into a virtual environment by {@code interop/install.sh}),
 * which speaks the stateless 2026-07-28 revision and the 2025 handshake: the era is found by the probe, and a
 * pinned 2025 version is spoken as pinned. Its script is {@code interop/python/era_server.py}; what it must show is
 * {@link EraPeer}'s, shared with the TypeScript SDK's server ({@link TypeScriptSdkIT}).
 */
class PythonSdkIT {

    private static final EraPeer PEER = EraPeer.python();

    private final List<McpClient> clients = new ArrayList<>();

    @TempDir
    Path temp;

    @BeforeAll
    static void installed() {
        PEER.assertInstalled();
    }

    @AfterEach
    void closeAll() throws InterruptedException {
        EraPeer.closeAndAssertNoChildLeft(clients);
    }

    private McpClient connect(ClientOptions.Builder options) {
        return EraPeer.connect("py", PEER.stdio(), options, temp, clients);
    }

    @Test
    void theModernEraIsChosenByItselfWithInputRoundsAndListChanges() throws Exception {
        CountDownLatch changed = new CountDownLatch(1);
        EraPeer.showsTheModernEra(connect(EraPeer.options("py", "Grace", changed)), changed, "stdio");
    }

    @Test
    void aPinned2025VersionIsSpokenAsPinned() {
        // In the handshake era the same resolver becomes a server request, answered by the same handler.
        EraPeer.showsThePinnedHandshakeEra(connect(EraPeer.pinned2025("py")));
    }
}
