package mcp.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import mcp.api.McpException;
import mcp.api.ServerConfig;
import mcp.api.StdioServerConfig;
import mcp.api.spi.AuthResolver;
import mcp.api.spi.AuthServices;
import mcp.api.spi.AuthStorage;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import org.junit.jupiter.api.Test;

/** The manager hands its auth services to the resolvers (the storage) and to the transports. */
class McpManagerAuthTest {

    /** Records what it is given and refuses to open, so that no process is started. */
    private static final class Recording implements TransportProvider, AuthResolver {
        final Map<String, TransportRequest> requests = new ConcurrentHashMap<>();
        final Map<String, Optional<AuthStorage>> storages = new ConcurrentHashMap<>();
        final Map<String, Map<String, String>> environments = new ConcurrentHashMap<>();

        @Override
        public String id() {
            return "stdio";
        }

        @Override
        public Transport open(TransportRequest request) {
            requests.put(request.serverName(), request);
            throw new McpException("recorded, not opened");
        }

        @Override
        public ServerConfig resolve(String serverName, ServerConfig config, Context context) {
            storages.put(serverName, context.authStorage());
            environments.put(serverName, context.environment());
            return config;
        }
    }

    private static Recording run(McpManager.Builder builder, Recording recording) {
        try (McpManager manager = builder.transportProviders(List.of(recording)).authResolvers(List.of(recording))
                .environment(Map.of("K", "v")).build()) {
            ConnectResult result = manager.connectServers(Map.of("srv", StdioServerConfig.of("never-started", List.of())),
                    Map.of());
            assertTrue(result.errors().get("srv").contains("recorded, not opened"), result.errors().toString());
        }
        return recording;
    }

    @Test
    void theAuthServicesReachTheResolversAndTheTransport() {
        AuthStorage storage = AuthStorage.inMemory();
        AuthServices services = AuthServices.storedOnly(storage);
        Recording recording = run(McpManager.builder().authServices(services), new Recording());
        assertEquals(Optional.of(services), recording.requests.get("srv").auth());
        assertSame(storage, recording.storages.get("srv").orElseThrow());
        assertEquals(Map.of("K", "v"), recording.environments.get("srv"));
    }

    @Test
    void withoutAuthServicesThereIsNoStorageAndNoAuth() {
        Recording recording = run(McpManager.builder(), new Recording());
        assertEquals(Optional.empty(), recording.requests.get("srv").auth());
        assertEquals(Optional.empty(), recording.storages.get("srv"));
        assertEquals(Map.of("K", "v"), recording.environments.get("srv"));
    }
}
