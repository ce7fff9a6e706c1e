package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import mcp.api.McpJson;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code connect} through an agent's own CLI, with a fake CLI on the PATH that notes its arguments and working
 * directory, reads its stdin to the end, and then does what the test set for that run: write prepared bytes into the
 * agent's file, fail with a message, hang, or do nothing. The real CLIs are run by {@code ConnectThroughAgentCliIT};
 * here the ways it can go wrong: each ends with the file written directly, whatever the CLI changed undone first, and
 * says so in one line.
 */
class ConnectThroughAgentCliTest {

    private static final String LAUNCHER = "/opt/mcp-host/bin/mcp-host";
    private static final String ORIGINAL = """
            {
              "numStartups": 4,
              "mcpServers": {
                "git": {"type": "stdio", "command": "uvx", "args": ["mcp-server-git"], "env": {"GIT_TOKEN": "s3cret"}}
              },
              "projects": {}
            }
            """;
    /** As Claude Code writes its file: both entries, after the add. */
    private static final String AFTER_ADD = """
            {
              "numStartups": 4,
              "mcpServers": {
                "git": {
                  "type": "stdio",
                  "command": "uvx",
                  "args": [
                    "mcp-server-git"
                  ],
                  "env": {
                    "GIT_TOKEN": "s3cret"
                  }
                },
                "mcp-host": {
                  "type": "stdio",
                  "command": "/opt/mcp-host/bin/mcp-host",
                  "args": [
                    "serve",
                    "--stdio"
                  ]
                }
              },
              "projects": {},
              "firstStartTime": "2026-12-02T23:01:20.617Z"
            }""";
    private static final String AFTER_REMOVE = """
            {
              "numStartups": 4,
              "mcpServers": {
                "mcp-host": {
                  "type": "stdio",
                  "command": "/opt/mcp-host/bin/mcp-host",
                  "args": [
                    "serve",
                    "--stdio"
                  ]
                }
              },
              "projects": {},
              "firstStartTime": "2026-12-02T23:01:20.617Z"
            }""";
    private static final String ADD = "claude mcp add-json --scope user mcp-host"
            + " '{\"type\":\"stdio\",\"command\":\"/opt/mcp-host/bin/mcp-host\",\"args\":[\"serve\",\"--stdio\"]}'";

    @TempDir
    Path temp;

    private CliRunner cli;
    private Path home;
    private Path project;
    private Path bin;
    private Path runs;
    private Path file;

    @BeforeEach
    void fixture() throws Exception {
        home = Files.createDirectories(temp.resolve("home"));
        project = Files.createDirectories(temp.resolve("project"));
        bin = Files.createDirectories(temp.resolve("bin"));
        runs = Files.createDirectories(temp.resolve("runs"));
        file = home.resolve(".claude.json");
        Files.writeString(file, ORIGINAL);
        cli = new CliRunner(project, home).env("MCP_HOST_LAUNCHER", LAUNCHER).env("PATH", bin + ":/usr/bin:/bin")
                .env("FAKE_RUNS", runs.toString());
    }

