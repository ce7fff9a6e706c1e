package mcp.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.ServerConfig;
import mcp.api.StoredCredential;
import mcp.api.spi.AuthResolver;
import mcp.api.spi.AuthStorage;
import mcp.api.spi.ConsentHandler;
import mcp.manager.BridgedTool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every store a host creates by default follows the builder's home and environment: a real load of a user
 * server and an approved project server (testkit processes) writes the approval, the pins, the server log, the
 * tool cache and a stored credential under the directories {@code UserDirectories} gives, and nowhere else in
 * the temporary tree. (The JVM's {@code user.home} cannot be moved safely in-process; what is checked is that
 * each file is where the rule puts it, and that the {@code HOME} the environment names is left alone when the
 * builder's home wins.)
 */
class McpHostDirectoriesTest {

    @TempDir
    Path temp;

    private Path project;

    /** Records the auth storage the host hands its resolvers. */
    private static final class StorageProbe implements AuthResolver {
        final AtomicReference<Optional<AuthStorage>> storage = new AtomicReference<>();

        @Override
        public String id() {
            return "probe";
        }

        @Override
        public ServerConfig resolve(String serverName, ServerConfig config, Context context) {
            storage.set(context.authStorage());
            return config;
        }
    }

    @BeforeEach
    void project() throws IOException {
        project = Files.createDirectories(temp.resolve("project"));
        Files.createDirectories(project.resolve(".git"));
        HostFixtures.config(Files.createDirectories(project.resolve(".mcp-host")), Map.of("proj", List.of()));
    }

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        HostFixtures.awaitNoProcessLeft();
    }

    /** Writes the user's own config, with a server that logs by itself, under this config directory. */
    private static void userConfig(Path configHome) throws IOException {
        HostFixtures.config(Files.createDirectories(configHome.resolve("mcp-host")),
                Map.of("user", List.of("--features", "logging", "--log-every", "50")));
    }

    /** An environment with no XDG variable and no machine-wide policy of the real machine. */
    private Map<String, String> environment(Map<String, String> extra) {
        Map<String, String> env = new HashMap<>(extra);
        env.put("MCP_HOST_CLAUDE_MANAGED_DIR", temp.resolve("managed-claude").toString());
        env.put("GEMINI_CLI_SYSTEM_SETTINGS_PATH", temp.resolve("managed-gemini.json").toString());
        return env;
    }

    private McpHost.Builder host(Map<String, String> environment, StorageProbe probe) {
        return McpHost.builder().workingDirectory(project).environment(environment)
                .managedPolicy(temp.resolve("managed-mcp-host.json"))
                .consentHandler(server -> ConsentHandler.Decision.APPROVE)
                .authResolver(probe);
    }

    /** Loads, waits for both servers, the cache, the pins and a log line, and saves a credential. */
    private void loadAndSave(McpHost.Builder builder, StorageProbe probe, Path stateDir, Path cacheDir)
            throws InterruptedException {
        try (McpHost host = builder.build()) {
            LoadResult loaded = host.load();
            assertEquals(Map.of(), loaded.errors());
            HostFixtures.awaitTrue("both servers have tools", 15, () -> host.manager().getTools().stream()
                    .map(BridgedTool::serverName).collect(Collectors.toSet()).equals(Set.of("user", "proj")));
            HostFixtures.awaitTrue("both servers' tools are cached", 15,
                    () -> Files.isRegularFile(cacheDir.resolve("user.json"))
                            && Files.isRegularFile(cacheDir.resolve("proj.json")));
            HostFixtures.awaitTrue("the user server's log is written", 15,
                    () -> Files.isRegularFile(stateDir.resolve("logs/user.log")));
            HostFixtures.awaitTrue("both servers' tools are pinned", 15,
                    () -> files(stateDir.resolve("pins")).size() >= 2);
            probe.storage.get().orElseThrow().save("probe", new StoredCredential("t", "Bearer", Optional.empty(),
                    Optional.empty(), List.of(), Instant.parse("2025-01-01T00:00:00Z"), Map.of()));
        }
    }

    private static List<Path> files(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aHostGivenAHomeKeepsEveryFileUnderItAndNotUnderTheEnvironmentsHome() throws Exception {
        Path home = temp.resolve("home");
        Path otherHome = Files.createDirectories(temp.resolve("other-home"));
        userConfig(home.resolve(".config"));
        StorageProbe probe = new StorageProbe();
        Path state = home.resolve(".local/state/mcp-host");
        Path cache = home.resolve(".cache/mcp-host/tools");

        loadAndSave(host(environment(Map.of("HOME", otherHome.toString())), probe).home(home), probe, state, cache);

        assertTrue(Files.isRegularFile(state.resolve("approvals.json")), "the project server's approval");
        assertTrue(Files.isRegularFile(home.resolve(".config/mcp-host/credentials/probe.json")), "the credential");
        assertEquals(List.of(), files(otherHome), "the environment's HOME lost to the builder's home");
        Set<Path> outside = files(temp).stream()
                .filter(f -> !f.startsWith(home) && !f.startsWith(project)).collect(Collectors.toSet());
        assertEquals(Set.of(), outside, "every file the host wrote is under its home");
        Set<Path> underHome = files(home).stream().map(home::relativize).map(p -> p.getName(0))
                .collect(Collectors.toSet());
        assertEquals(Set.of(Path.of(".config"), Path.of(".local"), Path.of(".cache")), underHome);
    }

    @Test
    void withoutAHomeTheEnvironmentsHomeAndAbsoluteXdgDirectoriesDecide() throws Exception {
        Path home = temp.resolve("env-home");
        Path cacheHome = temp.resolve("xdg-cache");
        Path configHome = temp.resolve("xdg-config");
        userConfig(configHome);
        StorageProbe probe = new StorageProbe();
        // XDG_STATE_HOME is relative, so ignored: the state stays under the home.
        Map<String, String> env = environment(Map.of("HOME", home.toString(), "XDG_CACHE_HOME", cacheHome.toString(),
                "XDG_CONFIG_HOME", configHome.toString(), "XDG_STATE_HOME", "relative-state"));
        Path state = home.resolve(".local/state/mcp-host");

        loadAndSave(host(env, probe), probe, state, cacheHome.resolve("mcp-host/tools"));

        assertTrue(Files.isRegularFile(state.resolve("approvals.json")));
        assertTrue(Files.isRegularFile(configHome.resolve("mcp-host/credentials/probe.json")));
        assertFalse(Files.exists(home.resolve(".cache")));
        assertFalse(Files.exists(home.resolve(".config")));
        assertFalse(Files.exists(Path.of("relative-state")), "a relative XDG_STATE_HOME is never used");
        assertFalse(Files.exists(project.resolve("relative-state")));
    }
}
