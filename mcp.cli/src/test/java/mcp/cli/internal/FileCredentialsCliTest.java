package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.StoredCredential;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With no store given, {@code auth} uses the {@code file} store found by ServiceLoader, placed under the run's
 * home and {@code XDG_CONFIG_HOME} as a host places it: never under the JVM's environment or {@code user.home}.
 */
class FileCredentialsCliTest {

    @TempDir
    Path temp;

    private Path home;
    private Path project;
    private Path config;

    @BeforeEach
    void fixture() throws IOException {
        home = Files.createDirectories(temp.resolve("home"));
        project = Files.createDirectories(temp.resolve("project"));
        config = Files.writeString(temp.resolve("servers.json"), "{\"mcpServers\": {}}");
    }

    /** Saves a credential through the store the command line would use with this environment. */
    private void saveThroughTheCli(Map<String, String> env, String credentialId) {
        CliIo io = new CliIo(new PrintStream(new ByteArrayOutputStream()), new PrintStream(new ByteArrayOutputStream()),
                env, project, home, new ByteArrayInputStream(new byte[0]), false);
        new CliContext(io, new McpHostCommand(io, null), null).authStorage().save(credentialId,
                new StoredCredential("token", "Bearer", Optional.empty(), Optional.empty(), List.of(),
                        Instant.parse("2025-01-01T00:00:00Z"), Map.of()));
    }

    @Test
    void theFileStoreIsUnderTheRunsHome() {
        saveThroughTheCli(Map.of("HOME", home.toString()), "kit");

        assertTrue(Files.isRegularFile(home.resolve(".config/mcp-host/credentials/kit.json")));
        CliRunner.Result status = new CliRunner(project, home).runWithConfig(config, "auth", "status", "--json");
        assertEquals(0, status.exitCode(), status::toString);
        assertEquals("kit", status.json().path(0).path("credentialId").asString(), status::toString);
    }

    @Test
    void anAbsoluteXdgConfigHomeMovesTheStoreAndARelativeOneDoesNot() {
        Path xdg = temp.resolve("xdg");
        saveThroughTheCli(Map.of("HOME", home.toString(), "XDG_CONFIG_HOME", xdg.toString()), "moved");
        saveThroughTheCli(Map.of("HOME", home.toString(), "XDG_CONFIG_HOME", "relative"), "stayed");

        assertTrue(Files.isRegularFile(xdg.resolve("mcp-host/credentials/moved.json")));
        assertTrue(Files.isRegularFile(home.resolve(".config/mcp-host/credentials/stayed.json")));
        assertFalse(Files.exists(project.resolve("relative")));
        CliRunner.Result status = new CliRunner(project, home).env("XDG_CONFIG_HOME", xdg.toString())
                .runWithConfig(config, "auth", "status", "--json");
        assertEquals(0, status.exitCode(), status::toString);
        assertEquals(1, status.json().size(), status::toString);
        assertEquals("moved", status.json().path(0).path("credentialId").asString(), status::toString);
    }
}
