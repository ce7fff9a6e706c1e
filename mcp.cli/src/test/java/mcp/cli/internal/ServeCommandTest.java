package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import mcp.api.McpJson;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code serve}: its options, its token, the agents' configs it prints, and one client over stdio. */
class ServeCommandTest {

    @TempDir
    Path temp;

    private CliRunner cli;
    private Path home;

    @BeforeEach
    void fixture() throws Exception {
        home = Files.createDirectories(temp.resolve("home"));
        cli = new CliRunner(Files.createDirectories(temp.resolve("project")), home);
    }

    @Test
    void theTokenIsMadeOnceAndKeptOwnerOnly() throws Exception {
        CliRunner.Result first = cli.run("serve", "--token");
        CliRunner.Result second = cli.run("serve", "--token");
        assertEquals(0, first.exitCode(), first.toString());
        String token = first.out().strip();
        assertTrue(token.length() >= 43, token);
        assertEquals(token, second.out().strip(), "the same token at every start");
        Path file = home.resolve(".local/state/mcp-host/serve-token");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }

    @Test
    void eachAgentGetsItsOwnFormOfTheSameCommand() {
        cli.env("MCP_HOST_LAUNCHER", "/opt/mcp host/bin/mcp-host");
        for (String agent : ServeCommand.AGENTS) {
            CliRunner.Result result = cli.run("serve", "--print-config", agent);
            assertEquals(0, result.exitCode(), result.toString());
            assertTrue(result.out().contains("/opt/mcp host/bin/mcp-host"), agent + ": " + result.out());
            assertTrue(result.out().contains("\"serve\"") && result.out().contains("\"--stdio\""), result.out());
        }
        // Codex passes a server only HOME, PATH and a few more: the variables that say where the user's shared
        // gateway, configs and state are must be passed on by name.
        String codex = cli.run("serve", "--print-config", "codex").out();
        assertTrue(codex.contains("\nenv_vars = [\"XDG_CONFIG_HOME\", \"XDG_STATE_HOME\", \"XDG_CACHE_HOME\", "
                + "\"XDG_DATA_HOME\", \"XDG_RUNTIME_DIR\"]\n"), codex);
        // Codex waits one second for a server it may do without, then sends its turn without that server's tools.
        assertTrue(codex.contains("\nrequired = true\n"), codex);
        String vscode = cli.run("serve", "--print-config", "vscode").out();
        JsonNode json = McpJson.mapper().readTree(vscode.substring(vscode.indexOf('{')));
        assertEquals("stdio", json.path("servers").path("mcp-host").path("type").asString());
        CliRunner.Result unknown = cli.run("serve", "--print-config", "emacs");
        assertEquals(2, unknown.exitCode(), unknown.toString());
        assertTrue(unknown.err().contains("claude, codex, gemini, cursor, vscode"), unknown.err());
    }

    @Test
    void unsafeOrContradictoryOptionsAreRefused() {
        for (List<String> args : List.of(List.of("serve", "--stdio", "--http"), List.of("serve", "--no-token"),
                List.of("serve", "--http", "--no-token", "--bind", "0.0.0.0"), List.of("serve", "--shared", "--http"),
                List.of("serve", "--standalone", "--http"), List.of("serve", "--idle", "0"),
                List.of("serve", "--always-load", "a"), List.of("serve", "--drain-timeout", "-1"))) {
            CliRunner.Result result = cli.run(args.toArray(String[]::new));
            assertEquals(2, result.exitCode(), args + ": " + result);
        }
    }

