package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.McpJson;
import mcp.api.spi.AuthResolver;
import mcp.api.spi.AuthStorage;
import mcp.api.spi.AuthorizationUi;
import mcp.api.spi.CapabilitySource;
import mcp.api.spi.ConfigFilter;
import mcp.api.spi.Providers;
import mcp.api.spi.ToolCacheProvider;
import mcp.api.spi.TransportProvider;
import mcp.host.McpHost;
import mcp.host.ToolSession;
import mcp.manager.BridgedTool;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * mcp-host on the class path, where the adapters for frameworks without named modules (LangChain4j, Spring AI) put
 * it: no module descriptor is read, so every provider must come from a {@code META-INF/services} file. These tests
 * run in failsafe's class-path JVM (this module has no descriptor), and check first that they do.
 */
class ClassPathIT {

    @TempDir
    Path home;

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        EraPeer.assertNoChildLeft();
    }

    @Test
    void mcpHostRunsInTheUnnamedModuleHere() {
        for (Class<?> type : List.of(McpHost.class, McpJson.class, TransportProvider.class)) {
            assertFalse(type.getModule().isNamed(), type + " is in " + type.getModule() + ": not a class-path run");
        }
    }

    /** Every built-in provider, each from its jar's services file, in the unnamed module. */
    @Test
    void serviceLoaderFindsEveryBuiltInProviderThroughTheServicesFiles() {
        assertEquals(List.of("http", "sse", "stdio"), ids(TransportProvider.class, TransportProvider::id));
        assertEquals(List.of("file"), ids(ToolCacheProvider.class, ToolCacheProvider::id));
        assertEquals(List.of("file"), ids(AuthStorage.class, AuthStorage::id));
        assertEquals(List.of("browser", "headless"), ids(AuthorizationUi.class, AuthorizationUi::id));
        assertEquals(List.of("values"), ids(AuthResolver.class, AuthResolver::id));
        assertEquals(List.of("claude", "claude-desktop", "codex", "cursor", "gemini", "goose", "kiro", "mcp-json",
                "native", "opencode", "vscode", "windsurf", "zed"), ids(CapabilitySource.class, CapabilitySource::id));
        assertEquals(List.of("enabled", "exa", "project"), ids(ConfigFilter.class, ConfigFilter::id));
    }

    /** The ids of a service's providers, each checked to be a class-path provider of one of mcp-host's jars. */
    private static <T> List<String> ids(Class<T> service, Function<T, String> id) {
        List<T> providers = Providers.load(service, ClassPathIT.class.getClassLoader());
        for (T provider : providers) {
            Class<?> type = provider.getClass();
            assertFalse(type.getModule().isNamed(), type + " was bound through a module descriptor");
            String jar = type.getProtectionDomain().getCodeSource().getLocation().getPath();
            assertTrue(jar.matches(".*/mcp\\.[a-z.]+-[^/]*\\.jar"), type + " comes from " + jar);
        }
        return providers.stream().map(id).sorted().toList();
    }

    /**
     * The whole host with ServiceLoader discovery on: servers from two tools' config files (mcp-host's own and
     * Claude Code's), one over stdio and one over Streamable HTTP, called, and their tools kept by the file cache.
     */
    @Test
    void theHostDiscoversConnectsCallsAndCachesOnTheClassPath() throws Exception {
        List<String> stdio = TestServers.command();
        ObjectNode nativeServers = McpJson.object();
        ObjectNode local = nativeServers.putObject("local").put("command", stdio.get(0));
        stdio.subList(1, stdio.size()).forEach(local.putArray("args")::add);
        Path nativeConfig = Files.createDirectories(home.resolve(".config/mcp-host")).resolve("mcp.json");
        Files.writeString(nativeConfig, McpJson.object().set("mcpServers", nativeServers).toString());

        try (LoopbackServer http = new LoopbackServer(port -> TestServers.conformance("--http",
                Integer.toString(port)))) {
            ObjectNode claudeServers = McpJson.object();
            claudeServers.putObject("remote").put("type", "http")
                    .put("url", "http://127.0.0.1:" + http.port() + "/mcp");
            Files.writeString(home.resolve(".claude.json"), McpJson.object().set("mcpServers", claudeServers)
                    .toString());
            Path cache = home.resolve("cache");
            try (ToolSession session = McpHost.builder().home(home).environment(Map.of()).workingDirectory(home)
                    .cacheDirectory(cache).build().openSession()) {
                assertEquals(Map.of(), session.lastLoad().errors());
                assertEquals(Set.of("local", "remote"), session.lastLoad().tools().stream()
                        .map(BridgedTool::serverName).collect(Collectors.toSet()));
                String remoteOrigin = session.tool("mcp_remote_test_simple_text").orElseThrow().origin();
                assertTrue(remoteOrigin.contains("Claude Code"), remoteOrigin);
                String localOrigin = session.tool("mcp_local_echo").orElseThrow().origin();
                assertTrue(localOrigin.contains("mcp-host"), localOrigin);

                assertEquals("hi", session.tool("mcp_local_echo").orElseThrow()
                        .call(McpJson.object().put("message", "hi")).get(30, TimeUnit.SECONDS).text());
                String simple = session.tool("mcp_remote_test_simple_text").orElseThrow().call(McpJson.object())
                        .get(30, TimeUnit.SECONDS).text();
                assertFalse(simple.isBlank(), simple);
                assertFalse(simple.startsWith("MCP error"), simple);

                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
                while (cacheFiles(cache) < 2) {
                    assertTrue(System.nanoTime() < deadline, "the file tool cache kept both servers' tools: "
                            + cacheFiles(cache));
                    Thread.sleep(50);
                }
            }
        }
    }

    private static long cacheFiles(Path cache) throws java.io.IOException {
        if (!Files.isDirectory(cache)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(cache)) {
            return files.filter(Files::isRegularFile).filter(file -> file.toString().endsWith(".json")).count();
        }
    }
}
