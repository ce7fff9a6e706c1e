package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import mcp.api.ResourceDefinition;
import mcp.api.StdioServerConfig;
import mcp.manager.ClientListener;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Resource subscriptions against servers nobody on this team wrote: {@code server-everything} (2025 era only:
 * {@code resources/subscribe}, updates sent by its {@code toggle-subscriber-updates} tool) and the MCP Python SDK
 * server ({@code interop/python/era_server.py}: its tool {@code bump} changes {@code memo://counter}) in the 2026-07-28
 * era over stdio and stateless Streamable HTTP (the subscription is a {@code subscriptions/listen} stream there) and
 * pinned to 2025.
 */
class SubscriptionsIT {

    private static final EraPeer PYTHON = EraPeer.python();
    private static final String COUNTER = "memo://counter";

    private final List<McpClient> clients = new ArrayList<>();
    private LoopbackServer http;

    @TempDir
    Path temp;

    @AfterEach
    void closeAll() throws InterruptedException {
        if (http != null) {
            clients.forEach(McpClient::close);
            clients.clear();
            http.close();
        }
        EraPeer.closeAndAssertNoChildLeft(clients);
    }

    private static ClientOptions.Builder queueing(String name, BlockingQueue<String> updates) {
        return ClientOptions.builder(name).listener(new ClientListener() {
            @Override
            public void onResourceUpdated(String uri) {
                updates.add(uri);
            }
        });
    }

    @Test
    void everythingServerSendsUpdatesOfTheSubscribedResourcesOnly() throws Exception {
        Path script = EraPeer.INTEROP.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        assertTrue(Files.isRegularFile(script), script + " is missing: run interop/install.sh (mvn verify runs it)");
        BlockingQueue<String> updates = new LinkedBlockingQueue<>();
        McpClient client = EraPeer.connect("everything", StdioServerConfig.of("node", List.of(script.toString(),
                "stdio")), queueing("everything", updates), temp, clients);
        assertTrue(client.initializeResult().capabilities().path("resources").path("subscribe").asBoolean(false));
        List<ResourceDefinition> resources = McpClient.await(client.listResources());
        String first = resources.get(0).uri();
        String second = resources.get(1).uri();
        McpClient.await(client.subscribeResource(first));
        McpClient.await(client.subscribeResource(second));
        assertEquals(Set.of(first, second), client.subscribedResources());

        // Turned on, it sends one update per subscribed URI at once (then every 5 s).
        client.callToolBlocking("toggle-subscriber-updates", McpJson.object());
        assertEquals(Set.of(first, second), Set.of(next(updates), next(updates)));

        McpClient.await(client.unsubscribeResource(first));
        assertEquals(Set.of(second), client.subscribedResources());
        client.callToolBlocking("toggle-subscriber-updates", McpJson.object()); // off
        updates.clear();
        client.callToolBlocking("toggle-subscriber-updates", McpJson.object()); // on: one round at once
        // The round goes through the URIs in the order subscribed: the first would come before the second.
        assertEquals(second, next(updates), "the unsubscribed URI is not updated any more");
        client.callToolBlocking("toggle-subscriber-updates", McpJson.object()); // off
    }

    @Test
    void pythonSdkServerInTheStatelessEraOverStdio() throws Exception {
        PYTHON.assertInstalled();
        BlockingQueue<String> updates = new LinkedBlockingQueue<>();
        McpClient client = EraPeer.connect("py", PYTHON.stdio(), queueing("py", updates), temp, clients);
        assertEquals(McpClient.MODERN_PROTOCOL_VERSION, client.initializeResult().protocolVersion());
        showsSubscriptions(client, updates);
    }

    @Test
    void pythonSdkServerInTheStatelessEraOverHttp() throws Exception {
        PYTHON.assertInstalled();
        http = new LoopbackServer(PYTHON::httpCommand);
        BlockingQueue<String> updates = new LinkedBlockingQueue<>();
        McpClient client = EraPeer.connect("py-http", EraPeer.http(http.port()), queueing("py-http", updates), temp,
                clients);
        assertEquals(McpClient.MODERN_PROTOCOL_VERSION, client.initializeResult().protocolVersion());
        showsSubscriptions(client, updates);
    }

    @Test
    void pythonSdkServerPinnedTo2025() throws Exception {
        PYTHON.assertInstalled();
        BlockingQueue<String> updates = new LinkedBlockingQueue<>();
        McpClient client = EraPeer.connect("py", PYTHON.stdio(), queueing("py", updates).protocolVersion("2025-11-25"),
                temp, clients);
        assertEquals("2025-11-25", client.initializeResult().protocolVersion());
        showsSubscriptions(client, updates);
    }

    /** Subscribed, the resource's change is heard and read; unsubscribed, it is not heard any more. */
    private static void showsSubscriptions(McpClient client, BlockingQueue<String> updates) throws Exception {
        assertTrue(client.initializeResult().capabilities().path("resources").path("subscribe").asBoolean(false));
        McpClient.await(client.subscribeResource(COUNTER));
        assertEquals(Set.of(COUNTER), client.subscribedResources());
        assertEquals("counter 1", EraPeer.text(client.callToolBlocking("bump", McpJson.object())));
        assertEquals(COUNTER, next(updates));
        assertEquals("counter 1", McpClient.await(client.readResource(COUNTER)).contents().get(0).text().orElseThrow());

        McpClient.await(client.unsubscribeResource(COUNTER));
        assertEquals(Set.of(), client.subscribedResources());
        assertEquals("counter 2", EraPeer.text(client.callToolBlocking("bump", McpJson.object())));
        assertNull(updates.poll(1, TimeUnit.SECONDS), "unsubscribed: no update");
        assertFalse(client.subscribedResources().contains(COUNTER));
    }

    private static String next(BlockingQueue<String> updates) throws InterruptedException {
        String uri = updates.poll(15, TimeUnit.SECONDS);
        assertNotNull(uri, "no notifications/resources/updated");
        return uri;
    }
}
