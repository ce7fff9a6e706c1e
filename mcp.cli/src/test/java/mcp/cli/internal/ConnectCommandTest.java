package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import mcp.api.McpJson;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code connect} and {@code disconnect}: for each agent, a realistic file (several servers, one off, other settings,
 * comments where the format has them) is connected with --yes, holds the gateway's entry alone and the rest as it was,
 * mcp-host's config holds the moved servers (the one that was off stays off), and disconnect gives the file back byte
 * for byte. Without --yes and without a terminal nothing changes.
 */
class ConnectCommandTest {

    private static final String LAUNCHER = "/opt/mcp-host/bin/mcp-host";

    @TempDir
    Path temp;

    private CliRunner cli;
    private Path home;
    private Path project;

    @BeforeEach
    void fixture() throws Exception {
        home = Files.createDirectories(temp.resolve("home"));
        project = Files.createDirectories(temp.resolve("project"));
        // No agent's CLI on the PATH, whatever this machine has: these files are written directly
        // (ConnectThroughAgentCliTest runs fake CLIs, ConnectThroughAgentCliIT the real ones).
        cli = new CliRunner(project, home).env("MCP_HOST_LAUNCHER", LAUNCHER)
                .env("PATH", Files.createDirectories(temp.resolve("empty-bin")).toString());
    }

    private static final Map<String, String> FILES = Map.of(
            "claude", ".claude.json",
            "codex", ".codex/config.toml",
            "gemini", ".gemini/settings.json",
            "cursor", ".cursor/mcp.json",
            "vscode", ".config/Code/User/mcp.json");

    private static final Map<String, String> CONTENT = Map.of(
            "claude", """
                    {
                      "numStartups": 4,
                      "mcpServers": {
                        "git": {
                          "type": "stdio",
                          "command": "uvx",
                          "args": ["mcp-server-git", "--repository", "${HOME}/src"],
                          "env": {"GIT_TOKEN": "${GIT_TOKEN}"}
                        },
                        "docs": {"type": "http", "url": "https://docs.invalid/mcp", "headers": {"X-Team": "a"}}
                      },
                      "projects": {"/p": {"allowedTools": []}}
                    }
                    """,
            "codex", """
                    # My Codex settings.
                    model = "o4-mini"

                    [mcp_servers.git]
                    # the git server
                    command = "uvx"
                    args = ["mcp-server-git"]
                    env = { GIT_TOKEN = "abc" }
                    startup_timeout_sec = 20
                    required = false

                    [mcp_servers.off]
                    command = "node"
                    args = ["off.js"]
                    enabled = false

                    [projects."/p"]
                    trust_level = "trusted"   # trusted by hand
                    """,
            "gemini", """
                    {
                      // Gemini CLI reads comments
                      "theme": "Dracula",
                      "mcpServers": {
                        "git": {"command": "uvx", "args": ["mcp-server-git", "$HOME/src"], "excludeTools": ["push(x)"]},
                        "off": {"command": "node", "args": ["off.js"], "trust": true}
                      },
                      "mcp": {"excluded": ["off"]},
                    }
                    """,
            "cursor", """
                    {"mcpServers": {"git": {"command": "uvx", "args": ["mcp-server-git"], "env": {"T": "${env:GIT_TOKEN}"}}}}
                    """,
            "vscode", """
                    {
                      "servers": {
                        "git": {"type": "stdio", "command": "uvx", "args": ["mcp-server-git"]}
                      },
                      "inputs": []
                    }
                    """);

    @Test
    void everyAgentIsConnectedAndDisconnectedByteForByte() throws Exception {
        for (String agent : FILES.keySet()) {
            Path file = home.resolve(FILES.get(agent));
            Files.createDirectories(file.getParent());
            Files.writeString(file, CONTENT.get(agent));
            byte[] before = Files.readAllBytes(file);

            CliRunner.Result connected = cli.run("connect", agent, "--yes");
            assertEquals(0, connected.exitCode(), agent + ": " + connected);
            assertTrue(connected.err().contains("- git") && connected.err().contains("+ mcp-host  " + LAUNCHER),
                    agent + ": the change is shown: " + connected.err());
            assertTrue(connected.err().contains("mcp-host connect: " + file + " written directly: "),
                    agent + ": the way it was written is said: " + connected.err());
            String now = Files.readString(file);
            Set<String> servers = servers(agent, now);
            assertEquals(Set.of("mcp-host"), servers, agent + ": " + now);
            assertTrue(now.contains(LAUNCHER), now);
            assertOthersKept(agent, now);

            JsonNode own = McpJson.mapper().readTree(Files.readString(home.resolve(".config/mcp-host/mcp.json")))
                    .path("mcpServers");
            assertTrue(own.has("git"), agent + ": " + own);
            CliRunner.Result list = cli.run("list", "--json");
            assertTrue(list.out().contains("\"git\""), agent + ": mcp-host list shows the moved server: " + list);
            if (agent.equals("codex") || agent.equals("gemini")) {
                assertFalse(own.path("off").path("enabled").asBoolean(true), agent + ": off stays off: " + own);
            }
            if (agent.equals("codex")) {
                // Codex passes a server only a few variables of its own: without these, its mcp-host serve would
                // look for the shared gateway elsewhere than the user's other agents, and start a second one.
                assertTrue(now.contains("args = [\"serve\", \"--stdio\"]\nenv_vars = [\"XDG_CONFIG_HOME\", "
                        + "\"XDG_STATE_HOME\", \"XDG_CACHE_HOME\", \"XDG_DATA_HOME\", \"XDG_RUNTIME_DIR\"]\n"), now);
                assertTrue(now.contains("\nrequired = true\n"), "Codex waits for the gateway's tools: " + now);
            }
            if (agent.equals("gemini")) {
                assertEquals("${HOME}/src", own.path("git").path("args").get(1).asString());
                assertEquals("push", own.path("git").path("disabledTools").get(0).asString());
            }
            if (agent.equals("cursor")) {
                assertEquals("${GIT_TOKEN}", own.path("git").path("env").path("T").asString());
            }

            CliRunner.Result again = cli.run("connect", agent, "--yes");
            assertEquals(2, again.exitCode(), "connected already: " + again);

            CliRunner.Result disconnected = cli.run("disconnect", agent);
            assertEquals(0, disconnected.exitCode(), agent + ": " + disconnected);
            assertArrayEquals(before, Files.readAllBytes(file), agent + ": byte for byte");
            JsonNode after = McpJson.mapper().readTree(Files.readString(home.resolve(".config/mcp-host/mcp.json")))
                    .path("mcpServers");
            assertFalse(after.has("git"), agent + ": moved servers leave mcp-host's config: " + after);
        }
    }

