package mcp.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import mcp.api.McpException;
import mcp.api.ServerConfig;
import mcp.api.spi.AuthResolver;
import mcp.api.spi.AuthServices;
import mcp.api.spi.AuthStorage;
import mcp.api.spi.AuthorizationUi;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host's auth storage and authorization UI reach the resolvers and the transports: the builder's,
 * else ServiceLoader's {@code file} store and no UI. No server process is started: the transport
 * records its request and refuses to open.
 */
class McpHostAuthTest {

    @TempDir
    Path temp;

    /** A UI that is never used. */
    private static final class NoUi implements AuthorizationUi {
        @Override
        public String id() {
            return "none";
        }

        @Override
        public Receiver open(String serverName, int preferredPort) {
            throw new AssertionError("no authorization is asked for in these tests");
        }
    }

    /** Stands in for the stdio transport and records what the host hands it and the resolvers. */
    private static final class Recording implements TransportProvider, AuthResolver {
        final AtomicReference<TransportRequest> request = new AtomicReference<>();
        final AtomicReference<Optional<AuthStorage>> storage = new AtomicReference<>();

        @Override
        public String id() {
            return "stdio";
        }

        @Override
        public Transport open(TransportRequest opened) {
            request.set(opened);
            throw new McpException("recorded, not opened");
        }

        @Override
        public ServerConfig resolve(String serverName, ServerConfig config, Context context) {
            storage.set(context.authStorage());
            return config;
        }
    }

    private McpHost.Builder host(Recording recording) throws IOException {
        Path config = temp.resolve("mcp.json");
        Files.writeString(config, "{\"mcpServers\": {\"srv\": {\"command\": \"never-started\"}}}");
        return McpHost.builder().configFile(config).home(temp).workingDirectory(temp).cache(false)
                .startupGate(Duration.ofMillis(50)).transportProvider(recording).authResolver(recording);
    }

    private static void load(McpHost.Builder builder) {
        try (McpHost host = builder.build()) {
            String error = host.load().errors().get("srv");
            assertTrue(error != null && error.contains("recorded, not opened"), String.valueOf(error));
        }
    }

    @Test
    void theBuildersStorageAndUiReachTheTransportAndTheStorageTheResolvers() throws IOException {
        Recording recording = new Recording();
        AuthStorage storage = AuthStorage.inMemory();
        NoUi ui = new NoUi();
        load(host(recording).authStorage(storage).authorizationUi(ui));
        assertEquals(Optional.of(new AuthServices(storage, Optional.of(ui))), recording.request.get().auth());
        assertSame(storage, recording.storage.get().orElseThrow());
    }

    @Test
    void byDefaultTheFileStoreIsUsedAndNoUi() throws IOException {
        Recording recording = new Recording();
        load(host(recording));
        AuthServices services = recording.request.get().auth().orElseThrow();
        assertEquals("file", services.storage().id());
        assertEquals(Optional.empty(), services.ui(), "a load never opens a browser unless told to");
        assertEquals("file", recording.storage.get().orElseThrow().id());
    }

    @Test
    void withoutServiceLoaderThereIsNoStoreUnlessOneIsGiven() throws IOException {
        Recording recording = new Recording();
        load(host(recording).serviceLoader(false).authorizationUi(new NoUi()));
        assertEquals(Optional.empty(), recording.request.get().auth(), "a UI alone is no auth service");
        assertEquals(Optional.empty(), recording.storage.get());
    }

    @Test
    void aBuiltHostKeepsTheStorageItWasBuiltWith() throws IOException {
        Recording recording = new Recording();
        AuthStorage first = AuthStorage.inMemory();
        McpHost.Builder builder = host(recording).authStorage(first);
        try (McpHost host = builder.build()) {
            builder.authStorage(AuthStorage.inMemory()).authorizationUi(new NoUi());
            host.load();
        }
        assertEquals(Optional.of(new AuthServices(first, Optional.empty())), recording.request.get().auth());
    }
}