    @Test
    void badReplicaKeysAreRefusedBeforeAnythingStartsAndNeverShown() throws Exception {
        String shortKey = java.util.Base64.getEncoder().encodeToString("not thirty-two bytes".getBytes());
        Path file = temp.resolve("keys");
        Files.writeString(file, "k1:" + shortKey + "\n");
        CliRunner.Result fromFile = cli.run("serve", "--http", "--keys", file.toString());
        assertEquals(2, fromFile.exitCode(), fromFile.toString());
        assertTrue(fromFile.err().contains(file.toString()) && fromFile.err().contains("at least 32"), fromFile.err());
        assertFalse(fromFile.err().contains(shortKey) || fromFile.out().contains(shortKey), fromFile.toString());

        CliRunner.Result missing = cli.run("serve", "--http", "--keys", temp.resolve("absent").toString());
        assertEquals(2, missing.exitCode(), missing.toString());
        assertTrue(missing.err().contains("cannot read"), missing.err());

        cli.env("MCP_HOST_GATEWAY_KEYS", "k1:" + shortKey);
        CliRunner.Result fromEnv = cli.run("serve", "--http");
        assertEquals(2, fromEnv.exitCode(), fromEnv.toString());
        assertTrue(fromEnv.err().contains("MCP_HOST_GATEWAY_KEYS"), fromEnv.err());
        assertFalse(fromEnv.err().contains(shortKey), fromEnv.err());

        CliRunner.Result stdio = cli.run("serve", "--stdio", "--keys", file.toString());
        assertEquals(2, stdio.exitCode(), stdio.toString());
        assertTrue(stdio.err().contains("HTTP options"), stdio.err());
    }

    @Test
    void oauthOptionsThatCannotWorkAreRefusedBeforeAnyServerStarts() {
        String issuer = "http://127.0.0.1:9";
        for (List<String> args : List.of(List.of("serve", "--oauth-issuer", issuer),
                List.of("serve", "--http", "--port", "8931", "--oauth-scopes", "mcp"),
                List.of("serve", "--http", "--port", "8931", "--oauth-issuer", issuer, "--no-token"),
                List.of("serve", "--token", "--oauth-issuer", issuer),
                List.of("serve", "--http", "--oauth-issuer", issuer),
                List.of("serve", "--http", "--bind", "0.0.0.0", "--port", "8931", "--oauth-issuer", issuer),
                List.of("serve", "--http", "--port", "8931", "--oauth-issuer", issuer, "--oauth-algorithms", "HS256"),
                List.of("serve", "--http", "--port", "8931", "--oauth-issuer", "not a url"),
                List.of("serve", "--http", "--port", "8931", "--oauth-issuer", issuer, "--oauth-clock-skew", "-1"))) {
            CliRunner.Result result = cli.run(args.toArray(String[]::new));
            assertEquals(2, result.exitCode(), args + ": " + result);
            assertFalse(result.err().contains("listening"), result.toString());
        }
        CliRunner.Result hmac = cli.run("serve", "--http", "--port", "8931", "--oauth-issuer", issuer,
                "--oauth-algorithms", "HS256");
        assertTrue(hmac.err().contains("HMAC"), hmac.toString());
        // The environment configures a replica as the options do, and is checked as they are.
        cli.env(ServeOAuth.ISSUER, issuer).env(ServeOAuth.CLOCK_SKEW, "soon");
        CliRunner.Result fromEnv = cli.run("serve", "--http", "--port", "8931");
        assertEquals(2, fromEnv.exitCode(), fromEnv.toString());
        assertTrue(fromEnv.err().contains(ServeOAuth.CLOCK_SKEW), fromEnv.toString());
        CliRunner.Result noToken = cli.run("serve", "--http", "--port", "8931", "--no-token");
        assertEquals(2, noToken.exitCode(), noToken.toString());
        assertTrue(noToken.err().contains("exclude each other"), noToken.toString());
    }