    @Test
    void withoutATerminalAndWithoutYesNothingChanges() throws Exception {
        Path file = home.resolve(".codex/config.toml");
        Files.createDirectories(file.getParent());
        Files.writeString(file, CONTENT.get("codex"));
        CliRunner.Result refused = cli.run("connect", "codex");
        assertEquals(3, refused.exitCode(), refused.toString());
        assertTrue(refused.err().contains("--yes"), refused.err());
        assertEquals(CONTENT.get("codex"), Files.readString(file));
        assertFalse(Files.exists(home.resolve(".config/mcp-host/mcp.json")));
        CliRunner.Result no = cli.runAtTerminal("n\n", "connect", "codex");
        assertEquals(3, no.exitCode(), no.toString());
        assertEquals(CONTENT.get("codex"), Files.readString(file));
        CliRunner.Result yes = cli.runAtTerminal("y\n", "connect", "codex");
        assertEquals(0, yes.exitCode(), yes.toString());
    }

    @Test
    void aFileChangedSinceConnectGetsItsServersBackAndKeepsTheChange() throws Exception {
        Path file = home.resolve(".gemini/settings.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, CONTENT.get("gemini"));
        assertEquals(0, cli.run("connect", "gemini", "--yes").exitCode());
        Files.writeString(file, Files.readString(file).replace("Dracula", "GitHub"));
        CliRunner.Result disconnected = cli.run("disconnect", "gemini");
        assertEquals(0, disconnected.exitCode(), disconnected.toString());
        assertEquals(CONTENT.get("gemini").replace("Dracula", "GitHub"), Files.readString(file));
    }

    @Test
    void anEntryThatCannotBeCarriedIsRefusedAndNothingChanges() throws Exception {
        Path file = home.resolve(".codex/config.toml");
        Files.createDirectories(file.getParent());
        String text = "[mcp_servers.gh]\nurl = \"https://gh.invalid/mcp\"\n\n[mcp_servers.gh.tools.push]\n"
                + "approval_mode = \"prompt\"\n";
        Files.writeString(file, text);
        CliRunner.Result refused = cli.run("connect", "codex", "--yes");
        assertEquals(2, refused.exitCode(), refused.toString());
        assertTrue(refused.err().contains("gh") && refused.err().contains("tools"), refused.err());
        assertEquals(text, Files.readString(file));

        // A server Codex must not start without: mcp-host's config has no such thing to carry it as.
        String required = "[mcp_servers.db]\ncommand = \"db-mcp\"\nrequired = true\n";
        Files.writeString(file, required);
        CliRunner.Result notCarried = cli.run("connect", "codex", "--yes");
        assertEquals(2, notCarried.exitCode(), notCarried.toString());
        assertTrue(notCarried.err().contains("db") && notCarried.err().contains("required = true"),
                notCarried.err());
        assertEquals(required, Files.readString(file));
    }

    private static Set<String> servers(String agent, String text) throws Exception {
        if (agent.equals("codex")) {
            // The module reads no TOML mapper: the tables' headers name the servers.
            Set<String> names = new TreeSet<>();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^\\[mcp_servers\\.([^.\\]]+)")
                    .matcher(text);
            while (m.find()) {
                names.add(m.group(1));
            }
            return names;
        }
        JsonNode root = McpJson.mapper().readTree(text.replaceAll("(?m)^\\s*//.*$", "").replace("},\n}", "}\n}"));
        JsonNode servers = root.path(agent.equals("codex") ? "mcp_servers" : agent.equals("vscode") ? "servers"
                : "mcpServers");
        Set<String> names = new TreeSet<>();
        servers.properties().forEach(e -> names.add(e.getKey()));
        return names;
    }

    private static void assertOthersKept(String agent, String text) {
        switch (agent) {
            case "claude" -> assertTrue(text.contains("\"numStartups\": 4") && text.contains("\"projects\""), text);
            case "codex" -> assertTrue(text.startsWith("# My Codex settings.\nmodel = \"o4-mini\"\n")
                    && text.contains("trust_level = \"trusted\"   # trusted by hand"), text);
            case "gemini" -> assertTrue(text.contains("// Gemini CLI reads comments") && text.contains("\"mcp\": {"),
                    text);
            case "vscode" -> assertTrue(text.contains("\"inputs\": []"), text);
            default -> {
            }
        }
    }
}
