package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import mcp.api.McpJson;
import mcp.api.spi.ConsentHandler;
import mcp.host.LoadResult;
import mcp.host.McpHost;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A cloned repository with a server in every project-level format mcp-host reads, each of which writes a
 * marker file when it starts (then runs the test server). Every owning tool has consented (approved in
 * Claude Code, trusted in Codex, Gemini CLI and Zed), so what holds them back is mcp-host's approval,
 * bound to each definition as its file writes it.
 */
class ProjectApprovalCliTest {

    private static final String SECRET = "sk-live-never-in-a-state-file-4242";

    @TempDir
    Path temp;

    private Path home;
    private Path repo;
    private Path state;
    private CliRunner cli;
    /** Server name to the file that defines it. */
    private final Map<String, Path> files = new LinkedHashMap<>();

    @BeforeEach
    void clonedRepository() throws IOException {
        home = Files.createDirectories(temp.resolve("home"));
        repo = Files.createDirectories(temp.resolve("clone"));
        Files.createDirectories(repo.resolve(".git"));
        state = temp.resolve("state");
        writeAll(List.of());
        cli = new CliRunner(repo, home).approveInClaude("p-claude").env("XDG_STATE_HOME", state.toString());
        write(home.resolve(".codex/config.toml"), "[projects." + quoted(repo.toString()) + "]\ntrust_level = \"trusted\"\n");
        write(home.resolve(".gemini/trustedFolders.json"), "{" + quoted(repo.toString()) + ": \"TRUST_FOLDER\"}");
        write(home.resolve(".config/zed/settings.json"), "{\"session\": {\"trust_all_worktrees\": true}}");
    }

    @AfterEach
    void noProcessIsLeft() throws InterruptedException {
        CliRunner.assertNoChildProcessLeft();
    }

    /** Writes every format's file, each server with these extra test-server options. */
    private void writeAll(List<String> extra) throws IOException {
        files.put("p-native", write(repo.resolve(".mcp-host/mcp.json"), mcpServers("p-native", extra)));
        files.put("p-claude", write(repo.resolve(".mcp.json"), mcpServers("p-claude", extra)));
        files.put("p-cursor", write(repo.resolve(".cursor/mcp.json"), mcpServers("p-cursor", extra)));
        files.put("p-windsurf", write(repo.resolve(".windsurf/mcp_config.json"), mcpServers("p-windsurf", extra)));
        files.put("p-kiro", write(repo.resolve(".kiro/settings/mcp.json"), mcpServers("p-kiro", extra)));
        files.put("p-gemini", write(repo.resolve(".gemini/settings.json"), mcpServers("p-gemini", extra)));
        files.put("p-mcpjson", write(repo.resolve("mcp.json"), mcpServers("p-mcpjson", extra)));
        files.put("p-vscode", write(repo.resolve(".vscode/mcp.json"), wrap("servers", "p-vscode", stdio("p-vscode", extra))));
        files.put("p-zed", write(repo.resolve(".zed/settings.json"), wrap("context_servers", "p-zed", stdio("p-zed", extra))));
        ObjectNode opencode = McpJson.object();
        opencode.put("type", "local");
        ArrayNode command = opencode.putArray("command");
        command(marker("p-opencode"), extra).forEach(command::add);
        files.put("p-opencode", write(repo.resolve("opencode.json"), wrap("mcp", "p-opencode", opencode)));
        StringBuilder toml = new StringBuilder("[mcp_servers.p-codex]\ncommand = \"sh\"\nargs = [");
        List<String> args = command(marker("p-codex"), extra).subList(1, command(marker("p-codex"), extra).size());
        toml.append(args.stream().map(ProjectApprovalCliTest::quoted).collect(Collectors.joining(", "))).append("]\n");
        files.put("p-codex", write(repo.resolve(".codex/config.toml"), toml.toString()));
    }

    private Path marker(String name) {
        return temp.resolve("ran-" + name);
    }

    /** {@code sh -c 'touch MARKER; exec TEST-SERVER'}: a server that leaves a mark when it starts. */
    private static List<String> command(Path marker, List<String> extra) {
        List<String> command = new ArrayList<>(List.of("sh", "-c", "touch \"$0\" && exec \"$@\"", marker.toString()));
        command.addAll(TestServers.command(extra.toArray(String[]::new)));
        return command;
    }

    private ObjectNode stdio(String name, List<String> extra) {
        List<String> command = command(marker(name), extra);
        ObjectNode server = McpJson.object();
        server.put("command", command.get(0));
        ArrayNode args = server.putArray("args");
        command.subList(1, command.size()).forEach(args::add);
        server.putObject("env").put("API_TOKEN", SECRET);
        return server;
    }

    private String mcpServers(String name, List<String> extra) {
        return wrap("mcpServers", name, stdio(name, extra));
    }

    private static String wrap(String key, String name, ObjectNode server) {
        ObjectNode root = McpJson.object();
        root.putObject(key).set(name, server);
        return root.toString();
    }

    private static String quoted(String text) {
        return McpJson.mapper().writeValueAsString(text);
    }

