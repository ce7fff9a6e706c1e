package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import mcp.api.McpJson;
import mcp.config.Discovery;
import mcp.config.DiscoveryResult;
import mcp.config.SkippedServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code connect} and {@code disconnect} for opencode, goose and Zed: a realistic file (comments, other settings,
 * several servers, one off) is connected with --yes and then has the gateway's entry in the agent's own shape where
 * its servers were and every other byte as it was; mcp-host lists the moved servers (the one that was off, off);
 * discovery skips the gateway's entry as mcp-host itself; disconnect gives the file back byte for byte.
 */
class ConnectMoreAgentsTest {

    private static final String LAUNCHER = "/opt/mcp-host/bin/mcp-host";

    private static final String OPENCODE = """
            {
              // opencode settings
              "$schema": "https://opencode.ai/config.json",
              "theme": "opencode",
              "mcp": {
                "git": {
                  "type": "local",
                  "command": ["uvx", "mcp-server-git", "--repository", "/src"],
                  "environment": {"GIT_TOKEN": "{env:GIT_TOKEN}"}
                },
                "docs": {"type": "remote", "url": "https://docs.invalid/mcp", "headers": {"X-Team": "a"}},
                "off": {"type": "local", "command": ["node", "off.js"], "enabled": false, "timeout": 8000},
              },
              "model": "anthropic/claude-sonnet-4-5"
            }
            """;

    private static final String OPENCODE_GATEWAY = """
              "mcp": {
                "mcp-host": {
                  "type": "local",
                  "command": ["/opt/mcp-host/bin/mcp-host", "serve", "--stdio"]
                }
              },
            """;

    private static final String GOOSE = """
            # goose config
            GOOSE_PROVIDER: anthropic
            GOOSE_MODEL: claude-sonnet-4-5
            extensions:
              developer:
                bundled: true
                enabled: true
                name: developer
                timeout: 300
                type: builtin
              git:
                args:
                - mcp-server-git
                cmd: uvx
                description: git tools # the git server
                enabled: true
                env_keys:
                - GIT_TOKEN
                envs:
                  GIT_AUTHOR: me
                name: git
                timeout: 300
                type: stdio
              off:
                cmd: node
                args: [off.js]
                enabled: false
                name: off
                type: stdio
              docs:
                enabled: true
                type: streamable_http
                name: docs
                uri: https://docs.invalid/mcp
                headers:
                  Authorization: Bearer ${DOCS_TOKEN}
                env_keys: [DOCS_TOKEN]
            # other settings
            GOOSE_MODE: smart_approve
            """;

    private static final String ZED = """
            // Zed settings
            {
              "theme": "One Dark",
              "context_servers": {
                "git": {
                  "source": "custom",
                  "command": "uvx",
                  "args": ["mcp-server-git"],
                  "env": {"GIT_AUTHOR": "me"}
                },
                "legacy": {"command": {"path": "node", "args": ["legacy.js"], "env": {}}},
                "off": {"command": "node", "args": ["off.js"], "enabled": false},
                "docs": {"url": "https://docs.invalid/mcp", "headers": {"X-Team": "a"}, "timeout": 30}
              },
              /* keep */ "vim_mode": true
            }
            """;

    @TempDir
    Path temp;

    private CliRunner cli;
    private Path home;
    private Path project;

    @BeforeEach
    void fixture() throws Exception {
        home = Files.createDirectories(temp.resolve("home"));
        project = Files.createDirectories(temp.resolve("project"));
        cli = new CliRunner(project, home).env("MCP_HOST_LAUNCHER", LAUNCHER);
    }

    @Test
    void opencode() throws Exception {
        Path file = home.resolve(".config/opencode/opencode.json");
        String now = connect("opencode", file, OPENCODE, List.of("git", "docs", "off"));
        int start = OPENCODE.indexOf("  \"mcp\"");
        int end = OPENCODE.indexOf("  \"model\"");
        assertEquals(OPENCODE.substring(0, start) + OPENCODE_GATEWAY + OPENCODE.substring(end), now);
        JsonNode own = own();
        assertEquals("uvx", own.path("git").path("command").asString());
        assertEquals("${GIT_TOKEN:-}", own.path("git").path("env").path("GIT_TOKEN").asString());
        assertEquals("http", own.path("docs").path("type").asString());
        assertEquals(8000, own.path("off").path("timeout").asLong());
        disconnect("opencode", file, OPENCODE);
    }

