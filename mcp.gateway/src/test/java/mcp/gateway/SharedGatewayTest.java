package mcp.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import mcp.api.McpJson;
import mcp.gateway.internal.Channels;
import mcp.gateway.internal.LinePipe;
import mcp.host.McpHost;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The shared gateway over real parts: testkit servers as child processes, clients on its Unix domain socket, and
 * {@link Attachment} carrying a client's session across the gateway's end.
 */
class SharedGatewayTest {

    @TempDir
    Path temp;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (servers() > 0) {
            assertTrue(System.nanoTime() < deadline, "a server process outlived the gateway");
            Thread.sleep(50);
        }
    }

    /** The server processes running now: this JVM's descendants but the stdio transport's watchdog. */
    private static long servers() {
        return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().commandLine().map(line -> !line.contains("mcp-stdio-watchdog")).orElse(true))
                .count();
    }

    private Path home() {
        return temp.resolve("home");
    }

    private static void config(Path file, String... names) throws IOException {
        ObjectNode servers = McpJson.object();
        for (String name : names) {
            List<String> command = TestServers.command();
            ObjectNode entry = servers.putObject(name).put("command", command.get(0));
            command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        }
        ObjectNode root = McpJson.object();
        root.set("mcpServers", servers);
        Files.createDirectories(file.getParent());
        Files.writeString(file, root.toString());
    }

    /** A shared gateway whose projects named in {@code trusted} start their own servers without an approval. */
    private SharedGateway gateway(Set<Path> trusted) {
        SharedGateway gateway = SharedGateway.builder(project -> {
            McpHost.Builder builder = McpHost.builder().home(home()).environment(Map.of("HOME", home().toString()))
                    .cacheDirectory(temp.resolve("cache")).startupGate(Duration.ofSeconds(30));
            return project.map(dir -> builder.workingDirectory(dir).approveProjectServers(trusted.contains(dir)))
                    .orElseGet(() -> builder.workingDirectory(home()).projectConfig(false));
        }, temp.resolve("run")).idle(Duration.ofMinutes(5)).recheck(Duration.ofMillis(300)).build();
        open.add(gateway);
        return gateway;
    }

    /** A raw client on the socket: the hello, then MCP's newline-delimited JSON-RPC. */
    private final class Client implements AutoCloseable {
        final SocketChannel channel;
        final BufferedReader in;
        final OutputStream out;
        final List<JsonNode> notifications = new ArrayList<>();
        int next;

        /** Answers the gateway's requests (elicitation); null: this client declares no capability. */
        java.util.function.Function<JsonNode, JsonNode> answers;

        Client(SharedGateway gateway, Path project) throws IOException {
            this(gateway, project, null);
        }

        Client(SharedGateway gateway, Path project, java.util.function.Function<JsonNode, JsonNode> answers)
                throws IOException {
            this(gateway, project, answers, false);
        }

        Client(SharedGateway gateway, Path project, java.util.function.Function<JsonNode, JsonNode> answers,
                boolean search) throws IOException {
            this.answers = answers;
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(gateway.socket()));
            out = Channels.out(channel);
            ObjectNode hello = McpJson.object();
            hello.putObject("attach").put("project", project.toString()).put("search", search);
            out.write((hello + "\n").getBytes(StandardCharsets.UTF_8));
            in = new BufferedReader(new InputStreamReader(Channels.in(channel), StandardCharsets.UTF_8));
            JsonNode reply = McpJson.mapper().readTree(in.readLine());
            assertTrue(reply.has("attached"), reply.toString());
            open.add(this);
            ObjectNode params = McpJson.object().put("protocolVersion", "2025-11-25");
            ObjectNode capabilities = params.putObject("capabilities");
            if (answers != null) {
                capabilities.putObject("elicitation").putObject("form");
            }
            params.putObject("clientInfo").put("name", "test").put("version", "1");
            request("initialize", params);
            out.write("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n".getBytes(StandardCharsets.UTF_8));
        }

        JsonNode request(String method, JsonNode params) throws IOException {
            int id = ++next;
            ObjectNode message = McpJson.object().put("jsonrpc", "2.0").put("id", id).put("method", method);
            message.set("params", params);
            out.write((message + "\n").getBytes(StandardCharsets.UTF_8));
            return CompletableFuture.supplyAsync(() -> {
                try {
                    for (String line = in.readLine(); line != null; line = in.readLine()) {
                        JsonNode answer = McpJson.mapper().readTree(line);
                        if (answer.has("method") && answer.has("id") && answers != null) {
                            ObjectNode reply = McpJson.object().put("jsonrpc", "2.0");
                            reply.set("id", answer.get("id"));
                            reply.set("result", answers.apply(answer));
                            out.write((reply + "\n").getBytes(StandardCharsets.UTF_8));
                            continue;
                        }
                        if (answer.path("id").asInt(-1) == id && !answer.has("method")) {
                            return answer;
                        }
                        notifications.add(answer);
                    }
                    throw new IllegalStateException("the gateway ended the session");
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }).orTimeout(60, TimeUnit.SECONDS).join();
        }

        Set<String> tools() throws IOException {
            Set<String> names = new TreeSet<>();
            // The testkit server's tools all have echo among them: that one stands for the server.
            for (JsonNode tool : request("tools/list", McpJson.object()).path("result").path("tools")) {
                String name = tool.path("name").asString();
                if (name.endsWith("echo")) {
                    names.add(name);
                }
            }
            return names;
        }

        String echo(String tool, String message) throws IOException {
            ObjectNode params = McpJson.object().put("name", tool);
            params.putObject("arguments").put("message", message);
            JsonNode answer = request("tools/call", params);
            return answer.path("result").path("content").path(0).path("text").asString(answer.toString());
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    @Test
    void userServersRunOnceAndEachProjectSeesItsOwnAndOnlyWhatItApproved() throws Exception {
        config(home().resolve(".config/mcp-host/mcp.json"), "alpha");
        Path a = temp.resolve("a");
        Path b = temp.resolve("b");
        Path c = temp.resolve("c");
        for (Path project : List.of(a, b, c)) {
            config(project.resolve(".mcp-host/mcp.json"), "beta");
        }
        SharedGateway gateway = gateway(Set.of(a, c));
        gateway.start();

        Client a1 = new Client(gateway, a);
        Client a2 = new Client(gateway, a);
        Client b1 = new Client(gateway, b);
        Client c1 = new Client(gateway, c);
        assertEquals(Set.of("alpha_echo", "beta_echo"), a1.tools());
        assertEquals(Set.of("alpha_echo", "beta_echo"), a2.tools());
        // b's own server is not approved: b sees the user's server alone, under its own names.
        assertEquals(Set.of("echo"), b1.tools());
        assertEquals(Set.of("alpha_echo", "beta_echo"), c1.tools());
        assertEquals("hi", a1.echo("beta_echo", "hi"));
        assertEquals("there", b1.echo("echo", "there"));
        assertEquals("you", c1.echo("alpha_echo", "you"));
        JsonNode other = b1.request("tools/call", McpJson.object().put("name", "beta_echo"));
        assertTrue(other.has("error") || other.path("result").path("isError").asBoolean(), other.toString());

        // One process for the user's server, one for each approved project's own: three for four clients.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (servers() != 3 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(3, servers());
        JsonNode status = gateway.status();
        assertEquals(4, status.path("clients").asInt());
        assertEquals(3, status.path("servers").size(), status.toString());
        JsonNode answered = Attachment.status(gateway.socket(), Duration.ofSeconds(5)).orElseThrow();
        // The user's server is called by b (as echo) and by c (as alpha_echo): one count, whatever its names.
        JsonNode alpha = null;
        for (JsonNode server : answered.path("servers")) {
            if (server.path("name").asString().equals("alpha")) {
                alpha = server;
            }
        }
        assertTrue(alpha != null, answered.toString());
        assertEquals(2, alpha.path("activity").path("calls").asLong(), alpha.toString());
        assertEquals(0, alpha.path("activity").path("failedCalls").asLong(), alpha.toString());

        // A project's own server runs in the project.
        assertFalse(gateway.manager().statuses().containsKey("beta"), "a project's server runs under its own name");
    }

    @Test
    void aPendingProjectServerIsApprovedByTheUserThroughElicitationAndOnlyThen() throws Exception {
        config(home().resolve(".config/mcp-host/mcp.json"), "alpha");
        Path b = temp.resolve("b");
        config(b.resolve(".mcp-host/mcp.json"), "beta");
        SharedGateway gateway = gateway(Set.of());
        gateway.start();

        // A client that cannot ask its user gets the command to run, and nothing starts.
        Client plain = new Client(gateway, b);
        JsonNode refused = plain.request("tools/call", McpJson.object().put("name", "approve_project_servers"));
        assertTrue(refused.path("result").path("isError").asBoolean(), refused.toString());
        assertTrue(refused.toString().contains("mcp-host approve beta"), refused.toString());
        assertEquals(Set.of("echo"), plain.tools());

        // One whose user ticks beta: approved as mcp-host approve would, and its tools follow.
        List<JsonNode> asked = new ArrayList<>();
        Client asking = new Client(gateway, b, question -> {
            asked.add(question);
            ObjectNode answer = McpJson.object().put("action", "accept");
            answer.putObject("content").put("beta", true);
            return answer;
        });
        JsonNode listed = asking.request("tools/list", McpJson.object());
        assertTrue(listed.toString().contains("approve_project_servers"), listed.toString());
        JsonNode approved = asking.request("tools/call", McpJson.object().put("name", "approve_project_servers"));
        assertEquals("elicitation/create", asked.get(0).path("method").asString(), asked.toString());
        assertTrue(approved.toString().contains("Approved: beta"), approved.toString());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Set<String> tools = asking.tools();
        while (!tools.equals(Set.of("alpha_echo", "beta_echo")) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            tools = asking.tools();
        }
        assertEquals(Set.of("alpha_echo", "beta_echo"), tools);
        assertFalse(asking.request("tools/list", McpJson.object()).toString().contains("approve_project_servers"),
                "nothing waits any more");
        // Kept as mcp-host approve keeps it: a host of its own in the project starts it now.
        try (McpHost later = McpHost.builder().home(home()).environment(Map.of("HOME", home().toString()))
                .workingDirectory(b).cache(false).build()) {
            assertTrue(later.discover().configs().containsKey("beta"));
        }
    }

    @Test
    void aClientThatAsksForToolSearchGetsItBesideOnesThatDoNot() throws Exception {
        config(home().resolve(".config/mcp-host/mcp.json"), "alpha", "delta");
        Path a = temp.resolve("a");
        Files.createDirectories(a);
        SharedGateway gateway = gateway(Set.of());
        gateway.start();
        Client plain = new Client(gateway, a);
        Client searching = new Client(gateway, a, null, true);
        assertEquals(Set.of("alpha_echo", "delta_echo"), plain.tools());
        Set<String> listed = new TreeSet<>();
        searching.request("tools/list", McpJson.object()).path("result").path("tools")
                .forEach(tool -> listed.add(tool.path("name").asString()));
        assertEquals(Set.of("search_tools", "list_servers", "manage_server"), listed);
        ObjectNode params = McpJson.object().put("name", "search_tools");
        params.putObject("arguments").put("query", "echo");
        JsonNode found = searching.request("tools/call", params);
        assertTrue(found.toString().contains("alpha_echo"), found.toString());
        // Every tool stays callable by its name; the plain client's list is as it was, and both share one process.
        assertEquals("found", searching.echo("delta_echo", "found"));
        assertEquals(Set.of("alpha_echo", "delta_echo"), plain.tools());
        assertEquals(2, gateway.manager().statuses().size());

        // The deferred mode's client manages the servers: the change holds for every client.
        JsonNode servers = searching.request("tools/call", McpJson.object().put("name", "list_servers"));
        assertEquals(2, servers.path("result").path("structuredContent").path("servers").size(), servers.toString());
        assertTrue(servers.toString().contains("connected"), servers.toString());
        ObjectNode disable = McpJson.object().put("name", "manage_server");
        disable.putObject("arguments").put("server", "delta").put("action", "disable");
        JsonNode disabled = searching.request("tools/call", disable);
        assertTrue(disabled.toString().contains("Disabled delta"), disabled.toString());
        assertEquals(Set.of("echo"), plain.tools(), "one server left: its own names");
        assertFalse(gateway.manager().statuses().containsKey("delta"));
        ObjectNode enable = McpJson.object().put("name", "manage_server");
        enable.putObject("arguments").put("server", "delta").put("action", "enable");
        assertTrue(searching.request("tools/call", enable).toString().contains("Enabled delta"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!plain.tools().equals(Set.of("alpha_echo", "delta_echo")) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(Set.of("alpha_echo", "delta_echo"), plain.tools());
        String before = plain.echo("alpha_pid", "").strip();
        ObjectNode reconnect = McpJson.object().put("name", "manage_server");
        reconnect.putObject("arguments").put("server", "alpha").put("action", "reconnect");
        assertTrue(searching.request("tools/call", reconnect).toString().contains("Reconnected alpha"));
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String after = plain.echo("alpha_pid", "").strip();
        while ((after.isEmpty() || after.equals(before) || !after.matches("[0-9]+")) && System.nanoTime() < deadline) {
            Thread.sleep(100);
            after = plain.echo("alpha_pid", "").strip();
        }
        assertTrue(after.matches("[0-9]+") && !after.equals(before), before + " then " + after);
        ObjectNode unknown = McpJson.object().put("name", "manage_server");
        unknown.putObject("arguments").put("server", "nope").put("action", "disable");
        assertTrue(searching.request("tools/call", unknown).path("result").path("isError").asBoolean());
        // A client without the deferred mode has neither tool.
        assertFalse(plain.request("tools/list", McpJson.object()).toString().contains("manage_server"));
    }

    @Test
    void aChangedConfigReachesTheClientsThatListen() throws Exception {
        Path user = home().resolve(".config/mcp-host/mcp.json");
        config(user, "alpha");
        Path a = temp.resolve("a");
        Files.createDirectories(a);
        SharedGateway gateway = gateway(Set.of());
        gateway.start();
        Client client = new Client(gateway, a);
        assertEquals(Set.of("echo"), client.tools());
        config(user, "alpha", "delta");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Set<String> tools = client.tools();
        while (!tools.equals(Set.of("alpha_echo", "delta_echo")) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            tools = client.tools();
        }
        assertEquals(Set.of("alpha_echo", "delta_echo"), tools);
        assertTrue(client.notifications.stream().anyMatch(n -> n.path("method").asString("")
                .equals("notifications/tools/list_changed")), client.notifications.toString());
    }

    @Test
    void aSessionOutlivesItsGatewayAndFallsBackToThisProcessWhenNoneCanBeHad() throws Exception {
        config(home().resolve(".config/mcp-host/mcp.json"), "alpha");
        Path a = temp.resolve("a");
        Files.createDirectories(a);
        AtomicReference<SharedGateway> running = new AtomicReference<>(gateway(Set.of()));
        running.get().start();
        Path socket = running.get().socket();
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        LinePipe toAttachment = new LinePipe();
        LinePipe fromAttachment = new LinePipe();
        List<String> fellBack = new ArrayList<>();
        Attachment attachment = Attachment.builder(socket, a)
                .starter(() -> {
                    SharedGateway next = gateway(Set.of());
                    next.start();
                    running.set(next);
                })
                .fallback(() -> {
                    fellBack.add("yes");
                    throw new IllegalStateException("not in this test");
                })
                .attachWait(Duration.ofSeconds(20))
                .warnings(new PrintStream(warnings, true, StandardCharsets.UTF_8)).build();
        Thread carrying = new Thread(() -> attachment.run(toAttachment.input(), fromAttachment.output()));
        carrying.start();
        BufferedReader reader = new BufferedReader(new InputStreamReader(fromAttachment.input(), StandardCharsets.UTF_8));
        OutputStream writer = toAttachment.output();
        writer.write(("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
                + "\"arguments\":{\"message\":\"before\"}}}\n").getBytes(StandardCharsets.UTF_8));
        assertEquals("before", answer(reader, 2).path("result").path("content").path(0).path("text").asString());

        SharedGateway first = running.get();
        first.close();
        // The agent's next call, once the session has noticed: within the attach bound.
        long noticed = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!warnings.toString(StandardCharsets.UTF_8).contains("the shared gateway ended")
                && System.nanoTime() < noticed) {
            Thread.sleep(50);
        }
        writer.write(("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
                + "\"arguments\":{\"message\":\"after\"}}}\n").getBytes(StandardCharsets.UTF_8));
        JsonNode after = answer(reader, 3);
        assertEquals("after", after.path("result").path("content").path(0).path("text").asString(), after.toString());
        assertTrue(running.get() != first, "a new gateway was started");
        assertTrue(warnings.toString(StandardCharsets.UTF_8).contains("the shared gateway ended"), warnings.toString());
        assertEquals(List.of(), fellBack, warnings.toString(StandardCharsets.UTF_8));
        writer.close();
        carrying.join(TimeUnit.SECONDS.toMillis(20));
        assertFalse(carrying.isAlive());

        // With no gateway to be had, the session is served in this process, and says so.
        running.get().close();
        ByteArrayOutputStream alone = new ByteArrayOutputStream();
        LinePipe in2 = new LinePipe();
        LinePipe out2 = new LinePipe();
        McpHost host = McpHost.builder().home(home()).environment(Map.of("HOME", home().toString()))
                .workingDirectory(a).cache(false).clientSettings(Gateway.clientSettings()).build();
        open.add(host);
        host.load();
        Attachment lonely = Attachment.builder(temp.resolve("nowhere/gateway.sock"), a)
                .fallback(() -> {
                    Gateway gateway = Gateway.builder(host.manager()).build();
                    mcp.server.McpServer server = mcp.server.McpServer.builder("mcp-host", "test").handler(gateway)
                            .build();
                    gateway.attach(server);
                    return Attachment.inProcess(server, () -> {
                        server.close();
                        gateway.close();
                    });
                })
                .attachWait(Duration.ofMillis(300))
                .warnings(new PrintStream(alone, true, StandardCharsets.UTF_8)).build();
        Thread inProcess = new Thread(() -> lonely.run(in2.input(), out2.output()));
        inProcess.start();
        BufferedReader reader2 = new BufferedReader(new InputStreamReader(out2.input(), StandardCharsets.UTF_8));
        in2.output().write(("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}\n")
                .getBytes(StandardCharsets.UTF_8));
        JsonNode listed = answer(reader2, 2);
        assertEquals("echo", listed.path("result").path("tools").path(0).path("name").asString(), listed.toString());
        assertTrue(alone.toString(StandardCharsets.UTF_8).contains("serving this session in this process"));
        in2.output().close();
        inProcess.join(TimeUnit.SECONDS.toMillis(20));
        assertFalse(inProcess.isAlive());
    }

    @Test
    void aClientsRootsNameItsProjectWhenTheAgentStartedItElsewhere() throws Exception {
        config(home().resolve(".config/mcp-host/mcp.json"), "alpha");
        Path b = temp.resolve("b");
        config(b.resolve(".mcp-host/mcp.json"), "beta");
        Path elsewhere = Files.createDirectories(temp.resolve("elsewhere"));
        SharedGateway gateway = gateway(Set.of(b));
        gateway.start();

        // Started outside its project, an agent whose roots name b sees b's servers from its first list on.
        assertEquals(Set.of("alpha_echo", "beta_echo"), toolsThroughAttachment(gateway, elsewhere, b));
        // Started inside its root, it stays where it started (a sub-directory may be a project of its own).
        Path inside = Files.createDirectories(b.resolve("sub"));
        assertEquals(Set.of("echo"), toolsThroughAttachment(gateway, inside, b));
        // Roots that are no local directory change nothing.
        assertEquals(Set.of("echo"), toolsThroughAttachment(gateway, elsewhere, temp.resolve("missing")));
    }

    /** The echo tools a client lists through an attachment started in {@code start}, its one root being {@code root}. */
    private Set<String> toolsThroughAttachment(SharedGateway gateway, Path start, Path root) throws Exception {
        LinePipe toAttachment = new LinePipe();
        LinePipe fromAttachment = new LinePipe();
        Attachment attachment = Attachment.builder(gateway.socket(), start)
                .fallback(() -> {
                    throw new IllegalStateException("not in this test");
                })
                .warnings(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).build();
        Thread carrying = new Thread(() -> attachment.run(toAttachment.input(), fromAttachment.output()));
        carrying.start();
        OutputStream writer = toAttachment.output();
        writer.write(("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-11-25\",\"capabilities\":{\"roots\":{}},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}\n")
                .getBytes(StandardCharsets.UTF_8));
        BufferedReader reader = new BufferedReader(new InputStreamReader(fromAttachment.input(), StandardCharsets.UTF_8));
        JsonNode listed = CompletableFuture.supplyAsync(() -> {
            try {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    JsonNode message = McpJson.mapper().readTree(line);
                    if (message.path("method").asString("").equals("roots/list")) {
                        ObjectNode reply = McpJson.object().put("jsonrpc", "2.0");
                        reply.set("id", message.get("id"));
                        reply.putObject("result").putArray("roots").addObject().put("uri", root.toUri().toString());
                        writer.write((reply + "\n").getBytes(StandardCharsets.UTF_8));
                    } else if (message.path("id").asInt(-1) == 2 && !message.has("method")) {
                        return message;
                    }
                }
                return McpJson.object().put("ended", true);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }).orTimeout(60, TimeUnit.SECONDS).join();
        Set<String> names = new TreeSet<>();
        listed.path("result").path("tools").forEach(tool -> {
            if (tool.path("name").asString().endsWith("echo")) {
                names.add(tool.path("name").asString());
            }
        });
        writer.close();
        carrying.join(TimeUnit.SECONDS.toMillis(20));
        assertFalse(carrying.isAlive());
        return names;
    }

    private static JsonNode answer(BufferedReader reader, int id) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    JsonNode message = McpJson.mapper().readTree(line);
                    if (message.path("id").asInt(-1) == id && !message.has("method")) {
                        return message;
                    }
                }
                return McpJson.object().put("ended", true);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }).orTimeout(60, TimeUnit.SECONDS).join();
    }
}
