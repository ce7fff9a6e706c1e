package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import mcp.api.spi.ConsentHandler;
import mcp.config.Discovery;
import mcp.config.DiscoveryResult;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discovery's home and user directories come from its own environment when no home is given: the user's
 * files are read, and approvals written, under that environment's {@code HOME} and XDG directories, never
 * under the JVM's {@code user.home}.
 */
class DiscoveryHomeTest {

    @TempDir
    Path dir;

    private Fixture f;

    @BeforeEach
    void files() {
        f = Fixture.empty(dir);
        f.write(f.project.resolve(".mcp-host/mcp.json"), "{\"mcpServers\": {\"notes\": {\"command\": \"notes\"}}}");
    }

    /** Discovers with no {@code home(...)}: the environment alone says where the user's files are. */
    private DiscoveryResult discover(Map<String, String> environment) {
        Map<String, String> hermetic = new HashMap<>(environment);
        hermetic.put(ClaudePolicy.DIRECTORY_VARIABLE, f.managed().toString());
        hermetic.put(GeminiSource.SYSTEM_SETTINGS_VARIABLE, f.managed().resolve("gemini.json").toString());
        return Discovery.builder().workingDirectory(f.app).environment(hermetic)
                .managedPolicy(f.managed().resolve("mcp-host.json"))
                .consent(server -> ConsentHandler.Decision.APPROVE).build().discover();
    }

    @Test
    void theEnvironmentsHomeHoldsTheUsersConfigAndTheApprovals() {
        Path userFile = f.write(f.home.resolve(".config/mcp-host/mcp.json"),
                "{\"mcpServers\": {\"mine\": {\"command\": \"mine\"}}}");

        DiscoveryResult result = discover(Map.of("HOME", f.home.toString()));

        assertEquals(Set.of("mine", "notes"), result.configs().keySet(), result.problems().toString());
        assertEquals(Optional.of(userFile), result.sources().get("mine").path());
        assertTrue(Files.isRegularFile(f.home.resolve(".local/state/mcp-host/approvals.json")),
                "the approval of the project server is kept under the environment's home");
    }

    @Test
    void absoluteXdgVariablesMoveTheConfigAndTheStateAndRelativeOnesDoNot() {
        f.write(f.home.resolve(".config/mcp-host/mcp.json"), "{\"mcpServers\": {\"home\": {\"command\": \"h\"}}}");
        f.write(dir.resolve("xdg-config/mcp-host/mcp.json"), "{\"mcpServers\": {\"xdg\": {\"command\": \"x\"}}}");

        DiscoveryResult moved = discover(Map.of("HOME", f.home.toString(),
                "XDG_CONFIG_HOME", dir.resolve("xdg-config").toString(),
                "XDG_STATE_HOME", dir.resolve("xdg-state").toString()));
        assertEquals(Set.of("xdg", "notes"), moved.configs().keySet(), moved.problems().toString());
        assertTrue(Files.isRegularFile(dir.resolve("xdg-state/mcp-host/approvals.json")));
        assertFalse(Files.exists(f.home.resolve(".local/state")));

        DiscoveryResult relative = discover(Map.of("HOME", f.home.toString(), "XDG_CONFIG_HOME", "xdg-config",
                "XDG_STATE_HOME", "xdg-state"));
        assertEquals(Set.of("home", "notes"), relative.configs().keySet(), relative.problems().toString());
    }
}