    @Test
    void goose() throws Exception {
        Path file = home.resolve(".config/goose/config.yaml");
        String now = connect("goose", file, GOOSE, List.of("git", "off", "docs"));
        int start = GOOSE.indexOf("  git:\n");
        int end = GOOSE.indexOf("# other settings");
        assertEquals(GOOSE.substring(0, start) + """
                  mcp-host:
                    enabled: true
                    type: stdio
                    name: mcp-host
                    description: every MCP server through mcp-host's gateway
                    cmd: "/opt/mcp-host/bin/mcp-host"
                    args: ["serve", "--stdio"]
                    envs: {}
                    env_keys: []
                """ + GOOSE.substring(end), now);
        JsonNode own = own();
        assertEquals("${GIT_TOKEN}", own.path("git").path("env").path("GIT_TOKEN").asString());
        assertEquals("me", own.path("git").path("env").path("GIT_AUTHOR").asString());
        assertEquals(300_000, own.path("git").path("timeout").asLong());
        assertEquals("Bearer ${DOCS_TOKEN}", own.path("docs").path("headers").path("Authorization").asString());
        disconnect("goose", file, GOOSE);
    }

    @Test
    void zed() throws Exception {
        Path file = home.resolve(".config/zed/settings.json");
        String now = connect("zed", file, ZED, List.of("git", "legacy", "off", "docs"));
        int start = ZED.indexOf("  \"context_servers\"");
        int end = ZED.indexOf("  /* keep */");
        assertEquals(ZED.substring(0, start) + """
                  "context_servers": {
                    "mcp-host": {
                      "source": "custom",
                      "command": "/opt/mcp-host/bin/mcp-host",
                      "args": ["serve", "--stdio"]
                    }
                  },
                """ + ZED.substring(end), now);
        JsonNode own = own();
        assertEquals("node", own.path("legacy").path("command").asString());
        assertEquals("legacy.js", own.path("legacy").path("args").get(0).asString());
        assertEquals(30_000, own.path("docs").path("timeout").asLong());
        disconnect("zed", file, ZED);
    }

    @Test
    void aGooseFileChangedSinceConnectGetsItsExtensionsBackAndKeepsTheChange() throws Exception {
        Path file = home.resolve(".config/goose/config.yaml");
        Files.createDirectories(file.getParent());
        Files.writeString(file, GOOSE);
        assertEquals(0, cli.run("connect", "goose", "--yes").exitCode());
        Files.writeString(file, Files.readString(file).replace("smart_approve", "auto"));
        CliRunner.Result disconnected = cli.run("disconnect", "goose");
        assertEquals(0, disconnected.exitCode(), disconnected.toString());
        assertEquals(GOOSE.replace("smart_approve", "auto"), Files.readString(file));
    }

