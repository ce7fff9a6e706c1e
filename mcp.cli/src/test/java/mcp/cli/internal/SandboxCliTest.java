package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The command line with servers that must run in a sandbox and cannot get one here ({@code --bwrap} names a
 * program that does not exist, as on a machine without bubblewrap): {@code list} shows each as inactive with the
 * reason, and {@code tools} starts none of them, with or without a sandbox.
 */
class SandboxCliTest {

    @TempDir
    Path temp;

    private Path project;
    private Path marker;
    private Path missing;
    private CliRunner cli;

    @BeforeEach
    void project() throws IOException {
        Path home = Files.createDirectories(temp.resolve("home"));
        project = Files.createDirectories(temp.resolve("project"));
        Files.createDirectories(project.resolve(".git"));
        marker = temp.resolve("started");
        missing = temp.resolve("no-such-bwrap");
        String starts = "\"command\": \"/bin/sh\", \"args\": [\"-c\", \"touch " + marker + "; exec cat\"]";
        Files.createDirectories(project.resolve(".vscode"));
        Files.writeString(project.resolve(".vscode/mcp.json"), "{\"servers\": {\"boxed\": {\"type\": \"stdio\", "
                + starts + ", \"sandboxEnabled\": true}}}");
        Files.createDirectories(home.resolve(".config/mcp-host"));
        Files.writeString(home.resolve(".config/mcp-host/mcp.json"), "{\"mcpServers\": {\"mine\": {" + starts
                + ", \"sandbox\": true}}}");
        cli = new CliRunner(project, home);
        CliRunner.Result approved = cli.run("approve", "boxed");
        assertEquals(0, approved.exitCode(), approved::toString);
    }

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        CliRunner.assertNoChildProcessLeft();
    }

    @Test
    void listShowsEachAsInactiveWithTheReason() {
        CliRunner.Result result = cli.run("list", "--bwrap", missing.toString());

        assertEquals(0, result.exitCode(), result::toString);
        String reason = "must run in a sandbox, and none can be had: bubblewrap " + missing
                + " does not exist or cannot be run; it is not started without one (see docs/sandbox.md)";
        assertTrue(result.out().lines().anyMatch(line -> line.equals("  ◌ boxed [stdio]  " + reason)), result::toString);
        assertTrue(result.out().lines().anyMatch(line -> line.equals("  ◌ mine [stdio]  " + reason)), result::toString);

        JsonNode list = cli.run("list", "--json", "--bwrap", missing.toString()).json();
        for (JsonNode entry : list) {
            assertEquals("inactive", entry.get("status").asString(), entry::toString);
            assertEquals(reason, entry.get("error").asString(), entry::toString);
        }
        assertFalse(Files.exists(marker), "list starts nothing");
    }

    @Test
    void toolsStartsNoneOfThemAndSaysWhy() {
        CliRunner.Result result = cli.run("tools", "--json", "--bwrap", missing.toString(),
                "--sandbox-project-servers");

        assertEquals(0, result.exitCode(), result::toString);
        assertTrue(result.out().contains("no-sandbox"), result::toString);
        assertFalse(Files.exists(marker), "a server that must be sandboxed was started without a sandbox");
    }
}
