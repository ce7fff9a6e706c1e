package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code list} on a fixture home and project: discovery only, nothing started. */
class ListCommandTest {

    private static final Set<String> FIELDS = new TreeSet<>(
            List.of("name", "type", "provider", "providerName", "path", "level", "enabled", "status", "error"));

    @TempDir
    Path temp;

    private Path userFile;
    private Path claudeFile;
    private CliRunner cli;

    @BeforeEach
    void fixture() throws IOException {
        Path home = Files.createDirectories(temp.resolve("home"));
        Path project = Files.createDirectories(temp.resolve("project"));
        // A repository root, so the project search stops here.
        Files.createDirectories(project.resolve(".git"));
        userFile = home.resolve(".config/mcp-host/mcp.json");
        Files.createDirectories(userFile.getParent());
        Files.writeString(userFile, """
                {"mcpServers": {
                  "kit": {"command": "kit-server", "args": ["--stdio"]},
                  "old": {"command": "old-server", "enabled": false},
                  "broken": {"command": "x", "url": "http://localhost:1/mcp"}
                }}
                """);
        claudeFile = project.resolve(".mcp.json");
        Files.writeString(claudeFile, """
                {"mcpServers": {
                  "web": {"type": "http", "url": "http://localhost:1/mcp"},
                  "kit": {"command": "another-kit"}
                }}
                """);
        // Approved in Claude Code, so they count (ProjectConsentTest has what an unapproved one does).
        cli = new CliRunner(project, home).approveInClaude("web", "kit");
        // And in mcp-host (ProjectApprovalCliTest has what a server not approved there does).
        CliRunner.Result approved = cli.run("approve", "web");
        assertEquals(0, approved.exitCode(), approved::toString);
    }

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        CliRunner.assertNoChildProcessLeft();
    }

    private static JsonNode entry(JsonNode list, String name, String provider) {
        for (JsonNode entry : list) {
            if (entry.get("name").asString().equals(name) && entry.get("provider").asString().equals(provider)) {
                return entry;
            }
        }
        throw new AssertionError("no entry " + name + " from " + provider + " in " + list);
    }

    @Test
    void jsonHasEveryEntryWithExactlyTheDocumentedFields() {
        CliRunner.Result result = cli.run("list", "--json");
        assertEquals(0, result.exitCode(), result::toString);
        JsonNode list = result.json();
        assertTrue(list.isArray(), result::toString);
        for (JsonNode entry : list) {
            Set<String> fields = new TreeSet<>(entry.propertyNames());
            // "owner" only where the owning tool's decision counted (a Claude Code project server here).
            assertEquals(entry.get("level").asString().equals("project"), fields.remove("owner"), entry::toString);
            // "approval" where mcp-host's approval counted: a project server not hidden by another of its name.
            assertEquals(entry.get("level").asString().equals("project") && !entry.get("status").asString()
                    .equals("shadowed"), fields.remove("approval"), entry::toString);
            assertEquals(FIELDS, fields, entry::toString);
        }

        JsonNode kit = entry(list, "kit", "native");
        assertEquals("stdio", kit.get("type").asString());
        assertEquals("mcp-host", kit.get("providerName").asString());
        assertEquals(userFile.toString(), kit.get("path").asString());
        assertEquals("user", kit.get("level").asString());
        assertTrue(kit.get("enabled").asBoolean());
        assertEquals("not connected", kit.get("status").asString());
        assertTrue(kit.get("error").isNull());

        JsonNode old = entry(list, "old", "native");
        assertEquals("inactive", old.get("status").asString());
        assertFalse(old.get("enabled").asBoolean());
        assertEquals("stdio", old.get("type").asString());

        JsonNode broken = entry(list, "broken", "native");
        assertEquals("invalid", broken.get("status").asString());
        assertTrue(broken.get("error").asString().contains("Server \"broken\": both \"command\" and \"url\" are set"),
                broken::toString);

        JsonNode web = entry(list, "web", "claude");
        assertEquals("http", web.get("type").asString());
        assertEquals("Claude Code", web.get("providerName").asString());
        assertEquals(claudeFile.toString(), web.get("path").asString());
        assertEquals("project", web.get("level").asString());
        assertEquals("not connected", web.get("status").asString());
        assertEquals("approved", web.get("owner").get("state").asString());
        assertEquals("approved in Claude Code (enabledMcpjsonServers in " + temp.resolve("home/.claude/settings.json")
                + ")", web.get("owner").get("reason").asString());
        assertEquals("approved", web.get("approval").get("state").asString());

        JsonNode shadowed = entry(list, "kit", "claude");
        assertEquals("shadowed", shadowed.get("status").asString());
    }

    @Test
    void humanListGroupsBySourceWithMarksAndStartsNothing() {
        CliRunner.Result result = cli.run("list");
        assertEquals(0, result.exitCode(), result::toString);
        List<String> lines = result.out().lines().toList();
        int user = indexOf(lines, "mcp-host (user): " + userFile);
        int claude = indexOf(lines, "Claude Code (project): " + claudeFile);
        assertTrue(lines.get(user + 1).startsWith("  ○ kit [stdio]"), result::toString);
        assertTrue(lines.contains("  ◌ old [stdio]  " + detailOf(lines, "old")), result::toString);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("  ✗ broken [stdio]  Server \"broken\": both")),
                result::toString);
        assertTrue(lines.subList(claude, lines.size()).stream().anyMatch(l -> l.startsWith("  ○ web [http]")),
                result::toString);
    }

    @Test
    void theOwningToolsStateOfEachEntryIsShownAndInTheJson() throws IOException {
        Files.writeString(claudeFile, """
                {"mcpServers": {
                  "web": {"type": "http", "url": "http://localhost:1/mcp"},
                  "unasked": {"command": "would-run"}
                }}
                """);
        CliRunner.Result result = cli.run("list", "--json");
        assertEquals(0, result.exitCode(), result::toString);
        JsonNode unasked = entry(result.json(), "unasked", "claude");
        assertEquals("inactive", unasked.get("status").asString());
        assertEquals("pending-approval", unasked.get("owner").get("state").asString());
        assertTrue(unasked.get("owner").get("reason").asString().startsWith("pending approval in Claude Code"),
                unasked::toString);

        CliRunner.Result human = cli.run("list");
        List<String> lines = human.out().lines().toList();
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("  ○ web [http]  approved in Claude Code (")
                && l.contains("); approved in mcp-host on ")), human::toString);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("  ◌ unasked [stdio]  pending approval in Claude Code")),
                human::toString);
    }

    @Test
    void projectConfigOffMakesProjectEntriesInactive() {
        CliRunner.Result result = cli.run("list", "--json", "--no-project-config");
        assertEquals(0, result.exitCode(), result::toString);
        assertEquals("inactive", entry(result.json(), "web", "claude").get("status").asString());
    }

    @Test
    void configOptionListsOnlyThatFile() {
        CliRunner.Result result = cli.run("list", "--json", "--config", userFile.toString());
        assertEquals(0, result.exitCode(), result::toString);
        List<String> names = new ArrayList<>();
        result.json().forEach(entry -> names.add(entry.get("name").asString()));
        assertEquals(Set.of("kit", "old", "broken"), Set.copyOf(names));
    }

    private static int indexOf(List<String> lines, String line) {
        int index = lines.indexOf(line);
        assertTrue(index >= 0, () -> "no line <" + line + "> in\n" + String.join("\n", lines));
        return index;
    }

    /** The skip reason is the config module's wording; the test only checks it is shown. */
    private static String detailOf(List<String> lines, String name) {
        String prefix = "  ◌ " + name + " [stdio]  ";
        return lines.stream().filter(l -> l.startsWith(prefix)).findFirst()
                .map(l -> l.substring(prefix.length())).filter(d -> !d.isBlank())
                .orElseThrow(() -> new AssertionError("no reason shown for " + name + " in " + lines));
    }
}
