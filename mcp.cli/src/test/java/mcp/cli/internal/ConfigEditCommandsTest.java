package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import mcp.api.McpJson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code add}, {@code enable}, {@code disable} and {@code remove} on real files. */
class ConfigEditCommandsTest {

    @TempDir
    Path temp;

    private Path home;
    private Path project;
    private Path userFile;
    private CliRunner cli;

    @BeforeEach
    void fixture() throws IOException {
        home = Files.createDirectories(temp.resolve("home"));
        project = Files.createDirectories(temp.resolve("project"));
        userFile = home.resolve(".config/mcp-host/mcp.json");
        cli = new CliRunner(project, home);
    }

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        CliRunner.assertNoChildProcessLeft();
    }

    private static JsonNode read(Path file) throws IOException {
        return McpJson.mapper().readTree(Files.readString(file));
    }

    private static String permissions(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    @Test
    void addEnableDisableRemoveRoundTripKeepsEverythingElse() throws IOException {
        Files.createDirectories(userFile.getParent());
        Files.writeString(userFile, """
                {
                  "theme": "dark",
                  "mcpServers": {
                    "zeta": {"command": "zeta-server", "args": ["--fast"], "custom": 1}
                  },
                  "zz": [1, 2]
                }
                """);

        CliRunner.Result added = cli.run("add", "git", "--env", "TOKEN=GIT_TOKEN", "--timeout", "5000", "--",
                "uvx", "mcp-server-git", "--repository", ".");
        assertEquals(0, added.exitCode(), added::toString);
        assertTrue(added.out().contains("git") && added.out().contains(userFile.toString()), added::toString);
        JsonNode afterAdd = read(userFile);
        assertEquals(List.of("theme", "mcpServers", "zz"), List.copyOf(afterAdd.propertyNames()));
        assertEquals(List.of("zeta", "git"), List.copyOf(afterAdd.get("mcpServers").propertyNames()));
        assertEquals(McpJson.mapper().readTree("""
                {"command": "uvx", "args": ["mcp-server-git", "--repository", "."], "env": {"TOKEN": "GIT_TOKEN"},
                 "timeout": 5000}
                """), afterAdd.at("/mcpServers/git"));
        assertEquals(McpJson.mapper().readTree("{\"command\": \"zeta-server\", \"args\": [\"--fast\"], \"custom\": 1}"),
                afterAdd.at("/mcpServers/zeta"));
        assertEquals("rw-------", permissions(userFile));

        CliRunner.Result disabled = cli.run("disable", "git");
        assertEquals(0, disabled.exitCode(), disabled::toString);
        assertFalse(read(userFile).at("/mcpServers/git/enabled").asBoolean(true));
        assertEquals("rw-------", permissions(userFile));

        CliRunner.Result enabled = cli.run("enable", "git");
        assertEquals(0, enabled.exitCode(), enabled::toString);
        assertTrue(read(userFile).at("/mcpServers/git/enabled").asBoolean(false));

        CliRunner.Result removed = cli.run("remove", "git");
        assertEquals(0, removed.exitCode(), removed::toString);
        JsonNode afterRemove = read(userFile);
        assertEquals(List.of("zeta"), List.copyOf(afterRemove.get("mcpServers").propertyNames()));
        assertEquals("dark", afterRemove.get("theme").asString());
        assertEquals(2, afterRemove.get("zz").size());
        assertEquals("rw-------", permissions(userFile));
        try (var files = Files.list(userFile.getParent())) {
            assertEquals(List.of(userFile), files.toList(), "no temp file is left beside the config");
        }

        CliRunner.Result again = cli.run("remove", "git");
        assertEquals(2, again.exitCode(), again::toString);
        assertTrue(again.err().contains("No MCP server named \"git\""), again::toString);
    }

    @Test
    void addCreatesOwnerOnlyDirectoriesAndFiles() throws IOException {
        CliRunner.Result added = cli.run("add", "docs", "--url", "https://example.com/mcp", "--header",
                "X-Api-Key=DOCS_KEY", "--disabled");
        assertEquals(0, added.exitCode(), added::toString);
        assertEquals(McpJson.mapper().readTree("""
                {"mcpServers": {"docs": {"url": "https://example.com/mcp", "headers": {"X-Api-Key": "DOCS_KEY"},
                 "enabled": false}}}
                """), read(userFile));
        assertEquals("rw-------", permissions(userFile));
        assertEquals("rwx------", permissions(userFile.getParent()));
        assertEquals("rwx------", permissions(userFile.getParent().getParent()));
    }

    @Test
    void xdgConfigHomeIsUsedWhenAbsolute() throws IOException {
        Path xdg = temp.resolve("xdg");
        CliRunner.Result added = cli.env("XDG_CONFIG_HOME", xdg.toString()).run("add", "kit", "--", "kit-server");
        assertEquals(0, added.exitCode(), added::toString);
        assertTrue(Files.exists(xdg.resolve("mcp-host/mcp.json")));
        assertFalse(Files.exists(userFile));

        CliRunner relative = new CliRunner(project, home).env("XDG_CONFIG_HOME", "relative/dir");
        assertEquals(0, relative.run("add", "kit", "--", "kit-server").exitCode());
        assertTrue(Files.exists(userFile), "a relative XDG_CONFIG_HOME is ignored");
    }

    @Test
    void projectFlagWritesTheProjectFileAndEditsFindItFirst() throws IOException {
        assertEquals(0, cli.run("add", "kit", "--", "user-kit").exitCode());
        CliRunner.Result added = cli.run("add", "kit", "--project", "--", "project-kit");
        assertEquals(0, added.exitCode(), added::toString);
        Path projectFile = project.resolve(".mcp-host/mcp.json");
        assertEquals("project-kit", read(projectFile).at("/mcpServers/kit/command").asString());
        // Written by the user just now: approved, in exactly that definition.
        JsonNode listed = cli.run("list", "--json").json().valueStream()
                .filter(e -> e.get("name").asString().equals("kit") && e.get("level").asString().equals("project"))
                .findFirst().orElseThrow();
        assertEquals("approved", listed.at("/approval/state").asString(), listed::toString);

        CliRunner.Result disabled = cli.run("disable", "kit");
        assertEquals(0, disabled.exitCode(), disabled::toString);
        assertFalse(read(projectFile).at("/mcpServers/kit/enabled").asBoolean(true), "the project file comes first");
        assertTrue(read(userFile).at("/mcpServers/kit/enabled").isMissingNode());

        assertEquals(0, cli.run("remove", "kit", "--project").exitCode());
        assertTrue(read(projectFile).at("/mcpServers/kit").isMissingNode());
        assertEquals(2, cli.run("remove", "kit", "--project").exitCode());
        assertEquals(0, cli.run("remove", "kit").exitCode());
        assertTrue(read(userFile).at("/mcpServers/kit").isMissingNode());
    }

    @Test
    void invalidAddsExitTwoAndWriteNothing() throws IOException {
        assertEquals(0, cli.run("add", "kit", "--", "kit-server").exitCode());
        String before = Files.readString(userFile);

        assertRefused(cli.run("add", "both", "--url", "http://localhost:1/mcp", "--", "server"),
                "Server \"both\": both \"command\" and \"url\" are set - server should be either stdio (command) OR"
                        + " http/sse (url), not both");
        assertRefused(cli.run("add", "nothing"), "Server \"nothing\": stdio server requires \"command\" field");
        assertRefused(cli.run("add", "web", "--type", "sse", "--", "server"),
                "Server \"web\": sse server requires \"url\" field");
        assertRefused(cli.run("add", "odd", "--type", "carrier-pigeon", "--url", "http://x"),
                "Server \"odd\": unknown server type \"carrier-pigeon\"");
        assertRefused(cli.run("add", "bad name", "--", "server"),
                "Server \"bad name\": name may only contain letters, digits, '_', '.' and '-'");
        assertRefused(cli.run("add", "kit", "--", "other"), "already in " + userFile);
        assertEquals(before, Files.readString(userFile));

        CliRunner.Result forced = cli.run("add", "kit", "--force", "--", "other");
        assertEquals(0, forced.exitCode(), forced::toString);
        assertEquals("other", read(userFile).at("/mcpServers/kit/command").asString());
    }

    private static void assertRefused(CliRunner.Result result, String message) {
        assertEquals(2, result.exitCode(), result::toString);
        assertTrue(result.err().contains(message), () -> "expected <" + message + "> in " + result);
    }

    @Test
    void aFileThatDoesNotParseIsNamedWithLineAndColumnAndLeftAlone() throws IOException {
        Files.createDirectories(userFile.getParent());
        String broken = "{\n  \"mcpServers\": {\n    \"kit\": {\"command\": \"x\",}\n  }\n}\n";
        Files.writeString(userFile, broken);
        for (String[] args : List.of(new String[] {"add", "git", "--", "git-server"}, new String[] {"disable", "kit"},
                new String[] {"remove", "kit"})) {
            CliRunner.Result result = cli.run(args);
            assertEquals(2, result.exitCode(), result::toString);
            assertTrue(result.err().contains(userFile + ":3:"), result::toString);
            assertEquals(broken, Files.readString(userFile));
        }
    }

    @Test
    void aServerOfAnotherToolIsNotEditedAndTheMessageSaysWhereItComesFrom() throws IOException {
        Path claudeProject = project.resolve(".mcp.json");
        Files.writeString(claudeProject, """
                {"mcpServers": {"web": {"command": "web-server", "args": ["--port", "0", "--api-key=S3CRET1", "--token",
                    "S3CRET2", "https://h/mcp?exaApiKey=S3CRET3"]}}}
                """);
        String before = Files.readString(claudeProject);
        cli.approveInClaude("web"); // so that it is a server mcp-host uses (and can say how to add it)
        assertEquals(0, cli.run("approve", "web").exitCode());
        for (String command : List.of("disable", "enable", "remove")) {
            CliRunner.Result result = cli.run(command, "web");
            assertEquals(2, result.exitCode(), result::toString);
            // The add line masks what looks like a credential (the user copies those values from the file).
            assertTrue(result.err().contains("Claude Code") && result.err().contains(claudeProject.toString())
                    && result.err().contains("mcp-host add web -- web-server --port 0 --api-key=<hidden> --token <hidden>"
                            + " https://h/mcp?exaApiKey=<hidden>"), result::toString);
            assertFalse(result.toString().contains("S3CRET"), result::toString);
        }
        assertEquals(before, Files.readString(claudeProject));
        assertFalse(Files.exists(userFile));
    }

    @Test
    void configOptionEditsThatFile() throws IOException {
        Path file = temp.resolve("servers.json");
        assertEquals(0, cli.run("--config", file.toString(), "add", "kit", "--", "kit-server").exitCode());
        assertEquals(0, cli.run("disable", "kit", "--config", file.toString()).exitCode());
        assertFalse(read(file).at("/mcpServers/kit/enabled").asBoolean(true));
        assertEquals("rw-------", permissions(file));
        assertFalse(Files.exists(userFile));
        CliRunner.Result missing = cli.run("enable", "nope", "--config", file.toString());
        assertEquals(2, missing.exitCode(), missing::toString);
    }

    @Test
    void jsonOutputOfAnEditIsOneDocument() throws IOException {
        CliRunner.Result added = cli.run("add", "kit", "--json", "--", "kit-server", "--json");
        assertEquals(0, added.exitCode(), added::toString);
        JsonNode document = added.json();
        assertEquals("kit", document.get("name").asString());
        assertEquals("added", document.get("action").asString());
        assertEquals(userFile.toString(), document.get("path").asString());
        assertEquals("--json", read(userFile).at("/mcpServers/kit/args/0").asString(), "after -- everything is the command");

        CliRunner.Result refused = cli.run("add", "kit", "--json", "--", "again");
        assertEquals(2, refused.exitCode(), refused::toString);
        assertTrue(refused.json().get("error").asString().contains("already in"));
    }
}
