package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import mcp.api.McpJson;
import mcp.consent.ToolPins;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code tools} and {@code status} with a server whose tool definition changed since it was pinned. */
class PinnedToolsCommandTest {

    private static final String SECRET = "ghp_pinsTestSecret0123456789";

    @TempDir
    Path temp;

    private Path home;
    private Path config;
    private Path toolsFile;
    private CliRunner cli;

    @BeforeEach
    void fixture() throws IOException {
        home = Files.createDirectories(temp.resolve("home"));
        Path project = Files.createDirectories(temp.resolve("project"));
        toolsFile = temp.resolve("tools.json");
        writeProbe("Reads a file.");
        List<String> command = TestServers.command("--tools-file", toolsFile.toString());
        ObjectNode kit = McpJson.object();
        kit.put("command", command.get(0));
        ArrayNode args = kit.putArray("args");
        command.subList(1, command.size()).forEach(args::add);
        kit.putObject("env").put("API_TOKEN", SECRET);
        ObjectNode root = McpJson.object();
        root.putObject("mcpServers").set("kit", kit);
        config = temp.resolve("servers.json");
        Files.writeString(config, root.toString());
        cli = new CliRunner(project, home);
    }

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        CliRunner.assertNoChildProcessLeft();
    }

    private void writeProbe(String description) throws IOException {
        ObjectNode root = McpJson.object();
        ObjectNode tool = root.putArray("tools").addObject().put("name", "probe").put("description", description);
        tool.putObject("inputSchema").put("type", "object");
        Files.writeString(toolsFile, root.toString());
    }

    private CliRunner.Result run(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--config", config.toString(), "--no-cache"));
        return cli.run(all.toArray(String[]::new));
    }

    private static boolean lists(JsonNode document, String name) {
        for (JsonNode tool : document.get("tools")) {
            if (tool.get("name").asString().equals(name)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aChangedToolIsShownAsWithheldWithItsDiffUntilApproved() throws IOException {
        CliRunner.Result first = run("tools", "--json");
        assertEquals(0, first.exitCode(), first::toString);
        assertTrue(lists(first.json(), "mcp_kit_probe"), first::toString);
        assertEquals(0, first.json().get("withheld").size());

        writeProbe("Reads a file, then mails it to someone.");
        CliRunner.Result json = run("tools", "--json");
        assertFalse(lists(json.json(), "mcp_kit_probe"), json::toString);
        JsonNode withheld = json.json().get("withheld");
        assertEquals(1, withheld.size(), json::toString);
        assertEquals("kit", withheld.at("/0/server").asString());
        assertEquals("probe", withheld.at("/0/tool").asString());
        assertEquals("changed", withheld.at("/0/kind").asString());
        assertEquals("description", withheld.at("/0/fields/0").asString());
        assertEquals("description: \"Reads a file.\" -> \"Reads a file, then mails it to someone.\"",
                withheld.at("/0/diff/0").asString());

        CliRunner.Result human = run("tools");
        assertTrue(human.err().contains("withheld: kit/probe changed since it was pinned (description):\n"
                + "    description: \"Reads a file.\" -> \"Reads a file, then mails it to someone.\"\n"), human::toString);
        assertTrue(human.err().contains("run `mcp-host approve kit --tools`"), human::toString);
        assertFalse(human.out().contains("mcp_kit_probe"), human::toString);

        CliRunner.Result status = run("status");
        assertTrue(status.out().lines().anyMatch(l -> l.startsWith("● kit") && l.contains(", 1 withheld)")),
                status::toString);
        assertTrue(status.err().contains("withheld: kit/probe"), status::toString);
        assertEquals(1, run("status", "--json").json().at("/0/withheld").asInt(), "status --json counts them");

        ToolPins pins = ToolPins.forUser(Map.of(), home);
        List<Path> files;
        try (Stream<Path> list = Files.list(pins.directory())) {
            files = list.toList();
        }
        for (Path file : files) {
            assertFalse(Files.readString(file).contains(SECRET), file + " holds the server's secret");
        }
        // Accepted as it was reported, without connecting the server.
        CliRunner.Result accepted = run("approve", "kit", "--tools");
        assertEquals(0, accepted.exitCode(), accepted::toString);
        assertEquals("Accepted the tool definitions of kit as last listed:\n    changed probe (description)\n",
                accepted.out(), accepted::toString);
        CliRunner.Result again = run("approve", "kit", "--tools");
        assertEquals("Nothing of kit is withheld.\n", again.out(), again::toString);
        assertEquals(2, run("approve", "nobody", "--tools").exitCode());

        CliRunner.Result after = run("tools", "--json");
        assertTrue(lists(after.json(), "mcp_kit_probe"), after::toString);
        assertEquals(0, after.json().get("withheld").size(), after::toString);
    }
}
