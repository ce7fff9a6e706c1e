package mcp.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import mcp.api.CompletionReference;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.PromptDefinition;
import mcp.api.ReconnectPolicy;
import mcp.api.ResourceContents;
import mcp.api.ResourceDefinition;
import mcp.api.ServerConfig;
import mcp.api.ServerSurface;
import mcp.api.StdioServerConfig;
import mcp.api.spi.Providers;
import mcp.api.spi.ToolCache;
import mcp.api.spi.ToolCacheProvider;
import mcp.manager.internal.ConfigHash;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Resources, templates and prompts as per-server slices of the manager beside the tools: listed with the tools
 * before the gate, cached with them and offered deferred at a warm start, kept deferred through a reconnect,
 * gone with their server; reads, prompts and completions through the manager wait for a deferred server.
 */
class SurfaceSlicesTest {

    private static final String ALL = "prompts,resources,completions";
    private static final String TEXT_URI = "test://text/readme";
    private static final ReconnectPolicy QUICK = new ReconnectPolicy(3, Duration.ofMillis(200), Duration.ofMillis(400),
            0, Duration.ofSeconds(10));

    @TempDir
    Path temp;

    private final List<McpManager> managers = new ArrayList<>();
    private final List<String> surfaceEvents = new CopyOnWriteArrayList<>();
    private final List<String> updates = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeEverything() throws InterruptedException {
        managers.forEach(McpManager::close);
        TestServerProcesses.assertNoChildProcessLeft();
    }

    private McpManager manager(Duration gate, ToolCache cache) {
        McpManager.Builder builder = McpManager.builder().transportProviders(List.of(TestServerProcesses.stdio()))
                .workingDirectory(temp).startupGate(gate).reconnect(QUICK).listener(new ManagerListener() {
                    @Override
                    public void onResourceUpdated(String serverName, String uri) {
                        updates.add(serverName + " " + uri);
                    }

                    @Override
                    public void onSurfacesChanged(String serverName, List<SurfaceSlice> surfaces) {
                        surfaceEvents.add(serverName + ":" + surfaces.stream()
                                .map(s -> s.server() + (s.deferred() ? "(deferred)" : "")).collect(Collectors.joining(",")));
                    }
                });
        if (cache != null) {
            builder.toolCache(cache);
        }
        McpManager manager = builder.build();
        managers.add(manager);
        return manager;
    }