    @Test
    void aServeStartedAsAServerOfMcpHostRefusesBeforeStartingAnyServer() throws Exception {
        Path marker = temp.resolve("started");
        ObjectNode root = McpJson.object();
        List<String> command = TestServers.command("--exit-marker", marker.toString());
        ObjectNode entry = root.putObject("mcpServers").putObject("kit").put("command", command.get(0));
        command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        Path config = temp.resolve("servers.json");
        Files.writeString(config, root.toString());
        cli.env(UpstreamMarker.VARIABLE, "4242");
        CliRunner.Result result = cli.runWithInput("", "--config", config.toString(), "serve", "--stdio");
        assertEquals(2, result.exitCode(), result.toString());
        assertTrue(result.err().contains("serve refuses to start: it was started as an MCP server of mcp-host (pid "
                + "4242"), result.err());
        assertEquals("", result.out(), "nothing served");
        CliRunner.assertNoChildProcessLeft();
        assertTrue(!Files.exists(marker), "no server was started");
    }

    @Test
    void anAgentsEntryForTheGatewayIsSaidToBeSkippedAndItsServersStartOnce() throws Exception {
        Path starts = temp.resolve("starts");
        List<String> kit = TestServers.command();
        ObjectNode servers = McpJson.object();
        ObjectNode gateway = servers.putObject("mcp-host").put("type", "stdio").put("command", "/opt/mcp-host/bin/mcp-host");
        gateway.putArray("args").add("serve").add("--stdio");
        // The agent's other server, counting its starts.
        ObjectNode counted = servers.putObject("kit").put("type", "stdio").put("command", "sh");
        counted.putArray("args").add("-c").add("echo started >> '" + starts + "'; exec \"$0\" \"$@\"");
        kit.forEach(((tools.jackson.databind.node.ArrayNode) counted.get("args"))::add);
        Files.writeString(home.resolve(".claude.json"), McpJson.object().set("mcpServers", servers).toString());

        CliRunner.Result list = cli.run("list");
        assertEquals(0, list.exitCode(), list.toString());
        assertTrue(list.out().lines().anyMatch(line -> line.contains("◌ mcp-host [stdio]  served by mcp-host serve, "
                + "skipped")), list.out());
        assertTrue(!Files.exists(starts), "list starts nothing");

        CliRunner.Result status = cli.run("status");
        assertEquals(0, status.exitCode(), status.toString());
        assertTrue(status.out().lines().anyMatch(line -> line.startsWith("● kit")), status.out());
        assertTrue(status.out().lines().anyMatch(line -> line.startsWith("◌ mcp-host") && line.contains("(Claude Code, "
                + home.resolve(".claude.json") + "): served by mcp-host serve, skipped")), status.out());
        assertEquals(List.of("started"), Files.readAllLines(starts), "the agent's server started once, by status alone");
        CliRunner.assertNoChildProcessLeft();
    }

    @Test
    void everyStdioServerOfTheCommandIsMarkedAsItsUpstream() {
        UpstreamMarker marker = new UpstreamMarker(77);
        mcp.api.StdioServerConfig config = mcp.api.StdioServerConfig.of("x", List.of());
        mcp.api.ServerConfig resolved = marker.resolve("x", config.withEnv(java.util.Map.of("KEEP", "1")), null);
        assertEquals(java.util.Map.of("KEEP", "1", UpstreamMarker.VARIABLE, "77"),
                ((mcp.api.StdioServerConfig) resolved).env());
        mcp.api.HttpServerConfig http = mcp.api.HttpServerConfig.of("http://127.0.0.1:1/mcp");
        assertTrue(marker.resolve("h", http, null) == http, "a remote server has no environment of ours");
    }