    @Test
    void anEntryThatCannotBeCarriedIsRefusedAndNothingChanges() throws Exception {
        Path file = home.resolve(".config/zed/settings.json");
        Files.createDirectories(file.getParent());
        String text = "{\"context_servers\": {\"ctx7\": {\"source\": \"extension\", \"settings\": {}}}}\n";
        Files.writeString(file, text);
        CliRunner.Result refused = cli.run("connect", "zed", "--yes");
        assertEquals(2, refused.exitCode(), refused.toString());
        assertTrue(refused.err().contains("ctx7"), refused.err());
        assertEquals(text, Files.readString(file));

        Path goose = home.resolve(".config/goose/config.yaml");
        Files.createDirectories(goose.getParent());
        String yaml = "extensions: {git: {type: stdio, cmd: uvx, enabled: true}}\n";
        Files.writeString(goose, yaml);
        refused = cli.run("connect", "goose", "--yes");
        assertEquals(2, refused.exitCode(), refused.toString());
        assertTrue(refused.err().contains("one line"), refused.err());
        assertEquals(yaml, Files.readString(goose));
        assertFalse(Files.exists(home.resolve(".config/mcp-host/mcp.json")));

        CliRunner.Result project = cli.run("connect", "goose", "--project", "--yes");
        assertEquals(2, project.exitCode(), project.toString());
        assertTrue(project.err().contains("no project file"), project.err());

        Path opencode = home.resolve(".config/opencode");
        Files.createDirectories(opencode);
        String json = "{\"mcp\": {\"a\": {\"type\": \"local\", \"command\": [\"a\"]}}}\n";
        String jsonc = "// both\n{\"mcp\": {\"b\": {\"type\": \"local\", \"command\": [\"b\"]}}}\n";
        Files.writeString(opencode.resolve("opencode.json"), json);
        Files.writeString(opencode.resolve("opencode.jsonc"), jsonc);
        refused = cli.run("connect", "opencode", "--yes");
        assertEquals(2, refused.exitCode(), refused.toString());
        assertTrue(refused.err().contains("both"), refused.err());
        assertEquals(json, Files.readString(opencode.resolve("opencode.json")));
        assertEquals(jsonc, Files.readString(opencode.resolve("opencode.jsonc")));
    }

    /** Connects, checks mcp-host's config, list and discovery, and gives the file's text after the connect. */
    private String connect(String agent, Path file, String content, List<String> servers) throws Exception {
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
        CliRunner.Result connected = cli.run("connect", agent, "--yes");
        assertEquals(0, connected.exitCode(), agent + ": " + connected);
        assertTrue(connected.err().contains("- git") && connected.err().contains("+ mcp-host  " + LAUNCHER),
                agent + ": the change is shown: " + connected.err());
        assertTrue(connected.err().contains("- off") && connected.err().contains("stays off"), connected.err());

        JsonNode own = own();
        assertEquals(servers, iterate(own), agent + ": " + own);
        assertFalse(own.path("off").path("enabled").asBoolean(true), agent + ": off stays off: " + own);
        CliRunner.Result list = cli.run("list", "--json");
        assertEquals(0, list.exitCode(), list.toString());
        JsonNode listed = McpJson.mapper().readTree(list.out());
        for (String server : servers) {
            JsonNode found = null;
            for (JsonNode entry : listed) {
                if (entry.path("name").asString("").equals(server)) {
                    found = entry;
                }
            }
            assertTrue(found != null, agent + ": list shows " + server + ": " + list.out());
            assertEquals("native", found.path("provider").asString(), found.toString());
            assertEquals(!server.equals("off"), found.path("enabled").asBoolean(), found.toString());
        }

        DiscoveryResult result = Discovery.builder().home(home).workingDirectory(project)
                .environment(Map.of("HOME", home.toString())).build().discover();
        List<SkippedServer> self = result.skipped().stream()
                .filter(s -> s.source().providerId().equals(agent) && s.name().equals("mcp-host")).toList();
        assertEquals(1, self.size(), agent + ": the gateway's entry is skipped: " + result.skipped());
        assertEquals(SkippedServer.Reason.SELF, self.get(0).reason());
        assertFalse(result.configs().containsKey("mcp-host"), result.configs().keySet().toString());

        assertEquals(2, cli.run("connect", agent, "--yes").exitCode(), "connected already");
        return Files.readString(file);
    }

    private void disconnect(String agent, Path file, String content) throws Exception {
        CliRunner.Result disconnected = cli.run("disconnect", agent);
        assertEquals(0, disconnected.exitCode(), agent + ": " + disconnected);
        assertArrayEquals(content.getBytes(java.nio.charset.StandardCharsets.UTF_8), Files.readAllBytes(file),
                agent + ": byte for byte");
        assertTrue(iterate(own()).isEmpty(), agent + ": moved servers leave mcp-host's config");
    }

    private JsonNode own() throws Exception {
        return McpJson.mapper().readTree(Files.readString(home.resolve(".config/mcp-host/mcp.json")))
                .path("mcpServers");
    }

    private static List<String> iterate(JsonNode servers) {
        List<String> names = new java.util.ArrayList<>();
        servers.properties().forEach(e -> names.add(e.getKey()));
        return names;
    }
}