    private static Path write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        return file;
    }

    private Set<String> ran() throws IOException {
        try (var list = Files.list(temp)) {
            return list.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("ran-"))
                    .map(n -> n.substring(4)).collect(Collectors.toCollection(TreeSet::new));
        }
    }

    private void forgetMarks() throws IOException {
        for (String name : files.keySet()) {
            Files.deleteIfExists(marker(name));
        }
    }

    private static Map<String, String> approvalStates(JsonNode list) {
        Map<String, String> states = new LinkedHashMap<>();
        for (JsonNode entry : list) {
            if (entry.has("approval")) {
                states.put(entry.get("name").asString(), entry.get("approval").get("state").asString());
            }
        }
        return states;
    }

    private Set<String> serversWithTools(CliRunner.Result tools) {
        return tools.json().get("tools").valueStream().map(t -> t.get("server").asString())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void nothingRunsUntilApprovedAndAChangedDefinitionWaitsForANewApproval() throws IOException {
        Set<String> all = new TreeSet<>(files.keySet());

        CliRunner.Result list = cli.run("list", "--json");
        assertEquals(0, list.exitCode(), list::toString);
        Map<String, String> pending = approvalStates(list.json());
        assertEquals(all, pending.keySet(), list::toString);
        assertEquals(Set.of("pending"), Set.copyOf(pending.values()), list::toString);

        CliRunner.Result before = cli.run("tools", "--json", "--no-cache");
        assertEquals(0, before.exitCode(), before::toString);
        assertEquals(Set.of(), serversWithTools(before), before::toString);
        assertEquals(all.size(), before.json().get("pending").size(), before::toString);
        assertEquals(Set.of(), ran(), "a server ran before it was approved");
        CliRunner.Result status = cli.run("status", "--no-cache");
        assertTrue(status.out().lines().anyMatch(l -> l.startsWith("◌ p-cursor ") && l.endsWith("  not started"
                + " (Cursor, " + files.get("p-cursor") + "): project server not approved in mcp-host yet: run"
                + " `mcp-host approve p-cursor`")), status::toString);
        assertEquals(Set.of(), ran());

        CliRunner.Result approve = cli.run("approve", "--all");
        assertEquals(0, approve.exitCode(), approve::toString);
        for (String name : all) {
            assertTrue(approve.out().contains("Approved " + name + " ("), approve::toString);
        }
        assertFalse(approve.out().contains(SECRET), "the definition shown masks the secret");
        assertEquals(Set.of(), ran(), "approving starts nothing");

        CliRunner.Result after = cli.run("tools", "--json", "--no-cache");
        assertEquals(all, serversWithTools(after), after::toString);
        assertEquals(all, ran());

        // The repository changes one server's arguments (as a pull would): only that one waits again.
        forgetMarks();
        writeAll(List.of());
        String cursor = Files.readString(files.get("p-cursor"));
        Files.writeString(files.get("p-cursor"), cursor.replace("\"-c\"", "\"-ec\""));
        CliRunner.Result changed = cli.run("tools", "--json", "--no-cache");
        Set<String> others = new TreeSet<>(all);
        others.remove("p-cursor");
        assertEquals(others, serversWithTools(changed), changed::toString);
        assertEquals(others, ran());
        CliRunner.Result shown = cli.run("list");
        assertTrue(shown.out().contains("p-cursor [stdio]  its definition changed since it was approved on "), shown::toString);
        assertTrue(shown.out().contains("      changed: args[0]: \"-c\" -> \"-ec\""), shown::toString);
        assertEquals("changed", approvalStates(cli.run("list", "--json").json()).get("p-cursor"));

        forgetMarks();
        assertEquals(0, cli.run("approve", "p-cursor").exitCode());
        assertEquals(all, serversWithTools(cli.run("tools", "--json", "--no-cache")));
        assertEquals(all, ran());
    }

    @Test
    void aRenamedServerDoesNotInheritTheApproval() throws IOException {
        assertEquals(0, cli.run("approve", "--all").exitCode());
        String vscode = Files.readString(files.get("p-vscode"));
        Files.writeString(files.get("p-vscode"), vscode.replace("\"p-vscode\":", "\"p-vscode-2\":"));
        Map<String, String> states = approvalStates(cli.run("list", "--json").json());
        assertEquals("pending", states.get("p-vscode-2"), states::toString);
        assertEquals("approved", states.get("p-cursor"), states::toString);
    }

    @Test
    void denyRevokeAndTheApprovalsFile() throws IOException {
        CliRunner.Result deny = cli.run("deny", "p-kiro");
        assertEquals(0, deny.exitCode(), deny::toString);
        assertTrue(deny.out().contains("Denied p-kiro"), deny::toString);
        assertEquals(0, cli.run("approve", "--all").exitCode());
        Map<String, String> states = approvalStates(cli.run("list", "--json").json());
        assertEquals("denied", states.get("p-kiro"), "--all leaves a denial alone");

        CliRunner.Result approvals = cli.run("approvals");
        assertTrue(approvals.out().contains(files.get("p-kiro").toString()), approvals::toString);
        assertTrue(approvals.out().contains("✗ p-kiro  denied "), approvals::toString);
        assertTrue(approvals.out().contains("✓ p-cursor  approved "), approvals::toString);

        CliRunner.Result revoke = cli.run("approvals", "revoke", "p-kiro");
        assertEquals(0, revoke.exitCode(), revoke::toString);
        assertEquals("pending", approvalStates(cli.run("list", "--json").json()).get("p-kiro"));
        assertEquals(2, cli.run("approvals", "revoke", "p-kiro").exitCode());

        Path file = state.resolve("mcp-host/approvals.json");
        assertFalse(Files.readString(file).contains(SECRET), "a secret in the approvals file");
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        }
        CliRunner.Result unknown = cli.run("approve", "p-cursr");
        assertEquals(2, unknown.exitCode(), unknown::toString);
        assertTrue(unknown.err().contains("Did you mean: p-cursor"), unknown::toString);
        CliRunner.Result already = cli.run("approve", "p-cursor");
        assertEquals(2, already.exitCode(), already::toString);
        assertTrue(already.err().contains("already approved"), already::toString);
        assertEquals(Set.of(), ran());
    }

    /** Leaves only these servers' files. */
    private void keepOnly(Set<String> names) throws IOException {
        for (Map.Entry<String, Path> e : files.entrySet()) {
            if (!names.contains(e.getKey())) {
                Files.delete(e.getValue());
            }
        }
        files.keySet().retainAll(names);
    }

    @Test
    void aTrustedCheckoutRunsItsServersAndSavesNothing() throws IOException {
        keepOnly(Set.of("p-cursor", "p-codex"));
        assertEquals(0, cli.run("deny", "p-codex").exitCode());
        String approvals = Files.readString(state.resolve("mcp-host/approvals.json"));
        CliRunner.Result tools = cli.run("tools", "--json", "--no-cache", "--approve-project-servers");
        assertEquals(Set.of("p-cursor"), serversWithTools(tools), tools::toString);
        assertEquals(Set.of("p-cursor"), ran(), "a denial holds for a trusted checkout too");
        assertEquals(approvals, Files.readString(state.resolve("mcp-host/approvals.json")));
        assertEquals("pending", approvalStates(cli.run("list", "--json").json()).get("p-cursor"));
    }

    @Test
    void anEmbedderDecidesInItsOwnUi() throws IOException {
        keepOnly(Set.of("p-cursor", "p-vscode"));
        List<String> asked = new ArrayList<>();
        Map<String, String> env = Map.of("HOME", home.toString(), "XDG_STATE_HOME", state.toString(),
                "MCP_HOST_CLAUDE_MANAGED_DIR", temp.resolve("managed").toString());
        try (McpHost host = McpHost.builder().home(home).workingDirectory(repo).environment(env).cache(false)
                .consentHandler(server -> {
                    asked.add(server.name() + " " + server.state().kind().id());
                    return server.name().equals("p-vscode") ? ConsentHandler.Decision.APPROVE
                            : ConsentHandler.Decision.LEAVE_PENDING;
                }).build()) {
            LoadResult load = host.load();
            assertEquals(Set.of("p-vscode"), load.tools().stream().map(t -> t.serverName())
                    .collect(Collectors.toSet()), load::toString);
            assertEquals(List.of("p-cursor pending", "p-vscode pending"), asked.stream().sorted().toList());
        }
        assertEquals(Set.of("p-vscode"), ran());
        Map<String, String> states = approvalStates(cli.run("list", "--json").json());
        assertEquals(Map.of("p-cursor", "pending", "p-vscode", "approved"), states);
    }

    @Test
    void theShellAsksOncePerServerAndOneShotCommandsNever() throws IOException {
        // Only the Cursor server, so that the answers below go to it.
        keepOnly(Set.of("p-cursor"));
        CliRunner.Result oneShot = cli.runAtTerminal("y\n", "tools", "--no-cache");
        assertFalse(oneShot.out().contains("Start it?"), oneShot::toString);
        assertEquals(Set.of(), ran());

        CliRunner.Result shell = cli.runAtTerminal("x\ns\ny\n/tools\n/mcp reload\n/quit\n", "shell", "--no-cache");
        assertEquals(0, shell.exitCode(), shell::toString);
        String out = shell.out();
        assertTrue(out.contains("Project server \"p-cursor\" is not approved yet (Cursor, " + files.get("p-cursor") + ")."),
                shell::toString);
        assertTrue(out.contains("Please answer y, n or s."), shell::toString);
        assertTrue(out.contains("    command: \"sh\""), "s shows the definition: " + out);
        assertEquals(3, out.split("Start it\\?", -1).length - 1, "three prompts for the three answers: " + out);
        assertEquals(1, out.split("is not approved yet", -1).length - 1, "asked about once, reload included: " + out);
        assertTrue(out.contains("_echo"), "the approved server's tools: " + out);
        assertEquals(Set.of("p-cursor"), ran());
        assertEquals("approved", approvalStates(cli.run("list", "--json").json()).get("p-cursor"));
    }
}