    @Test
    @org.junit.jupiter.api.Timeout(120)
    void withSearchTheClientGetsSearchToolsAndWhatItFindsJoinsItsList() throws Exception {
        ObjectNode root = McpJson.object();
        ObjectNode servers = root.putObject("mcpServers");
        for (String name : List.of("alpha", "beta")) {
            List<String> command = TestServers.command();
            ObjectNode entry = servers.putObject(name).put("command", command.get(0));
            command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        }
        ((ObjectNode) servers.get("alpha")).putArray("alwaysLoad").add("echo");
        Path config = temp.resolve("servers.json");
        Files.writeString(config, root.toString());
        java.io.PipedInputStream serverIn = new java.io.PipedInputStream(1 << 20);
        java.io.PipedOutputStream toServer = new java.io.PipedOutputStream(serverIn);
        // Not a JDK pipe for what the server writes: it writes from whichever thread has something to say (the servers'
        // list_changed come from the thread that starts them, which then ends), and a JDK pipe whose last writer
        // thread ended fails its reader.
        java.util.concurrent.LinkedBlockingQueue<Integer> written = new java.util.concurrent.LinkedBlockingQueue<>();
        java.io.InputStream clientIn = new java.io.InputStream() {
            @Override
            public int read() throws java.io.IOException {
                try {
                    return written.take();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException();
                }
            }

            @Override
            public int read(byte[] bytes, int offset, int length) throws java.io.IOException {
                if (length == 0) {
                    return 0;
                }
                bytes[offset] = (byte) read();
                int n = 1;
                // What has come, without waiting for more (the default read would wait for a full buffer).
                for (Integer next = written.poll(); next != null; next = n < length ? written.poll() : null) {
                    bytes[offset + n++] = (byte) (int) next;
                }
                return n;
            }
        };
        java.io.PrintStream out = new java.io.PrintStream(new java.io.OutputStream() {
            @Override
            public void write(int b) {
                written.add(b & 0xff);
            }
        }, true, java.nio.charset.StandardCharsets.UTF_8);
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        CliIo io = cli.io(serverIn, out, new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
        java.util.concurrent.CompletableFuture<Integer> exit = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> Main.run(new String[] {"--config", config.toString(), "serve", "--stdio", "--search",
                        "--always-load", "beta/pid"}, io, null));
        java.io.BufferedReader fromServer = new java.io.BufferedReader(new java.io.InputStreamReader(clientIn,
                java.nio.charset.StandardCharsets.UTF_8));
        java.util.function.Consumer<String> send = line -> {
            try {
                toServer.write((line + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                toServer.flush();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
        send.accept("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
        assertEquals(1, McpJson.mapper().readTree(fromServer.readLine()).path("id").asInt());
        send.accept("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        send.accept("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
        // The servers start behind the handshake: their list_changed may come before an answer.
        List<JsonNode> heard = new java.util.ArrayList<>();
        java.util.function.IntFunction<JsonNode> answer = id -> {
            try {
                for (String line = fromServer.readLine(); line != null; line = fromServer.readLine()) {
                    JsonNode message = McpJson.mapper().readTree(line);
                    if (message.path("id").asInt(-1) == id) {
                        return message;
                    }
                    heard.add(message);
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            throw new AssertionError("no answer to " + id + "; heard " + heard);
        };
        assertEquals(List.of("alpha_echo", "beta_pid", "list_servers", "manage_server", "search_tools"),
                names(answer.apply(2)),
                "the tools always loaded (alpha's config, --always-load), the search and the servers' tools");
        heard.clear();
        send.accept("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
                + "\"search_tools\",\"arguments\":{\"query\":\"add two numbers\",\"limit\":1}}}");
        JsonNode found = answer.apply(3);
        String hit = found.path("result").path("structuredContent").path("tools").path(0).path("name").asString();
        assertTrue(hit.endsWith("_add"), found.toString());
        send.accept("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}");
        List<String> after = names(answer.apply(4));
        assertTrue(after.contains(hit) && after.size() == 6, after.toString());
        assertTrue(heard.stream().anyMatch(m -> m.path("method").asString("").equals(
                "notifications/tools/list_changed")), "the search's find reaches the list as list_changed: " + heard);
        send.accept("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"beta_echo\","
                + "\"arguments\":{\"message\":\"unlisted\"}}}");
        assertEquals("unlisted", answer.apply(5).path("result").path("content").path(0)
                .path("text").asString(), "a tool not listed is still callable by its name");
        toServer.close();
        assertEquals(0, exit.get(60, java.util.concurrent.TimeUnit.SECONDS), err.toString());
        CliRunner.assertNoChildProcessLeft();
    }

    private static List<String> names(JsonNode listing) {
        List<String> names = new java.util.ArrayList<>();
        listing.path("result").path("tools").forEach(tool -> names.add(tool.path("name").asString()));
        return names.stream().sorted().toList();
    }

    @Test
    void oneClientOverStdioListsAndCallsTheServersTools() throws Exception {
        ObjectNode root = McpJson.object();
        ObjectNode servers = root.putObject("mcpServers");
        for (String name : List.of("alpha", "beta")) {
            List<String> command = TestServers.command();
            ObjectNode entry = servers.putObject(name).put("command", command.get(0));
            command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        }
        Path config = temp.resolve("servers.json");
        Files.writeString(config, root.toString());
        String input = String.join("\n",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"beta_echo\","
                        + "\"arguments\":{\"message\":\"through the gateway\"}}}") + "\n";
        CliRunner.Result result = cli.runWithInput(input, "--config", config.toString(), "serve", "--stdio");
        assertEquals(0, result.exitCode(), result.toString());
        // The answers; list_changed may come between them, as the servers connect after the handshake.
        List<JsonNode> messages = result.out().lines().map(McpJson.mapper()::readTree)
                .filter(message -> message.has("id")).toList();
        assertEquals("mcp-host", messages.get(0).path("result").path("serverInfo").path("name").asString(),
                result.toString());
        assertEquals(2, messages.size(), result.toString());
        assertEquals("through the gateway", messages.get(1).path("result").path("content").get(0).path("text")
                .asString(), result.toString());
    }

    @Test
    void aPolicyFromTheEnvironmentHoldsTheLocalUserToItsRulesAndABadOneStopsTheStart() throws Exception {
        ObjectNode root = McpJson.object();
        ObjectNode servers = root.putObject("mcpServers");
        for (String name : List.of("alpha", "beta")) {
            List<String> command = TestServers.command();
            ObjectNode entry = servers.putObject(name).put("command", command.get(0));
            command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        }
        Path config = temp.resolve("servers.json");
        Files.writeString(config, root.toString());
        Path policy = temp.resolve("policy.json");
        Files.writeString(policy, "{\"rules\": [{\"match\": {\"local\": true}, \"allow\": {\"servers\": [\"beta\"]}}]}");
        cli.env("MCP_HOST_POLICY", policy.toString());
        String input = String.join("\n",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"alpha_echo\","
                        + "\"arguments\":{\"message\":\"x\"}}}") + "\n";
        CliRunner.Result result = cli.runWithInput(input, "--config", config.toString(), "serve", "--stdio");
        assertEquals(0, result.exitCode(), result.toString());
        List<JsonNode> messages = result.out().lines().map(McpJson.mapper()::readTree)
                .filter(message -> message.has("id")).toList();
        assertEquals(3, messages.size(), result.toString());
        // By id: the two answers may come in either order once the servers have started.
        java.util.function.IntFunction<JsonNode> answer = id -> messages.stream()
                .filter(message -> message.path("id").asInt() == id).findFirst().orElseThrow();
        List<String> listed = names(answer.apply(2));
        assertTrue(!listed.isEmpty() && listed.stream().allMatch(name -> name.startsWith("beta_")), result.toString());
        assertEquals("Unknown tool: alpha_echo", answer.apply(3).path("error").path("message").asString(),
                result.toString());
        CliRunner.assertNoChildProcessLeft();

        Files.writeString(policy, "{\"rules\": [\n  {\"match\": {}, \"allow\": {\"servers\": [\"beta\"]},}\n]}");
        CliRunner.Result bad = cli.run("--config", config.toString(), "serve", "--http", "--policy", policy.toString());
        assertTrue(bad.exitCode() != 0, bad.toString());
        assertTrue(bad.err().contains(policy.toString()) && bad.err().contains("line 2"), bad.err());
        CliRunner.assertNoChildProcessLeft();
    }
}