    private ToolCache cache() {
        ToolCacheProvider file = Providers.require(ToolCacheProvider.class, Providers.byId(ToolCacheProvider.class,
                Providers.load(ToolCacheProvider.class, getClass().getClassLoader()), ToolCacheProvider::id), "file");
        return file.open(new ToolCacheProvider.Settings(Optional.of(temp.resolve("cache")), temp, Map.of(),
                Duration.ofDays(1)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void theSurfaceIsListedBeforeTheGateAndUsedThroughTheManager(String era) {
        McpManager manager = manager(Duration.ofSeconds(30), null);
        Map<String, ServerConfig> configs = new LinkedHashMap<>();
        configs.put("kit", TestServerProcesses.config("--era", era, "--features", ALL, "--blob-bytes", "300"));
        configs.put("plain", TestServerProcesses.config("--era", era));
        manager.connectServers(configs, Map.of());

        assertEquals(List.of("kit"), manager.surfaces().stream().map(SurfaceSlice::server).toList(),
                "a server that offers nothing has no surface slice");
        SurfaceSlice kit = manager.surfaceOf("kit").orElseThrow();
        assertFalse(kit.deferred());
        assertEquals(List.of(TEXT_URI, "test://blob/data"), kit.surface().resources().stream()
                .map(ResourceDefinition::uri).toList());
        assertEquals(List.of("test://items/{id}"), kit.surface().templates().stream().map(t -> t.uriTemplate()).toList());
        assertEquals(List.of("hello", "greet"), kit.surface().prompts().stream().map(PromptDefinition::name).toList());
        assertTrue(kit.surface().prompts().get(1).arguments().get(0).required());

        ResourceContents text = manager.readResource("kit", TEXT_URI, CallOptions.DEFAULT).join().contents().get(0);
        assertEquals(Optional.of("The testkit's readme."), text.text());
        assertEquals(300, manager.readResource("kit", "test://blob/data", CallOptions.DEFAULT).join().size());
        assertEquals("Greet Ada in a formal style.", ((mcp.api.Content.Text) manager.getPrompt("kit", "greet",
                Map.of("name", "Ada", "style", "formal"), CallOptions.DEFAULT).join().messages().get(0).content()).text());
        assertTrue(manager.complete("kit", CompletionReference.prompt("greet"), "style", "f", Map.of()).join()
                .values().contains("formal"));

        McpException none = assertThrows(McpException.class, () -> McpClient.await(
                manager.readResource("plain", TEXT_URI, CallOptions.DEFAULT)));
        assertTrue(none.getMessage().contains("does not offer resources"), none.getMessage());
        McpException unknown = assertThrows(McpException.class, () -> McpClient.await(
                manager.readResource("nobody", TEXT_URI, CallOptions.DEFAULT)));
        assertEquals("MCP server not connected: nobody", unknown.getMessage());

        manager.disconnectServer("kit");
        assertEquals(List.of(), manager.surfaces(), "the surface goes with its server");
    }

    @Test
    void aWarmStartOffersTheCachedSurfaceDeferredAndAReadWaitsForTheServer() throws Exception {
        ToolCache cache = cache();
        // The same config both times (so the same cache key); the second start is slow.
        Path started = temp.resolve("started");
        String kit = TestServers.command("--features", ALL).stream().map(SurfaceSlicesTest::quote)
                .collect(Collectors.joining(" "));
        String script = "if [ -e " + quote(started.toString()) + " ]; then exec " + kit
                + " --init-delay-ms 3000; fi; touch " + quote(started.toString()) + "; exec " + kit;
        StdioServerConfig config = StdioServerConfig.of("sh", List.of("-c", script));

        McpManager first = manager(Duration.ofSeconds(30), cache);
        first.connectServers(Map.of("kit", config), Map.of());
        ServerSurface listed = first.surfaceOf("kit").orElseThrow().surface();
        first.close();
        assertEquals(Optional.of(listed), cache.readEntry("kit", ConfigHash.of(config)).orElseThrow().surface(),
                "the surface is cached with the tools");

        McpManager warm = manager(McpManager.DEFAULT_STARTUP_GATE, cache);
        warm.connectServers(Map.of("kit", config), Map.of());
        SurfaceSlice deferred = warm.surfaceOf("kit").orElseThrow();
        assertTrue(deferred.deferred(), "offered from the cache at the gate");
        assertEquals(listed, deferred.surface());
        McpException late = assertThrows(McpException.class, () -> McpClient.await(warm.readResource("kit", TEXT_URI,
                CallOptions.DEFAULT.withTimeout(Duration.ofMillis(200)))));
        assertEquals("MCP server \"kit\" is still connecting and was not connected within the call's timeout (200 ms)",
                late.getMessage(), "the wait for a first connect is the call's, not the connect's");
        ResourceContents text = warm.readResource("kit", TEXT_URI, CallOptions.DEFAULT).join().contents().get(0);
        assertEquals(Optional.of("The testkit's readme."), text.text(), "the read waited for the server");
        ReconnectTest.await("the surface is live", () -> warm.surfaceOf("kit").map(s -> !s.deferred()).orElse(false));
        assertTrue(surfaceEvents.contains("kit:kit(deferred)") && surfaceEvents.contains("kit:kit"), surfaceEvents::toString);
    }

    @Test
    void aReconnectingServerKeepsItsSurfaceDeferredAndGetsItBackLive() throws Exception {
        McpManager manager = manager(Duration.ofSeconds(30), null);
        manager.connectServers(Map.of("kit", TestServerProcesses.config("--features", ALL)), Map.of());
        ServerSurface before = manager.surfaceOf("kit").orElseThrow().surface();
        ReconnectTest.call(ReconnectTest.tool(manager, "mcp_kit_crash"), null);
        ReconnectTest.await("kit reconnected", () -> manager.status("kit").state() == ServerStatus.State.CONNECTED
                && manager.surfaceOf("kit").map(s -> !s.deferred()).orElse(false));
        assertEquals(before, manager.surfaceOf("kit").orElseThrow().surface());
        assertTrue(surfaceEvents.contains("kit:kit(deferred)"), surfaceEvents::toString);
        assertEquals("item 7", manager.readResource("kit", "test://items/7", CallOptions.DEFAULT).join().contents()
                .get(0).text().orElseThrow());
    }

    @Test
    void aSurfaceListingThatFailsLeavesThatPartEmptyAndTheToolsLive() throws Exception {
        Files.createDirectories(temp);
        McpManager manager = manager(Duration.ofSeconds(30), null);
        manager.connectServers(Map.of("kit", TestServerProcesses.config("--features", ALL, "--fault",
                "surface-lists-fail")), Map.of());
        assertEquals(ServerStatus.State.CONNECTED, manager.status("kit").state());
        assertFalse(manager.toolsOf("kit").isEmpty());
        SurfaceSlice kit = manager.surfaceOf("kit").orElseThrow();
        assertEquals(List.of(), kit.surface().resources(), "resources/list failed");
        assertEquals(2, kit.surface().prompts().size(), "prompts/list still listed");
    }

    private static String text(McpManager manager, String tool, String args) {
        ToolOutput output = ReconnectTest.call(ReconnectTest.tool(manager, tool), args);
        assertFalse(output.isError(), output.text());
        return output.text();
    }

    private static long count(McpManager manager, String method) {
        String received = text(manager, "mcp_kit_received", null);
        return McpJson.mapper().readTree(received).valueStream().filter(m -> m.asString().equals(method)).count();
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void aListChangeOfPromptsOrResourcesListsThemAgain(String era) throws Exception {
        McpManager manager = manager(Duration.ofSeconds(30), null);
        manager.connectServers(Map.of("kit", TestServerProcesses.config("--era", era, "--features",
                "prompts,resources,list-changes")), Map.of());
        assertEquals(1, count(manager, "prompts/list"));
        assertEquals("notified 1", text(manager, "mcp_kit_change_prompts", null));
        ReconnectTest.await("prompts listed again", () -> count(manager, "prompts/list") == 2);
        assertEquals("notified 1", text(manager, "mcp_kit_change_resources", null));
        ReconnectTest.await("resources listed again", () -> count(manager, "resources/list") >= 2);
        assertFalse(manager.surfaceOf("kit").orElseThrow().deferred());
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void aSubscriptionBelongsToTheServerNameAndOutlivesAReconnect(String era) throws Exception {
        McpManager manager = manager(Duration.ofSeconds(30), null);
        manager.connectServers(Map.of("kit", TestServerProcesses.config("--era", era, "--features",
                "resources,subscriptions")), Map.of());
        McpClient.await(manager.subscribeResource("kit", TEXT_URI));
        assertEquals(java.util.Set.of(TEXT_URI), manager.subscribedResources("kit"));
        assertEquals("notified 1", text(manager, "mcp_kit_touch_resource", "{\"uri\":\"" + TEXT_URI + "\"}"));
        ReconnectTest.await("the update is heard", () -> updates.contains("kit " + TEXT_URI));

        ReconnectTest.call(ReconnectTest.tool(manager, "mcp_kit_crash"), null);
        updates.clear();
        ReconnectTest.await("kit reconnected and subscribed again", () -> manager.status("kit").state()
                == ServerStatus.State.CONNECTED && updates.contains("kit " + TEXT_URI));
        updates.clear();
        assertEquals("notified 1", text(manager, "mcp_kit_touch_resource", "{\"uri\":\"" + TEXT_URI + "\"}"),
                "the new session is subscribed");
        ReconnectTest.await("the update is heard again", () -> updates.contains("kit " + TEXT_URI));

        McpClient.await(manager.unsubscribeResource("kit", TEXT_URI));
        assertEquals(java.util.Set.of(), manager.subscribedResources("kit"));
        assertEquals("notified 0", text(manager, "mcp_kit_touch_resource", "{\"uri\":\"" + TEXT_URI + "\"}"));

        McpException refused = assertThrows(McpException.class, () -> McpClient.await(
                manager.subscribeResource("nobody", TEXT_URI)));
        assertEquals("MCP server not connected: nobody", refused.getMessage());
        assertEquals(java.util.Set.of(), manager.subscribedResources("nobody"), "a failed subscription is not kept");
    }

    private static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }
}