    /**
     * A CLI that, at its n-th run, notes "cwd|args" in {@code runs/log}, reads stdin to its end (without the stdin
     * closed it waits here until connect's bound), and then: exits with the code in {@code runs/exit-n} (and a
     * message with a secret on stderr), sleeps at {@code runs/sleep-n}, copies {@code runs/write-n} into the target.
     */
    private void fakeCli(String name, Path target) throws Exception {
        Path script = bin.resolve(name);
        Files.writeString(script, """
                #!/bin/sh
                r="$FAKE_RUNS"
                n=$(( $(cat "$r/count" 2>/dev/null || echo 0) + 1 ))
                echo "$n" > "$r/count"
                echo "$(pwd)|$*" >> "$r/log"
                cat > /dev/null
                if [ -f "$r/exit-$n" ]; then echo "it went wrong: token=s3cret" >&2; exit "$(cat "$r/exit-$n")"; fi
                if [ -f "$r/sleep-$n" ]; then sleep 60; fi
                if [ -f "$r/write-$n" ]; then cat "$r/write-$n" > '%s'; fi
                echo "done"
                """.formatted(target));
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private List<String> log() throws Exception {
        Path log = runs.resolve("log");
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    @Test
    void claudeIsConnectedThroughItsCliAndDisconnectGivesTheBytesBack() throws Exception {
        fakeCli("claude", file);
        Files.writeString(runs.resolve("write-1"), AFTER_ADD);
        Files.writeString(runs.resolve("write-2"), AFTER_REMOVE);

        CliRunner.Result connected = cli.run("connect", "claude", "--yes");
        assertEquals(0, connected.exitCode(), connected.toString());
        // Shown before it runs, and said after.
        assertTrue(connected.err().contains("Written by claude's own CLI, which may reformat the file: " + ADD
                + "; claude mcp remove --scope user git"), connected.err());
        assertTrue(connected.err().contains("mcp-host connect: " + file + " written by claude's own CLI: " + ADD
                + "; claude mcp remove --scope user git\n"), connected.err());
        assertEquals(List.of(project + "|mcp add-json --scope user mcp-host {\"type\":\"stdio\",\"command\":\""
                + LAUNCHER + "\",\"args\":[\"serve\",\"--stdio\"]}", project + "|mcp remove --scope user git"), log());
        assertEquals(AFTER_REMOVE, Files.readString(file), "the file as the CLI left it");
        assertFalse(connected.err().contains("s3cret"), connected.err());
        JsonNode own = McpJson.mapper().readTree(Files.readString(home.resolve(".config/mcp-host/mcp.json")));
        assertEquals("uvx", own.path("mcpServers").path("git").path("command").asString(), own.toString());

        CliRunner.Result disconnected = cli.run("disconnect", "claude");
        assertEquals(0, disconnected.exitCode(), disconnected.toString());
        assertEquals(ORIGINAL, Files.readString(file), "byte for byte");
        assertEquals(2, log().size(), "disconnect puts the bytes back itself");
    }

    @Test
    void aCliThatFailsMidwayIsUndoneAndTheFileWrittenDirectly() throws Exception {
        fakeCli("claude", file);
        Files.writeString(runs.resolve("write-1"), AFTER_ADD);
        Files.writeString(runs.resolve("exit-2"), "1");

        CliRunner.Result connected = cli.run("connect", "claude", "--yes");
        assertEquals(0, connected.exitCode(), connected.toString());
        assertTrue(connected.err().contains("mcp-host connect: " + file + " written directly: claude mcp remove"
                + " --scope user git failed (exit 1: it went wrong: token=<hidden>); what it changed is undone\n"),
                connected.err());
        assertFalse(connected.err().contains("s3cret"), "no secret of the CLI's message: " + connected.err());
        assertDirect();
    }

    @Test
    void aCliThatHangsIsEndedAtItsBound() throws Exception {
        fakeCli("claude", file);
        Files.writeString(runs.resolve("sleep-1"), "");
        cli.env("MCP_HOST_CONNECT_CLI_TIMEOUT", "1");

        CliRunner.Result connected = cli.run("connect", "claude", "--yes");
        assertEquals(0, connected.exitCode(), connected.toString());
        assertTrue(connected.err().contains("written directly: " + ADD + " did not finish within 1 s (ended)"),
                connected.err());
        CliRunner.assertNoChildProcessLeft();
        assertDirect();
    }

    @Test
    void aCliThatWritesAnotherFileIsUndoneThere() throws Exception {
        // Its own idea of where the file is: the entry it added is removed again, with the CLI.
        fakeCli("claude", temp.resolve("elsewhere.json"));
        Files.writeString(runs.resolve("write-1"), AFTER_ADD);

        CliRunner.Result connected = cli.run("connect", "claude", "--yes");
        assertEquals(0, connected.exitCode(), connected.toString());
        assertTrue(connected.err().contains("written directly: " + ADD + " did not write the entry into " + file),
                connected.err());
        assertEquals(project + "|mcp remove --scope user mcp-host", log().get(1), log().toString());
        assertDirect();
    }

    @Test
    void withoutTheCliOnThePathTheFileIsWrittenDirectly() throws Exception {
        CliRunner.Result connected = cli.run("connect", "claude", "--yes");
        assertEquals(0, connected.exitCode(), connected.toString());
        assertTrue(connected.err().contains("Written directly: claude is not on the PATH"), connected.err());
        assertTrue(connected.err().contains("mcp-host connect: " + file
                + " written directly: claude is not on the PATH\n"), connected.err());
        assertDirect();
    }

    @Test
    void codexIsWrittenDirectlyForItsEnvVars() throws Exception {
        Path toml = home.resolve(".codex/config.toml");
        Files.createDirectories(toml.getParent());
        Files.writeString(toml, "[mcp_servers.git]\ncommand = \"uvx\"\n");
        fakeCli("codex", toml);
        CliRunner.Result connected = cli.run("connect", "codex", "--yes");
        assertEquals(0, connected.exitCode(), connected.toString());
        assertTrue(connected.err().contains("written directly: codex mcp add cannot write the env_vars that the"
                + " gateway's entry needs"), connected.err());
        assertEquals(List.of(), log(), "codex's CLI was not run");
    }

    @Test
    void geminiOfAProjectRunsInTheProject() throws Exception {
        Path settings = project.resolve(".gemini/settings.json");
        Files.createDirectories(settings.getParent());
        String original = "{\"mcpServers\": {\"git\": {\"command\": \"uvx\"}}}\n";
        Files.writeString(settings, original);
        fakeCli("gemini", settings);
        String gateway = "\"mcp-host\": {\"command\": \"" + LAUNCHER + "\", \"args\": [\"serve\", \"--stdio\"]}";
        Files.writeString(runs.resolve("write-1"), "{\"mcpServers\": {\"git\": {\"command\": \"uvx\"}, " + gateway
                + "}}");
        Files.writeString(runs.resolve("write-2"), "// as Gemini CLI left it\n{\"mcpServers\": {" + gateway + "}}");

        CliRunner.Result connected = cli.run("connect", "gemini", "--project", "--yes");
        assertEquals(0, connected.exitCode(), connected.toString());
        assertTrue(connected.err().contains("written by gemini's own CLI"), connected.err());
        assertEquals(List.of(project + "|mcp add --scope project mcp-host " + LAUNCHER + " serve --stdio",
                project + "|mcp remove --scope project git"), log());
        assertTrue(Files.readString(settings).startsWith("// as Gemini CLI left it"));
        assertTrue(Files.readString(project.resolve(".mcp-host/mcp.json")).contains("uvx"));

        assertEquals(0, cli.run("disconnect", "gemini", "--project").exitCode());
        assertEquals(original, Files.readString(settings));
    }

    /** The file as connect writes it itself, and disconnect giving back the original. */
    private void assertDirect() throws Exception {
        JsonNode now = McpJson.mapper().readTree(Files.readString(file));
        assertEquals(List.of("mcp-host"), List.copyOf(now.path("mcpServers").propertyNames()), now.toString());
        assertFalse(now.has("firstStartTime"), "nothing of the CLI's: " + now);
        assertTrue(Files.readString(file).startsWith("{\n  \"numStartups\": 4,\n  \"mcpServers\": {"),
                Files.readString(file));
        CliRunner.Result disconnected = cli.run("disconnect", "claude");
        assertEquals(0, disconnected.exitCode(), disconnected.toString());
        assertArrayEquals(ORIGINAL.getBytes(java.nio.charset.StandardCharsets.UTF_8), Files.readAllBytes(file));
    }
}
